"""The long fuzz run: many more hostile and plausible inputs to the API and the command line than the CI suite.

    python -m benchmarks.fuzz [--api 1500] [--cli 2000] [--clients 4]

Same machinery as ``tests/ui/test_fuzz.py`` (``tests/fuzzing.py``): the API through gradio_client against the app
launched in-process as a share link would be (hub ids only, 16 new tokens at most; the offline prompt-lookup
preset races for real), the command line in-process on the tiny test models. Prints, for each, the inputs
tried, clean errors, results, tracebacks and hangs (both must be 0), the first problems if any, and the time.
Exit status 1 when there was a traceback or a hang.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tests import fuzzing, tiny_models


def run_api(examples: int, clients: int) -> fuzzing.Counts:
    counts = fuzzing.Counts()
    with fuzzing.offline_hub(), fuzzing.watching_logs() as logged, fuzzing.api_server() as client, \
            fuzzing.raw_json_client():
        fuzzing.fuzz_api(client, examples, counts, logged, clients=clients)
    return counts


def run_cli(examples: int) -> fuzzing.Counts:
    counts = fuzzing.Counts()
    root = Path(tempfile.mkdtemp(prefix="fuzz-"))
    tiny = tiny_models.build_all(root / "tiny")
    with fuzzing.offline_hub(), fuzzing.watching_logs() as logged:
        fuzzing.fuzz_cli(tiny, fuzzing.prompt_files(root / "files"), examples, counts, logged)
    return counts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", type=int, default=1500, help="API inputs (/race, /measure, /plan)")
    ap.add_argument("--cli", type=int, default=2000, help="command lines")
    ap.add_argument("--clients", type=int, default=4, help="concurrent API callers")
    args = ap.parse_args()
    bad = 0
    for label, run in (("CLI", lambda: run_cli(args.cli)), ("API", lambda: run_api(args.api, args.clients))):
        start = time.perf_counter()
        counts = run()
        print(f"{counts.line(label)} ({time.perf_counter() - start:.0f} s)", flush=True)
        for problem in counts.problems:
            print("  " + problem)
        bad += counts.tracebacks + counts.hangs
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
