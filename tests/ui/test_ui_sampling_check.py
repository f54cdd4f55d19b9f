"""The Race tab's sampling check (app/ui/race/sampling_check.py): wired into the page, streams progress, shows a
verdict, stops, and reports bad input as one line; the event functions run on tiny models without a browser."""

from __future__ import annotations

import inspect

import gradio as gr
import pytest

from app.core.knobs import KNOBS
from app.ui.config import UIConfig
from app.ui.race.controls import CONTROL_NAMES
from app.ui.race.sampling_check import DEFAULT_SAMPLES, DEFAULT_TOKENS, CheckState, SamplingCheckPanel, check_seconds
from app.render.sampling_check import check_html
from tests import tiny_vocab
from tests.helpers import race_controls
from tests.helpers import by_elem_id


@pytest.fixture(scope="module")
def panel():
    with gr.Blocks():
        return SamplingCheckPanel(UIConfig(allow_local_models=True)).build()


def controls(small, **changes) -> list:
    return race_controls("drafter", tiny_vocab.PROMPT, 24, target=small["target"], assistant=small["drafter"],
                         chat_template=False, seed=5, **{**dict.fromkeys(KNOBS), "num_assistant_tokens": 3, **changes})


def frames(panel, state, *args) -> list[dict]:
    names = {id(panel.status): "status", id(panel.result): "result"}
    return [{names[id(c)]: v for c, v in f.items() if id(c) in names} for f in panel.check_stream(state, *args)]


def test_the_page_wires_the_check_to_the_generation_slot(built):
    check = built.race.check
    (dep,) = [fn for fn in built.demo.fns.values() if (by_elem_id(built, "check-btn")._id, "click") in fn.targets]
    assert inspect.unwrap(dep.fn) == check.check_stream and dep.types_generator
    assert len(dep.inputs) == 4 + len(CONTROL_NAMES) and dep.concurrency_id == "generation"
    (stop,) = [fn for fn in built.demo.fns.values() if (by_elem_id(built, "check-stop-btn")._id, "click") in fn.targets]
    assert stop.concurrency_id != "generation", "Stop must not wait behind the check"
    assert by_elem_id(built, "check-samples").value == DEFAULT_SAMPLES
    assert by_elem_id(built, "check-tokens").value == DEFAULT_TOKENS


def test_a_check_streams_progress_then_the_verdict(panel, small, one_torch_thread):
    out = frames(panel, CheckState(), 60, 2, None, *controls(small))
    statuses = [f["status"] for f in out if "status" in f]
    assert "Preparing" in statuses[0]
    assert "Sampling check: no difference found at 60 samples." in statuses[-1]
    assert "Same distribution" in out[-1]["result"] and "tokens 1-2" in out[-1]["result"]


def test_bad_input_is_one_line(panel, small):
    out = frames(panel, CheckState(), 5, 2, None, *controls(small))
    assert "request: samples must be between 20 and 20000; got 5" in out[-1]["status"]
    assert "status-error" in out[-1]["status"] and "Traceback" not in out[-1]["status"]
    out = frames(panel, CheckState(), 40, 2, None, *controls(small, prompt_lookup_num_tokens=3, preset="ensemble"))
    assert "assistant_ensemble_weight" in out[-1]["status"]  # the method's own one-line check


def test_stop_ends_the_check_without_a_verdict(panel, small):
    state = CheckState()
    stream = panel.check_stream(state, 60, 2, None, *controls(small))
    next(stream)  # "Preparing"
    assert "Stopping" in panel.stop_check(state)[panel.status]
    rest = list(stream)
    assert "Stopped after 0 of 60 plain samples: no verdict." in rest[-1][panel.status]
    assert not state.running and "No check is running" in panel.stop_check(state)[panel.status]


def test_the_result_html_and_the_zerogpu_duration():
    item = {"label": "token 1", "tv_distance": 0.3, "p_value": 0.0001, "min_detectable_tv": 0.1, "level": 0.005,
            "different": True, "categories": 4, "top": [{"text": "<b>", "plain": 0.5, "assisted": 0.2}]}
    html = check_html({"verdict": "different", "verdict_text": "different: this method is lossy", "positions": [item],
                       "joint": None, "acceptance_rate": None, "samples": 40, "temperature": 1.0, "top_p": 1.0,
                       "top_k": 50, "seed": 1, "assisted_drafted": 0, "seconds": 2.0, "alpha": 0.01,
                       "warning": "nothing was drafted"})
    assert "Different distribution" in html and "&lt;b&gt;" in html and "<b>" not in html
    assert 'class="num" class' not in html and "Note: nothing was drafted" in html
    assert 30 <= check_seconds(20, 1) <= check_seconds(20000, 32) == 300
