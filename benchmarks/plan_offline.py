"""Run the draft planner on the offline presets and print one summary line each.

    python -m benchmarks.plan_offline [--presets offline-uad,...] [--max-new-tokens N] [--threads 1] [--out DIR]

Per preset: alpha by agreement and observed, c with its spread, the verification slope, best gamma,
and predicted vs measured speedups of the best constant gamma and of the default setting. The full
plan of each preset is written to DIR/<preset>.json (default: plans/ under the current folder).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


from app.core.requests import Limits
from app.planner.plan import PlanOptions, plan_for_preset
from app.planner.types import Plan
from app.core.presets import get_preset


def summary(plan: Plan) -> str:
    """One line: the measured numbers of a plan."""
    m, hw = plan.measurement, plan.hardware_adjusted
    c, obs, seed = m.c, m.alpha_observed, m.alpha_seed
    nan = float("nan")
    line = (f"{plan.preset}: alpha seed {seed.value:.3f} ({seed.space}), observed "
            f"{(obs.value if obs else None) or nan:.3f} (accepted/drafted "
            f"{(obs.acceptance_rate if obs else None) or nan:.3f}); "
            f"c {c.value:.4f} [{c.low:.4f}..{c.high:.4f}] ({c.draft_step_ms:.1f} / {c.target_step_ms:.1f} ms); "
            f"verify slope {hw.verify_slope.value:.3f}; alpha used {plan.alpha:.3f} -> "
            f"best gamma {plan.best_gamma} predicts {plan.predicted_speedup:.2f}x "
            f"(hardware-adjusted gamma {hw.best_gamma}: {hw.predicted_speedup:.2f}x)")
    for run in plan.check.runs if plan.check else []:
        pred = "-" if run.predicted_speedup is None else f"{run.predicted_speedup:.2f}x"
        adj = "-" if run.predicted_adjusted is None else f"{run.predicted_adjusted:.2f}x"
        line += (f"\n    {run.label}: measured {run.measured_speedup:.2f}x, predicted {pred}, adjusted {adj}, "
                 f"cost model on its rounds {run.modelled_speedup:.2f}x, identical {run.identical}")
    if plan.check:
        line += f"\n    {plan.check.recommendation}"
    return line


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="offline-prompt-lookup,offline-early-exit,offline-uad")
    ap.add_argument("--max-new-tokens", type=int)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("plans"))
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    for preset_id in args.presets.split(","):
        start = time.perf_counter()
        plan = plan_for_preset(get_preset(preset_id), None, PlanOptions(max_new_tokens=args.max_new_tokens,
                                                                                     limits=Limits.operator()))
        (args.out / f"{preset_id}.json").write_text(json.dumps(plan.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        print(summary(plan) + f"\n    ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
