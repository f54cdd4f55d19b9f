"""The seed's own method on the real offline pair (Qwen2.5-Coder 1.5B drafted by 0.5B, PyPI part packages): greedy
assisted output equals plain output, and the lossy ensemble says so. Few tokens: speed belongs in benchmarks/."""

from __future__ import annotations

import math

import pytest

from app.core.loader import MODEL_CACHE
from app.core.parts import PART_SETS, installed
from app.core.presets import get_preset
from app.race.divergence import explain
from app.core.requests import RaceRequest
from app.race.lifecycle import RaceRun
from app.race.prepare import prepare
from tests.helpers import OPERATOR

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not all(installed(p) for p in PART_SETS.values()),
    reason="the pair's part packages are not installed (scripts/setup.sh installs them)")]

CODE_EDIT = ("Rename the function f to area and return the whole function:\n\n"
             "def f(width, height):\n    return width * height\n")


def offline_drafter():
    return get_preset("offline-drafter").with_overrides(dict(max_new_tokens=12))


@pytest.fixture(scope="module")
def drafter_setup():
    """The offline-drafter pair loaded once for this module (the converted cache makes it seconds after the first
    conversion), dropped afterwards so the rest of the suite keeps its memory."""
    yield prepare(offline_drafter(), CODE_EDIT, OPERATOR)
    MODEL_CACHE.clear()


@pytest.fixture(scope="module")
def race(drafter_setup) -> dict:
    """One race of the pair (its JSON), shared: its plain side is the target's own greedy choice."""
    return RaceRun(RaceRequest(offline_drafter(), CODE_EDIT, None, OPERATOR)).run().to_dict()  # on the loaded pair


@pytest.fixture(scope="module")
def prompt_logits(drafter_setup):
    """The target's logits over the prompt, one forward pass shared (a pass of the 1.5B costs seconds on a CPU)."""
    import torch

    with torch.no_grad():
        return drafter_setup.target.model(drafter_setup.input_ids).logits


def test_greedy_assisted_equals_plain_on_the_real_pair(race):
    result = race
    assert "errors" not in result, result.get("errors")
    assert result["identical"] is True, result.get("divergence")
    drafted = sum(r["drafted"] for r in result["assisted"]["rounds"])
    accepted = sum(r["accepted"] for r in result["assisted"]["rounds"])
    assert drafted > 0 and accepted > 0, "the 0.5B drafter never drafted or was never accepted"
    assert "qwen2.5-coder-1.5b" in result["target"] and "qwen2.5-coder-0.5b" in result["assistant"]


def test_the_target_head_computes_float32_logits(drafter_setup, prompt_logits):
    import torch

    assert prompt_logits.dtype == torch.float32  # no two candidates tie by bfloat16 rounding
    assert next(drafter_setup.target.model.model.parameters()).dtype == torch.bfloat16


def test_a_divergence_is_explained_with_the_targets_top_two(drafter_setup, race, prompt_logits):
    """As if the assisted side had taken the target's runner-up at the first token: explain()'s own pass must find
    the race's plain token first and the forged one second."""
    setup, plain = drafter_setup, race["baseline"]["token_ids"]
    second = next(i for i in prompt_logits[0, -1].topk(2).indices.tolist() if i != plain[0])
    forged = [second, *plain[1:]]
    with setup.tokenizers.borrow() as tok:
        d = explain(setup.target.model, tok, setup.input_ids, plain, forged, 0)
    assert d["plain"]["id"] == plain[0] and d["assisted"]["id"] == second
    assert [t["id"] for t in d["top_two"]] == [plain[0], second] and d["plain"]["p"] >= d["assisted"]["p"]
    assert d["near_tie"] == (math.log(d["plain"]["p"] / d["assisted"]["p"]) < 0.25)
    assert ("near-tie" in d["explanation"]) if d["near_tie"] else ("real loss" in d["explanation"])
