"""Why a race came out as it did, from the finished race alone: measured costs, the break-even acceptance, and a
verdict saying what happened and what to try (docs/DESIGN.md §5.13).
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from ..core.theory import best_gamma, break_even_acceptance, per_token_alpha
from .methods import METHODS


@dataclass
class Why:
    """step_seconds: one target decode step; cost_ratio: c; verify_slope: extra step share per verified draft;
    gamma: mean draft length of the rounds that drafted; alpha: per-token acceptance (sum n / tested);
    break_even_acceptance: the acceptance rate (accepted / drafted) above which drafting gamma tokens a round
    beats plain decoding here (None: no acceptance can); *_seconds: where the assisted time went."""

    step_seconds: float | None
    cost_ratio: float | None
    verify_slope: float | None
    gamma: float | None
    alpha: float | None
    acceptance_rate: float | None
    break_even_acceptance: float | None
    draft_seconds: float
    verify_seconds: float
    other_seconds: float
    best_constant_gamma: int | None
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def step_seconds(baseline_times: Sequence[float], rounds: Sequence[Any]) -> float | None:
    """One target decode step: the median gap between baseline tokens after the first (the first includes the
    prompt), else the median verification of rounds that drafted nothing."""
    gaps = [b - a for a, b in zip(baseline_times[1:], baseline_times[2:]) if b > a]
    if len(gaps) >= 2:
        return statistics.median(gaps)
    plain = [r.verify_seconds for r in rounds[1:] if r.drafted == 0 and r.verify_seconds > 0]
    return statistics.median(plain) if plain else None


def rounds_verify_slope(rounds: Sequence[Any], step: float) -> float | None:
    """Extra share of a step per verified draft, read from a race's rounds: their verify seconds fitted on k (the first
    round, which includes the prompt, left out). The planner's timed slope is app.planner.timing.timed_verify_slope."""
    pts = [(r.drafted, r.verify_seconds) for r in rounds[1:] if r.verify_seconds > 0]
    if not any(k > 0 for k, _ in pts):
        return None
    ks = {k for k, _ in pts}
    if len(ks) == 1:
        k, v = pts[0][0], statistics.mean(v for _, v in pts)
        return max(0.0, (v / step - 1.0) / k)
    mk, mv = statistics.mean(k for k, _ in pts), statistics.mean(v for _, v in pts)
    b = sum((k - mk) * (v - mv) for k, v in pts) / sum((k - mk) ** 2 for k, _ in pts)
    a = mv - b * mk
    return max(0.0, b / a) if a > 0 else max(0.0, b / step)


def explain_race(result: Any, knobs: dict[str, Any], verify: Any = None) -> Why:
    """The explanation of a finished race (an app.race.result.RaceResult; knobs: the method knobs it ran with;
    verify: the race's measured verification curve (app.race.costs.VerifyCost), whose slope, timed in
    isolation, is steadier than a fit on the race's own rounds; without it the rounds are fitted)."""
    a = result.assisted
    rounds, drafting = a.rounds, [r for r in a.rounds if r.drafted]
    draft_s, verify_s = sum(r.draft_seconds for r in rounds), sum(r.verify_seconds for r in rounds)
    step = step_seconds(result.baseline.token_times, rounds)
    drafted = sum(r.drafted for r in drafting)
    c = (sum(r.draft_seconds for r in drafting) / drafted / step) if drafted and step else None
    slope = verify.slope if verify is not None and drafting else (rounds_verify_slope(rounds, step) if step else None)
    gamma = drafted / len(drafting) if drafting else None
    be = break_even_acceptance(max(1, round(gamma)), c + slope) if gamma and c is not None and slope is not None else None
    alpha = per_token_alpha(rounds)
    best = None
    if alpha is not None and c is not None and slope is not None and alpha > c + slope:
        best = best_gamma(min(alpha, 0.999), c + slope)[0]
    why = Why(step, c, slope, gamma, alpha, a.acceptance_rate, be, draft_s, verify_s,
              max(0.0, a.seconds - draft_s - verify_s), best, "")
    why.verdict = f"{_what_happened(result, why)}. {_advice(result, why)}"  # what happened, then what to try
    return why


def _what_happened(result: Any, why: Why) -> str:
    a = result.assisted
    drafted = sum(r.drafted for r in a.rounds)
    if not drafted and _schedule_skipped_all(a):
        return ("No round drafted anything: the cost-aware schedule judged that no draft length pays on this "
                "hardware, so the assisted side decoded plainly")
    if not drafted:
        return "No round drafted anything"
    accepted = sum(r.accepted for r in a.rounds)
    text = f"Drafts were accepted {why.acceptance_rate:.0%} ({accepted} of {drafted})"
    title = METHODS[result.method].title.lower() if result.method in METHODS else result.method
    if why.break_even_acceptance is not None and why.gamma and why.break_even_acceptance < 0.005:
        text += (f"; here drafting with {title} costs next to nothing, so any accepted draft pays (the cost is "
                 "verifying the drafts)")
    elif why.break_even_acceptance is not None and why.gamma:
        text += (f"; here {title} pays off above {why.break_even_acceptance:.0%} at "
                 f"{why.gamma:.0f} draft{'s' if round(why.gamma) != 1 else ''} a round")
    elif why.cost_ratio is not None and why.verify_slope is not None:
        text += (f"; here each drafted token costs {why.cost_ratio + why.verify_slope:.2f} of a target step, "
                 "so no acceptance can pay it back")
    return text


def _schedule_skipped_all(a: Any) -> bool:
    """The cost-aware schedule chose to draft nothing in every round (not a lookup that found nothing to copy)."""
    return a.draft_policy == "cost-aware" and bool(a.rounds) and a.skipped_rounds >= len(a.rounds)


def _drafting_paid(why: Why) -> bool:
    """The rounds' acceptance cleared the break-even (drafting itself paid for its cost here)."""
    return why.acceptance_rate is not None and why.break_even_acceptance is not None and \
        why.acceptance_rate >= why.break_even_acceptance


def _advice(result: Any, why: Why) -> str:
    """What to try (or why nothing needs trying), as one clause."""
    shared_cpu = result.mode == "concurrent" and not str(result.device).startswith("cuda")
    if _schedule_skipped_all(result.assisted):
        return (f"Both sides decoded plainly, so {result.speedup:.2f}\u00d7 is the machine's own variation. A draft "
                "costs too much of a target step here to pay even when kept: a smaller drafter or a GPU changes that; "
                "the constant schedule shows the mechanism at its real cost.")
    if result.speedup >= 1.05 and not result.errors:
        where = "faster" if result.mode == "sequential" else "faster in this concurrent race"
        return f"It paid: {result.speedup:.2f}\u00d7 {where}."
    if _drafting_paid(why):
        if shared_cpu:
            return ("Drafting pays at this acceptance, but this concurrent race shares the CPU between the two sides: "
                    "race in the fair mode for the real figure.")
        return (f"Drafting itself paid; the rest of each round (other: {why.other_seconds:.2f} s) ate the gain: more "
                "tokens per round, or a GPU, shift the balance.")
    if why.break_even_acceptance is None and why.cost_ratio is not None:
        return "Drafting costs nearly a full target step here: use a much smaller drafter, or prompt lookup."

    lookup = result.method in METHODS and METHODS[result.method].drafts_from_prompt
    if lookup:
        tip = ("This answer does not copy the prompt: prompt lookup pays on answers that reuse the prompt's words "
               "(a code edit, a typo fix, a quoting summary).")
    else:
        tip = "The drafter often disagrees with the target: try a drafter of the same family."
    if why.best_constant_gamma and why.gamma and why.best_constant_gamma < why.gamma:
        n = why.best_constant_gamma
        tip += (f" At this acceptance the theory's best constant length is {n} {'copied' if lookup else 'draft'} "
                f"token{'s' if n > 1 else ''} a round.")
    a = result.assisted
    drafted = sum(1 for r in a.rounds if r.drafted)
    if a.draft_policy == "cost-aware" and drafted < len(a.rounds):
        tip += f" The cost-aware schedule drafted in only {drafted} of {len(a.rounds)} rounds, which kept the loss small."
    return tip
