"""The one verdict of a race (docs/DESIGN.md §5.16): computed once, from the race's own measurements, and read by every
surface (the status line, the speedup card, the why panel, the gallery, a benchmark row and its leaderboard, a planner
race, the command line's text, the JSON and the MCP tools). Two surfaces cannot disagree because none decides
anything of its own.

kind:
- ``win`` / ``loss``: a measurement, faster or slower than plain beyond the race's noise band;
- ``level``: a measurement within the noise band, or from a race in which nothing was drafted;
- ``unmeasured``: not a measurement, with its ``reason``: a stopped race, a race of both sides at once (a show), a kept
  plain run that the check after the race found stale, two sides that ran under different measured conditions, a
  noise band beyond the stated limit (the machine is too busy to measure this now), or rounds that cannot explain
  the speedup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .stats import EVEN_BAND
from .trust import MEASURE_LIMIT, PLAIN_STEP, Conditions, conditions_differ, noise_band, unexplained
from ..core.words import msg

KINDS = ("win", "loss", "level", "unmeasured")
#: Kinds that are a measurement.
MEASURED = ("win", "loss", "level")
#: What the race says about drafting itself (``drafting``): its acceptance cleared the break-even on this hardware,
#: stayed below it, no acceptance could pay, nothing was drafted (the cost-aware schedule decided so: ``skipped``), or
#: the race gives nothing to judge it by (an engine race: None).
DRAFTING = ("paid", "did-not-pay", "cannot-pay", "none", "skipped")


@dataclass(frozen=True)
class Verdict:
    """What a race says. kind: one of :data:`KINDS`; reason: why, in English words (empty for a plain win or loss;
    the surfaces translate it); band: the relative noise band; speedup: the race's; drafting: one of :data:`DRAFTING`
    or None; conditions: the measured conditions of the two sides (None where not measured)."""

    kind: str
    reason: str
    band: float
    speedup: float = 0.0
    drafting: str | None = None
    conditions: Conditions | None = None

    @property
    def measured(self) -> bool:
        """Whether the speedup is a measurement (it may be shown as one, and counts in a leaderboard)."""
        return self.kind in MEASURED

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "noise_band": round(self.band, 4), "limit": MEASURE_LIMIT,
                "measured": self.measured, "speedup": round(self.speedup, 4), "drafting": self.drafting,
                "conditions": self.conditions.to_dict() if self.conditions is not None else None}

    @classmethod
    def from_dict(cls, data: Any) -> "Verdict | None":
        """Read a saved verdict back (None when it is not one); the older kind "even" reads as "level"."""
        if not isinstance(data, dict):
            return None
        kind = {"even": "level"}.get(data.get("kind"), data.get("kind"))
        if kind not in KINDS:
            return None
        number = lambda x, d=0.0: float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else d  # noqa
        drafting = data.get("drafting") if data.get("drafting") in DRAFTING else None
        return cls(kind, str(data.get("reason") or ""), number(data.get("noise_band")), number(data.get("speedup")),
                   drafting, Conditions.from_dict(data.get("conditions")))


def drafting_said(result: Any, why: Any = None) -> str | None:
    """What the race says about drafting itself (:data:`DRAFTING`), from its rounds and its explanation's numbers."""
    a = result.assisted
    if not any(r.drafted for r in a.rounds):
        skipped = a.draft_policy == "cost-aware" and bool(a.rounds) and a.skipped_rounds >= len(a.rounds)
        return "skipped" if skipped else "none"
    if why is None:
        return None
    if why.acceptance_rate is not None and why.break_even_acceptance is not None:
        return "paid" if why.acceptance_rate >= why.break_even_acceptance else "did-not-pay"
    if why.break_even_acceptance is None and why.cost_ratio is not None:
        return "cannot-pay"
    return None


def kept_run_failed(result: Any) -> str | None:
    """The check after the race of the kept plain run it raced, when that run was not true any more; else None."""
    check = result.baseline_check or {}
    if result.baseline_kept_at is None or not check or check.get("reused", True):
        return None
    return str(check.get("reason") or "plain's kept run could not be checked")


def unmeasured_reason(result: Any, band: float) -> str | None:
    """Why `result` is not a measurement (English), or None when it is one. In order: stopped, both at once, a stale
    kept run, different measured conditions, a band beyond the limit, rounds that cannot explain the speedup."""
    if result.errors:
        return msg("the race failed")
    if result.stopped:
        return msg("the race was stopped before both sides finished, so it has no verdict")
    if result.mode != "sequential":
        return msg("both sides ran at once and shared the machine, so this race is a show; the fair race measures")
    kept = kept_run_failed(result)
    if kept:
        return kept
    differ = conditions_differ(result.conditions)
    if differ:
        return differ
    if band > MEASURE_LIMIT:
        return (msg("the machine is too busy to measure this now: plain's steps varied \u00b1{band} (the limit is "
                    "\u00b1{MEASURE_LIMIT}); race again when it is quieter", band=f"{band:.0%}",
                    MEASURE_LIMIT=f"{MEASURE_LIMIT:.0%}"))
    return unexplained(result)


def judge(result: Any, why: Any = None) -> Verdict:
    """The one verdict on `result` (an app.race.result.RaceResult; why: its explanation's numbers, app.race.why.Why,
    for what it says about drafting)."""
    band = noise_band(result)
    args = dict(band=band, speedup=result.speedup, drafting=drafting_said(result, why),
                conditions=getattr(result, "conditions", None))
    reason = unmeasured_reason(result, band)
    if reason:
        return Verdict("unmeasured", reason, **args)
    if not any(r.drafted for r in result.assisted.rounds):
        return Verdict("level", msg("nothing was drafted, so both sides decoded plainly and the gap is the machine's noise"),
                       **args)
    change = result.speedup - 1
    if abs(change) <= band:
        if _engine(result):
            return Verdict("level", msg("within this race's noise (\u00b1{band}, from its two plain timings)",
                                        band=f"{band:.0%}"), **args)
        return Verdict("level", msg("within this race's noise (\u00b1{band}, from the spread of plain's steps)",
                                    band=f"{band:.0%}"), **args)
    return Verdict("win" if change > 0 else "loss", "", **args)


def _engine(result: Any) -> bool:
    """Whether the race's noise comes from an engine's two plain timings (app/race/trust.py ``noise_band``)."""
    conditions = getattr(result, "conditions", None)
    return conditions is not None and conditions.what == PLAIN_STEP


def pooled(verdicts: Sequence[Verdict], speedup: float) -> Verdict:
    """One verdict for several races of one setting (a planner's check races over its prompts) at their pooled
    `speedup`: not a measurement when any of them is not one (with that race's reason), else faster, slower or level
    against the widest noise band among them; level when none of them drafted."""
    band = max((v.band for v in verdicts), default=EVEN_BAND)
    bad = next((v for v in verdicts if not v.measured), None)
    if bad is not None:
        return Verdict("unmeasured", bad.reason, band, speedup, bad.drafting, bad.conditions)
    drafting = next((v.drafting for v in verdicts if v.drafting not in ("none", "skipped")), None)
    if verdicts and all(v.drafting in ("none", "skipped") for v in verdicts):
        return Verdict("level", msg("nothing was drafted, so both sides decoded plainly and the gap is the machine's noise"),
                       band, speedup, verdicts[0].drafting)
    if abs(speedup - 1) <= band:
        return Verdict("level", msg("within these races' noise (\u00b1{band}, the widest of their bands)",
                                    band=f"{band:.0%}"), band, speedup,
                       drafting)
    return Verdict("win" if speedup > 1 else "loss", "", band, speedup, drafting)
