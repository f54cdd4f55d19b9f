"""``build_demo(config) -> gr.Blocks``: the page, built and wired; no model is loaded here.

Layout: header, then two tabs. Race: the two race panes side by side; legend and the
rejected-drafts toggle; then prompt, buttons, status, stats, the per-round chart and the
hardware facts on the left and the settings (preset, models, decoding, method knobs) on the
right. Planner: see planner_tab.py (seed 004: alpha, c, best gamma, memory, cost).
"""

from __future__ import annotations

import gradio as gr

from ..engine.presets import KNOBS, load_presets
from .api import make_endpoint
from .config import UIConfig
from .controls import (KNOB_SPECS, PRESET_OUTPUTS, SCHEDULE_CHOICES, example_prompt, methods_overview,
                       preset_choices, preset_state, preset_updates)
from .handlers import STREAM_OUTPUTS, Handlers, machine_facts
from .planner_tab import build_planner_tab
from .render import PaneView, legend_html, pane_html, status_html
from .render_stats import hardware_html, rounds_chart_html, stats_html
from .session import CONTROL_NAMES, GREEDY, SAMPLING, Session
from .theme import CSS, make_theme

TITLE = "Assisted-decoding arena"
READY = status_html("Ready: pick a preset, edit the prompt, press Race.")
#: Scrolls a pane's text to the newest token whenever its HTML changes.
FOLLOW_JS = "watch('value', () => { const b = element.querySelector('.pane-body'); if (b) b.scrollTop = b.scrollHeight; });"


def header_html(device: str) -> str:
    where = "GPU" if device.startswith("cuda") else "CPU only"
    return ('<div class="hdr"><h1>Assisted-decoding arena</h1>'
            f'<span class="hdr-chip">transformers generate() \u00b7 {where}</span></div>'
            '<p>Plain decoding (left) races assisted decoding (right) on the same prompt. Every assisted token shows '
            'what happened to it: drafted and accepted, resampled by the target, or a bonus token.</p>')


def _knob_component(name: str, value, visible: bool) -> gr.components.Component:
    spec = KNOB_SPECS[name]
    common = dict(label=spec.label, info=spec.info, visible=visible, elem_id=f"knob-{name}")
    if spec.kind == "schedule":
        return gr.Dropdown(choices=SCHEDULE_CHOICES, value=value, **common)
    return gr.Number(value=value, precision=0 if spec.kind == "int" else None, minimum=spec.minimum,
                     maximum=spec.maximum, step=1 if spec.kind == "int" else 0.05, **common)


def launch_kwargs() -> dict:
    """Theme and CSS for ``demo.launch(**launch_kwargs())`` (gradio 6 takes them at launch)."""
    return {"theme": make_theme(), "css": CSS, "footer_links": ["api", "gradio"]}


def build_demo(config: UIConfig) -> gr.Blocks:
    """The whole page for `config`. Generation events share one queue slot group ("generation")."""
    handlers = Handlers(config)
    presets = load_presets()
    initial = preset_state(config.preset, None, config.max_new_tokens_cap)
    facts = machine_facts()
    limit = config.generation_concurrency()
    gen = dict(concurrency_id="generation", concurrency_limit=limit)
    light = dict(concurrency_limit=None, api_visibility="private")
    with gr.Blocks(title=TITLE, fill_width=True, analytics_enabled=False) as demo:
        session = gr.State(Session())  # deep-copied per browser session (a fresh Session)
        gr.HTML(header_html(facts["device"]), elem_id="arena-header")
        with gr.Tabs(elem_id="tabs", selected="race"):
            with gr.Tab("Race", id="race", elem_id="tab-race"):
                with gr.Row(elem_id="race-row", equal_height=True):
                    baseline = gr.HTML(pane_html(PaneView("baseline", "Baseline", "plain generate()")),
                                       elem_id="pane-baseline", js_on_load=FOLLOW_JS)
                    assisted = gr.HTML(pane_html(PaneView("assisted", "Assisted", "assisted generate()")),
                                       elem_id="pane-assisted", js_on_load=FOLLOW_JS)
                with gr.Row(elem_id="legend-row"):
                    legend = gr.HTML(legend_html(False), elem_id="legend", js_on_load=None, scale=4)
                    show_rejected = gr.Checkbox(False, label="Show rejected drafts inline", elem_id="show-rejected",
                                                scale=1, min_width=230, container=False)
                with gr.Row(elem_id="main-row"):
                    with gr.Column(scale=3, min_width=420):
                        prompt = gr.Textbox(value=initial["prompt"], lines=3, max_lines=10, label="Prompt", elem_id="prompt",
                                            placeholder="Type text to continue or a question to answer")
                        examples = gr.Dataset(components=["textbox"], samples=initial["examples"], type="index",
                                              label="Example prompts for this preset", elem_id="examples", samples_per_page=6)
                        with gr.Row():
                            run = gr.Button("\u25b6  Race", variant="primary", elem_id="run-btn", scale=2)
                            measure = gr.Button("Measure fairly", variant="secondary", elem_id="measure-btn", scale=2)
                            stop = gr.Button("\u25a0  Stop", variant="stop", elem_id="stop-btn", interactive=False, scale=1)
                        status = gr.HTML(status_html("Connecting\u2026"), elem_id="status", js_on_load=None, min_height=40)
                        stats = gr.HTML(stats_html(None), elem_id="stats", js_on_load=None)
                        chart = gr.HTML(rounds_chart_html([]), elem_id="chart", js_on_load=None)
                        with gr.Accordion("Hardware", open=True, elem_id="hardware-box"):
                            hardware = gr.HTML(hardware_html(facts), elem_id="hardware", js_on_load=None)
                    with gr.Column(scale=2, min_width=340, elem_id="settings"):
                        preset = gr.Dropdown(choices=preset_choices(presets), value=config.preset, label="Preset",
                                             elem_id="preset", info="grouped by where it runs; \u25cf runs offline here")
                        card = gr.HTML(initial["card"], elem_id="method-card", js_on_load=None)
                        with gr.Accordion("Models", open=False, elem_id="models-box"):
                            target = gr.Textbox(value=initial["target"], label="Target model", elem_id="target",
                                                info="hub id" + (" or local folder" if config.allow_local_models else
                                                                 " (local folders need --allow-local-models)"))
                            assistant = gr.Textbox(value=initial["assistant"], label="Assistant (drafter) model",
                                                   elem_id="assistant", visible=initial["assistant_visible"])
                            chat_template = gr.Checkbox(initial["chat_template"], label="Use the chat template (instruct models)",
                                                        elem_id="chat-template")
                        with gr.Accordion("Decoding", open=True, elem_id="decoding-box"):
                            max_new_tokens = gr.Slider(1, config.max_new_tokens_cap, value=initial["max_new_tokens"], step=1,
                                                       label="Max new tokens", elem_id="max-new-tokens")
                            decoding = gr.Radio([GREEDY, SAMPLING], value=initial["decoding"], label="Decoding",
                                                elem_id="decoding", info="sampling diverges from the baseline by design")
                            with gr.Row(visible=initial["sampling_visible"], elem_id="sampling-row") as sampling_row:
                                temperature = gr.Slider(0.05, 2.0, value=initial["temperature"], step=0.05, label="Temperature",
                                                        elem_id="temperature")
                                top_p = gr.Slider(0.05, 1.0, value=initial["top_p"], step=0.05, label="Top-p", elem_id="top-p")
                                seed = gr.Number(value=None, precision=0, label="Seed", elem_id="seed", info="empty: random")
                        with gr.Accordion(initial["knobs_label"], open=True, elem_id="knobs-box") as knobs_box:
                            knobs = {k: _knob_component(k, initial["knobs"][k]["value"], initial["knobs"][k]["visible"])
                                     for k in KNOBS}
                        with gr.Accordion("The seven methods", open=False, elem_id="methods-box"):
                            gr.Markdown(methods_overview())

            with gr.Tab("Planner", id="planner", elem_id="tab-planner"):
                planner = build_planner_tab(config, gen, light)

        controls = {"preset": preset, "prompt": prompt, "target": target, "assistant": assistant,
                    "chat_template": chat_template, "max_new_tokens": max_new_tokens, "decoding": decoding,
                    "temperature": temperature, "top_p": top_p, "seed": seed, **knobs}
        assert tuple(controls) == CONTROL_NAMES
        out = {"baseline": baseline, "assisted": assisted, "stats": stats, "chart": chart, "hardware": hardware,
               "status": status, "run": run, "measure": measure, "stop": stop}
        stream_outputs = [out[name] for name in STREAM_OUTPUTS]
        inputs = [session, show_rejected, *controls.values()]

        # the queue position / timer shows on the status line only; the panes render their own progress
        progress = dict(show_progress="full", show_progress_on=[status], api_visibility="private")
        run.click(handlers.race_stream, inputs, stream_outputs, **progress, **gen)
        measure.click(handlers.measure_stream, inputs, stream_outputs, **progress, **gen)
        stop.click(handlers.stop, [session], [status], show_progress="hidden", **light)
        show_rejected.change(handlers.toggle_rejected, [session, show_rejected], [assisted, legend],
                             show_progress="hidden", **light)

        preset_out = {"card": card, "target": target, "assistant": assistant, "chat_template": chat_template,
                      "max_new_tokens": max_new_tokens, "decoding": decoding, "temperature": temperature,
                      "top_p": top_p, "sampling_row": sampling_row, "knobs_box": knobs_box, **knobs,
                      "examples": examples, "prompt": prompt}
        cap = config.max_new_tokens_cap
        preset_targets = [preset_out[name] for name in PRESET_OUTPUTS]
        preset.change(lambda preset_id, text: preset_updates(preset_id, text, cap), [preset, prompt],
                      preset_targets, show_progress="hidden", **light)
        # gr.Number cannot start empty (it shows and sends 0), but an update to None empties it: apply the
        # preset's values on page load so unset knobs and the seed mean "default" / "random".
        demo.load(lambda preset_id, text: (*preset_updates(preset_id, text, cap), gr.update(value=None), READY),
                  [preset, prompt], [*preset_targets, seed, status], show_progress="hidden", **light)
        decoding.change(lambda d: gr.update(visible=d == SAMPLING), [decoding], [sampling_row],
                        show_progress="hidden", **light)
        examples.click(example_prompt, [examples, preset], [prompt], show_progress="hidden", **light)

        gr.api(make_endpoint(config, sequential=False), api_name="race", **gen)
        gr.api(make_endpoint(config, sequential=True), api_name="measure", **gen)
    demo.arena_handlers = handlers  # for tests and benchmarks: the functions the buttons call
    demo.planner = planner  # the Planner tab's components and handlers (planner["handlers"])
    return demo
