"""Six fair races of the default example through the page's handler, the machine loaded for the first three and quiet
for the last three (docs/DESIGN.md §5.16): what each race showed, and whether it reused plain's kept run.

    python -m benchmarks.kept_runs [--preset offline-prompt-lookup] [--loaded 3] [--quiet 3] [--load-cores 1]

The load is `--load-cores` busy loops (separate processes) started before the first race and ended before the
first quiet one. Before the fix this sequence showed a kept run recorded under load raced by a quiet assisted side
(a "measured" 10.40x); now the first quiet race times plain again, finds it faster than the kept run, and races
plain again. Run it on an otherwise quiet machine.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from app.core.presets import get_preset
from app.race.kept import KEPT_RUNS
from app.ui.race.handlers import finished_status
from benchmarks.fair_race import page_controls, page_fair_race

BUSY = "while True: pass"


def one(handlers, controls, label: str) -> str:
    """One fair race through the page's handler; its line for the table."""
    import html
    import re

    result, _, _ = page_fair_race(handlers, controls)
    check = result.baseline_check or {}
    status = html.unescape(re.sub(r"<[^>]+>", "", finished_status(result))).replace("\u2713", "").replace("\u2139", "").strip()
    kept = "reused" if result.baseline_kept_at else ("re-raced" if check else "ran")
    return (f"{label:7} {result.speedup:6.2f}x  verdict {result.verdict.kind:10} plain {kept:8} "
            f"plain {result.baseline.tokens_per_second:6.1f} tok/s  assisted {result.assisted.tokens_per_second:6.1f} "
            f"tok/s  tau {result.assisted.mean_accepted_length:.2f}\n        shown: {status}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="offline-prompt-lookup")
    parser.add_argument("--loaded", type=int, default=3)
    parser.add_argument("--quiet", type=int, default=3)
    parser.add_argument("--load-cores", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=None)
    args = parser.parse_args(argv)

    from app.ui.config import UIConfig
    from app.ui.page import build_app

    preset = get_preset(args.preset)
    prompt = preset.example_prompts[0]
    controls = page_controls(args.preset, prompt, args.max_new_tokens or preset.max_new_tokens)
    handlers = build_app(UIConfig(preset=args.preset)).race.handlers
    KEPT_RUNS.clear()
    print(f"{args.preset}, its first example, {args.loaded} races loaded ({args.load_cores} busy core(s)), "
          f"{args.quiet} quiet", flush=True)
    load = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(args.load_cores)]
    try:
        for i in range(args.loaded):
            print(one(handlers, controls, f"load {i + 1}"), flush=True)
    finally:
        for p in load:
            p.kill()
    time.sleep(2)
    for i in range(args.quiet):
        print(one(handlers, controls, f"quiet {i + 1}"), flush=True)


if __name__ == "__main__":
    main()
