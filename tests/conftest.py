"""Shared fixtures: tiny random models (built once per session) and preset helpers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tiny_models  # noqa: E402

from app.engine.presets import Preset  # noqa: E402


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> dict[str, str]:
    """Folders of every tiny model (see tests/tiny_models.py), built once per session."""
    return tiny_models.build_all(tmp_path_factory.mktemp("tiny_models"))


def make_preset(method: str, target: str, assistant: str | None = None, **fields) -> Preset:
    """A validated preset for tests (greedy, 24 new tokens unless overridden)."""
    base = Preset(id=f"test-{method}", method=method, title="test", description="test", target=target,
                  assistant=assistant, max_new_tokens=24)
    return base.with_overrides(**fields) if fields else base.with_overrides()


@pytest.fixture(scope="session")
def preset_factory():
    return make_preset
