"""One race lifecycle for every driver (docs/DESIGN.md §8): :class:`RaceRun` prepares, runs a
:class:`~app.race.runner.Race` and, in the caller's ``finally``, stops a race that has not ended and reaps its workers;
:func:`run_race` is the whole lifecycle in one call. A caller's stop event is passed in, never assigned afterwards.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from ..core.loader import MODEL_CACHE, Progress
from ..core.requests import RaceRequest
from .divergence import explain
from .ghosts import GhostCache
from .prepare import RaceSetup, prepare
from .result import RaceResult
from .runner import Race, RaceSnapshot

log = logging.getLogger(__name__)


def reap(race: Race, why: str, timeout: float, label: str = "race") -> threading.Thread:
    """Join `race`'s workers in a thread (a ``finally`` may run on an event loop) and log whether they ended."""
    def wait() -> None:
        start = time.perf_counter()
        ended = race.join(timeout)
        log.info("%s stopped (%s): workers %s after %.2f s", label, why, "ended" if ended else "STILL RUNNING",
                 time.perf_counter() - start)

    thread = threading.Thread(target=wait, name="race-reaper", daemon=True)
    thread.start()
    return thread


class RaceRun:
    """One race of `request` from preparation to reaped workers.

    sequential: warm up, then time the sides one after the other. stop: the event that ends the race (default
    its own). cache: the model cache (default the process-wide one). progress: loading messages.
    reap_seconds / label: how long :meth:`close` waits for the workers, and how its log line names the race.
    ghosts: kept plain runs a sequential race reuses and adds to (app/race/ghosts.py; the page's fair race).
    """

    def __init__(self, request: RaceRequest, sequential: bool = False, *, stop: threading.Event | None = None,
                 cache: Any = None, progress: Progress | None = None, reap_seconds: float = 30.0,
                 label: str = "race", ghosts: GhostCache | None = None):
        self.request, self.sequential = request, sequential
        self.stop_event = stop if stop is not None else threading.Event()
        self._own_stop = stop is None
        self.cache, self.progress = cache or MODEL_CACHE, progress
        self.reap_seconds, self.label, self.ghosts = reap_seconds, label, ghosts
        self.setup: RaceSetup | None = None
        self.race: Race | None = None

    def prepare(self) -> RaceSetup:
        """Validate, load and encode (once)."""
        if self.setup is None:
            r = self.request
            self.setup = prepare(r.preset, r.prompt, r.limits, cache=self.cache, progress=self.progress,
                                 stop=self.stop_event)
        return self.setup

    def run(self) -> RaceResult:
        """Prepare if needed, then run the race to its end (or its stop) and return its result."""
        setup = self.prepare()
        self.race = Race(setup, sequential=self.sequential, seed=self.request.seed, stop=self.stop_event,
                         ghosts=self.ghosts)
        return explain_divergence(setup, self.race.run())

    def snapshot(self) -> RaceSnapshot | None:
        """Both sides so far; None before the race starts."""
        return None if self.race is None else self.race.snapshot()

    def stop(self) -> None:
        """End both sides after their current forward pass (or keep the race from starting)."""
        self.stop_event.set()

    def running(self) -> bool:
        """Whether a worker thread is still running."""
        return self.race is not None and self.race.alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the workers; True when they ended (or never started)."""
        return self.race is None or self.race.join(timeout)

    def close(self, why: str) -> None:
        """Every driver's ``finally``: a race that has not ended is stopped and its workers reaped; before the race,
        its own stop event is set, which ends a model download still running in a preparing thread (a caller's
        event is the caller's to set: a benchmark goes on after one preset fails to load)."""
        race = self.race
        if race is None and self._own_stop:
            self.stop_event.set()
        if race is not None and not race.done:
            race.stop()
            reap(race, why, self.reap_seconds, self.label)


def explain_divergence(setup: RaceSetup, result: RaceResult) -> RaceResult:
    """`result` with its ``divergence`` set when a greedy race of a lossless method produced different tokens on the
    same length (app/race/divergence.py: one extra forward pass of the target)."""
    at = result.first_divergence
    if (at is None or result.errors or result.stopped or result.do_sample or result.prefix_only
            or not setup.method.lossless):
        return result
    try:
        with setup.tokenizers.borrow() as tok:
            result.divergence = explain(setup.target.model, tok, setup.input_ids, result.baseline.token_ids,
                                        result.assisted.token_ids, at)
    except (RuntimeError, ValueError) as exc:  # e.g. out of memory: the explanation never fails a finished race
        log.warning("no divergence explanation for this race: %s", exc)
    return result


def run_race(request: RaceRequest, sequential: bool = False, **options: Any) -> RaceResult:
    """Prepare, run, stop in ``finally`` and reap: the whole lifecycle (options as for :class:`RaceRun`)."""
    run = RaceRun(request, sequential, **options)
    try:
        return run.run()
    finally:
        run.close("the caller ended early")
