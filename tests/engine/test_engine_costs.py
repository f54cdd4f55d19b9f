"""app/engine/costs.py: a round's cost in plain steps, from the engine's own timings, against the tokens it kept."""

from __future__ import annotations

from app.engine.costs import round_costs


def reported(plain_ms: float, assisted_ms: float, drafted: int, accepted: int, n: int = 48) -> dict:
    return {"baseline": {"predicted_ms": plain_ms, "predicted_n": n, "draft_n": 0, "draft_n_accepted": 0},
            "assisted": {"predicted_ms": assisted_ms, "predicted_n": n, "draft_n": drafted, "draft_n_accepted": accepted}}


def test_a_round_that_keeps_more_than_it_costs_pays():
    costs = round_costs(reported(plain_ms=4800, assisted_ms=2400, drafted=40, accepted=32))
    assert costs["rounds"] == 16 and costs["tokens_per_round"] == 3.0  # 48 tokens in 48 - 32 rounds
    assert costs["plain_step_ms"] == 100 and costs["round_ms"] == 150 and costs["round_in_plain_steps"] == 1.5
    assert costs["pays"] is True and "drafting pays" in costs["sentence"]


def test_a_round_that_costs_more_than_it_keeps_loses():
    # llama.cpp's draft-simple on two cores: rounds of 4 drafts cost about 4 plain steps and keep about 3 tokens
    costs = round_costs(reported(plain_ms=48 * 40, assisted_ms=16 * 160, drafted=64, accepted=32))
    assert costs["round_in_plain_steps"] == 4.0 and costs["tokens_per_round"] == 3.0
    assert costs["pays"] is False and "drafting loses" in costs["sentence"]


def test_nothing_to_say_without_timings_or_drafts():
    assert round_costs({}) is None
    assert round_costs(reported(plain_ms=4800, assisted_ms=2400, drafted=0, accepted=0)) is None
    assert round_costs({"baseline": {"predicted_ms": "x"}, "assisted": {}}) is None
