"""The cost-aware drafting policy's decisions (pure logic, no model): it drafts long where drafts are kept and
cheap, drafts nothing where drafting cannot pay, probes again after a back-off, and learns the costs it sees."""

from __future__ import annotations

import pytest

from app.race.drafting import HOPELESS_BACKOFF, MAX_BACKOFF, CostAwarePolicy, copy_prior

STEP = 0.05


def run_rounds(policy: CostAwarePolicy, accept, rounds: int, draft_per_token: float = 0.0) -> list[int]:
    """Drive the policy: accept(k) -> drafts accepted of k. Returns the draft lengths it chose."""
    chosen = []
    for _ in range(rounds):
        k = policy.draft_length()
        chosen.append(k)
        n = accept(k) if k else 0
        policy.observe(k, n, draft_per_token * k, STEP * (1 + policy.verify.slope * k))
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


# ----- ready for a GPU: the length that maximises tokens per second, on flat and steep cost curves -----------------

def true_speed(k: int, q: float, slope: float, draft_share: float) -> float:
    """Expected tokens per step-second of drafting k tokens when each position is kept with probability q."""
    return (1 + sum(q ** i for i in range(1, k + 1))) / (1 + slope * k + draft_share * k)


@pytest.mark.parametrize("slope", [0.0, 0.01, 0.12], ids=["flat (GPU)", "nearly flat", "steep (CPU)"])
@pytest.mark.parametrize("draft_share", [0.0, 0.05], ids=["lookup", "small drafter"])
@pytest.mark.parametrize("q", [0.6, 0.8, 0.95])
def test_it_settles_on_the_length_with_the_most_tokens_per_second(slope, draft_share, q):
    import random

    rng = random.Random(7)
    policy = CostAwarePolicy(max_draft=12, step_seconds=STEP, slope=slope, draft_per_token=draft_share * STEP)
    policy.rounds_drafted = 2  # fit draft costs from the first round on

    def accept(k: int) -> int:
        n = 0
        while n < k and rng.random() < q:
            n += 1
        return n

    chosen = run_rounds(policy, accept, 400, draft_per_token=draft_share * STEP)
    best = max(range(13), key=lambda k: true_speed(k, q, slope, draft_share))
    settled = sorted(chosen[200:])[100]  # the median choice once it has learned
    assert true_speed(settled, q, slope, draft_share) >= 0.95 * true_speed(best, q, slope, draft_share), (
        f"chose {settled}, best {best}")
    if slope == 0.0 and draft_share == 0.0:
        assert settled == 12, "free verification and free drafts: draft as long as allowed"


def test_a_long_lookup_match_is_drafted_long_from_the_first_round():
    for slope, least in ((0.0, 10), (0.12, 8)):  # a nine-token match's prior: 0.9 per position
        policy = CostAwarePolicy(max_draft=10, step_seconds=STEP, slope=slope, draft_per_token=0.0, drafts_first=True)
        assert policy.draft_length(available=10, match=12) >= least


def test_lookup_acceptance_is_learned_per_match_length():
    policy = CostAwarePolicy(max_draft=10, step_seconds=STEP, slope=0.12, draft_per_token=0.0, drafts_first=True)
    for _ in range(40):  # short matches are never right, long ones always are
        for match, accept in ((1, lambda k: 0), (9, lambda k: k)):
            k = policy.draft_length(available=10, match=match)
            policy.observe(k, accept(k), 0.0, STEP * (1 + 0.12 * k))
    assert policy.draft_length(available=10, match=9) == 10
    assert policy.draft_length(available=10, match=1) == 0


def test_chance_matches_on_open_text_are_not_drafted_long():
    """Text that copies nothing still finds chance matches, mostly of one token, some of two. On a CPU-like curve (a
    drafting round costs 1.45 plain steps plus 0.03 a token) their drafts are lost, so the schedule must not bet
    ten-token drafts on them while it learns (a prior that trusts the deeper positions whenever the first might hold
    drafted 138 tokens here)."""
    policy = CostAwarePolicy(max_draft=10, step_seconds=STEP, slope=0.03, draft_per_token=0.0, drafts_first=True)
    drafted = 0
    for i in range(60):
        k = policy.draft_length(available=10, match=(1, 1, 2, 1, 1)[i % 5])
        drafted += k
        policy.observe(k, 0, 0.0, STEP * (1.45 + 0.03 * k) if k else STEP)
    assert drafted <= 60, drafted


def test_draft_positions_of_a_lookup_match_follow_the_growing_match():
    """A kept copy makes the match one token longer, so position i of an L-token match starts from the prior of an
    (L + i - 1)-token match: low after a chance one-token match, high after a long one."""
    policy = CostAwarePolicy(max_draft=6, step_seconds=STEP, slope=0.05, draft_per_token=0.0, drafts_first=True)
    policy.draft_length(available=6, match=1)
    short = policy.estimates()
    assert short[0] == pytest.approx(copy_prior(1)) and short[1] == pytest.approx(copy_prior(2))
    assert short == sorted(short) and short[0] < 0.25
    policy.draft_length(available=6, match=9)
    assert min(policy.estimates()) > 0.9


def test_a_drafting_model_not_expected_to_pay_decodes_plainly():
    """A probe of a drafting model first reads every token it missed: one that does not pay at the prior acceptance
    decodes plainly (and, driven anyway, waits MAX_BACKOFF rounds before its first probe); prompt lookup (no
    catch-up) keeps probing early."""
    model = CostAwarePolicy(max_draft=5, step_seconds=STEP, slope=0.1, draft_per_token=0.6 * STEP)
    assert not model.hopeless() and model.best() == 0  # fully kept drafts would pay, half-kept ones do not
    assert model.plain
    assert sum(k > 0 for k in run_rounds(model, lambda k: 0, MAX_BACKOFF - 1, draft_per_token=0.6 * STEP)) == 0
    cheap = CostAwarePolicy(max_draft=5, step_seconds=STEP, slope=0.1, draft_per_token=0.1 * STEP)
    assert not cheap.plain and cheap.best() > 0
    lookup = CostAwarePolicy(max_draft=5, step_seconds=STEP, slope=1.0, draft_per_token=0.0, drafts_first=True)
    assert not lookup.plain
    chosen = [lookup.draft_length(available=5, match=1) for _ in range(12)]
    assert any(chosen), "lookup probes within a few rounds"
