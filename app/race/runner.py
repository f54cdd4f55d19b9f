"""The race: one :class:`Race` puts its workers (app/race/workers.py) and its reader (app/race/reader.py) together,
with the kept plain runs a fair race may reuse, and builds the result (docs/DESIGN.md §1, §7)."""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from typing import Any, Iterator

from ..core.errors import ArenaError
from ..core.words import msg
from .costs import MACHINE_THREADS
from .ghosts import GhostCache, ghost_key, kept_from
from .prepare import RaceSetup
from .reader import SIDES, RaceSnapshot, Reader, SideRecord, SideSnapshot
from .result import AssistedResult, RaceResult, SideResult
from .tracer import DoneEvent, Event
from .why import explain_race
from .workers import StepClock, Workers, describe_error

__all__ = ["SIDES", "Race", "RaceSnapshot", "SideRecord", "SideSnapshot", "StepClock", "describe_error"]


class Race:
    """One race between plain and assisted generation of `setup` (docs/DESIGN.md §1, §7).

    sequential: warm up, then time baseline and assisted one after the other. seed: torch seed set before each side
    when sampling. stop: the event that ends both sides after their current forward pass (a caller's, else the
    race's own). Followers read :meth:`snapshot`, never the records the reader thread appends to. ghosts: where a
    sequential race keeps its plain run; with a kept run for the same key that is still true (§5.16) only the
    assisted side runs, and the baseline is the kept run (``kept``).
    """

    def __init__(self, setup: RaceSetup, sequential: bool = False, seed: int | None = None,
                 stop: threading.Event | None = None, ghosts: GhostCache | None = None):
        self.setup, self.sequential, self.seed, self.ghosts = setup, sequential, seed, ghosts
        self._ghost_key: tuple | None = None
        self.stop_event = stop if stop is not None else threading.Event()
        self.events_queue: queue.Queue[Event] = queue.Queue()
        self.workers = Workers(setup, sequential, seed, self.stop_event, self.events_queue.put)
        self.reader = Reader(setup)

    # ----- what followers and tests read (the rest is on ``self.workers`` and ``self.reader``) ---------------------
    @property
    def records(self) -> dict[str, SideRecord]:
        return self.reader.records

    @property
    def streamers(self) -> dict[str, Any]:
        return self.workers.streamers

    @property
    def kept_at(self) -> float | None:
        """When the kept plain run this race used was recorded (seconds since the epoch); None: plain ran now."""
        kept = self.workers.kept
        return kept.recorded_at if kept is not None else None

    @property
    def done(self) -> bool:
        """Whether the reader has seen both sides end."""
        return self.reader.done

    # ----- lifecycle ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker thread(s), with the kept plain run a sequential race may reuse; idempotent."""
        if self.workers.threads:
            return
        kept = None
        if self.sequential and self.ghosts is not None:
            self._ghost_key = ghost_key(self.setup, self.seed, self.workers.threads_per_side or MACHINE_THREADS)
            kept = self.ghosts.get(self._ghost_key)
        self.workers.start(kept)

    def stop(self) -> None:
        """Ask both sides to end after their current forward pass."""
        self.stop_event.set()

    def alive(self) -> bool:
        """Whether a worker thread is still running."""
        return self.workers.alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the workers; True when all have ended."""
        return self.workers.join(timeout)

    def snapshot(self) -> RaceSnapshot:
        """What the race has produced so far, copied (safe to read while the reader thread appends)."""
        return self.reader.snapshot(self.sequential, self.workers.streamers, self.kept_at)

    # ----- reader ---------------------------------------------------------------------------------------------------
    def _record(self, event: Event) -> None:
        rec = self.reader.record(event)
        if isinstance(event, DoneEvent) and event.side == "baseline" and self.workers.kept is None and self._ghost_key \
                and not (rec.error or rec.stopped):
            self.ghosts.put(self._ghost_key, kept_from(rec, self.workers.cpu_shares.get("baseline")))
        if isinstance(event, DoneEvent) and event.side == "assisted" and self.workers.stale is not None \
                and self.ghosts is not None:
            self.ghosts.drop(self._ghost_key, self.workers.stale)  # not true any more: the next race times plain

    def events(self, poll: float = 0.1, timeout: float | None = None) -> Iterator[Event]:
        """Start (if needed) and yield every event until both sides are done.

        timeout: give up (stop the race) when no event arrives for this many seconds.
        """
        self.start()
        try:
            yield from self._drain(poll, timeout)
        finally:  # the reader's tokenizer goes back to the pool once nothing will decode any more
            self.reader.release()

    def _drain(self, poll: float, timeout: float | None) -> Iterator[Event]:
        last = time.monotonic()
        while not all(r.done for r in self.records.values()):
            try:
                event = self.events_queue.get(timeout=poll)
            except queue.Empty:
                if timeout is not None and time.monotonic() - last > timeout:
                    self.stop()
                    raise ArenaError(msg("No progress for {timeout} s: the race was stopped.", timeout=f"{timeout:.0f}"))
                if not self.workers.alive() and self.events_queue.empty():
                    for side, rec in self.records.items():  # cannot happen: workers always send Done
                        if not rec.done:
                            rec.error, rec.done = rec.error or "worker ended without a result", True
                continue
            last = time.monotonic()
            self._record(event)
            yield event

    def run(self) -> RaceResult:
        """Run to the end without streaming; returns :meth:`result`."""
        for _ in self.events():
            pass
        return self.result()

    # ----- result ---------------------------------------------------------------------------------------------------
    def _assisted(self) -> AssistedResult:
        rec, args, policy = self.records["assisted"], self.setup.args, self.workers.policy
        schedule = args.draft_policy or args.drafter_config.get("num_assistant_tokens_schedule")
        # rounds the cost-aware schedule drafted nothing in (every round of a side that decoded plainly)
        skipped = 0 if policy is None else len(rec.rounds) if policy.plain else policy.rounds_skipped
        return AssistedResult(**self.reader.side("assisted"), tokens=[dataclasses.replace(t) for t in rec.tokens],
                              rounds=[dataclasses.replace(r) for r in rec.rounds], draft_policy=schedule,
                              skipped_rounds=skipped)

    def result(self) -> RaceResult:
        """The race so far as a :class:`RaceResult` (its ``to_dict()`` is the JSON contract), with its explanation."""
        p = self.setup.preset
        result = RaceResult(
            preset=p.id, method=p.method, target=p.target, assistant=p.assistant,
            mode="sequential" if self.sequential else "concurrent", do_sample=p.do_sample, device=self.setup.device,
            baseline=SideResult(**self.reader.side("baseline")), assisted=self._assisted(),
            errors={s: r.error for s, r in self.records.items() if r.error},
            stopped=any(r.stopped for r in self.records.values()), knobs=p.knobs(), threads=self.workers.threads_per_side,
            dtype=getattr(getattr(self.setup, "target", None), "dtype", None),
            baseline_kept_at=self.kept_at,
            baseline_check=self.workers.kept_check.to_dict() if self.workers.kept_check is not None else None,
            conditions=self.workers.conditions())
        result.why = explain_race(result, result.knobs, self.workers.verify_cost)  # judges the race once
        return result
