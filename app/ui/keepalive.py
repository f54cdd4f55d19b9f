"""Long API work that a cancelled job or a lost client can stop (docs/DESIGN.md §7, the cancels trap)."""

from __future__ import annotations

from typing import Callable, Generator, TypeVar

from .streaming import run_streaming

T = TypeVar("T")

#: Seconds between two keep-alive yields: how long a cancelled or disconnected job runs on before it is closed.
TICK = 0.1


def in_background(work: Callable[[], T], name: str, tick: float = TICK) -> Generator[None, None, T]:
    """``value = yield from in_background(work, name)``: run `work` in a daemon thread, yielding None every `tick` s.

    Returns what `work` returned, or raises what it raised. Closing the generator leaves the thread running:
    the caller's ``finally`` must tell the work to stop. Clients ignore the None updates (``predict`` and
    ``job.result()`` return the final value).
    """
    # Gradio stores a job's generator, where /cancel finds it, only once a step has returned: a cancel during the
    # first step would drop it unclosed, so the work starts after a first, empty step (tests/ui/test_hostile.py).
    yield None
    return (yield from run_streaming(work, lambda _: None, tick, name, always=True))
