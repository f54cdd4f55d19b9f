"""Checking a prediction with real races: sequential races of a preset with given knobs on the prompts."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from ..core.errors import ArenaError
from ..core.knobs import knobs_text
from ..core.presets import Preset
from ..core.requests import Limits, RaceRequest
from ..core.words import join, msg
from ..race.verdict import pooled
from .measure import ObservedAlpha, Progress, observed_alpha

@dataclass
class CheckRun:
    """One setting raced on every prompt. measured_speedup: total tokens over total seconds, assisted vs
    baseline; modelled_speedup: the cost model on these very rounds; label/gamma/predicted_*: what the
    planner expected (filled in by the planner); verdict: the one verdict of these races together
    (app/race/verdict.py ``pooled``): not a measurement when any race was not one."""

    knobs: dict[str, Any]
    measured_speedup: float
    per_prompt_speedup: list[float]
    baseline_tokens_per_second: float
    assisted_tokens_per_second: float
    identical: bool
    observed: ObservedAlpha
    modelled_speedup: float | None
    label: str = ""
    gamma: int | None = None
    predicted_speedup: float | None = None
    predicted_adjusted: float | None = None
    verdict: Any = None

    @property
    def measured(self) -> bool:
        """Whether its races are a measurement (a run with no verdict, from an older caller, counts as one)."""
        return self.verdict is None or self.verdict.measured

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["verdict"] = self.verdict.to_dict() if self.verdict is not None else None
        return out


def modelled_speedup(rounds: Sequence[Any], c: float) -> float | None:
    """Speedup the cost model gives for these very rounds: sum(n + 1) / sum(1 + k c) (the planner passes c + slope)."""
    if not rounds:
        return None
    return sum(r.accepted + 1 for r in rounds) / sum(1 + r.drafted * c for r in rounds)


def race_prompts(preset: Preset, prompts: Sequence[str], knobs: dict[str, Any], c: float, limits: Limits,
                 progress: Progress | None = None) -> CheckRun:
    """Sequential races of `preset` with `knobs` on every prompt (see :class:`CheckRun`)."""
    from ..race.lifecycle import run_race

    p = preset.with_overrides(knobs)
    runs = []
    for i, prompt in enumerate(prompts):
        if progress:
            progress(msg("Racing with {knobs_text} on prompt {i}/{prompts}", knobs_text=knobs_text(knobs), i=i + 1,
                         prompts=len(prompts)))
        result = run_race(RaceRequest(p, prompt, None, limits), sequential=True, progress=progress)
        if result.errors:
            raise ArenaError(join((join((side, error), ": ") for side, error in result.errors.items()), "; "))
        runs.append(result)
    tps = {side: sum(getattr(r, side).new_tokens for r in runs) / max(sum(getattr(r, side).seconds for r in runs), 1e-9)
           for side in ("baseline", "assisted")}
    rounds = [x for r in runs for x in r.assisted.rounds]
    speedup = tps["assisted"] / tps["baseline"] if tps["baseline"] else 0.0
    return CheckRun(knobs, speedup, [r.speedup for r in runs], tps["baseline"], tps["assisted"],
                    all(r.identical for r in runs), observed_alpha(rounds), modelled_speedup(rounds, c),
                    verdict=pooled([r.verdict for r in runs], speedup))
