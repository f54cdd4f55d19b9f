"""Tune: measure the current preset on the current prompt with the planner and choose its draft settings
(docs/DESIGN.md §5.14): the hardware-adjusted best gamma, or the cost-aware schedule when no length pays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.errors import ArenaError
from ..core.knobs import COST_AWARE
from ..core.requests import RaceRequest, race_tokens
from ..core.words import msg
from ..race.methods import get_method
from .kinds import measurable
from .plan import PlanOptions, plan_for_preset, plan_work_tokens


@dataclass
class Tuning:
    """What Tune found. knobs: the settings to race with next; alpha, c_effective, best_gamma, predicted_speedup:
    the planner's numbers; reason: one sentence for the page and the command line."""

    knobs: dict[str, Any] = field(default_factory=dict)
    alpha: float = 0.0
    c_effective: float = 0.0
    best_gamma: int = 1
    predicted_speedup: float = 1.0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"knobs": dict(self.knobs), "alpha": round(self.alpha, 4), "c_effective": round(self.c_effective, 5),
                "best_gamma": self.best_gamma, "predicted_speedup": round(self.predicted_speedup, 4),
                "reason": self.reason}


def tune(request: RaceRequest, progress: Callable[[str], None] | None = None) -> Tuning:
    """Measure the request's preset on its prompt (greedy) and return the draft settings to race with.

    The planner runs with 3 repeats of 4 steps and no check races, under the request's limits; the measurement and the
    race that follows count against the request's work budget together (checked first)."""
    preset = request.preset
    options = PlanOptions(max_new_tokens=preset.max_new_tokens, repeats=3, steps=4, check=False, limits=request.limits)
    method = get_method(preset.method)
    if not measurable(method):
        raise ArenaError(msg("Tune measures drafter, ensemble, uad, layerskip and prompt-lookup presets; the {method} method "
                             "drafts from the target's own hidden states and has no draft length to tune.",
                             method=preset.method))
    request.limits.check_work(plan_work_tokens(preset, 1, options) + race_tokens(preset.max_new_tokens, True),
                              "Tune and its measured race", "ask for fewer new tokens")
    plan = plan_for_preset(preset, [request.prompt], options, progress)
    hw = plan.hardware_adjusted
    out = Tuning(alpha=plan.alpha, c_effective=hw.c_effective, best_gamma=hw.best_gamma,
                 predicted_speedup=hw.predicted_speedup)
    knob = method.length_knob
    if out.predicted_speedup <= 1.0:
        out.knobs = {"num_assistant_tokens_schedule": COST_AWARE}
        out.reason = (f"On this prompt alpha {out.alpha:.2f} does not beat the effective cost {out.c_effective:.3f} "
                      f"per drafted token: no draft length pays, so the cost-aware schedule drafts only when it does.")
    else:
        out.knobs = {knob: out.best_gamma}
        out.reason = (f"alpha {out.alpha:.2f}, effective cost {out.c_effective:.3f} per drafted token: {knob} = "
                      f"{out.best_gamma} predicts {out.predicted_speedup:.2f}\u00d7 here (Theorem 3.8, hardware-adjusted).")
    return out
