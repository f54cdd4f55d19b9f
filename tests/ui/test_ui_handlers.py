"""The streaming handlers on the real offline model, without a browser.

Checks that closing the generator (what gradio does when the tab goes away) and the Stop
button really end both worker threads, and that a finished race and a fair measurement
render their figures side by side.
"""

from __future__ import annotations

import time

import pytest

from app.ui.race.controls import CONCURRENT, CONTROL_NAMES, FAIR
from app.ui.race.session import Session
from tests.helpers import race_controls

pytestmark = pytest.mark.slow

PRESET = "offline-prompt-lookup"
LIST_PROMPT = "Repeat this list and add one more fruit at the end: apple, banana, cherry, date, elderberry, fig."
LONG_PROMPT = "Write a long story about a lighthouse keeper and her cat, with many details."


def controls(prompt: str, max_new_tokens: int, **knobs) -> list:
    """The Race tab's control values for PRESET (`knobs` override its knob values)."""
    return race_controls(PRESET, prompt, max_new_tokens, assistant="", chat_template=True, **knobs)


NAMES = ("player", "stats", "chart", "hardware", "status", "run", "mode", "stop", "legend")


@pytest.fixture(scope="module")
def ui(built):
    return built.race.ui


@pytest.fixture(scope="module")
def handlers(built):
    return built.race.handlers


@pytest.fixture(scope="module")
def frame(ui):
    """A handler's {component: value} as {name: value} (components it did not change are left out)."""
    by_id = {id(getattr(ui, name)): name for name in NAMES}
    return lambda values: {by_id[id(c)]: v for c, v in values.items() if id(c) in by_id}


def _until_tokens(gen, session: Session, frame, timeout: float = 120.0) -> dict:
    """Advance the stream until both panes show tokens; return that frame."""
    deadline = time.monotonic() + timeout
    for values in gen:
        f = frame(values)
        snap = session.run.snapshot() if session.run is not None else None
        if snap is not None and all(len(s.tokens) >= 2 for s in snap.sides.values()):
            return f
        assert time.monotonic() < deadline, "no tokens in time"
    raise AssertionError("the stream ended before tokens arrived")


def test_closing_the_stream_stops_the_race(handlers, frame):
    """gradio closes the generator when the browser tab goes away: GeneratorExit must stop both workers."""
    session = Session()
    gen = handlers.race_click(session, CONCURRENT, *controls(LONG_PROMPT, 256))
    f = _until_tokens(gen, session, frame)
    sides = f["player"]["sides"]
    assert sides["baseline"]["phase"] == "running" and sides["assisted"]["tokens"] and f["player"]["state"] == "racing"
    run = session.run
    gen.close()
    assert run.stop_event.is_set()
    assert run.join(15), "worker threads still running after the stream was closed"
    assert len(run.snapshot().sides["baseline"].tokens) < 256


def test_stop_button_ends_both_runs(handlers, frame):
    session = Session()
    gen = handlers.race_click(session, CONCURRENT, *controls(LONG_PROMPT, 256))
    _until_tokens(gen, session, frame)
    assert "Stopped" in frame(handlers.stop(session))["status"]
    assert not session.running()
    rest = [frame(v) for v in gen]  # the stream then ends by itself with a final frame
    assert rest and rest[-1]["player"]["sides"]["assisted"]["phase"] == "stopped" and session.latest.stopped is True
    assert "Nothing is running" in frame(handlers.stop(session))["status"]


def test_race_then_measure_fill_in_both_speedups(handlers, frame):
    """(How often the live panes update is a timing: benchmarks/ui_overhead.py prints it.) The constant schedule
    keeps the rounds a function of the greedy answer alone, so the copy of the list's end is drafted and rejected
    whatever this machine's timings make the cost-aware schedule choose."""
    session = Session()
    constant = {"num_assistant_tokens_schedule": "constant"}
    frames = [frame(values) for values in handlers.race_click(session, CONCURRENT, *controls(LIST_PROMPT, 24, **constant))]
    last = frames[-1]
    assert "badge-identical" in last["stats"] and "both runs shared the machine" in last["stats"]
    sides = last["player"]["sides"]
    assert "accepted" in {t[2] for t in sides["assisted"]["tokens"]} and sides["baseline"]["phase"] == "done"
    assert last["player"]["state"] == "finished" and "<svg" in last["chart"] and "params" in last["hardware"]
    running = [f for f in frames if "player" in f and f["player"]["sides"]["assisted"]["phase"] == "running"]
    assert running, "no live frame while tokens streamed"
    race_speedup = session.latest.speedup
    frames = [frame(v) for v in handlers.race_click(session, FAIR, *controls(LIST_PROMPT, 24, **constant))]
    last = frames[-1]
    assert session.latest.mode == "sequential" and session.latest.identical
    assert session.latest.assisted.draft_policy != "cost-aware"
    assert f"{race_speedup:.2f}\u00d7" in last["stats"] and f"{session.latest.speedup:.2f}\u00d7" in last["stats"]
    assert "fair race: each side with the machine to itself" in last["stats"]
    assert any(r[2] for r in last["player"]["sides"]["assisted"]["rounds"])  # a rejected draft the player can show


def test_the_fair_race_replays_plain_in_step_and_keeps_it_for_the_next_race(handlers, frame, monkeypatch):
    """Plain runs first; in the assisted phase the plain pane replays its recorded run from zero (fewer tokens than
    it has, growing); a second fair race on the same prompt and settings races the kept run, whatever the method
    knobs, and skips plain's run. (Whether a kept run is still true is tests/race/test_trust.py's: here any probe passes,
    so a busy test machine cannot make the kept run stale.)"""
    from app.race import trust
    from app.race.kept import KEPT_RUNS

    monkeypatch.setattr(trust, "MIN_STALE", 1e6)
    monkeypatch.setattr(trust, "MAX_STALE", 1e6)

    KEPT_RUNS.clear()
    session = Session()
    first = [frame(v) for v in handlers.race_click(session, FAIR, *controls(LIST_PROMPT, 24))]
    kept = session.latest
    assert kept.mode == "sequential" and kept.baseline_kept_at is None and kept.identical
    # the frames the player replays plain's run from: plain done, the assisted side started, the race not over
    replaying = [f["player"] for f in first if "player" in f and f["player"]["state"] == "racing"
                 and f["player"]["sides"]["baseline"]["phase"] == "done" and f["player"]["sides"]["assisted"]["started"]]
    assert replaying and all(d["mode"] == "sequential" and d["sides"]["assisted"]["phase"] != "waiting" for d in replaying)
    assert first[-1]["player"]["state"] == "finished" and "Fair race" in first[-1]["status"]
    again = controls(LIST_PROMPT, 24)
    again[CONTROL_NAMES.index("prompt_lookup_num_tokens")] = 3  # another setting of the method: same plain run
    second = [frame(v) for v in handlers.race_click(session, FAIR, *again)]
    result = session.latest
    assert result.baseline_kept_at is not None and result.baseline.token_ids == kept.baseline.token_ids
    assert result.baseline.seconds == kept.baseline.seconds and result.identical
    assert any("kept from" in f["status"] for f in second) and any(f["player"]["kept"] for f in second if "player" in f)
