"""One helper for every long event: the work runs in a daemon thread while the event streams a frame on a clock,
so the page moves during loading and warm-up, and a closed tab reaches the caller's ``finally`` at once; and the base
of the tabs' per-session states."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Generator, TypeVar

T = TypeVar("T")
Frame = dict[Any, Any]


class PerSession:
    """A tab's state held in ``gr.State``, which deep-copies its initial value for each browser session: a fresh one."""

    def __deepcopy__(self, memo: dict) -> "PerSession":
        return type(self)()


def run_streaming(work: Callable[[], T], frame: Callable[[float], Frame | None], tick: float,
                  name: str = "ui-work", always: bool = False) -> Generator[Frame | None, None, T]:
    """``result = yield from run_streaming(work, frame, tick)``.

    Runs `work` in a daemon thread; while it runs, yields ``frame(seconds elapsed)`` every `tick`
    seconds (an empty frame is skipped unless `always`). Returns what `work` returned, or raises what it raised.
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
            if out or always:
                yield out
    if "error" in box:
        raise box["error"]
    return box.get("value")
