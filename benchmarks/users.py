"""Many users at once: concurrent gradio_client sessions against the real app.

    python -m benchmarks.users [--users 4] [--max-new-tokens 24] [--concurrency-limit 1]

Launches the app in this process on a free localhost port, runs one solo race per (preset,
prompt) first, then all users at once through gradio_client (each with its own preset and
prompt). Prints, per user: whether its result equals the solo run (greedy), errors, the best
queue position it was shown, and wall time; then how many times each model was loaded.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time


from gradio_client import Client

from app.core.loader import MODEL_CACHE
from app.ui.config import UIConfig
from app.ui.page import build_app

JOBS = [
    ("offline-prompt-lookup", "Repeat this list and add one more fruit at the end: apple, banana, cherry, date."),
    ("offline-early-exit", "Explain in three sentences why the sky is blue."),
    ("offline-prompt-lookup", "Fix the typo and return the corrected sentence: The quick brown fox jumpd over the dog."),
    ("offline-uad", "The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is"),
    ("offline-early-exit", "List three healthy breakfast ideas."),
    ("offline-prompt-lookup", "Summarise: The council approved the park plan on Monday. Work starts in May."),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_user(url: str, preset: str, prompt: str, tokens: int, out: dict) -> None:
    """One session: submit a race, watch its queue position, keep the result or the error."""
    client = Client(url, verbose=False)
    start = time.perf_counter()
    job = client.submit(preset=preset, prompt=prompt, max_new_tokens=tokens, api_name="/race")
    best_rank = None
    while not job.done():
        rank = job.status().rank  # 0-based place in the queue while waiting, None once running
        if rank is not None:
            best_rank = max(best_rank or 0, rank + 1)
        time.sleep(0.05)
    try:
        out.update(result=job.result(), error=None)
    except Exception as exc:  # reported, not raised: the point is to count them
        out.update(result=None, error=str(exc).splitlines()[0])
    out.update(seconds=time.perf_counter() - start, rank=best_rank)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--concurrency-limit", type=int, default=1)
    args = ap.parse_args()
    config = UIConfig(port=free_port(), concurrency_limit=args.concurrency_limit)
    app = build_app(config)
    demo = app.demo
    _, url, _ = app.launch(prevent_thread_lock=True, quiet=True)
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
    demo.close()


if __name__ == "__main__":
    main()
