"""The planner on a serving engine (docs/DESIGN.md §4.7, §5.17) against the fake engines of tests/engine_fake.py: alpha
per token from the engine's own rounds, c from its own step times, the plan's JSON, the command line, the page and the
/plan API through the one request builder, and every fault as the engine race words it."""

from __future__ import annotations

import json
import re

import gradio as gr
import pytest

from app.cli import main
from app.core.errors import ArenaError
from app.core.requests import Limits
from app.engine.http import Timeouts
from app.engine.race import race_llamacpp
from app.planner import engine_plan
from app.planner.check import modelled_speedup
from app.planner.engine_plan import plan_on_engine
from app.planner.plan import PlanOptions
from app.planner.request import engine_requests
from app.race.protocol import Round
from app.engine.target import EngineTarget, make_target
from app.ui.config import UIConfig
from app.ui.planner.handlers import PlannerHandlers, PlanState
from tests.engine_fake import IDS, STEPS

OPERATOR = PlanOptions(max_new_tokens=len(IDS), limits=Limits.operator())


def _requests(engine_pair, prompts, engine=None, model=None, limits=Limits.operator(), max_new_tokens=len(IDS)):
    target = make_target("endpoint", engine_pair[0].url, engine_pair[1].url, engine, model)
    return engine_requests(target, list(prompts), max_new_tokens, limits)


def _plan(engine_pair, prompts=("hello", "again"), engine=None, model=None):
    return plan_on_engine(_requests(engine_pair, prompts, engine, model), OPERATOR)


def test_alpha_and_c_come_from_the_engines_rounds_and_step_times(engine_pair):
    plan = _plan(engine_pair)
    e = plan.engine
    # the fake's steps: 3 drafted 2 kept, 2 drafted 2 kept, on each prompt: 4 kept of 5 tested tokens (§5.5)
    assert plan.alpha == e.alpha_observed.value == pytest.approx(0.8)
    assert (e.alpha_observed.drafted, e.alpha_observed.accepted) == (2 * sum(d for _, d, _ in STEPS),
                                                                     2 * sum(a for _, _, a in STEPS))
    # plain 100 ms for 10 tokens; drafting 70 ms: 4 undrafted tokens at 10 ms, 2 steps at 15 ms, 2.5 drafted a step
    assert (e.c.plain_ms_per_token, e.c.verify_ms_per_step, e.c.mean_drafted) == (10.0, 15.0, 2.5)
    assert plan.c == e.c.value == pytest.approx((15 / 10 - 1) / 2.5)
    assert e.speedup.decode == pytest.approx(round((10 / 70) / (10 / 100), 4))  # predicted_per_second over plain's
    # by its definition, c makes the cost model of these very rounds give the engine's decode speedup (§5.8, §5.17)
    rounds = [Round(d, a) for _, d, a in STEPS]
    undrafted = len(IDS) - sum(a + 1 for _, _, a in STEPS)
    modelled = (sum(r.accepted + 1 for r in rounds) + undrafted) / (sum(1 + r.drafted * plan.c for r in rounds)
                                                                    + undrafted)
    assert modelled == pytest.approx(e.speedup.decode, abs=1e-4)
    assert modelled_speedup(rounds, plan.c) > 1
    assert e.status_source == "engine-per-step" and e.identical and e.prompts == 2


def test_the_engine_plans_json_is_the_plan_shape_with_the_engines_keys(engine_pair):
    out = json.loads(json.dumps(_plan(engine_pair).to_dict()))
    assert out["mode"] == "measured" and out["preset"] == "endpoint" and out["method"] == "llama.cpp ngram-simple"
    assert list(out)[14:] == ["preset", "method", "target", "assistant", "alpha_source", "c_source", "device", "engine"]
    assert "measured from the engine" in out["c_source"] and "engine's own rounds" in out["alpha_source"]
    assert out["engine"]["c"]["what"].endswith("from the engine's own timings (predicted_ms / predicted_n)")
    assert [p["label"] for p in out["measured_points"]] == ["measured, engine decode",
                                                           "measured, arena clock (end to end)"]
    assert out["final"]["source"] == "measured" and out["final"]["pays"] == "yes"
    assert "projection" in out["cost"] and [r["label"] for r in out["cost"]["rows"]][0] == "predicted"
    assert out["speedup_by_gamma"][str(out["engine"]["speedup"]["predicted_gamma"])] == pytest.approx(
        out["engine"]["speedup"]["predicted"], abs=1e-4)


@pytest.mark.parametrize("engine, shape, alpha", [
    ("vllm", "choice", 4 / 5),  # per-step arrays: the fake's steps (3, 2) and (2, 2)
    ("sglang", None, 4 / 6),  # a histogram of 2 steps keeping 2 of 6 proposed: (3, 2) twice
])
def test_vllm_and_sglang_time_the_decode_on_the_arenas_clock(engine_pair, engine, shape, alpha):
    engine_pair[0].vllm_shape = shape
    plan = _plan(engine_pair, ("hello",), engine=engine, model="fake")
    assert plan.alpha == pytest.approx(alpha, abs=1e-4) and plan.c >= 0
    assert plan.engine.c.what.endswith(engine_plan.ARENA_TIMES) and plan.engine.name == engine


FAST = Timeouts(connect=2.0, read=1.0, total=10.0)


@pytest.mark.parametrize("fault", ["down", "http500", "model", "no-speculation"])
def test_each_fault_is_the_engine_races_own_line(engine_pair, fault):
    """The plan's message for a fault is the one the engine race gives for it, word for word."""
    model = None
    if fault == "down":
        engine_pair[0].close()
    elif fault == "http500":
        engine_pair[1].mode = "http500"
    elif fault == "model":
        model = "other"
    else:
        engine_pair[0].spec = False
    with pytest.raises(ArenaError) as raced:
        race_llamacpp(engine_pair[0].url, engine_pair[1].url, "hello", len(IDS), timeouts=FAST, model=model)
    with pytest.raises(ArenaError) as planned:
        _plan(engine_pair, ("hello",), model=model)
    assert str(planned.value) == str(raced.value) and "\n" not in str(planned.value)


def test_an_engine_that_drafts_nothing_leaves_no_alpha_to_measure(engine_pair, monkeypatch):
    monkeypatch.setattr("tests.engine_fake.STEPS", [])
    with pytest.raises(ArenaError, match="drafted nothing on these prompts"):
        _plan(engine_pair, ("hello",))


def test_the_work_budget_is_counted_before_anything_runs(engine_pair):
    # one race (10 tokens a side, the warm-ups and the plain probe: 46) fits in 60; the two prompts' plan does not
    with pytest.raises(ArenaError, match="engine plan would generate about 92 tokens"):
        _requests(engine_pair, ["a", "b"], limits=Limits(work_tokens=60), max_new_tokens=10)
    assert engine_pair[0].requests == engine_pair[1].requests == []


# ----- the command line ---------------------------------------------------------------------------------------------
def test_plan_endpoint_on_the_command_line(engine_pair, capsys):
    assisted, plain = engine_pair
    assert main(["plan", "--endpoint", assisted.url, "--plain-endpoint", plain.url, "--prompt", "hello",
                 "--max-new-tokens", str(len(IDS)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["engine"]["alpha_observed"]["value"] == pytest.approx(0.8) and out["c"] == pytest.approx(0.2)
    assert main(["plan", "--endpoint", assisted.url, "--plain-endpoint", plain.url, "--prompt", "hello",
                 "--max-new-tokens", str(len(IDS))]) == 0
    text = capsys.readouterr().out
    assert "c 0.2000 measured from the engine" in text and "1.43x decode (the engine's clock)" in text


@pytest.mark.parametrize("argv, needle", [
    (["--plain-endpoint", "http://127.0.0.1:9", "--prompt", "x"], "--plain-endpoint needs --endpoint URL"),
    (["--endpoint", "http://127.0.0.1:9", "--preset", "drafter", "--prompt", "x"], "--preset cannot be used with"),
    (["--endpoint", "http://127.0.0.1:9", "--alpha", "0.5", "--c", "0.1"], "--alpha, --c cannot be used with"),
    (["--endpoint", "ftp://x", "--prompt", "x"], "--endpoint: 'ftp://x' is not an http:// or https:// URL"),
    (["--endpoint", "http://127.0.0.1:9"], "Give at least one prompt"),
])
def test_bad_engine_flags_are_one_line(capsys, argv, needle):
    assert main(["plan", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and needle in captured.err


# ----- the page and its /plan API -----------------------------------------------------------------------------------
@pytest.fixture
def engine_tab(engine_pair):
    """A Planner tab of a server that offers the fake pair as the engine "fake" (app.py --endpoint
    fake=URL,plain=URL2)."""
    from app.ui.planner.tab import PlannerTab

    config = UIConfig(endpoints=(EngineTarget("fake", engine_pair[0].url, engine_pair[1].url),))
    with gr.Blocks():
        tab = PlannerTab(config).build(dict(concurrency_id="generation", concurrency_limit=1),
                                       dict(concurrency_limit=None, api_visibility="private"))
    return tab


def _status(tab, frames) -> str:
    return [f[tab.ui.status] for f in frames if tab.ui.status in f][-1]


def test_the_page_offers_the_operators_engines_by_name(engine_tab, engine_pair):
    from app.core.words import speaking
    from app.ui.engines import engine_choice_words

    choices = dict((value, label) for label, value in engine_tab.ui.preset.choices)
    assert "engine:fake" in choices and choices["engine:fake"].key == "ui.engine_choice.fake"
    with speaking("en"):
        assert "fake" in engine_choice_words(engine_tab.config.endpoints)["ui.engine_choice.fake"]
    assert engine_pair[0].url not in json.dumps([str(label) for label, _ in engine_tab.ui.preset.choices])
    hidden = engine_tab.handlers.preset_changed("engine:fake", "my prompt")
    assert hidden[engine_tab.ui.target]["visible"] is False and engine_tab.ui.prompts not in hidden


def test_the_page_plans_on_an_engine(engine_tab, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    state = PlanState()
    frames = list(engine_tab.handlers.plan_measure(state, "engine:fake", "", "", "hello\nagain", len(IDS), 24, 4096,
                                                   "bfloat16", "", 720))
    assert "Measured the engine fake" in _status(engine_tab, frames)
    raw = frames[-1][engine_tab.ui.raw]
    assert raw == state.plan.to_dict() and raw["engine"]["prompts"] == 2 and raw["alpha"] == pytest.approx(0.8)
    last = frames[-1]
    assert "alpha, observed on the engine" in last[engine_tab.ui.headline]
    assert "engine decode" in last[engine_tab.ui.check] and "serving engine holds its own models" in last[
        engine_tab.ui.memory]


@pytest.mark.parametrize("choice, target, needle", [
    ("engine:nope", "", "Unknown engine &#x27;nope&#x27;. Known engines: fake."),
    ("engine:fake", "HuggingFaceTB/SmolLM2-135M", "An engine serves its own models"),
])
def test_the_page_refuses_what_the_builder_refuses(engine_tab, engine_pair, monkeypatch, choice, target, needle):
    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    frames = list(engine_tab.handlers.plan_measure(PlanState(), choice, target, "", "hi", 8, 24, 4096,
                                                   "bfloat16", "", 720))
    assert len(frames) == 1 and needle in _status(engine_tab, frames)
    assert engine_pair[0].requests == []


def test_the_plan_api_plans_on_an_engine_within_the_servers_budget(engine_tab, engine_pair):
    plan = list(engine_tab.handlers.make_endpoint()(preset="engine:fake", prompts="hello", max_new_tokens=len(IDS)))[-1]
    assert plan["engine"]["name"] == "llama.cpp" and plan["mode"] == "measured"
    before = list(engine_pair[0].requests)
    config = UIConfig(endpoints=(EngineTarget("fake", engine_pair[0].url, engine_pair[1].url),), work_budget_tokens=1000)
    with pytest.raises(gr.Error, match=re.escape("This engine plan would generate about 1,082 tokens")):
        list(PlannerHandlers(config, None).make_endpoint()(preset="engine:fake", prompts="a\nb", max_new_tokens=256))
    assert engine_pair[0].requests == before  # refused before any request
