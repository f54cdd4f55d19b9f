"""Time the Space's first load of a hub model from the local hub (tests/local_hub.py), against a cached load.

    python -m benchmarks.hub_first_load --folder DIR [--repo HuggingFaceTB/SmolLM2-135M-Instruct] [--rate-mb 0]

Serves the safetensors folder DIR (e.g. the converted-weights cache of SmolLM2, docs/DESIGN.md §6) under --repo,
then runs two fresh processes with HF_ENDPOINT pointing at it and one empty HF_HOME: the first downloads and loads
(MODEL_CACHE.get_model + get_tokenizer), the second loads from the cache. Each prints the download progress lines
the loader reports (sampled each second, stamped with seconds since the start) and its total time. --rate-mb caps
the hub's weight transfer (MB/s; 0: as fast as loopback goes) to show the progress of a slow link.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.local_hub import LocalHub, hub_environment

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import time
start = time.perf_counter()
from app.core.loader import MODEL_CACHE
def progress(message):
    print(f"  {{time.perf_counter() - start:6.1f}} s  {{message}}", flush=True)
MODEL_CACHE.get_model({repo!r}, progress=progress)
MODEL_CACHE.get_tokenizer({repo!r})
print(f"total {{time.perf_counter() - start:.2f}} s (imports included)")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", required=True, type=Path)
    ap.add_argument("--repo", default="HuggingFaceTB/SmolLM2-135M-Instruct")
    ap.add_argument("--rate-mb", type=float, default=0.0)
    args = ap.parse_args()
    with LocalHub() as hub, tempfile.TemporaryDirectory() as home:
        hub.add_folder(args.repo, args.folder)
        if args.rate_mb:
            hub.faults.rate[args.repo] = args.rate_mb * 1e6
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
        env.update(hub_environment(hub.url, home))
        for run in ("first load (download + load)", "cached load"):
            print(run)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", CHILD.format(repo=args.repo)], cwd=ROOT, env=env, check=True)
            print(f"  wall {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
