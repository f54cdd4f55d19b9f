"""One helper for every long event: run the work in a thread and stream a frame on a clock.

Gradio runs a generator event function and sends each yielded value to the page; the work itself
(loading models, a race, a planner measurement) runs in a daemon thread so the page gets a frame
every ``tick`` seconds even while nothing else happens (prefill, warm-up, model loading), and a
closed tab (gradio closes the generator) is seen at once by the caller's ``finally``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Generator, TypeVar

T = TypeVar("T")
Frame = dict[Any, Any]


def run_streaming(work: Callable[[], T], frame: Callable[[float], Frame | None], tick: float,
                  name: str = "ui-work") -> Generator[Frame, None, T]:
    """``result = yield from run_streaming(work, frame, tick)``.

    Runs `work` in a daemon thread; while it runs, yields ``frame(seconds elapsed)`` every `tick`
    seconds (a None frame is skipped). Returns what `work` returned, or raises what it raised.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the generator below
            box["error"] = exc

    worker = threading.Thread(target=run, name=name, daemon=True)
    started = time.monotonic()
    worker.start()
    while worker.is_alive():
        worker.join(tick)
        if worker.is_alive():
            out = frame(time.monotonic() - started)
            if out:
                yield out
    if "error" in box:
        raise box["error"]
    return box.get("value")
