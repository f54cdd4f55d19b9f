"""Users of the running page through gradio_client: the (preset, prompt) jobs and one user's race, shared by
tests/ui/test_ui_users.py and benchmarks/users.py. No pytest imports."""

from __future__ import annotations

import time

from gradio_client import Client

JOBS = [
    ("offline-prompt-lookup", "Repeat this list and add one more fruit at the end: apple, banana, cherry, date."),
    ("offline-early-exit", "Explain in three sentences why the sky is blue."),
    ("offline-prompt-lookup", "Fix the typo and return the corrected sentence: The quick brown fox jumpd over the dog."),
    ("offline-uad", "The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is"),
    ("offline-early-exit", "List three healthy breakfast ideas."),
    ("offline-prompt-lookup", "Summarise: The council approved the park plan on Monday. Work starts in May."),
]


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
