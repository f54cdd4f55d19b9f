"""Many users at once: concurrent gradio_client sessions against the real app.

    python -m benchmarks.users [--users 4] [--max-new-tokens 24] [--concurrency-limit 1]

Launches the app in this process on a free localhost port, runs one solo race per (preset,
prompt) first, then all users at once through gradio_client (each with its own preset and
prompt). Prints, per user: whether its result equals the solo run (greedy), errors, the best
queue position it was shown, and wall time; then how many times each model was loaded.
"""

from __future__ import annotations

import argparse
import threading
import time

from app.core.loader import MODEL_CACHE
from tests.app_server import launched
from tests.users import JOBS, run_user


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--concurrency-limit", type=int, default=1)
    args = ap.parse_args()
    with launched(concurrency_limit=args.concurrency_limit) as (url, _):
        race_all(url, args)


def race_all(url: str, args: argparse.Namespace) -> None:
    jobs = [JOBS[i % len(JOBS)] for i in range(args.users)]
    solo = {}
    for preset, prompt in dict.fromkeys(jobs):
        out: dict = {}
        run_user(url, preset, prompt, args.max_new_tokens, out)
        solo[(preset, prompt)] = out["result"]
    loads_after_solo = MODEL_CACHE.load_count
    outs = [dict() for _ in jobs]
    threads = [threading.Thread(target=run_user, args=(url, p, q, args.max_new_tokens, o)) for (p, q), o in zip(jobs, outs)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    print(f"{args.users} concurrent users, queue concurrency limit {args.concurrency_limit}, wall {wall:.1f} s")
    same = 0
    for i, ((preset, _), o) in enumerate(zip(jobs, outs)):
        ref = solo[jobs[i]]
        ok = o["result"] is not None and ref is not None and o["result"]["baseline"]["token_ids"] == ref["baseline"][
            "token_ids"] and o["result"]["assisted"]["token_ids"] == ref["assisted"]["token_ids"]
        same += ok
        print(f"user {i + 1}: {preset:<22} same as solo: {ok!s:<5} error: {o['error']}  best queue position shown: "
              f"{o['rank']}  {o['seconds']:.1f} s")
    print(f"identical to solo runs: {same}/{len(jobs)}; errors: {sum(o['error'] is not None for o in outs)}")
    print(f"model loads: {MODEL_CACHE.load_count} in total, {MODEL_CACHE.load_count - loads_after_solo} during the "
          f"concurrent phase; models held: {[m.spec for m in MODEL_CACHE.loaded()]}")


if __name__ == "__main__":
    main()
