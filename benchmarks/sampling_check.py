"""The sampling check (docs/DESIGN.md §5.15) on the offline presets: is each method lossless in distribution?

    python -m benchmarks.sampling_check [--presets offline-prompt-lookup,offline-early-exit,offline-uad]
        [--schedules preset,constant] [--samples 300] [--tokens 4] [--temperature 1.0] [--seed 1] [--threads N]

For every preset (on its first example prompt) and schedule it runs one check: `--samples` continuations of
`--tokens` tokens plainly and as many with the method, each with its own seed. ``preset`` keeps the preset's own
draft-length schedule (the offline early-exit and UAD presets use cost-aware, which on a small CPU often decides
not to draft: then the check compares plain with plain, and the table says so); ``constant`` drafts every round,
so the method's acceptance rule is what the check tests. Prints a Markdown table: method, schedule, N, m, TV per
position, the p-values, the verdict, drafted/accepted tokens and the seconds of the check (models already
loaded; the load time is printed apart). Other processes on the cores change the seconds, not the verdicts.
"""

from __future__ import annotations

import argparse
import time

import torch

from app.core.presets import get_preset
from app.core.requests import Limits
from app.race.sampling_check import CheckSettings, sampling_check
from app.race.prepare import prepare

PRESETS = ("offline-prompt-lookup", "offline-early-exit", "offline-uad")
LIMITS = Limits.operator()
HEADER = ("| preset | method | schedule | N | m | TV per position | p-value per position | TV / p first two "
          "| verdict | drafted / accepted | seconds |\n|---|---|---|---|---|---|---|---|---|---|---|")


def variant(preset_id: str, schedule: str):
    """The preset as shipped ("preset") or with another draft-length schedule."""
    preset = get_preset(preset_id)
    return preset if schedule == "preset" else preset.with_overrides({"num_assistant_tokens_schedule": schedule})


def row(preset, schedule: str, d: dict) -> str:
    joint = d["joint"]
    tv = " ".join(f"{x:.3f}" for x in d["tv_distance"])
    p = " ".join(f"{x:.3f}" for x in d["p_value"])
    pair = f"{joint['tv_distance']:.3f} / {joint['p_value']:.3f}" if joint else "-"
    verdict = d["verdict"] + (" (nothing drafted)" if d["warning"] else "")
    shown = preset.num_assistant_tokens_schedule or "constant"
    return (f"| {preset.id} | {preset.method} | {shown if schedule == 'preset' else schedule} | {d['samples']} "
            f"| {d['tokens']} | {tv} | {p} | {pair} | {verdict} | {d['assisted_drafted']} / {d['assisted_accepted']} "
            f"| {d['seconds']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--schedules", default="preset,constant")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--tokens", type=int, default=4)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    settings = CheckSettings(args.samples, args.tokens, args.temperature, 1.0, None, args.seed)
    rows, top_k = [], None
    for preset_id in args.presets.split(","):
        start = time.perf_counter()
        preset = get_preset(preset_id)
        prepare(preset, preset.example_prompts[0], LIMITS)  # load (and convert, the first time) before timing
        print(f"{preset_id}: models loaded in {time.perf_counter() - start:.0f} s", flush=True)
        for schedule in args.schedules.split(","):
            p = variant(preset_id, schedule)
            d = sampling_check(p, p.example_prompts[0], LIMITS, settings).to_dict()
            rows.append(row(p, schedule, d))
            top_k = d["top_k"]
            print(rows[-1], flush=True)
    print(f"\nthreads {torch.get_num_threads()}, temperature {args.temperature}, top-p 1, top-k {top_k}, seed {args.seed}, "
          "first example prompt of each preset\n")
    print(HEADER)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
