"""The seed's own method on a real pair: predicted against measured speedup for each draft length gamma.

    python -m benchmarks.seed_gamma [--preset offline-drafter] [--split test] [--category code-editing] [--limit 3]
                                    [--max-new-tokens 48] [--gammas 1-8] [--repeats 1] [--json FILE]

1. The planner (app/planner) measures alpha (the drafter's greedy agreement with the target over the target's own
   answers) and c (one drafter step over one target step, 1-token decode steps) on the prompts, and predicts the
   speedup of every constant gamma with the seed's formula (Theorem 3.8, docs/DESIGN.md §5) and with the
   hardware-adjusted one (the measured cost of verifying more tokens at once).
2. Then it races each constant gamma and transformers' dynamic schedule ("heuristic") sequentially, with warm-up
   (``run_race(sequential=True)``, the CLI's measured race), on every prompt, and prints predicted beside measured,
   like the paper's appendix table.
3. It checks the seed's three claims and prints a verdict for each: c is larger than the parameter ratio; the
   dynamic schedule beats most constants; the best measured gamma is the one the formula picks.

Prompts come from the built-in suite's split (default ``test``: held out, never tuned on). Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from app.bench.stats import geometric_mean
from app.bench.suite import BUILTIN_SUITE, load_suite, select
from app.core.parts import known_params
from app.core.presets import get_preset
from app.core.requests import Limits, build_request
from app.core.theory import predicted_speedup
from app.planner.plan import PlanOptions, plan_for_preset
from app.race.lifecycle import run_race

DYNAMIC = "dynamic"


def gammas_arg(text: str) -> list[int]:
    """'1-8' or '1,2,4' -> the list of draft lengths."""
    if "-" in text:
        low, high = (int(x) for x in text.split("-"))
        return list(range(low, high + 1))
    return [int(x) for x in text.split(",")]



def race_setting(preset_id: str, prompt: str, tokens: int, gamma: int | str) -> Any:
    """One sequential (measured) race of `preset_id` at constant `gamma`, or with transformers' dynamic schedule."""
    changes: dict[str, Any] = {"max_new_tokens": tokens}
    if gamma == DYNAMIC:
        changes.update(num_assistant_tokens=20, num_assistant_tokens_schedule="heuristic")
    else:
        changes.update(num_assistant_tokens=gamma, num_assistant_tokens_schedule="constant")
    return run_race(build_request(preset_id, prompt, changes, limits=Limits.operator()), sequential=True)


def measure(preset_id: str, prompts: list[str], tokens: int, settings: list[int | str], repeats: int) -> dict:
    """setting -> {'speedup': geomean over prompts of the median of `repeats`, 'plain', 'assisted' tok/s medians,
    'alpha': pooled acceptance, 'identical': all identical}. Settings interleave within each repeat."""
    rows: dict[Any, dict[str, list]] = {s: {"speedup": [], "plain": [], "assisted": [], "drafted": [], "accepted": [],
                                            "identical": []} for s in settings}
    for i, prompt in enumerate(prompts):
        per: dict[Any, list] = {s: [] for s in settings}
        for _ in range(repeats):
            for s in settings:
                r = race_setting(preset_id, prompt, tokens, s)
                per[s].append(r)
                rounds = r.assisted.rounds
                print(f"  prompt {i + 1} gamma {s}: plain {r.baseline.tokens_per_second:.2f} tok/s, assisted "
                      f"{r.assisted.tokens_per_second:.2f} tok/s, {r.speedup:.2f}x ({r.verdict.kind}), identical {r.identical}",
                      flush=True)
                rows[s]["drafted"].append(sum(x.drafted for x in rounds))
                rows[s]["accepted"].append(sum(x.accepted for x in rounds))
                rows[s]["identical"].append(r.identical)
        for s in settings:
            rows[s]["speedup"].append(statistics.median(r.speedup for r in per[s]))
            rows[s]["plain"].append(statistics.median(r.baseline.tokens_per_second for r in per[s]))
            rows[s]["assisted"].append(statistics.median(r.assisted.tokens_per_second for r in per[s]))
    return {s: {"speedup": geometric_mean(v["speedup"]), "plain": statistics.median(v["plain"]),
                "assisted": statistics.median(v["assisted"]),
                "alpha": sum(v["accepted"]) / sum(v["drafted"]) if sum(v["drafted"]) else None,
                "identical": all(v["identical"])} for s, v in rows.items()}


def claims(plan: Any, measured: dict, preset: Any) -> list[tuple[str, bool | None, str]]:
    """The seed's three claims as (claim, holds, the figures behind it)."""
    out: list[tuple[str, bool | None, str]] = []
    tp, dp = known_params(preset.target), known_params(preset.assistant)
    if tp and dp:
        ratio = dp / tp
        out.append(("c is larger than the parameter ratio", plan.c > ratio,
                    f"c = {plan.c:.3f} against {dp / 1e9:.2f}B / {tp / 1e9:.2f}B = {ratio:.3f}"))
    constants = {g: m["speedup"] for g, m in measured.items() if g != DYNAMIC}
    if DYNAMIC in measured:
        beaten = sum(measured[DYNAMIC]["speedup"] > v for v in constants.values())
        out.append(("the dynamic schedule beats most constant gammas", beaten > len(constants) / 2,
                    f"dynamic {measured[DYNAMIC]['speedup']:.2f}x beats {beaten} of {len(constants)} constants"))
    best = max(constants, key=constants.get)
    out.append(("the best measured gamma is the one the formula picks", best == plan.best_gamma,
                f"measured best gamma {best} ({constants[best]:.2f}x), formula's {plan.best_gamma}, "
                f"hardware-adjusted {plan.hardware_adjusted.best_gamma if plan.hardware_adjusted else '-'}"))
    return out


def table(plan: Any, measured: dict) -> str:
    """The predicted-vs-measured table as Markdown."""
    hw = plan.hardware_adjusted
    adjusted = {p.gamma: p.speedup for p in hw.curve} if hw else {}
    lines = ["| gamma | predicted (Theorem 3.8) | hardware-adjusted | measured | plain tok/s | assisted tok/s | "
             "acceptance | identical |", "|---|---|---|---|---|---|---|---|"]
    for g, m in measured.items():
        pred = "-" if g == DYNAMIC else f"{predicted_speedup(plan.alpha, plan.c, g):.2f}x"
        adj = "-" if g == DYNAMIC or g not in adjusted else f"{adjusted[g]:.2f}x"
        alpha = "-" if m["alpha"] is None else f"{m['alpha']:.0%}"
        lines.append(f"| {g} | {pred} | {adj} | {m['speedup']:.2f}x | {m['plain']:.2f} | {m['assisted']:.2f} | "
                     f"{alpha} | {'yes' if m['identical'] else 'no'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-drafter")
    ap.add_argument("--split", default="test", choices=("tune", "test", "all"))
    ap.add_argument("--category", default="code-editing")
    ap.add_argument("--limit", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=48)
    ap.add_argument("--gammas", type=gammas_arg, default=gammas_arg("1-8"))
    ap.add_argument("--no-dynamic", action="store_true")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    preset = get_preset(args.preset)
    suite = select(load_suite(BUILTIN_SUITE), [args.category], args.split, args.limit)
    prompts = [p.prompt for p in suite]
    print(f"{args.preset}: {len(prompts)} {args.split}-split {args.category} prompts ({', '.join(p.id for p in suite)}), "
          f"{args.max_new_tokens} new tokens, dtype {preset.dtype}", flush=True)
    start = time.perf_counter()
    plan = plan_for_preset(preset, prompts, PlanOptions(max_new_tokens=args.max_new_tokens, check=False,
                                                        limits=Limits.operator()))
    print(f"planner: alpha {plan.alpha:.3f} ({plan.alpha_source}), c {plan.c:.3f}, best gamma {plan.best_gamma} "
          f"predicts {plan.predicted_speedup:.2f}x ({time.perf_counter() - start:.0f} s)", flush=True)
    settings: list[int | str] = [*args.gammas, *([] if args.no_dynamic else [DYNAMIC])]
    measured = measure(args.preset, prompts, args.max_new_tokens, settings, args.repeats)
    print("\n" + table(plan, measured))
    verdicts = claims(plan, measured, preset)
    for claim, holds, figures in verdicts:
        print(f"- {claim}: {'holds' if holds else 'does not hold'} ({figures})")
    print(f"({time.perf_counter() - start:.0f} s in all)")
    if args.json:
        args.json.write_text(json.dumps({"alpha": plan.alpha, "c": plan.c, "best_gamma": plan.best_gamma,
                                         "measured": {str(k): v for k, v in measured.items()},
                                         "claims": [{"claim": c, "holds": h, "figures": f} for c, h, f in verdicts]},
                                        indent=1))


if __name__ == "__main__":
    main()
