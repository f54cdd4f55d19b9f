"""One helper for every long event: the work runs in a daemon thread while the event streams a frame on a clock,
so the page moves during loading and warm-up, and a closed tab reaches the caller's ``finally`` at once; what
``python app.py`` does with those threads once its server has closed (:func:`finish_work`); and the base of the tabs'
per-session states."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import weakref
from typing import Any, Callable, Generator, TypeVar

T = TypeVar("T")
Frame = dict[Any, Any]
log = logging.getLogger(__name__)
#: The long events' work threads (held weakly): loading, a race's reading, Tune, a planner measurement, a benchmark.
_WORKERS: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()


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
    _WORKERS.add(worker)
    while worker.is_alive():
        worker.join(tick)
        if worker.is_alive():
            out = frame(time.monotonic() - started)
            if out or always:
                yield out
    if "error" in box:
        raise box["error"]
    return box.get("value")


def finish_work(timeout: float = 10.0) -> None:
    """``python app.py`` after its server closed (Ctrl-C): stop every race (app/race/lifecycle.py
    ``stop_every_race``), give the other long events' threads `timeout` seconds in all, and leave at once when one
    is still running. A planner measurement or a benchmark has no stop here, and the interpreter ending a daemon
    thread inside torch aborts the process ("terminate called without an active exception", docs/DESIGN.md §7)."""
    from ..race.lifecycle import stop_every_race

    deadline = time.monotonic() + timeout
    stop_every_race(timeout)
    left = [t for t in list(_WORKERS) if t.is_alive()]
    for thread in left:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in left if t.is_alive()]
    if left:
        log.info("leaving with work still running (%s): nothing of it is kept", ", ".join(left))
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
