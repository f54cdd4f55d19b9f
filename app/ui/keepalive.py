"""Long API work that a cancelled job or a lost client can stop (docs/DESIGN.md §7, the cancels trap).

Gradio frees a cancelled job's queue slot, but a plain function running in a worker thread is not
interrupted: it runs to its end. A generator is different: gradio closes it at its next ``yield`` when
the job is cancelled (``job.cancel()``, ``/cancel``) or its client disconnects, and ``GeneratorExit``
reaches the generator's ``finally``. So API endpoints run their work in a daemon thread through
:func:`in_background`, which yields None every :data:`TICK` seconds (clients ignore these updates:
``predict`` and ``job.result()`` return the final value), and stop the work in ``finally``.

The first yield comes before the work starts. Gradio stores a job's generator (where ``/cancel`` finds it to
close it) only when a step returns; a cancel that arrives during the first step cancels the asyncio task
and the generator is dropped unclosed, so work already started in that step would run to its end
(a fast model streams tokens within the first tick: found by tests/test_hostile.py).
"""

from __future__ import annotations

from typing import Callable, Generator, TypeVar

from .streaming import run_streaming

T = TypeVar("T")

#: Seconds between two keep-alive yields: how long a cancelled or disconnected job runs on before it is closed.
TICK = 0.1


def in_background(work: Callable[[], T], name: str, tick: float = TICK) -> Generator[None, None, T]:
    """``value = yield from in_background(work, name)``: run `work` in a daemon thread, yielding None every `tick` s.

    Returns what `work` returned, or raises what it raised. Closing the generator leaves the thread running:
    the caller's ``finally`` must tell the work to stop.
    """
    yield None  # gradio keeps a generator it can close only once a first step has returned (below)
    frames = run_streaming(work, lambda _: True, tick, name)
    while True:
        try:
            next(frames)
        except StopIteration as done:
            return done.value
        yield None
