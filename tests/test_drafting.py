"""The cost-aware drafting policy's decisions (pure logic, no model): it drafts long where drafts are kept and
cheap, drafts nothing where drafting cannot pay, probes again after a back-off, and learns the costs it sees."""

from __future__ import annotations

import pytest

from app.race.drafting import HOPELESS_BACKOFF, MAX_BACKOFF, CostAwarePolicy

STEP = 0.05


def run_rounds(policy: CostAwarePolicy, accept, rounds: int, draft_per_token: float = 0.0) -> list[int]:
    """Drive the policy: accept(k) -> drafts accepted of k. Returns the draft lengths it chose."""
    chosen = []
    for _ in range(rounds):
        k = policy.draft_length()
        chosen.append(k)
        n = accept(k) if k else 0
        policy.observe(k, n, draft_per_token * k, STEP * (1 + policy.slope * k))
    return chosen


def test_drafts_grow_to_the_maximum_when_every_draft_is_kept():
    policy = CostAwarePolicy(max_draft=10, step_seconds=STEP, slope=0.05, draft_per_token=0.0)
    chosen = run_rounds(policy, lambda k: k, 12)
    assert chosen[-1] == 10 and chosen == sorted(chosen), chosen


def test_nothing_is_drafted_when_drafts_are_always_rejected_but_probes_continue():
    policy = CostAwarePolicy(max_draft=10, step_seconds=STEP, slope=0.1, draft_per_token=0.0)
    chosen = run_rounds(policy, lambda k: 0, 200)
    probes = [k for k in chosen[20:] if k]
    assert sum(probes) < 0.1 * len(chosen[20:])  # almost every round after the first misses drafts nothing
    assert probes, "it must keep probing now and then"
    assert policy.backoff == MAX_BACKOFF and policy.rounds_skipped > 150


def test_a_drafter_as_slow_as_the_target_never_pays():
    policy = CostAwarePolicy(max_draft=8, step_seconds=STEP, slope=0.05, draft_per_token=STEP)
    assert policy.best() == 0 and policy.hopeless()  # not even fully accepted drafts would pay
    chosen = run_rounds(policy, lambda k: k, 300, draft_per_token=STEP)
    assert sum(k > 0 for k in chosen) <= 3, "probes must be rare once drafting is known not to pay"


def test_an_expensive_probe_is_not_repeated_often():
    policy = CostAwarePolicy(max_draft=8, step_seconds=STEP, slope=0.05, draft_per_token=0.2 * STEP)
    assert not policy.hopeless()  # the prior says drafting might pay
    chosen = run_rounds(policy, lambda k: k, 120, draft_per_token=1.5 * STEP)  # the drafter is really slow
    assert sum(k > 0 for k in chosen) <= 6 and policy.backoff == HOPELESS_BACKOFF


def test_free_drafts_on_a_gpu_like_curve_draft_long():
    policy = CostAwarePolicy(max_draft=8, step_seconds=STEP, slope=0.0, draft_per_token=0.0)
    run_rounds(policy, lambda k: max(0, k - 1), 30)  # the last draft of each round is rejected
    assert policy.best() >= 4


def test_acceptance_is_learned_per_position_and_state():
    policy = CostAwarePolicy(max_draft=6, step_seconds=STEP, slope=0.1, draft_per_token=0.0)
    run_rounds(policy, lambda k: min(k, 2), 60)  # positions 1-2 always kept, 3+ always rejected
    q = policy.acceptance[policy.state].estimates()
    assert q[0] > 0.8 and q[1] > 0.8 and q[2] < 0.35
    assert policy.best() in (2, 3)


def test_lookup_keeps_a_prefix_of_the_proposal():
    policy = CostAwarePolicy(max_draft=10, step_seconds=STEP, slope=0.05, draft_per_token=0.0, drafts_first=True)
    assert policy.draft_length(available=0) == 0
    assert 1 <= policy.draft_length(available=3) <= 3


def test_draft_costs_are_fitted_from_the_rounds():
    policy = CostAwarePolicy(max_draft=6, step_seconds=STEP, slope=0.0, draft_per_token=0.0)
    policy.rounds_drafted = 2  # past the first drafting round, whose time also covers reading the prompt
    for k in (1, 2, 3, 4, 1, 2, 3, 4):
        policy.observe(k, k, 0.01 + 0.02 * k, STEP)
    assert policy.draft_cost.per_token == pytest.approx(0.02, rel=0.05)
    assert policy.draft_cost.fixed == pytest.approx(0.01, rel=0.1)
