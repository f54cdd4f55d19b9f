"""The Planner tab: built without a model, wired, the calculator, rendering, errors, measuring on tiny models, export."""

from __future__ import annotations

import dataclasses
import inspect

import csv
import io
import json
import re
from pathlib import Path

import gradio as gr
import pytest

from app.core.requests import Limits
from app.planner.memory import MemoryUnavailable
from app.planner.plan import PlanOptions, plan_from_numbers
from app.planner.types import MeasuredPoint
from app.planner.request import parse_prices, plan_options
from app.render.status import status_html
from app.ui.exports import export_dir
from app.ui.planner.handlers import PlanState, export_plan
from app.render.plan import (advice_html, check_html, cost_html, headline_html, memory_html, plot_html,
                             progress_html, table_html)
from tests.helpers import by_elem_id, english, make_preset, server_events

REPORT = ("status", "headline", "plot", "table", "check", "memory", "cost", "advice", "json_file", "csv_file", "raw")


@pytest.fixture(scope="module")
def local_planner(local_built):
    """The Planner tab of a server launched with --allow-local-models (the tiny models are local folders)."""
    return local_built.planner


def named(planner, frame: dict) -> dict:
    """A handler's {component: value} as {name: value} over the report, the buttons and the status."""
    by_id = {id(getattr(planner.ui, n)): n for n in (*REPORT, "measure", "stop")}
    return {by_id[id(c)]: v for c, v in frame.items() if id(c) in by_id}


# ----- building and wiring -----------------------------------------------------------------------
def test_tabs_hold_race_and_planner(built):
    tabs = [b for b in built.demo.blocks.values() if isinstance(b, gr.Tab)]
    assert [english(t.label) for t in tabs] == ["Race", "Planner", "Benchmark", "Replay"]
    for elem_id in ("run-btn", "race-row", "plan-compute-btn", "plan-measure-btn", "plan-plot", "plan-json"):
        by_elem_id(built, elem_id)


def test_compute_measure_stop_are_wired(built):
    handlers = built.planner.handlers
    (compute,) = server_events(built, "plan-compute-btn")
    assert inspect.unwrap(compute.fn) == handlers.plan_calculate and compute.concurrency_id != "generation"
    assert [c.elem_id for c in compute.outputs] == [getattr(built.planner.ui, k).elem_id for k in REPORT]
    (measure,) = server_events(built, "plan-measure-btn")
    assert inspect.unwrap(measure.fn) == handlers.plan_measure and measure.types_generator
    (race,) = server_events(built, "run-btn")
    assert measure.concurrency_id == race.concurrency_id == "generation"
    assert measure.concurrency_limit == race.concurrency_limit
    (stop,) = server_events(built, "plan-stop-btn")
    assert inspect.unwrap(stop.fn) == handlers.plan_stop and stop.concurrency_limit is None
    assert server_events(built, "plan-preset", "change")


def test_plan_api_endpoint(built):
    names = {fn.api_name: fn for fn in built.demo.fns.values() if fn.api_visibility == "public"}
    assert {"race", "measure", "plan"} <= set(names)
    assert names["plan"].concurrency_id == "generation"
    params = [p["parameter_name"] for p in built.demo.get_api_info()["named_endpoints"]["/plan"]["parameters"]]
    assert params[:4] == ["preset", "prompts", "alpha", "c"]
    endpoint = built.planner.handlers.make_endpoint()  # a generator: its last value is the plan (app/ui/keepalive.py)
    plan = list(endpoint(alpha=0.8, c=0.05))[-1]
    assert (plan["best_gamma"], round(plan["predicted_speedup"], 2)) == (8, 3.09)
    with pytest.raises(gr.Error, match="alpha must be"):
        list(endpoint(alpha=1.5, c=0.05))


# ----- calculator --------------------------------------------------------------------------------
def test_calculator_gives_the_articles_answer(built):
    out = named(built.planner, built.planner.handlers.plan_calculate(0.8, 0.05, "A10 24GB=1.29\nH100 SXM 80GB=4.29", 720))
    assert set(out) == set(REPORT)
    assert "3.09x" in out["headline"] and ">8<" in out["headline"] and "best gamma" in out["headline"]
    assert "Drafting pays" in out["headline"] and "exceeds c 0.050" in out["headline"]
    assert "<svg" in out["plot"] and "best gamma 8: 3.09x" in out["plot"]
    assert "cell-measured" in out["table"] and "cell-best" in out["table"]
    assert out["raw"]["best_gamma"] == 8 and out["raw"]["mode"] == "calculator"
    assert "$628.42" in out["cost"]  # A10 720 h x $1.29 x (1 - 1/3.0921)


def test_bad_alpha_gives_a_clear_message(built, monkeypatch):
    warnings = []
    monkeypatch.setattr(gr, "Warning", lambda msg: warnings.append(msg))
    handlers = built.planner.handlers
    out = named(built.planner, handlers.plan_calculate(1.5, 0.05, "", 720))
    assert list(out) == ["status"]  # nothing else changes
    assert "alpha must be between 0 and 1" in out["status"] and "Traceback" not in out["status"]
    assert warnings and "1.5" in warnings[0]
    assert "Give both alpha" in named(built.planner, handlers.plan_calculate(None, 0.05, "", 720))["status"]
    assert "alpha must be a number" in named(built.planner, handlers.plan_calculate("abc", 0.05, "", 720))["status"]
    assert "NAME=DOLLARS_PER_HOUR" in named(built.planner, handlers.plan_calculate(0.8, 0.05, "A10 costs a lot", 720))["status"]


def test_the_fields_errors_name_them_by_their_page_labels(built, monkeypatch):
    """A bad planner field's message starts with the label the page shows it under (one table, PLAN_NUMBERS)."""
    from app.planner.request import PLAN_NUMBERS

    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    for elem_id, knob in (("plan-gpu-memory", "gpu_memory"), ("plan-context", "context"), ("plan-dtype", "dtype"),
                          ("plan-hours", "hours_per_month")):
        assert english(by_elem_id(built, elem_id).label) == PLAN_NUMBERS[knob].label
    status = named(built.planner, built.planner.handlers.plan_calculate(0.8, 0.05, "", 800))["status"]
    assert "GPU hours per month must be in (0, 744]; got 800" in status


def test_alpha_not_above_c_says_so_in_plain_words():
    html = headline_html(plan_from_numbers(0.1, 0.2))
    assert "plan-verdict-no" in html and "does not exceed c" in html


def test_options_parse_and_reject():
    opts = plan_options(80, 8192, "float16", "L4=0.8; A100=1.5", 100, 16, Limits(max_new_tokens=64))
    assert (opts.gpu_memory_gb, opts.context_tokens, opts.dtype, opts.max_new_tokens) == (80, 8192, "float16", 16)
    assert [g.name for g in opts.gpus] == ["L4", "A100"] and parse_prices("")[0].name.startswith("A10")
    for args, needle in [((0, 4096, "bfloat16", "", 720), "GPU memory (GB) must be"),
                         ((24, 1.5, "bfloat16", "", 720), "Context (tokens) must be"),
                         ((24, 4096, "fp8", "", 720), "Weights dtype must be"),
                         ((24, 4096, "bfloat16", "", 800), "GPU hours per month must be in (0, 744]")]:
        with pytest.raises(Exception, match=re.escape(needle)):
            plan_options(*args)
    with pytest.raises(Exception, match="between 1 and 64"):
        plan_options(24, 4096, "bfloat16", "", 720, 100, Limits(max_new_tokens=64))


# ----- rendering ---------------------------------------------------------------------------------
def test_render_functions_escape_text():
    evil = "<script>alert(1)</script>"
    plan = plan_from_numbers(0.7, 0.1, PlanOptions())
    plan.target, plan.assistant, plan.method, plan.advice, plan.notes = evil, evil, evil, [evil], [evil]
    plan.cost.rows[0] = dataclasses.replace(plan.cost.rows[0], label=evil)
    plan.cost.gpus[0] = dataclasses.replace(plan.cost.gpus[0], gpu=evil)
    plan.memory = MemoryUnavailable(evil)
    plan.measured_points = [MeasuredPoint(3, 1.2, evil)]
    html = "".join([headline_html(plan), plot_html(plan), table_html(plan), check_html(plan), memory_html(plan),
                    cost_html(plan), advice_html(plan), status_html(evil, "error"), progress_html([evil, evil])])
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_progress_shows_the_newest_line_first():
    html = progress_html(["Loading the target", "Racing on prompt 1/2"], 12.4)
    assert html.index("Racing on prompt 1/2") < html.index("Loading the target") and "12 s" in html


# ----- measuring on tiny models ------------------------------------------------------------------
def test_measure_streams_progress_and_a_plan(tiny, local_planner, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    handlers = local_planner.handlers
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], max_new_tokens=12)
    state = PlanState()
    options = PlanOptions(max_new_tokens=12, repeats=2, steps=3, limits=handlers.config.limits)
    frames = [named(local_planner, f) for f in handlers.measure_preset(state, preset, ["Hello there", "One two three"],
                                                                       options)]
    assert len(frames) >= 2 and "plan-progress" in frames[0]["status"]
    assert "interactive" in str(frames[0]["stop"])
    last = frames[-1]
    assert set(last) == {*REPORT, "measure", "stop"}
    assert "Measured" in last["status"], last["status"]
    plan = last["raw"]
    assert plan == state.plan.to_dict() and plan["mode"] == "measured" and 0.0 <= plan["alpha"] <= 1.0
    assert state.plan.check.constant.identical  # greedy assisted == plain greedy
    assert "alpha, by agreement" in last["headline"] and "Predicted vs measured" in last["check"]
    assert "plan-fit" in last["memory"]
    assert not state.running


def test_measure_refuses_local_folders_unless_allowed(built, tiny, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    frames = [named(built.planner, f) for f in built.planner.handlers.plan_measure(
        PlanState(), "offline-uad", tiny["llama_target"], "", "", 12, 24, 4096, "bfloat16", "", 720)]
    assert len(frames) == 1 and "status-error" in frames[0]["status"] and "Traceback" not in frames[0]["status"]


def test_stop_before_the_first_step_cancels(tiny, local_planner):
    handlers = local_planner.handlers
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], max_new_tokens=8)
    state = PlanState()
    gen = handlers.measure_preset(state, preset, ["Hi"], PlanOptions(max_new_tokens=8, repeats=1, steps=2,
                                                                      limits=handlers.config.limits))
    next(gen)
    state.cancel.set()
    status = named(local_planner, list(gen)[-1])["status"]
    assert "Stopped" in status or "Measured" in status  # a tiny run may finish first
    assert "Nothing is being measured" in named(local_planner, handlers.plan_stop(state))["status"]


# ----- export ------------------------------------------------------------------------------------
def test_export_writes_json_and_csv_that_parse():
    plan = plan_from_numbers(0.8, 0.05)
    json_path, csv_path = export_plan(plan)
    for p in (json_path, csv_path):
        assert Path(p).parent == export_dir("plans") and Path(p).exists()
    assert json.loads(Path(json_path).read_text(encoding="utf-8"))["best_gamma"] == 8
    rows = dict(csv.reader(io.StringIO(Path(csv_path).read_text(encoding="utf-8"))))
    assert rows["best_gamma"] == "8" and rows["speedup_by_gamma.8"] == "3.0921"
