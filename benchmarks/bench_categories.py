"""The issue's performance target for the benchmark: offline prompt lookup per task category.

    python -m benchmarks.bench_categories [--presets offline-prompt-lookup] [--split test] [--repeats 3]
        [--max-new-tokens 64] [--limit N] [--out bench-categories]

Runs ``python -m app bench`` with these settings (sequential, greedy, batch 1, warm-up first), writes its
files to --out, prints summary.md, then checks the target: the grounded categories (summarisation,
code editing) reach a median of at least 2.5x with prompt lookup and every output is identical to plain
decoding. Open categories may lose today; the table shows it. Timings need a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli import main as cli_main

GROUNDED = ("summarisation", "code-editing")
TARGET = 2.5


def check(results: Path, preset: str) -> list[str]:
    """Lines saying whether each grounded cell of `preset` meets TARGET and whether every output is identical."""
    data = json.loads(results.read_text(encoding="utf-8"))
    lines = []
    for cell in data["cells"]:
        if cell["preset"] == preset and cell["category"] in GROUNDED:
            ok = cell["speedup_median"] >= TARGET
            lines.append(f"{'PASS' if ok else 'MISS'} {preset} / {cell['category']}: median "
                         f"{cell['speedup_median']:.2f}x (target {TARGET}x, spread {cell['speedup_min']:.2f}-"
                         f"{cell['speedup_max']:.2f}) over {cell['runs']} races")
    runs = [r for r in data["runs"] if r["preset"] == preset]
    same = sum(bool(r["identical"]) for r in runs)
    lines.append(f"{'PASS' if same == len(runs) else 'MISS'} {preset}: {same}/{len(runs)} outputs identical to plain "
                 "decoding")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="offline-prompt-lookup")
    ap.add_argument("--split", default="test")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out", type=Path, default=Path("bench-categories"))
    args = ap.parse_args()
    argv = ["bench", "--presets", args.presets, "--split", args.split, "--repeats", str(args.repeats),
            "--max-new-tokens", str(args.max_new_tokens), "--out", str(args.out)]
    if args.limit:
        argv += ["--limit", str(args.limit)]
    status = cli_main(argv)
    if status not in (0, 130):
        sys.exit(status)
    if "offline-prompt-lookup" in args.presets.split(","):
        print("\n".join(check(args.out / "results.json", "offline-prompt-lookup")))


if __name__ == "__main__":
    main()
