"""The long events' helper (app/ui/streaming.py): the work runs in its own thread while frames stream, and what
``python app.py`` does with such threads once its server has closed (``finish_work``)."""

from __future__ import annotations

import threading
import weakref

import pytest

from app.ui import streaming
from app.ui.streaming import finish_work, run_streaming


def drive(gen):
    """Run a ``run_streaming`` generator to its end: (frames, returned value)."""
    frames = []
    try:
        while True:
            frames.append(next(gen))
    except StopIteration as stop:
        return frames, stop.value


def test_frames_stream_while_the_work_runs_and_its_value_or_error_comes_back():
    release = threading.Event()
    frames, value = drive(run_streaming(lambda: release.wait(5) and 7, lambda s: (release.set(), {"at": s})[1], 0.01))
    assert value == 7 and frames and all("at" in f for f in frames)
    with pytest.raises(ValueError, match="bad"):
        drive(run_streaming(lambda: (_ for _ in ()).throw(ValueError("bad")), lambda s: {}, 0.01))


def test_finish_work_leaves_at_once_when_a_long_event_is_still_running(monkeypatch):
    """A planner measurement (here: a thread that never ends by itself) has no stop: after the grace time the process
    leaves with os._exit rather than let the interpreter end a thread that may be inside torch."""
    exits, hold, started = [], threading.Event(), threading.Event()
    monkeypatch.setattr(streaming.os, "_exit", exits.append)
    monkeypatch.setattr(streaming, "_WORKERS", weakref.WeakSet())  # only this test's threads: none of another test's
    gen = run_streaming(lambda: (started.set(), hold.wait(30)), lambda s: {"at": s}, 0.01, name="test-long-work")
    next(gen)  # the work thread runs
    assert started.wait(5)
    finish_work(timeout=0.2)
    assert exits == [0]
    hold.set()
    drive(gen)
    exits.clear()
    finish_work(timeout=0.2)  # nothing left running: the interpreter ends normally
    assert exits == []
