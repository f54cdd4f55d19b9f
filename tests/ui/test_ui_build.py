"""The page builds without loading a model, every control is wired, and the render functions are safe.

No model is loaded in this file (the model cache must stay empty), so it runs in seconds.
"""

from __future__ import annotations

import inspect

import copy

import gradio as gr
import pytest

from app.core.errors import ArenaError
from app.core.knobs import KNOBS
from app.core.loader import MODEL_CACHE
from app.core.presets import load_presets
from app.core.requests import Limits, build_request
from app.race.methods import METHODS
from app.race.protocol import Round, Token
from app.race.result import AssistedResult, RaceResult, SideResult
from app.render.figures import badge_html, rounds_chart_html, race_stats_html
from app.render.hardware import hardware_html
from app.render.live import legend_html
from app.ui.config import UIConfig, parse_args
from app.render.status import status_html
from app.ui.page import build_app, launch_kwargs
from app.ui.race.controls import CONCURRENT, CONTROL_NAMES, SAMPLING, preset_choices, preset_state
from app.ui.race.entry import request_from_controls
from app.ui.race.session import Session

from tests.helpers import by_elem_id


def _deps(app, block, event: str) -> list:
    return [fn for fn in app.demo.fns.values() if (block._id, event) in fn.targets]


# ----- construction and wiring -----------------------------------------------------------------
def test_build_loads_no_model(built):
    assert isinstance(built.demo, gr.Blocks)
    loads_before = MODEL_CACHE.load_count
    build_app(UIConfig())
    assert MODEL_CACHE.load_count == loads_before
    kwargs = launch_kwargs()
    assert "css" in kwargs and ".tok-accepted" in kwargs["css"]


@pytest.mark.parametrize("elem_id,event,fn_name", [
    ("run-btn", "click", "race_click"),
    ("stop-btn", "click", "stop"),
    ("preset", "change", None),
    ("decoding", "change", None),
    ("examples", "click", "example_picked"),
])
def test_every_control_has_its_handler(built, elem_id, event, fn_name):
    deps = _deps(built, by_elem_id(built, elem_id), event)
    assert deps, f"#{elem_id} has no {event} handler"
    if fn_name:
        assert any(getattr(d.fn, "__name__", "") == fn_name for d in deps), [d.fn for d in deps]


def test_rejected_drafts_show_inline_in_the_browser_only(built):
    """The player draws every rejected draft; the checkbox only shows or hides them (CSS), with no server event."""
    (dep,) = _deps(built, by_elem_id(built, "show-rejected"), "change")
    assert dep.fn is None and "ArenaPlayer.showRejected" in dep.js and not dep.outputs
    from app.render.player import JS

    assert 'classList.toggle("show-rej"' in JS


def test_page_load_applies_the_preset(built):
    """gr.Number cannot start empty; the load event empties unset knobs and the seed (None = default/random)."""
    loads = [fn for fn in built.demo.fns.values() if any(event == "load" for _, event in fn.targets)]
    outputs = {c._id for fn in loads for c in fn.outputs}
    for elem_id in ("seed", "status", "knob-assistant_confidence_threshold", "max-new-tokens"):
        assert by_elem_id(built, elem_id)._id in outputs, elem_id


def test_race_events_take_every_control_and_share_one_queue_group(built):
    handlers = built.race.handlers
    knobs = len(built.race.ui.knobs)
    for elem_id, fn, before, extra in (("run-btn", handlers.race_click, 2, 0), ("tune-btn", handlers.tune_stream, 1, knobs)):
        (dep,) = [d for d in _deps(built, by_elem_id(built, elem_id), "click") if d.fn is not None]  # Race's js: panes
        assert inspect.unwrap(dep.fn) == fn
        assert len(dep.inputs) == before + len(CONTROL_NAMES)  # session, (the race mode,) controls
        assert len(dep.outputs) == len(built.race.ui.stream_outputs()) + extra  # Tune also sets the knobs
        assert dep.concurrency_id == "generation"
        assert dep.concurrency_limit == built.config.generation_concurrency()  # 1 on a CPU, 2 on a GPU
        assert dep.types_generator, "the race must stream"
    (stop,) = _deps(built, by_elem_id(built, "stop-btn"), "click")
    assert stop.concurrency_limit is None and stop.concurrency_id != "generation", "Stop must not wait behind a race"


def test_race_brings_the_panes_into_view(built):
    """On a phone the panes sit above the prompt: pressing Race scrolls them into view, in the browser only."""
    (show,) = [d for d in _deps(built, by_elem_id(built, "run-btn"), "click") if d.fn is None]
    assert "ArenaPlayer.showPanes" in show.js and not show.inputs and not show.outputs
    from app.render.player import JS

    assert "race-row" in JS and "scrollIntoView" in JS


def test_every_input_control_feeds_an_event(built):
    """A control nobody reads is a wiring bug: every interactive input must be some event's input."""
    used = {c._id for fn in built.demo.fns.values() for c in fn.inputs}
    kinds = (gr.Textbox, gr.Slider, gr.Number, gr.Dropdown, gr.Radio, gr.Checkbox, gr.Dataset)
    controls = [b for b in built.demo.blocks.values() if isinstance(b, kinds)]
    assert len(controls) >= len(CONTROL_NAMES) + 2
    dangling = [getattr(b, "elem_id", None) or getattr(b, "label", None) for b in controls if b._id not in used]
    assert not dangling, f"controls without an event: {dangling}"
    for name in KNOBS:
        assert by_elem_id(built, f"knob-{name}")._id in used


def test_named_api_endpoints_exist(built):
    names = {fn.api_name: fn for fn in built.demo.fns.values() if fn.api_visibility == "public"}
    assert {"race", "measure"} <= set(names), sorted(names)
    assert names["race"].concurrency_id == "generation" == names["measure"].concurrency_id
    info = built.demo.get_api_info()
    params = [p["parameter_name"] for p in info["named_endpoints"]["/race"]["parameters"]]
    assert params[:3] == ["preset", "prompt", "max_new_tokens"] and set(KNOBS) <= set(params)
    ui_only = ("Session", "race_click", "tune_stream", "stop", "example_picked")
    assert not any(f"/{name}" in info["named_endpoints"] for name in ui_only), sorted(info["named_endpoints"])


def test_a_small_token_cap_builds_and_a_tiny_one_is_refused():
    for cap in ("8", "9", "16"):
        build_app(parse_args(["--max-new-tokens-cap", cap]))  # the sliders fit inside the cap
    with pytest.raises(SystemExit):
        parse_args(["--max-new-tokens-cap", "7"])


def test_concurrency_flag_and_cli_parse():
    cfg = parse_args(["--port", "7999", "--concurrency-limit", "3", "--allow-local-models", "--max-new-tokens-cap", "64"])
    assert (cfg.port, cfg.generation_concurrency(), cfg.allow_local_models, cfg.share) == (7999, 3, True, False)
    assert cfg.limits.max_new_tokens == 64 and cfg.limits.allow_local and not cfg.limits.trust_remote_code
    assert parse_args([]).preset == "offline-prompt-lookup"
    with pytest.raises(SystemExit):
        parse_args(["--preset", "no-such-preset"])


# ----- controls -------------------------------------------------------------------------------
def test_preset_choices_grouped_offline_first():
    choices = preset_choices()
    wheres = [load_presets()[pid].where for _, pid in choices]
    order = ["offline", "needs hub", "needs hub + GPU"]
    assert wheres == sorted(wheres, key=order.index)
    assert wheres[0] == "offline" and all(label.strip() for label, _ in choices)


@pytest.mark.parametrize("preset_id", sorted(load_presets()))
def test_only_the_active_methods_knobs_are_shown(preset_id):
    preset = load_presets()[preset_id]
    state = preset_state(preset_id, None, cap=512)
    visible = {k for k, v in state["knobs"].items() if v["visible"]}
    assert visible == set(METHODS[preset.method].knobs)
    assert state["assistant_visible"] == METHODS[preset.method].needs_assistant
    assert state["prompt"] == preset.example_prompts[0]


def test_a_users_own_prompt_survives_a_preset_change():
    assert preset_state("offline-uad", "my own prompt", 512)["prompt"] == "my own prompt"


def _controls(**changes):
    state = preset_state("offline-prompt-lookup", None, 512)
    values = {"preset": "offline-prompt-lookup", "prompt": "hello", "target": state["target"], "assistant": "",
              "chat_template": True, "max_new_tokens": 16, "decoding": "greedy", "temperature": 1.0, "top_p": 1.0,
              "seed": None}
    values.update({k: 3 for k in KNOBS})  # hidden knobs hold stale values: they must be ignored
    values["num_assistant_tokens_schedule"] = "default"
    values.update(prompt_lookup_num_tokens=4, max_matching_ngram_size=2)
    values.update(changes)
    return values


def test_request_uses_only_the_active_knobs():
    req = request_from_controls(_controls(), Limits())
    assert req.preset.prompt_lookup_num_tokens == 4 and req.preset.num_assistant_tokens is None
    assert req.preset.assistant_early_exit is None and req.preset.max_new_tokens == 16
    sampled = request_from_controls(_controls(decoding=SAMPLING, temperature=0.7, seed=5), Limits())
    assert sampled.preset.do_sample and sampled.preset.temperature == 0.7 and sampled.seed == 5
    with pytest.raises(ArenaError):
        request_from_controls(_controls(prompt_lookup_num_tokens=999), Limits())
    api = build_request("offline-prompt-lookup", "x", {"max_new_tokens": 8, "assistant_early_exit": 3})
    assert api.preset.max_new_tokens == 8 and api.preset.prompt_lookup_num_tokens == 10  # None keeps the preset's
    with pytest.raises(ArenaError, match="does not apply"):
        METHODS["prompt-lookup"].check_preset(api.preset)  # like the CLI: a foreign knob is an error


def test_session_is_per_user():
    s = Session()
    s.latest = _result()
    fresh = copy.deepcopy(s)  # what gr.State does for every new session
    assert fresh is not s and fresh.latest is None and fresh.run is None
    state = gr.State(s)
    assert isinstance(state.value, Session) and state.value is not s


def test_errors_become_a_message_not_a_traceback(built):
    """A local folder on a server without --allow-local-models: clear message, app keeps going, no model loaded."""
    handlers = built.race.handlers
    loads_before = MODEL_CACHE.load_count
    values = _controls(target="/tmp/some-local-model")
    frames = list(handlers.race_click(Session(), CONCURRENT, *[values[n] for n in CONTROL_NAMES]))
    status = frames[-1][built.race.ui.status]
    assert "status-error" in status and "--allow-local-models" in status
    assert "Traceback" not in "".join(str(v) for v in frames[-1].values())
    assert MODEL_CACHE.load_count == loads_before


# ----- render functions ---------------------------------------------------------------------------
TOKENS = [Token(1, "The", "resampled"), Token(2, " cat", "accepted"), Token(3, " sat", "accepted"),
          Token(4, " on", "bonus"), Token(5, " <script>alert(1)</script>", "target")]
ROUNDS = [Round(3, 0, 'A "dog" <b>'), Round(2, 2, ""), Round(0, 0, "")]


def test_legend_lists_every_status():
    html = legend_html()
    for status in ("accepted", "resampled", "bonus", "target"):
        assert f"tok-{status}" in html
    assert 'class="rej"' in html


def test_markup_in_every_text_field_is_escaped():
    """(The panes' tokens are text the player sets with textContent: tests/render/test_player_browser.py.)"""
    evil = '<img src=x onerror="alert(1)">'
    for html in (status_html(evil, "error"), rounds_chart_html([Round(1, 1, evil)])):
        assert "<img" not in html


def _result(baseline_seconds: float = 1.5, assisted_seconds: float = 1.0, assisted_ids=(1, 2, 3),
            **changes) -> RaceResult:
    """A finished race: 3 tokens each side; speedup = baseline seconds / assisted seconds."""
    fields = dict(preset="p", method="prompt-lookup", target="t", assistant=None, mode="concurrent",
                  do_sample=False, device="cpu",
                  baseline=SideResult("a", [1, 2, 3], baseline_seconds, 0.1),
                  assisted=AssistedResult("a", list(assisted_ids), assisted_seconds, 0.1, tokens=TOKENS,
                                          rounds=[Round(3, 2, "x"), Round(2, 0, "y")]))
    fields.update(changes)
    return RaceResult(**fields)


def test_stats_show_speedup_label_and_badges():
    html = race_stats_html(_result(), race=_result(), measured=None)
    assert "1.50\u00d7" in html and "both runs shared the machine" in html and "badge-identical" in html
    assert "40%" in html and "2.00" in html and "race in the fair mode for a measured figure" in html
    both = race_stats_html(_result(mode="sequential"), race=_result(),
                      measured=_result(baseline_seconds=1.2, mode="sequential"))
    assert "1.20\u00d7" in both and "1.50\u00d7" in both
    sampled = badge_html(_result(assisted_ids=(1, 2, 9), do_sample=True))
    assert "diverged" in sampled and "at token 2" in sampled and "expected with sampling" in sampled
    lossy = badge_html(_result(assisted_ids=(9, 2, 3), method="ensemble"), lossless=False)
    assert "lossy by design" in lossy and "badge-expected" in lossy
    assert "badge-unexpected" in badge_html(_result(assisted_ids=(1, 9, 3)))
    assert "identical so far" in badge_html(_result(assisted_ids=(1,), stopped=True))  # a Stop cuts the runs short


def test_chart_has_one_bar_group_per_round():
    html = rounds_chart_html(ROUNDS)
    assert html.count('<g class="round">') == 3 and "bar-accepted" in html and "bar-rejected" in html
    assert "bar-none" in html and "chart-empty" in rounds_chart_html([])


def test_hardware_facts_and_cpu_note():
    facts = {"device": "cpu", "cpu_cores": 2, "torch_threads": 2, "gpu": None,
             "models": [{"role": "target", "spec": "pypi:x/Model-135M.gguf", "n_params": 134_515_008,
                         "weight_bytes": 538_060_032, "dtype": "float32", "device": "cpu"}]}
    html = hardware_html(facts)
    assert "134.5 M" in html and "513 MB" in html and "float32" in html and "Model-135M" in html
    assert "shares" in html or "share the same" in html
    assert "hw-note" not in hardware_html(dict(facts, device="cuda:0", gpu="NVIDIA H200"))


def test_host_follows_the_space_environment(monkeypatch):
    from app.ui.config import parse_args

    monkeypatch.delenv("GRADIO_SERVER_NAME", raising=False)
    assert parse_args([]).host == "127.0.0.1"
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    assert parse_args([]).host == "0.0.0.0"
    assert parse_args(["--host", "127.0.0.2"]).host == "127.0.0.2"
