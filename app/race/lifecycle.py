"""One race, its whole life in one object (docs/DESIGN.md §1, §7, §8): :class:`RaceRun` prepares, runs, gives followers
snapshots, stops, joins its threads and builds the result; :func:`run_race` is the whole life in one call. A caller's
stop event is passed in, never assigned afterwards. Its worker threads and its reader are private helpers
(app/race/_sides.py): the workers generate and send events, the thread that calls :meth:`RaceRun.run` reads them into
one record per side, and followers read :meth:`RaceRun.snapshot`, never the records.
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import queue
import threading
import time
import weakref
from typing import Any, Iterator

from ..core.errors import ArenaError
from ..core.loader import MODEL_CACHE, Progress
from ..core.requests import RaceRequest
from ..core.words import msg
from ._sides import Reader, Workers
from .costs import MACHINE_THREADS
from .divergence import explain
from .kept import KeptRuns, kept_key, kept_from
from .prepare import RaceSetup, machine_facts, prepare
from .protocol import DoneEvent, Event, Mode, RaceSnapshot, Side
from .result import AssistedResult, RaceResult, SideResult
from .why import explain_race

log = logging.getLogger(__name__)
#: The races of this process whose workers started (held weakly): :func:`stop_every_race` ends them at exit.
_STARTED: "weakref.WeakSet[RaceRun]" = weakref.WeakSet()


class RaceRun:
    """One race of `request` from preparation to reaped threads: prepare, run, snapshot, stop, join, result.

    sequential: warm up, then time the sides one after the other (the fair race); else both at once (a show).
    stop: the event that ends the race (default its own). cache: the model cache (default the process-wide one).
    progress: loading messages. reap_seconds / label: how long :meth:`close` waits for the workers, and how its log
    line names the race. kept_runs: kept plain runs a sequential race reuses and adds to (app/race/kept.py; the page's
    fair race): with a kept run for the same key that is still true (§5.16) only the assisted side runs, and the
    baseline is the kept run. Followers read :meth:`snapshot`, never the records the reading thread appends to.
    """

    def __init__(self, request: RaceRequest, sequential: bool = False, *, stop: threading.Event | None = None,
                 cache: Any = None, progress: Progress | None = None, reap_seconds: float = 30.0,
                 label: str = "race", kept_runs: KeptRuns | None = None):
        self.request, self.sequential = request, sequential
        self.stop_event = stop if stop is not None else threading.Event()
        self._own_stop = stop is None
        self.cache, self.progress = cache or MODEL_CACHE, progress
        self.reap_seconds, self.label, self.kept_runs = reap_seconds, label, kept_runs
        self.setup: RaceSetup | None = None
        self._workers: Workers | None = None
        self._reader: Reader | None = None
        self._events: queue.Queue[Event] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._kept_key: tuple | None = None
        self._finished: RaceResult | None = None

    # ----- lifecycle ------------------------------------------------------------------------------------------------
    def prepare(self) -> RaceSetup:
        """Validate, load and encode (once)."""
        if self.setup is None:
            r = self.request
            self.setup = prepare(r.preset, r.prompt, r.limits, cache=self.cache, progress=self.progress,
                                 stop=self.stop_event)
        return self.setup

    def run(self) -> RaceResult:
        """Prepare if needed, then run the race to its end (or its stop) and return its result, with the divergence
        explained (:func:`explain_divergence`)."""
        for _ in self.events():
            pass
        self._finished = explain_divergence(self.setup, self.result())
        return self._finished

    def events(self, poll: float = 0.1, timeout: float | None = None) -> Iterator[Event]:
        """Prepare if needed, start the workers (once) and yield every event until both sides are done.

        timeout: give up (stop the race) when no event arrives for this many seconds.
        """
        self._start()
        try:
            yield from self._drain(poll, timeout)
        finally:  # the reader's tokenizer goes back to the pool once nothing will decode any more
            self._reader.release()

    def snapshot(self) -> RaceSnapshot | None:
        """Both sides so far, copied (safe to read while the reading thread appends); None before the race starts."""
        if self._reader is None:
            return None
        return self._reader.snapshot(self.sequential, self._workers.streamers, self._kept_at())

    def stop(self) -> None:
        """End both sides after their current forward pass (or keep the race from starting)."""
        self.stop_event.set()

    def running(self) -> bool:
        """Whether a worker thread is still running."""
        return any(t.is_alive() for t in self._threads)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the workers; True when they ended (or never started)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not self.running()

    def close(self, why: str) -> None:
        """Every driver's ``finally``: a race that has not ended is stopped and its workers reaped; before the race,
        its own stop event is set, which ends a model download still running in a preparing thread (a caller's
        event is the caller's to set: a benchmark goes on after one preset fails to load)."""
        if self._reader is None and self._own_stop:
            self.stop_event.set()
        if self._reader is not None and not self._reader.done:
            self.stop()
            reap(self, why, self.reap_seconds, self.label)

    def json(self) -> dict[str, Any]:
        """The finished race's JSON object (docs/DESIGN.md §4.1), as :meth:`run` returned it."""
        if self._finished is None:
            raise RuntimeError("the race has not finished")
        return self._finished.to_dict()

    def facts(self) -> dict[str, Any]:
        """The device and the loaded models (app/race/prepare.py ``machine_facts``), once prepared."""
        return machine_facts(self.setup)

    # ----- the race -------------------------------------------------------------------------------------------------
    def _start(self) -> None:
        """Start the worker thread(s), with the kept plain run a sequential race may reuse; idempotent."""
        if self._workers is not None:
            return
        setup = self.prepare()
        self._workers = workers = Workers(setup, self.sequential, self.request.seed, self.stop_event, self._events.put)
        self._reader = Reader(setup)  # after the workers: a follower's snapshot reads both once this is set
        kept = None
        if self.sequential and self.kept_runs is not None:
            self._kept_key = kept_key(setup, self.request.seed, workers.threads_per_side or MACHINE_THREADS)
            kept = self.kept_runs.get(self._kept_key)
        self._threads = workers.start(kept)
        _STARTED.add(self)

    def _kept_at(self) -> float | None:
        """When the kept plain run this race used was recorded (seconds since the epoch); None: plain ran now."""
        kept = self._workers.kept if self._workers is not None else None
        return kept.recorded_at if kept is not None else None

    def _record(self, event: Event) -> None:
        rec, workers = self._reader.record(event), self._workers
        if isinstance(event, DoneEvent) and event.side == Side.PLAIN and workers.kept is None and self._kept_key \
                and not (rec.error or rec.stopped):
            self.kept_runs.put(self._kept_key, kept_from(rec, workers.cpu_shares.get(Side.PLAIN)))
        if isinstance(event, DoneEvent) and event.side == Side.ASSISTED and workers.stale is not None \
                and self.kept_runs is not None:
            self.kept_runs.drop(self._kept_key, workers.stale)  # not true any more: the next race times plain

    def _drain(self, poll: float, timeout: float | None) -> Iterator[Event]:
        records = self._reader.records
        last = time.monotonic()
        while not all(r.done for r in records.values()):
            try:
                event = self._events.get(timeout=poll)
            except queue.Empty:
                if timeout is not None and time.monotonic() - last > timeout:
                    self.stop()
                    raise ArenaError(msg("No progress for {timeout} s: the race was stopped.", timeout=f"{timeout:.0f}"))
                if not self.running() and self._events.empty():
                    for side, rec in records.items():  # cannot happen: workers always send Done
                        if not rec.done:
                            rec.error, rec.done = rec.error or "worker ended without a result", True
                continue
            last = time.monotonic()
            self._record(event)
            yield event

    # ----- result ---------------------------------------------------------------------------------------------------
    def _assisted(self) -> AssistedResult:
        rec, args, policy = self._reader.records[Side.ASSISTED], self.setup.args, self._workers.policy
        schedule = args.draft_policy or args.drafter_config.get("num_assistant_tokens_schedule")
        # rounds the cost-aware schedule drafted nothing in (every round of a side that decoded plainly)
        skipped = 0 if policy is None else len(rec.rounds) if policy.plain else policy.rounds_skipped
        return AssistedResult(**self._reader.side(Side.ASSISTED), tokens=[dataclasses.replace(t) for t in rec.tokens],
                              rounds=[dataclasses.replace(r) for r in rec.rounds], draft_policy=schedule,
                              skipped_rounds=skipped)

    def result(self) -> RaceResult:
        """The race so far as a :class:`RaceResult` (its ``to_dict()`` is the JSON contract), with its explanation."""
        p, workers, records = self.setup.preset, self._workers, self._reader.records
        result = RaceResult(
            preset=p.id, method=p.method, target=p.target, assistant=p.assistant,
            mode=Mode.FAIR if self.sequential else Mode.BOTH, do_sample=p.do_sample,
            device=self.setup.device, baseline=SideResult(**self._reader.side(Side.PLAIN)),
            assisted=self._assisted(), errors={s: r.error for s, r in records.items() if r.error},
            stopped=any(r.stopped for r in records.values()), knobs=p.knobs(), threads=workers.threads_per_side,
            dtype=getattr(getattr(self.setup, "target", None), "dtype", None),
            baseline_kept_at=self._kept_at(),
            baseline_check=workers.kept_check.to_dict() if workers.kept_check is not None else None,
            conditions=workers.conditions())
        result.why = explain_race(result, result.knobs, workers.verify_cost)  # judges the race once
        return result


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


def reap(run: RaceRun, why: str, timeout: float, label: str = "race") -> threading.Thread:
    """Join `run`'s workers in a thread (a ``finally`` may run on an event loop) and log whether they ended."""
    def wait() -> None:
        start = time.perf_counter()
        ended = run.join(timeout)
        log.info("%s stopped (%s): workers %s after %.2f s", label, why, "ended" if ended else "STILL RUNNING",
                 time.perf_counter() - start)

    thread = threading.Thread(target=wait, name="race-reaper", daemon=True)
    thread.start()
    return thread


def stop_every_race(timeout: float = 30.0) -> int:
    """Stop every race still running in this process and wait for its workers (`timeout` seconds in all); returns how
    many were running. Registered with ``atexit``: a Ctrl-C on ``python app.py`` or the CLI in the middle of a race
    must not leave a worker inside torch when the interpreter ends its daemon threads, which aborts the process
    ("terminate called without an active exception", exit status -6, docs/DESIGN.md §7)."""
    running = [run for run in list(_STARTED) if run.running()]
    for run in running:
        run.stop()
    deadline = time.monotonic() + timeout
    for run in running:
        if not run.join(max(0.0, deadline - time.monotonic())):
            log.warning("%s: workers still running at exit", run.label)
    return len(running)


atexit.register(stop_every_race)


def run_race(request: RaceRequest, sequential: bool = False, **options: Any) -> RaceResult:
    """Prepare, run, stop in ``finally`` and reap: the whole lifecycle (options as for :class:`RaceRun`)."""
    run = RaceRun(request, sequential, **options)
    try:
        return run.run()
    finally:
        run.close("the caller ended early")
