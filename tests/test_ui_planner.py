"""The Planner tab: built without a model, wired, the calculator, rendering, errors, measuring on tiny models, export."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import gradio as gr
import pytest

from app.engine.planner import PlanOptions, plan_from_numbers
from app.ui.config import UIConfig
from app.ui.planner_tab import (REPORT, PlannerHandlers, PlanState, export_dir, export_plan, parse_prices,
                                plan_options)
from app.ui.render_plan import (advice_html, check_html, cost_html, headline_html, memory_html, message_html,
                                plot_html, progress_html, table_html)
from conftest import by_elem_id, make_preset


def _deps(demo: gr.Blocks, elem_id: str, event: str = "click") -> list:
    block = by_elem_id(demo, elem_id)
    return [fn for fn in demo.fns.values() if (block._id, event) in fn.targets]


def _html(frame: tuple) -> str:
    return "".join(v for v in frame if isinstance(v, str))


# ----- building and wiring -----------------------------------------------------------------------
def test_tabs_hold_race_and_planner(built):
    tabs = [b for b in built.blocks.values() if isinstance(b, gr.Tab)]
    assert [t.label for t in tabs] == ["Race", "Planner"]
    for elem_id in ("run-btn", "pane-assisted", "plan-compute-btn", "plan-measure-btn", "plan-plot", "plan-json"):
        by_elem_id(built, elem_id)


def test_compute_measure_stop_are_wired(built):
    handlers: PlannerHandlers = built.planner["handlers"]
    (compute,) = _deps(built, "plan-compute-btn")
    assert compute.fn == handlers.plan_calculate and compute.concurrency_id != "generation"
    assert [c.elem_id for c in compute.outputs] == [built.planner[k].elem_id for k in REPORT]
    (measure,) = _deps(built, "plan-measure-btn")
    assert measure.fn == handlers.plan_measure and measure.types_generator
    (race,) = _deps(built, "run-btn")
    assert measure.concurrency_id == race.concurrency_id == "generation"
    assert measure.concurrency_limit == race.concurrency_limit
    (stop,) = _deps(built, "plan-stop-btn")
    assert stop.fn == handlers.plan_stop and stop.concurrency_limit is None
    assert _deps(built, "plan-preset", "change")


def test_plan_api_endpoint(built):
    names = {fn.api_name: fn for fn in built.fns.values() if fn.api_visibility == "public"}
    assert {"race", "measure", "plan"} <= set(names)
    assert names["plan"].concurrency_id == "generation"
    params = [p["parameter_name"] for p in built.get_api_info()["named_endpoints"]["/plan"]["parameters"]]
    assert params[:4] == ["preset", "prompts", "alpha", "c"]
    endpoint = built.planner["handlers"].make_endpoint()
    plan = endpoint(alpha=0.8, c=0.05)
    assert (plan["best_gamma"], round(plan["predicted_speedup"], 2)) == (8, 3.09)
    with pytest.raises(gr.Error, match="alpha must be"):
        endpoint(alpha=1.5, c=0.05)


# ----- calculator --------------------------------------------------------------------------------
def test_calculator_gives_the_seeds_answer():
    handlers = PlannerHandlers(UIConfig())
    frame = handlers.plan_calculate(0.8, 0.05, "A10 24GB=1.29\nH100 SXM 80GB=4.29", 720)
    assert len(frame) == len(REPORT)
    out = dict(zip(REPORT, frame))
    assert "3.09x" in out["headline"] and ">8<" in out["headline"] and "best gamma" in out["headline"]
    assert "alpha exceeds c" in out["headline"]
    assert "<svg" in out["plot"] and "best gamma 8: 3.09x" in out["plot"]
    assert "cell-measured" in out["table"] and "cell-best" in out["table"]
    assert out["raw"]["best_gamma"] == 8 and out["raw"]["mode"] == "calculator"
    assert "$628.42" in out["cost"]  # A10 720 h x $1.29 x (1 - 1/3.0921)


def test_bad_alpha_gives_a_clear_message(monkeypatch):
    warnings = []
    monkeypatch.setattr(gr, "Warning", lambda msg: warnings.append(msg))
    handlers = PlannerHandlers(UIConfig())
    frame = handlers.plan_calculate(1.5, 0.05, "", 720)
    assert "alpha must be an acceptance rate between 0 and 1" in frame[0] and "Traceback" not in frame[0]
    assert all(isinstance(v, type(gr.skip())) for v in frame[1:])
    assert warnings and "1.5" in warnings[0]
    assert "Enter both alpha" in handlers.plan_calculate(None, 0.05, "", 720)[0]
    assert "NAME=DOLLARS_PER_HOUR" in handlers.plan_calculate(0.8, 0.05, "A10 costs a lot", 720)[0]


def test_alpha_not_above_c_says_so_in_plain_words():
    html = headline_html(plan_from_numbers(0.1, 0.2))
    assert "plan-verdict-no" in html and "does not exceed c" in html


def test_options_parse_and_reject():
    opts = plan_options(80, 8192, "float16", "L4=0.8; A100=1.5", 100, 16, cap=64)
    assert (opts.gpu_memory_gb, opts.context_tokens, opts.dtype, opts.max_new_tokens) == (80, 8192, "float16", 16)
    assert [g.name for g in opts.gpus] == ["L4", "A100"] and parse_prices("")[0].name.startswith("A10")
    for args, needle in [((0, 4096, "bfloat16", "", 720), "GPU memory"), ((24, 1.5, "bfloat16", "", 720), "Context"),
                         ((24, 4096, "fp8", "", 720), "dtype"), ((24, 4096, "bfloat16", "", -1), "Hours")]:
        with pytest.raises(Exception, match=needle):
            plan_options(*args)
    with pytest.raises(Exception, match="cap of 64"):
        plan_options(24, 4096, "bfloat16", "", 720, 100, cap=64)


# ----- rendering ---------------------------------------------------------------------------------
def test_render_functions_escape_text():
    evil = "<script>alert(1)</script>"
    plan = plan_from_numbers(0.7, 0.1, PlanOptions())
    plan.update(target=evil, assistant=evil, method=evil, advice=[evil], notes=[evil])
    plan["cost"]["rows"][0]["label"] = evil
    plan["cost"]["gpus"][0]["gpu"] = evil
    plan["memory"] = {"error": evil}
    plan["measured_points"] = [{"gamma": 3, "speedup": 1.2, "label": evil}]
    html = "".join([headline_html(plan), plot_html(plan), table_html(plan), check_html(plan), memory_html(plan),
                    cost_html(plan), advice_html(plan), message_html(evil, "error"), progress_html([evil, evil])])
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_progress_shows_the_newest_line_first():
    html = progress_html(["Loading the target", "Racing on prompt 1/2"], 12.4)
    assert html.index("Racing on prompt 1/2") < html.index("Loading the target") and "12 s" in html


# ----- measuring on tiny models ------------------------------------------------------------------
def test_measure_streams_progress_and_a_plan(tiny, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    handlers = PlannerHandlers(UIConfig(allow_local_models=True))
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], max_new_tokens=12)
    state = PlanState()
    options = PlanOptions(max_new_tokens=12, repeats=2, steps=3)
    frames = list(handlers.measure_preset(state, preset, ["Hello there", "One two three"], options))
    assert len(frames) >= 2 and all(len(f) == len(REPORT) + 2 for f in frames)
    assert "plan-progress" in frames[0][0]
    last = dict(zip(REPORT, frames[-1]))
    assert "Measured" in last["status"], last["status"]
    plan = last["raw"]
    assert plan is state.plan and plan["mode"] == "measured" and 0.0 <= plan["alpha"] <= 1.0
    assert plan["check"]["constant"]["identical"]  # greedy assisted == plain greedy
    assert "alpha, seed-style" in last["headline"] and "Predicted vs measured" in last["check"]
    assert "plan-fit" in last["memory"]
    assert not state.running


def test_measure_refuses_local_folders_unless_allowed(tiny, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    handlers = PlannerHandlers(UIConfig(allow_local_models=False))
    frames = list(handlers.plan_measure(PlanState(), "offline-uad", tiny["llama_target"], "", "", 12, 24, 4096,
                                        "bfloat16", "", 720))
    assert len(frames) == 1 and "plan-msg-error" in frames[0][0] and "Traceback" not in frames[0][0]


def test_stop_before_the_first_step_cancels(tiny, monkeypatch):
    handlers = PlannerHandlers(UIConfig(allow_local_models=True))
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], max_new_tokens=8)
    state = PlanState()
    gen = handlers.measure_preset(state, preset, ["Hi"], PlanOptions(max_new_tokens=8, repeats=1, steps=2))
    next(gen)
    state.cancel.set()
    frames = list(gen)
    assert "Stopped" in frames[-1][0] or "Measured" in frames[-1][0]  # a tiny run may finish first
    assert handlers.plan_stop(state).count("Nothing is being measured") == 1


# ----- export ------------------------------------------------------------------------------------
def test_export_writes_json_and_csv_that_parse():
    plan = plan_from_numbers(0.8, 0.05)
    json_path, csv_path = export_plan(plan)
    for p in (json_path, csv_path):
        assert Path(p).parent == export_dir() and Path(p).exists()
    assert json.loads(Path(json_path).read_text(encoding="utf-8"))["best_gamma"] == 8
    rows = dict(csv.reader(io.StringIO(Path(csv_path).read_text(encoding="utf-8"))))
    assert rows["best_gamma"] == "8" and rows["speedup_by_gamma.8"] == "3.0921"
