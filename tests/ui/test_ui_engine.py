"""The page on a serving engine (docs/DESIGN.md §4.7): the operator's engines in the preset list, an engine race
through the Race tab's own event (live data for the player, the engine's statuses, its own figures beside the
arena's clock, the why panel, a trace that names the engine), Stop at the engine, the API by name, and every refusal
one line. Races the real llama-server pair (tests/conftest.py ``llama_pair``) and the fakes of tests/engine_fake.py."""

from __future__ import annotations

import json
import threading

import pytest

from app.engine.rounds import PER_STEP
from app.engine.target import EngineTarget
from app.replay.tracefile import load_trace
from app.ui.config import UIConfig
from app.ui.page import build_app
from app.ui.race.controls import CONCURRENT, CONTROL_NAMES, FAIR
from app.ui.race.session import Session
from tests.engine_follow import CODE_EDIT, arena_threads
from tests.helpers import race_controls

pytestmark = pytest.mark.slow
ENGINE = "engine:local"


@pytest.fixture(scope="module")
def engine_app(llama_pair):
    """The page built with the real llama-server pair offered as the engine "local"."""
    assisted, plain = llama_pair
    return build_app(UIConfig(endpoints=(EngineTarget("local", assisted.url, plain.url),)))


def _controls(prompt: str = CODE_EDIT, tokens: int = 32, preset: str = ENGINE) -> list:
    values = dict(zip(CONTROL_NAMES, race_controls("offline-prompt-lookup", prompt, tokens)))
    values["preset"] = preset
    return [values[n] for n in CONTROL_NAMES]


def test_the_engines_are_in_the_preset_list_and_hide_what_they_do_not_take(engine_app):
    ui, handlers = engine_app.race.ui, engine_app.race.handlers
    assert (next(label for label, value in ui.preset.choices if value == ENGINE)).startswith("\u2699 Serving engine")
    picked = handlers.preset_changed(ENGINE, "")
    assert picked[ui.mode]["visible"] is False and picked[ui.models_box]["visible"] is False
    assert picked[ui.decoding]["visible"] is False and "serving engine" in picked[ui.card]
    assert ui.decoding_box not in picked and picked[ui.max_new_tokens]["value"]  # the token cap stays
    assert picked[ui.tune]["visible"] is False
    assert all(picked[k]["visible"] is False for k in ui.knobs.values())
    assert picked[ui.prompt]["value"]  # the engine offers example prompts too
    back = handlers.preset_changed("offline-prompt-lookup", "")
    assert back[ui.mode]["visible"] is True and back[ui.models_box]["visible"] is True and back[ui.tune]["visible"]


def test_an_engine_race_streams_through_the_race_tab(engine_app, tmp_path, any_load):
    """Whatever the mode control says, an engine race is plain then assisted; the player's data carries the
    engine's per-step statuses; the finished race shows the engine's own figures and a trace naming it."""
    ui, handlers, session = engine_app.race.ui, engine_app.race.handlers, Session()
    frames = list(handlers.race_click(session, CONCURRENT, *_controls()))
    data = [f[ui.player] for f in frames if ui.player in f]
    racing = [d for d in data if d["state"] == "racing" and d["sides"]["assisted"]["tokens"]]
    assert racing and all(d["mode"] == "sequential" for d in data)
    assert any(d["sides"]["baseline"]["phase"] == "done" and d["sides"]["assisted"]["phase"] == "running"
               for d in racing)  # plain first, then assisted: the player replays plain beside it
    last = frames[-1]
    final = last[ui.player]
    assert final["state"] == "finished" and {s["phase"] for s in final["sides"].values()} == {"done"}
    result = session.latest
    assert result.identical and result.preset == "endpoint" and result.method == "llama.cpp ngram-simple"
    statuses = [t[2] for t in final["sides"]["assisted"]["tokens"]]
    assert statuses == [t.status for t in result.assisted.tokens] and "accepted" in statuses
    assert "own decode speedup" in last[ui.stats] and "drafts the engine accepted" in last[ui.stats]
    assert "The engine accepted" in last[ui.why] and "own clock" in last[ui.why]
    assert "llama.cpp server" in last[ui.hardware] and "with the engine to itself" in last[ui.status]
    trace_path = last[ui.downloads.trace]["value"]
    trace = load_trace(trace_path)
    assert trace.settings["engine"] == "llama.cpp" and trace.settings["status_source"] == PER_STEP
    assert trace.result.assisted.token_ids == result.assisted.token_ids
    assert "engine" in json.loads(open(trace_path, encoding="utf-8").read())["result"]


def test_stop_ends_an_engine_race_at_the_engine(engine_app, llama_pair):
    ui, handlers, session = engine_app.race.ui, engine_app.race.handlers, Session()
    before = arena_threads()
    events = handlers.race_click(session, FAIR, *_controls("Write a long story about a lighthouse keeper.", 400))
    for frame in events:
        data = frame.get(ui.player)
        if data is not None and len(data["sides"]["baseline"]["tokens"]) >= 3:
            assert "Stopped" in handlers.stop(session)[ui.status]
            break
    rest = list(events)
    assert session.latest.stopped and rest[-1][ui.player]["state"] == "finished"
    assert len(session.latest.baseline.token_ids) < 400
    assert not session.running() and arena_threads() <= before


def test_the_api_races_an_engine_by_name(engine_app):
    measure = next(fn for fn in engine_app.demo.fns.values() if fn.api_name == "measure").fn
    out = [x for x in measure(preset=ENGINE, prompt=CODE_EDIT, max_new_tokens=24) if x is not None][-1]
    assert out["preset"] == "endpoint" and out["engine"]["name"] == "llama.cpp" and out["identical"]
    assert out["assisted"]["status_source"] == PER_STEP


@pytest.mark.parametrize("preset, needle", [("engine:nope", "Unknown engine &#x27;nope&#x27;. Known engines: local")])
def test_an_unknown_engine_is_one_line(engine_app, preset, needle):
    ui, handlers = engine_app.race.ui, engine_app.race.handlers
    frames = list(handlers.race_click(Session(), FAIR, *_controls(preset=preset)))
    assert needle in frames[-1][ui.status] and "status-error" in frames[-1][ui.status]


def test_tune_the_sampling_check_and_preset_parameters_refuse_an_engine(engine_app, monkeypatch):
    import gradio as gr

    monkeypatch.setattr(gr, "Warning", lambda message: None)
    ui, handlers = engine_app.race.ui, engine_app.race.handlers
    tuned = list(handlers.tune_stream(Session(), *_controls()))
    assert "local is a serving engine" in tuned[-1][ui.status]
    measure = next(fn for fn in engine_app.demo.fns.values() if fn.api_name == "measure").fn
    with pytest.raises(gr.Error, match="num_assistant_tokens cannot be given for the serving engine local"):
        list(measure(preset=ENGINE, prompt="x", num_assistant_tokens=3))


def test_the_why_panel_costs_a_round_from_the_engine_s_own_timings(engine_pair):
    """The fakes: 6 rounds of 12 ms each, 1.2 steps of plain's 10 ms, keeping 1.7 tokens each (tests/engine_fake.py)."""
    assisted, plain = engine_pair
    app = build_app(UIConfig(endpoints=(EngineTarget("local", assisted.url, plain.url),)))
    ui, handlers = app.race.ui, app.race.handlers
    why = list(handlers.race_click(Session(), FAIR, *_controls()))[-1][ui.why]
    assert "own clock" in why and "Drafting pays" in why, why
    assert all(figure in why for figure in ("12 ms", "1.2 plain steps", "10 ms each", "1.7 tokens", "0.8 tokens"))


def test_a_dead_engine_is_one_line_and_leaves_no_thread(engine_pair):
    """The fakes: the assisted engine down before the race (refused connection)."""
    assisted, plain = engine_pair
    app = build_app(UIConfig(endpoints=(EngineTarget("local", assisted.url, plain.url),)))
    assisted.close()
    ui, handlers = app.race.ui, app.race.handlers
    before = threading.active_count()
    frames = list(handlers.race_click(Session(), FAIR, *_controls()))
    status = frames[-1][ui.status]
    assert "status-error" in status and "assisted endpoint is down: nothing answers at local&#x27;s address" in status
    assert assisted.url not in status and "127.0.0.1" not in status  # the operator's addresses stay the operator's
    assert threading.active_count() <= before + 1
