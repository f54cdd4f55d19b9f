"""Shared fixtures: tiny random models (built once per session), preset helpers and the built page."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiny_models
from app.core.presets import Preset
from app.core.loader import LoadOptions
from app.core.requests import Limits

ROOT = Path(__file__).resolve().parents[1]
#: The command line's limits (local folders allowed: the tiny test models live in temporary folders).
OPERATOR = Limits.operator()
#: Load options that accept the tiny models' folders.
LOCAL = LoadOptions(allow_local=True)


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> dict[str, str]:
    """Folders of every tiny model (see tests/tiny_models.py), built once per session."""
    return tiny_models.build_all(tmp_path_factory.mktemp("tiny_models"))


def make_preset(method: str, target: str, assistant: str | None = None, **fields) -> Preset:
    """A validated preset for tests (greedy, 24 new tokens unless overridden)."""
    base = Preset(id=f"test-{method}", method=method, title="test", description="test", target=target,
                  assistant=assistant, max_new_tokens=24)
    return base.with_overrides(fields)


@pytest.fixture(scope="session")
def preset_factory():
    return make_preset


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models and timing are steadier on one intra-op thread when another process shares the CPU."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="session")
def built():
    """The whole page (an App) built once with default settings; building must not load a model."""
    from app.core.loader import MODEL_CACHE
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    loads_before = MODEL_CACHE.load_count
    app = build_app(UIConfig())
    assert MODEL_CACHE.load_count == loads_before, "building the page loaded a model"
    return app


def by_elem_id(demo, elem_id: str):
    """The one block of `demo` (a gr.Blocks or an App) with this elem_id."""
    demo = getattr(demo, "demo", demo)
    hits = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    assert len(hits) == 1, f"expected one block with elem_id {elem_id!r}, found {len(hits)}"
    return hits[0]
