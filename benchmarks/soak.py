"""Soak: start-stop cycles must leave threads and memory where they were.

    python -m benchmarks.soak [--cycles 50] [--preset offline-prompt-lookup] [--tokens-before-stop 3]

Each cycle starts a race of both at once with a long generation, waits for a few tokens, presses stop
and joins the workers. Prints the thread count and resident memory after a warm-up cycle and after
the last cycle, the worst stop latency, and the differences.
"""

from __future__ import annotations

import argparse
import gc
import threading
import time
from pathlib import Path


from app.core.presets import get_preset
from app.core.requests import Limits, RaceRequest
from app.race.lifecycle import RaceRun

PROMPT = "Write a long story about a lighthouse keeper who finds a message in a bottle."


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cycle(request: RaceRequest, tokens_before_stop: int) -> float:
    """One start-stop cycle through the race lifecycle, as the page drives it: the race runs in a worker thread, a
    follower reads its snapshots until `tokens_before_stop` tokens are out, then stops it (its own stop event) and
    waits for the workers. Returns seconds from the stop to both workers ended."""
    run = RaceRun(request, stop=threading.Event(), label="soak race")
    worker = threading.Thread(target=run.run, name="soak-run", daemon=True)
    try:
        run.prepare()
        worker.start()
        while worker.is_alive():
            snap = run.snapshot()
            if snap is not None and sum(len(s.tokens) for s in snap.sides.values()) >= tokens_before_stop:
                break
            time.sleep(0.005)
        stopped_at = time.perf_counter()
        run.stop()
        worker.join(10)
        if worker.is_alive() or not run.join(10):
            raise SystemExit("workers still alive 10 s after stop")
        return time.perf_counter() - stopped_at
    finally:
        run.close("soak cycle ended early")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=50)
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--tokens-before-stop", type=int, default=3)
    args = ap.parse_args()
    request = RaceRequest(get_preset(args.preset).with_overrides(dict(max_new_tokens=512)), PROMPT, None,
                          Limits.operator())
    cycle(request, args.tokens_before_stop)  # warm-up: lazy allocations, thread pools
    gc.collect()
    threads0, rss0 = threading.active_count(), rss_mib()
    latencies = [cycle(request, args.tokens_before_stop) for _ in range(args.cycles)]
    gc.collect()
    threads1, rss1 = threading.active_count(), rss_mib()
    print(f"preset {args.preset}, {args.cycles} start-stop cycles")
    print(f"threads: {threads0} before, {threads1} after (difference {threads1 - threads0})")
    print(f"resident memory: {rss0:.1f} MiB before, {rss1:.1f} MiB after (difference {rss1 - rss0:+.1f} MiB)")
    print(f"stop to both workers ended: median {sorted(latencies)[len(latencies) // 2] * 1000:.0f} ms, "
          f"worst {max(latencies) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
