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
    """The whole page built once with default settings; building must not load a model."""
    from app.engine.loader import MODEL_CACHE
    from app.ui.config import UIConfig
    from app.ui.layout import build_demo

    loads_before = MODEL_CACHE.load_count
    demo = build_demo(UIConfig())
    assert MODEL_CACHE.load_count == loads_before, "building the page loaded a model"
    return demo


def by_elem_id(demo, elem_id: str):
    """The one block of `demo` with this elem_id."""
    hits = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    assert len(hits) == 1, f"expected one block with elem_id {elem_id!r}, found {len(hits)}"
    return hits[0]
