"""Following an engine race as the page does (tests of app/engine/run.py): a thread that reads ``snapshot()`` while
the race runs, and the checks that a live side is a prefix of the finished one."""

from __future__ import annotations

import threading

from app.engine import rounds
from app.engine.run import EngineRun
from app.race.protocol import RaceSnapshot

#: A code edit from the built-in suite's test split: SmolLM2's answer copies the function, so n-gram drafting drafts.
CODE_EDIT = ('Fix the off-by-one error in this function and return the whole corrected function.\n\n'
             'def sum_to(n):\n    """Return 1 + 2 + ... + n."""\n    total = 0\n    for i in range(1, n):\n'
             '        total += i\n    return total')


class Follower:
    """Reads snapshot() from another thread as the page does, keeping each distinct one."""

    def __init__(self, run: EngineRun):
        self.run, self.seen, self.done = run, [], threading.Event()
        self.thread = threading.Thread(target=self._follow)
        self.thread.start()

    def _follow(self) -> None:
        while not self.done.is_set():
            snap = self.run.snapshot()
            if snap is not None and (not self.seen or snap != self.seen[-1]):
                self.seen.append(snap)
            self.done.wait(0.002)

    def stop(self) -> list[RaceSnapshot]:
        self.done.set()
        self.thread.join()
        return self.seen


def follow(run: EngineRun):
    """(the race with the engine's figures, every distinct snapshot seen while it ran, the final snapshot)."""
    follower = Follower(run)
    try:
        result = run.run()
        race = run.race
        assert race.result is result
    finally:
        seen = follower.stop()
        run.close("test")
    return race, seen, run.snapshot()


def arena_threads() -> int:
    """Threads of this process but the fake servers' request handlers (a handler may still sleep after the client
    left; the server's own, started before the test, are counted)."""
    return sum("process_request_thread" not in t.name for t in threading.enumerate())


def check_prefix(snap_side, tokens, round_list, allow_pending: bool) -> None:
    """A live side is a prefix of the final one: same ids and times in order, statuses equal (or still pending)."""
    n = len(snap_side.tokens)
    assert [t.id for t in snap_side.tokens] == [t.id for t in tokens[:n]]
    for live, final in zip(snap_side.tokens, tokens):
        assert live.status == final.status or (allow_pending and live.status == rounds.PENDING), (live, final)
    assert list(snap_side.rounds) == list(round_list[:len(snap_side.rounds)])
    assert len(snap_side.token_times) == n
