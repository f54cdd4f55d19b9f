"""The cost-aware drafting policy: each round, draft the length that pays on this hardware (docs/DESIGN.md §5).

transformers drafts a fixed length (prompt lookup, the "constant" schedule) or follows a heuristic that
never drafts fewer than one token. :class:`CostAwarePolicy` instead picks, before every round, the
draft length k with the most expected tokens per second:

    speed(k) = (1 + E(k)) / T(k),   E(k) = sum over i <= k of q_1 q_2 ... q_i,
    T(k) = verify(k) + draft(k),    verify(0) = step,  verify(k) = fixed + per_token k

where q_i is the recent acceptance of draft position i, counted separately per *state*, because acceptance comes in
runs: for prompt lookup the state is how long the copied match is (app/race/lookup.py: after a match of one token a
copy is rarely right, after ten it usually goes on; a position's prior is :func:`copy_prior` of the match grown by the
positions before it), for a drafting model the previous round's outcome. The
verification curve starts from the one timed before the race (:mod:`app.race.costs`) and is re-fitted on the race's
own rounds (:class:`_VerifyFit`); draft(k) is the measured drafting time. Plain decoding
is speed(0) = 1 / step. When no k beats it the policy drafts nothing, and probes again after a back-off
that doubles each time a probe fails. The target verifies whatever is drafted, so the output is the
target's own: the policy changes speed, never text.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.knobs import COST_AWARE
from .costs import VerifyCost, verify_cost
from .methods import get_method

log = logging.getLogger(__name__)
#: Exponential forgetting of old rounds (per observation of the same state).
DECAY = 0.9
FIRST_BACKOFF, MAX_BACKOFF = 4, 64
#: The back-off when even fully accepted drafts could not pay for their drafting time (a drafter as slow as the
#: target): probe again only this rarely, in case the estimate was wrong.
HOPELESS_BACKOFF = 256
#: How many rounds' worth of evidence a position's prior counts for.
PRIOR_WEIGHT = 1.0
#: A drafting model's position prior closes all but this share of the gap between the previous position's estimate
#: and 1: a draft that follows a kept one is usually kept too (acceptance comes in runs).
CARRY_GAP = 0.3
#: The match length after which a copied token is kept half the time: a copy after a match of L tokens is kept
#: with the prior L^2 / (L^2 + MATCH_HALF^2) (docs/DESIGN.md §5.12).
MATCH_HALF = 2.0
#: How many rounds' worth of evidence each of the calibrated verification curve's two points counts for.
PRIOR_POINTS = 0.5
#: A draft length must beat plain decoding by this factor (estimates are noisy; a tie is not worth drafting).
MARGIN = 1.02
#: A round's outcome, which a drafting model's next round is conditioned on (acceptance comes in runs).
STATES = ("full", "part", "miss")
#: Prompt lookup's states: the match length's bucket, named by its shortest length.
MATCH_BUCKETS = (1, 2, 3, 5, 9)


def match_state(length: int) -> str:
    """The state of a round whose copied match agrees over `length` tokens."""
    return f"match>={max(b for b in MATCH_BUCKETS if b <= max(length, 1))}"


def bucket_length(state: str) -> int | None:
    """The shortest match length of a prompt-lookup state's bucket; None for a drafting model's state."""
    return int(state.split(">=")[1]) if state.startswith("match>=") else None


def copy_prior(length: int) -> float:
    """The prior that a copied token is kept when the `length` tokens before it agree with the copy's source: a
    kept copy makes the match one token longer, so draft position i of a match of L tokens has the prior
    copy_prior(L + i - 1) (after one token 0.2, two 0.5, three 0.69, nine 0.95)."""
    return length * length / (length * length + MATCH_HALF * MATCH_HALF)


@dataclass
class _Acceptance:
    """Decayed counts of tested and accepted drafts per position, each position's estimate shrunk towards its prior
    with the weight of PRIOR_WEIGHT rounds, so that positions not yet tested borrow from the prior.
    match: for prompt lookup, the shortest match length of the state's bucket, and position i's prior is
    copy_prior(match + i - 1); else (a drafting model) the first position's prior is 0.5 and each next one closes
    all but CARRY_GAP of the gap between the previous position's estimate and 1, so that after fully accepted rounds
    longer drafts are trusted."""

    size: int
    match: int | None = None
    tested: list[float] = field(default_factory=list)
    accepted: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tested = [0.0] * self.size
        self.accepted = [0.0] * self.size

    def estimates(self) -> list[float]:
        out, prior = [], 0.5
        for i, (tested, accepted) in enumerate(zip(self.tested, self.accepted)):
            if self.match is not None:
                prior = copy_prior(self.match + i)
            q = (accepted + PRIOR_WEIGHT * prior) / (tested + PRIOR_WEIGHT)
            out.append(q)
            prior = 1.0 - (1.0 - q) * CARRY_GAP
        return out

    def observe(self, drafted: int, accepted: int) -> None:
        self.tested = [t * DECAY for t in self.tested]
        self.accepted = [a * DECAY for a in self.accepted]
        for i in range(min(drafted, accepted + 1, self.size)):  # positions up to the first rejection were tested
            self.tested[i] += 1.0
            self.accepted[i] += 1.0 if i < accepted else 0.0


def _decayed(sums: list[float], k: int, seconds: float) -> list[float]:
    """Least-squares sums (w, wk, wkk, ws, wks) with older rounds decayed by DECAY and this round added."""
    return [x * DECAY + y for x, y in zip(sums, (1.0, k, k * k, seconds, k * seconds))]


def _line(w: float, wk: float, wkk: float, ws: float, wks: float) -> tuple[float, float] | None:
    """(fixed, per_token) of the least-squares line seconds = fixed + per_token k; None when the ks seen cannot
    tell the two apart (one k only) or the line would be negative."""
    det = w * wkk - wk * wk
    if det <= 1e-9 * max(w * wkk, 1e-12):
        return None
    per_token = (w * wks - wk * ws) / det
    fixed = (ws - per_token * wk) / w
    return (fixed, per_token) if per_token >= 0 and fixed >= 0 else None


@dataclass
class _DraftCost:
    """Drafting seconds as fixed + per_token * k, fitted on recent rounds (decayed least squares)."""

    per_token: float
    fixed: float = 0.0
    sums: list[float] = field(default_factory=lambda: [0.0] * 5)  # w, wk, wkk, ws, wks

    def seconds(self, k: int) -> float:
        return 0.0 if k == 0 else self.fixed + self.per_token * k

    def observe(self, k: int, seconds: float) -> None:
        self.sums = _decayed(self.sums, k, seconds)
        line = _line(*self.sums)
        w, wk, wkk, ws, wks = self.sums
        self.fixed, self.per_token = line or (0.0, ws / max(wk, 1e-9))  # one k seen so far: all of it per token


@dataclass
class _VerifyFit:
    """Verification seconds of a round: `step` when it drafted nothing (following the race's own such rounds), else
    fixed + per_token * k, fitted on the race's drafting rounds (decayed least squares) around two points of the
    calibrated curve step (1 + slope k) at k = 1 and k = max_draft, which count PRIOR_POINTS rounds each and never
    decay. On a CPU verifying any draft costs about half a step more than a plain step (all positions' logits, the
    comparison, the cache cut: measured 40 ms plain, 60 ms for one draft, 72 ms for ten on SmolLM2-135M), which a
    one-token vs nine-token forward does not show; then long drafts are cheap next to short ones."""

    step: float
    slope: float
    max_draft: int
    sums: list[float] = field(default_factory=lambda: [0.0] * 5)  # the rounds' w, wk, wkk, ws, wks

    def __post_init__(self) -> None:
        self.fixed, self.per_token = self.step, self.step * self.slope
        self.prior = [0.0] * 5
        for k in (1, max(self.max_draft, 2)):
            self.prior = [p + PRIOR_POINTS * x for p, x in zip(self.prior, _decayed([0.0] * 5, k, self.seconds(k)))]

    def seconds(self, k: int) -> float:
        return self.step if k == 0 else self.fixed + self.per_token * k

    def observe(self, k: int, seconds: float) -> None:
        if k == 0:
            self.step = 0.8 * self.step + 0.2 * seconds
            return
        self.sums = _decayed(self.sums, k, seconds)
        w, wk, wkk, ws, wks = (a + b for a, b in zip(self.sums, self.prior))
        self.fixed, self.per_token = _line(w, wk, wkk, ws, wks) or (ws / w, 0.0)


class CostAwarePolicy:
    """Chooses each round's draft length (see the module docstring).

    max_draft: the most tokens a round may draft (the method's length knob). step_seconds / slope: the
    verification curve. draft_per_token: prior drafting seconds per token (prompt lookup: about 0).
    drafts_first: the drafts exist before the length is chosen (prompt lookup proposes, then the policy
    keeps a prefix); otherwise the length is chosen before drafting. plain: drafting cannot pay from the start,
    so the caller runs plain decoding instead.
    """

    def __init__(self, max_draft: int, step_seconds: float, slope: float, draft_per_token: float,
                 drafts_first: bool = False):
        self.max_draft = max(1, int(max_draft))
        self.verify = _VerifyFit(max(step_seconds, 1e-6), max(slope, 0.0), self.max_draft)
        self.drafts_first = drafts_first
        self.acceptance: dict[str, _Acceptance] = {}
        self.draft_cost = _DraftCost(per_token=draft_per_token)
        self.state = "part"
        self.skipped, self.backoff, self.probing = 0, FIRST_BACKOFF, False
        self.rounds_drafted = self.rounds_skipped = 0
        # Drafting nothing costs nothing (docs/DESIGN.md §5.12): `plain` runs decode without the assisted loop.
        # A drafting model's probe is not cheap: after skipped rounds it first reads every token it missed (UAD also
        # re-tokenises them; one probe in 96 tokens cost UAD 2-4 % here). So a model that cannot pay even with every
        # draft kept, or does not pay at the prior acceptance, decodes plainly; a caller that drafts anyway (the
        # sampling check) probes rarely.
        self.plain = self.hopeless() or (not drafts_first and self.best() == 0)
        if self.plain:
            self.backoff = MAX_BACKOFF

    # ----- the model ------------------------------------------------------------------------------
    def hopeless(self) -> bool:
        """Even if every draft were accepted, no draft length would beat plain decoding: drafting costs too much."""
        if self.drafts_first:
            return False
        return all((1 + k) / (self.verify.seconds(k) + self.draft_cost.seconds(k)) <= MARGIN / self.verify.step
                   for k in range(1, self.max_draft + 1))

    def best(self, available: int | None = None) -> int:
        """The k with the highest expected speed (0 when no draft beats plain decoding)."""
        top = min(self.max_draft, available) if available is not None else self.max_draft
        qs = self.estimates()
        best_k, best_speed, expected, run = 0, MARGIN / self.verify.step, 0.0, 1.0
        for k in range(1, top + 1):
            run *= qs[k - 1]
            expected += run
            speed = (1.0 + expected) / (self.verify.seconds(k) + self.draft_cost.seconds(k))
            if speed > best_speed * (1 + 1e-9):
                best_k, best_speed = k, speed
        return best_k

    def table(self) -> _Acceptance:
        """The acceptance counts of the current state (created with the state's prior when first seen)."""
        if self.state not in self.acceptance:
            self.acceptance[self.state] = _Acceptance(self.max_draft, bucket_length(self.state))
        return self.acceptance[self.state]

    def estimates(self) -> list[float]:
        return self.table().estimates()

    # ----- decisions --------------------------------------------------------------------------------
    def draft_length(self, available: int | None = None, match: int | None = None) -> int:
        """How many tokens to draft this round (`available`: how many the drafter already proposed; `match`: how
        long prompt lookup's match is, which then sets the state)."""
        if match is not None:
            self.state = match_state(match)
        if available == 0:
            return 0
        k = self.best(available)
        if k == 0:
            self.skipped += 1
            if self.skipped < self.backoff:
                self.rounds_skipped += 1
                return 0
            k = min(1 if not self.drafts_first else 2, available or self.max_draft, self.max_draft)  # a probe
            self.probing = True
        else:
            self.backoff = FIRST_BACKOFF  # drafting pays again: the next dry spell starts probing early
        self.skipped = 0
        self.rounds_drafted += 1
        return k

    def observe(self, drafted: int, accepted: int, draft_seconds: float, verify_seconds: float,
                first_round: bool = False) -> None:
        """Learn from a finished round (times in seconds; the first round's verify includes the prompt)."""
        if not first_round and verify_seconds > 0:
            self.verify.observe(drafted, verify_seconds)
        if drafted == 0:
            return
        if not self.drafts_first and self.rounds_drafted > 1:  # a drafter's first round also reads the whole prompt
            self.draft_cost.observe(drafted, draft_seconds)
        self.table().observe(drafted, accepted)
        if bucket_length(self.state) is None:  # a lookup's next state is its next match, set when it drafts
            self.state = "full" if accepted >= drafted else "part" if accepted > 0 else "miss"
        if self.probing:  # a probe that leaves drafting unpaid waits twice as long before the next one
            self.probing = False
            if self.hopeless():
                self.backoff = HOPELESS_BACKOFF
            else:
                self.backoff = FIRST_BACKOFF if self.best() > 0 else min(self.backoff * 2, MAX_BACKOFF)


def _measured_draft_share(setup: Any, cost: VerifyCost, threads: int | None) -> float | None:
    """One step of the drafting model as a share of a target step, timed like the verification curve (once per
    model, thread count and prompt length, then cached); None when it cannot be timed."""
    if not cost.tokens:  # the target's curve is a fallback guess: a share of it would be one too
        return None
    model = setup.assistant.model
    try:
        vocab = model.config.get_text_config().vocab_size
        step = verify_cost(model, setup.input_ids.clamp(max=vocab - 1), threads, key=setup.assistant.spec).step_seconds
    except Exception:  # noqa: BLE001 - fall back to the size ratio
        log.warning("could not time the drafter's step; the cost-aware policy starts from the size ratio", exc_info=True)
        return None
    return step / cost.step_seconds


def _draft_share_prior(setup: Any, cost: VerifyCost, threads: int | None) -> float:
    """A first guess of drafting seconds per token, as a share of a target step, before any round is seen: the
    layers an early exit runs, a drafting model's measured step, else twice its size ratio."""
    preset = setup.preset
    if get_method(preset.method).self_drafting:
        layers = setup.target.model.config.get_text_config().num_hidden_layers
        return preset.assistant_early_exit / max(layers, 1)
    if setup.assistant is not None:
        measured = _measured_draft_share(setup, cost, threads)
        if measured is not None:
            return measured
        if setup.target.n_params:
            return min(1.0, 2.0 * setup.assistant.n_params / setup.target.n_params)
    return 0.3


def calibrate(setup: Any, threads: int | None) -> VerifyCost | None:
    """The verification curve the cost-aware schedule starts from (measured once per model, thread count and
    prompt length, then cached); None when the race's schedule is not cost-aware."""
    if setup.args.draft_policy != COST_AWARE:
        return None
    try:
        return verify_cost(setup.target.model, setup.input_ids, threads, key=setup.target.spec)
    except Exception:  # noqa: BLE001 - a model whose plain forward cannot be timed: fall back to priors
        log.warning("could not time the verification curve; the cost-aware policy starts from priors", exc_info=True)
        return VerifyCost(step_seconds=0.05, slope=0.0 if str(setup.device).startswith("cuda") else 0.1, tokens=0)


def policy_factory(setup: Any, cost: VerifyCost | None, threads: int | None = None
                   ) -> Callable[[], CostAwarePolicy] | None:
    """A factory of fresh cost-aware policies (one per generate() call) starting from `cost`; None without one.
    threads: the drafting side's, for timing a drafting model's step."""
    if cost is None:
        return None
    lookup = get_method(setup.preset.method).drafts_from_prompt
    prior = 0.0 if lookup else _draft_share_prior(setup, cost, threads) * cost.step_seconds
    max_draft = setup.args.max_draft
    return lambda: CostAwarePolicy(max_draft, cost.step_seconds, cost.slope, prior, drafts_first=lookup)
