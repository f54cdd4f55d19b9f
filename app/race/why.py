"""Why a race came out as it did, from the finished race alone: measured costs, the break-even acceptance, and a
verdict saying what happened and what to try (docs/DESIGN.md §5.13).
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Sequence

from ..core.theory import best_gamma, break_even_acceptance, per_token_alpha
from ..core.words import join, msg
from .methods import METHODS


@dataclass
class Why:
    """step_seconds: one target decode step; cost_ratio: c; verify_slope: extra step share per verified draft;
    gamma: mean draft length of the rounds that drafted; alpha: per-token acceptance (sum n / tested);
    break_even_acceptance: the acceptance rate (accepted / drafted) above which drafting gamma tokens a round
    beats plain decoding here (None: no acceptance can); *_seconds: where the assisted time went; verdict: the
    explanation in words (its sentences in ``sentences``, each translated on its own), which says what the race's one
    verdict (app/race/verdict.py) says; kind: that verdict's kind, repeated; claims: what the words claim, one code
    each (:data:`CLAIMS`), so a test can check every claim against the race's figures."""

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
    kind: str | None = None
    sentences: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)

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


#: What the explanation's words can claim (``Why.claims``), one code per sentence or clause.
CLAIMS = ("nothing-drafted", "skipped-all", "accepted", "free", "pays-above", "cannot-pay", "win", "level", "loss",
          "unmeasured", "decoded-plainly", "verify-over-plain", "draft-verify-over-plain", "other-ate-gain",
          "costs-full-step", "verify-costs", "copies", "copies-little", "drafter-disagrees", "drafter-agrees", "best-gamma",
          "cost-aware-few")
#: Below this share of the answer's tokens taken from accepted drafts, prompt lookup's answer "copies little".
COPY_SHARE = 0.2
#: Below this acceptance rate a drafter "often disagrees" with the target.
AGREE = 0.5


def explain_race(result: Any, knobs: dict[str, Any], verify: Any = None) -> Why:
    """The explanation of a finished race (an app.race.result.RaceResult; knobs: the method knobs it ran with;
    verify: the race's measured verification curve (app.race.costs.VerifyCost), whose slope, timed in
    isolation, is steadier than a fit on the race's own rounds; without it the rounds are fitted). Judges the race
    once (app/race/verdict.py) and fixes that verdict on `result`; the words say what it says."""
    from .verdict import judge

    why = explain_numbers(result, verify)
    verdict = judge(result, why)
    result.settle(verdict)
    why.kind = verdict.kind
    said = Said()
    _what_happened(result, why, said)
    _advice(result, why, verdict, said)
    why.sentences, why.claims = said.sentences, said.claims
    why.verdict = join(said.sentences)
    return why


def reworded(result: Any) -> None:
    """A race read back from a file (a trace, a gallery race) gets its words back as messages, so a page in another
    language translates them (a file keeps plain English, docs/DESIGN.md §4.10): its verdict's reason and the
    sentences of its explanation as this code writes them for the saved figures and verdict, each taken where its
    English is in the saved text word for word; the rest of the text (an older file's wording) stays as saved."""
    from .verdict import judge

    saved, why = result.verdict, result.why
    again = judge(result, why)
    if saved.reason and str(again.reason) == saved.reason:
        result.settle(replace(saved, reason=again.reason))
    if why is None or not why.verdict:
        return
    said = Said()
    _rounds_sentence(result, why, said)
    _advice(result, why, result.verdict, said)
    if join(said.sentences) == why.verdict:
        why.sentences, why.verdict = said.sentences, join(said.sentences)
        return
    parts, rest = [], why.verdict
    for sentence in said.sentences:
        at = rest.find(sentence)
        if at >= 0:
            parts += [rest[:at], sentence]
            rest = rest[at + len(sentence):]
    why.verdict = join([part for part in (*parts, rest) if part], "")


def explain_numbers(result: Any, verify: Any = None) -> Why:
    """The explanation's figures (docs/DESIGN.md §5.13), without words yet."""
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
    return Why(step, c, slope, gamma, alpha, a.acceptance_rate, be, draft_s, verify_s,
               max(0.0, a.seconds - draft_s - verify_s), best, "")


@dataclass
class Said:
    """The explanation as it is written: whole sentences (each translated on its own on the page) and the claims they
    make (:data:`CLAIMS`)."""

    sentences: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)

    def add(self, sentence: str, *claims: str) -> None:
        self.sentences.append(sentence)
        self.claims.extend(claims)


def _title(result: Any) -> str:
    return METHODS[result.method].title.lower() if result.method in METHODS else result.method


def _what_happened(result: Any, why: Why, said: Said | None = None) -> str:
    """What the race's rounds did: the first sentence of the explanation (added to `said`, and returned)."""
    said = said if said is not None else Said()
    _rounds_sentence(result, why, said)
    return said.sentences[-1]


def _rounds_sentence(result: Any, why: Why, said: Said) -> None:
    a = result.assisted
    drafted = sum(r.drafted for r in a.rounds)
    if not drafted and _schedule_skipped_all(a):
        said.add(msg("No round drafted anything: the cost-aware schedule judged that no draft length pays on this hardware, "
                     "so the assisted side decoded plainly."), "nothing-drafted", "skipped-all")
        return
    if not drafted:
        said.add(msg("No round drafted anything."), "nothing-drafted")
        return
    accepted = sum(r.accepted for r in a.rounds)
    title = _title(result)
    counts = {"acceptance_rate": f"{why.acceptance_rate:.0%}", "accepted": accepted, "drafted": drafted}
    if why.break_even_acceptance is not None and why.gamma and why.break_even_acceptance < 0.005:
        said.add(msg("Drafts were accepted {acceptance_rate} ({accepted} of {drafted}); here drafting with {title} costs next "
                     "to nothing, so any accepted draft pays (the cost is verifying the drafts).", **counts, title=title),
                 "accepted", "free")
    elif why.break_even_acceptance is not None and why.gamma:
        above = {**counts, "title": title, "break_even_acceptance": f"{why.break_even_acceptance:.0%}",
                 "gamma": f"{why.gamma:.0f}"}
        if round(why.gamma) != 1:
            said.add(msg("Drafts were accepted {acceptance_rate} ({accepted} of {drafted}); here {title} pays off above "
                         "{break_even_acceptance} at {gamma} drafts a round.", **above), "accepted", "pays-above")
        else:
            said.add(msg("Drafts were accepted {acceptance_rate} ({accepted} of {drafted}); here {title} pays off above "
                         "{break_even_acceptance} at {gamma} draft a round.", **above), "accepted", "pays-above")
    elif why.cost_ratio is not None and why.verify_slope is not None:
        said.add(msg("Drafts were accepted {acceptance_rate} ({accepted} of {drafted}); here each drafted token costs "
                     "{cost_ratio} of a target step, so no acceptance can pay it back.", **counts,
                     cost_ratio=f"{why.cost_ratio + why.verify_slope:.2f}"), "accepted", "cannot-pay")
    else:
        said.add(msg("Drafts were accepted {acceptance_rate} ({accepted} of {drafted}).", **counts), "accepted")


def _schedule_skipped_all(a: Any) -> bool:
    """The cost-aware schedule chose to draft nothing in every round (not a lookup that found nothing to copy)."""
    return a.draft_policy == "cost-aware" and bool(a.rounds) and a.skipped_rounds >= len(a.rounds)


def _advice(result: Any, why: Why, verdict: Any, said: Said) -> None:
    """What the verdict is, then why the numbers came out so and what to try (only for a measurement: the numbers of
    a race that is none explain nothing)."""
    if verdict.kind == "unmeasured":
        said.add(msg("Not a measurement: {reason}.", reason=verdict.reason), "unmeasured")
        return
    if _schedule_skipped_all(result.assisted):
        said.add(msg("Both sides decoded plainly, so {speedup}\u00d7 is the machine's own variation.",
                     speedup=f"{result.speedup:.2f}"),
                 "decoded-plainly", verdict.kind)
        said.add(msg("A draft costs too much of a target step here to pay even when kept: a smaller drafter or a GPU changes "
                     "that; the constant schedule shows the mechanism at its real cost."))
        return
    if verdict.kind == "win":
        said.add(msg("It paid: {speedup}\u00d7 faster.", speedup=f"{result.speedup:.2f}"), "win")
        return
    if verdict.kind == "level":
        said.add(msg("Level with plain: {reason}.", reason=verdict.reason), "level")
    else:
        said.add(msg("It did not pay: {speedup}\u00d7 plain's speed.", speedup=f"{result.speedup:.2f}"), "loss")
    if not any(r.drafted for r in result.assisted.rounds):
        return
    if verdict.drafting == "paid":
        _where_the_time_went(result, why, said)
    elif verdict.drafting == "cannot-pay":
        _what_costs(result, why, said)
    else:
        _what_to_try(result, why, said)


def _where_the_time_went(result: Any, why: Why, said: Said) -> None:
    """Acceptance cleared the break-even, yet the race did not win: what the time split says ate the gain."""
    plain, draft, verify = result.baseline.seconds, why.draft_seconds, why.verify_seconds
    if verify >= plain:
        said.add(msg("Verifying the drafts alone took {verify} s, longer than the whole plain run ({plain} s): fewer draft "
                     "tokens a round, or a GPU, make verifying cheaper.", verify=f"{verify:.2f}",
                     plain=f"{plain:.2f}"), "verify-over-plain")
    elif draft + verify >= plain:
        said.add(msg("Drafting ({draft} s) and verifying ({verify} s) together took longer than the whole plain run ({plain} "
                     "s): fewer draft tokens a round, or a GPU, shift the balance.", draft=f"{draft:.2f}",
                     verify=f"{verify:.2f}", plain=f"{plain:.2f}"),
                 "draft-verify-over-plain")
    else:
        said.add(msg("Drafting itself paid: drafting and verifying took {draft} s, less than the whole plain run ({plain} s); "
                     "the rest of each round (other: {other_seconds} s) ate the gain: more tokens per round, or a GPU, shift "
                     "the balance.", draft=f"{draft + verify:.2f}", plain=f"{plain:.2f}",
                     other_seconds=f"{why.other_seconds:.2f}"), "other-ate-gain")


def _what_costs(result: Any, why: Why, said: Said) -> None:
    """No acceptance can pay: whether drafting or verifying is what costs a drafted token its step, from c and the
    verification slope the race measured."""
    c, slope = why.cost_ratio or 0.0, why.verify_slope or 0.0
    if slope >= c:
        said.add(msg("Verifying costs {slope} of a target step per drafted token here (drafting {c}): fewer draft tokens a "
                     "round, or a GPU, where verifying several tokens costs about one step.", slope=f"{slope:.2f}",
                     c=f"{c:.2f}"), "verify-costs")
    else:
        said.add(msg("Drafting costs nearly a full target step here: use a much smaller drafter, or prompt lookup."),
                 "costs-full-step")


def _what_to_try(result: Any, why: Why, said: Said) -> None:
    """Acceptance stayed below the break-even: whether the answer copies the prompt (prompt lookup) or the drafter
    agrees with the target, from the race's counts; the theory's best length; the cost-aware schedule's share."""
    a = result.assisted
    accepted = sum(r.accepted for r in a.rounds)
    lookup = result.method in METHODS and METHODS[result.method].drafts_from_prompt
    if lookup and a.new_tokens and accepted / a.new_tokens < COPY_SHARE:
        said.add(msg("This answer copies little of the prompt ({accepted} of {new_tokens} tokens came from it): prompt lookup "
                     "pays on answers that reuse the prompt's words (a code edit, a typo fix, a quoting summary).",
                     accepted=accepted, new_tokens=a.new_tokens),
                 "copies-little")
    elif lookup:
        said.add(msg("This answer copies the prompt ({accepted} of {new_tokens} tokens came from it), but checking the copied "
                     "drafts cost more than they saved here.", accepted=accepted, new_tokens=a.new_tokens), "copies")
    elif (why.acceptance_rate or 0.0) < AGREE:
        said.add(msg("The drafter often disagrees with the target ({acceptance_rate} of its drafts accepted): try a drafter "
                     "of the same family.", acceptance_rate=f"{why.acceptance_rate or 0.0:.0%}"), "drafter-disagrees")
    else:
        said.add(msg("The drafter mostly agrees with the target ({acceptance_rate} of its drafts accepted), but not often "
                     "enough to pay for drafting here: fewer draft tokens a round, a smaller drafter or a GPU shift the "
                     "balance.", acceptance_rate=f"{why.acceptance_rate:.0%}"), "drafter-agrees")
    if why.best_constant_gamma and why.gamma and why.best_constant_gamma < why.gamma:
        n = why.best_constant_gamma
        if lookup:
            best = (msg("At this acceptance the theory's best constant length is {n} copied tokens a round.", n=n) if n > 1
                    else msg("At this acceptance the theory's best constant length is {n} copied token a round.", n=n))
        else:
            best = (msg("At this acceptance the theory's best constant length is {n} draft tokens a round.", n=n) if n > 1
                    else msg("At this acceptance the theory's best constant length is {n} draft token a round.", n=n))
        said.add(best, "best-gamma")
    drafted = sum(1 for r in a.rounds if r.drafted)
    if a.draft_policy == "cost-aware" and drafted < len(a.rounds):
        said.add(msg("The cost-aware schedule drafted in only {drafted} of {rounds} rounds, which kept the loss small.",
                     drafted=drafted, rounds=len(a.rounds)), "cost-aware-few")
