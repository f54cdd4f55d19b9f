"""Which CPU dtype the offline drafter pair races in: float32 against bfloat16 (with and without float32 logits),
plain and assisted, on held-out prompts.

    python -m benchmarks.pair_dtype [--preset offline-drafter] [--split test] [--categories code-editing]
                                    [--limit 3] [--max-new-tokens 48] [--repeats 3] [--variants all]

Per variant: the first load in this process (conversion from the GGUF when its cache is cold, else the cached
safetensors), then for each prompt `--repeats` sequential races with warm-up (the CLI's measured race); prints the
median plain and assisted tokens/s, the speedup (geomean over prompts of the median per prompt), how many races gave
output identical to plain, and the process's peak resident memory so far. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from app.bench.stats import geometric_mean
from app.bench.suite import BUILTIN_SUITE, load_suite, select
from app.core.loader import MODEL_CACHE
from app.core.machine import peak_memory_bytes
from app.core.presets import get_preset
from app.core.requests import Limits, RaceRequest
from app.race.lifecycle import run_race
from app.race.prepare import prepare

#: In this order, so that the peak memory printed after each bfloat16 variant is its own (float32 peaks highest).
VARIANTS = {
    "bfloat16+float32-logits": {"dtype": "bfloat16", "float32_logits": True},
    "bfloat16": {"dtype": "bfloat16", "float32_logits": False},
    "float32": {"dtype": "float32", "float32_logits": False},
}



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-drafter")
    ap.add_argument("--split", default="test")
    ap.add_argument("--categories", default="code-editing")
    ap.add_argument("--limit", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=48)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--variants", default="all")
    args = ap.parse_args()
    names = list(VARIANTS) if args.variants == "all" else args.variants.split(",")
    prompts = select(load_suite(BUILTIN_SUITE), args.categories.split(","), args.split, args.limit)
    print(f"{args.preset}: {len(prompts)} {args.split}-split prompts ({', '.join(p.id for p in prompts)}), "
          f"{args.max_new_tokens} new tokens, {args.repeats} races each", flush=True)
    rows = []
    for name in names:
        MODEL_CACHE.clear()
        preset = dataclasses.replace(get_preset(args.preset), max_new_tokens=args.max_new_tokens, **VARIANTS[name])
        start = time.perf_counter()
        prepare(preset, prompts[0].prompt, Limits.operator())
        load = time.perf_counter() - start
        plain, assisted, speedups, same, total = [], [], [], 0, 0
        for p in prompts:
            runs = [run_race(RaceRequest(preset, p.prompt, None, Limits.operator()), sequential=True)
                    for _ in range(args.repeats)]
            plain += [r.baseline.tokens_per_second for r in runs]
            assisted += [r.assisted.tokens_per_second for r in runs]
            speedups.append(statistics.median(r.speedup for r in runs))
            same += sum(r.identical for r in runs)
            total += len(runs)
            print(f"  {name} {p.id}: " + ", ".join(f"{r.baseline.tokens_per_second:.2f}/{r.assisted.tokens_per_second:.2f}"
                                                    f" tok/s {r.speedup:.2f}x ({r.verdict.kind})"
                                                    f"{'' if r.identical else ' DIVERGED'}"
                                                    for r in runs), flush=True)
        rows.append((name, load, statistics.median(plain), statistics.median(assisted), geometric_mean(speedups), same, total,
                     (peak_memory_bytes() or 0) / 1e9))
    print("\n| variant | first load in process (s) | plain tok/s | assisted tok/s | speedup | identical | peak RSS (GB) |")
    print("|---|---|---|---|---|---|---|")
    for name, load, pl, asst, sp, same, total, peak in rows:
        print(f"| {name} | {load:.0f} | {pl:.2f} | {asst:.2f} | {sp:.2f}x | {same} of {total} | {peak:.1f} |")


if __name__ == "__main__":
    main()
