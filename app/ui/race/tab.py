"""The Race tab: the two panes and the legend, then prompt, buttons and results in the first column and settings in
the second; on a phone one column, the preset, prompt and buttons first (CSS order, app/render/css/page.css). Built by
small section builders that each wire their own controls."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ...core.knobs import KNOB_TABLE, KNOBS, SCHEDULES
from .. import gpu
from ..config import UIConfig, has_gpu
from ..deploy import production_panel
from ..engines import engine_choices
from ...core.words import t
from ...render.status import status_html
from ..language import label
from ..replay.files import RaceDownloads
from .api import make_endpoint
from .controls import (DEFAULT_SCHEDULE, GREEDY, RACE_MODES, SAMPLING, default_race_mode, example_headers,
                       methods_overview, preset_choices, preset_state)
from .sampling_check import SamplingCheckPanel
from .handlers import RaceHandlers, RaceUI
from ...render.live import legend_html
from ...render.player import GRADIO_MOUNT, SHOW_PANES_JS, SHOW_REJECTED_JS
from ...render.race_data import idle_data
from ...render.why_panel import why_panel_html
from .session import Session
from ...render.figures import rounds_chart_html, race_stats_html
from ...render.hardware import hardware_html
from ...race.prepare import machine_facts

SCHEDULE_CHOICES = [(label("ui.race.schedule_default"), DEFAULT_SCHEDULE), *SCHEDULES]


def knob_component(name: str, value: Any, visible: bool) -> gr.components.Component:
    """The control of one method knob, labelled and bounded by the knob table (open bounds left to the engine)."""
    k = KNOB_TABLE[name]
    common = dict(label=label(f"ui.knob.{name}.label"), info=label(f"ui.knob.{name}.info"), visible=visible,
                  elem_id=f"knob-{name}")
    if k.kind == "choice":
        return gr.Dropdown(choices=SCHEDULE_CHOICES, value=value, **common)
    return gr.Number(value=value, precision=0 if k.kind == "int" else None, step=k.step,
                     minimum=None if k.low_open else k.low, maximum=None if k.high_open else k.high, **common)


class RaceTab:
    """Builds the Race tab inside an open ``gr.Tab`` (see :meth:`build`)."""

    def __init__(self, config: UIConfig):
        self.config = config
        self.ui = RaceUI()
        self.handlers = RaceHandlers(config, self.ui)
        self.initial = preset_state(config.preset, None, config.max_new_tokens_cap)

    def build(self, gen: dict, light: dict) -> "RaceTab":
        """Create and wire the tab. gen: queue settings of generation events; light: of instant ones."""
        self.gen, self.light = gen, light
        self.ui.session = gr.State(Session())  # deep-copied per browser session (a fresh Session)
        self._panes()
        with gr.Row(elem_id="main-row"):
            with gr.Column(scale=3, min_width=320):
                self._prompt_and_buttons()
                self._results()
            with gr.Column(scale=2, min_width=300, elem_id="settings"):
                self._settings()
        self._wire_run()
        self.check.wire(self.ui.controls(), gen, light)
        gr.api(gpu.race_endpoint(make_endpoint(self.config, sequential=False), False), api_name="race", **gen)
        gr.api(gpu.race_endpoint(make_endpoint(self.config, sequential=True), True), api_name="measure", **gen)
        return self

    # ----- sections ----------------------------------------------------------------------------------
    def _panes(self) -> None:
        """The one player (app/render/player.js): its value is the race's data, which it draws in the browser."""
        u = self.ui
        u.player = gr.HTML(idle_data(), html_template='<div class="race-player-root"></div>', js_on_load=GRADIO_MOUNT,
                           elem_id="race-row")
        with gr.Row(elem_id="legend-row"):
            u.legend = gr.HTML(legend_html(), elem_id="legend", js_on_load=None, scale=4)
            u.show_rejected = gr.Checkbox(False, label=label("ui.race.show_rejected"), elem_id="show-rejected",
                                          scale=1, min_width=230, container=False)
        u.show_rejected.change(None, [u.show_rejected], None, js=SHOW_REJECTED_JS, queue=False)

    def _prompt_and_buttons(self) -> None:
        u, initial = self.ui, self.initial
        u.prompt = gr.Textbox(value=initial["prompt"], lines=3, max_lines=10, label=label("ui.race.prompt"),
                              elem_id="prompt", placeholder=label("ui.race.prompt_placeholder"))
        with gr.Row(elem_id="race-buttons"):  # right under the prompt: in the first screen (docs/DESIGN.md §1)
            u.run = gr.Button(label("ui.race.run"), variant="primary", elem_id="run-btn", scale=2, min_width=100)
            u.mode = gr.Radio(RACE_MODES, value=default_race_mode(has_gpu()), show_label=False, container=False,
                              elem_id="race-mode", scale=3, min_width=200)
            u.tune = gr.Button(label("ui.race.tune"), variant="secondary", elem_id="tune-btn", scale=1, min_width=80)
            u.stop = gr.Button(label("ui.race.stop"), variant="stop", elem_id="stop-btn", interactive=False, scale=1,
                               min_width=100)
        u.status = gr.HTML(status_html(t("race.connecting")), elem_id="status", js_on_load=None, min_height=40)
        u.examples = gr.Dataset(components=["textbox", "textbox"],
                                headers=example_headers(),
                                samples=initial["examples"], type="index", label=label("ui.race.examples"),
                                elem_id="examples", samples_per_page=6)
        u.stop.click(self.handlers.stop, [u.session], [u.status], show_progress="hidden", **self.light)

    def _results(self) -> None:
        u = self.ui
        u.stats = gr.HTML(race_stats_html(None), elem_id="stats", js_on_load=None)
        u.why = gr.HTML(why_panel_html(None), elem_id="why", js_on_load=None)
        u.chart = gr.HTML(rounds_chart_html([]), elem_id="chart", js_on_load=None)
        u.downloads = RaceDownloads(self.config).build()  # the last race's trace and replay page, the share link
        self.check = SamplingCheckPanel(self.config).build()  # lossless in distribution? (docs/DESIGN.md §5.15)
        u.check_result = self.check.result
        with gr.Accordion(label("ui.race.hardware"), open=True, elem_id="hardware-box"):
            u.hardware = gr.HTML(hardware_html(machine_facts()), elem_id="hardware", js_on_load=None)

    def _settings(self) -> None:
        u, initial = self.ui, self.initial
        u.preset = gr.Dropdown(choices=preset_choices() + engine_choices(self.config.endpoints), value=self.config.preset,
                               label=label("ui.race.preset"), elem_id="preset", info=label("ui.race.preset_info"))
        u.card = gr.HTML(initial["card"], elem_id="method-card", js_on_load=None)
        self._models()
        self._decoding()
        with gr.Accordion(initial["knobs_label"], open=True, elem_id="knobs-box") as u.knobs_box:
            u.knobs = {k: knob_component(k, initial["knobs"][k]["value"], initial["knobs"][k]["visible"]) for k in KNOBS}
        with gr.Accordion(label("ui.race.methods"), open=False, elem_id="methods-box"):
            u.methods = gr.Markdown(methods_overview())
        u.production = production_panel(u.preset, self.config.preset, self.light)
        u.preset.change(self.handlers.preset_changed, [u.preset, u.prompt], u.preset_outputs(),
                        show_progress="hidden", **self.light)
        u.examples.click(self.handlers.example_picked, [u.examples, u.preset], [u.prompt], show_progress="hidden",
                         **self.light)

    def _models(self) -> None:
        u, initial = self.ui, self.initial
        target_info = "ui.race.target_info_local" if self.config.allow_local_models else "ui.race.target_info"
        with gr.Accordion(label("ui.race.models"), open=False, elem_id="models-box") as u.models_box:
            u.target = gr.Textbox(value=initial["target"], label=label("ui.race.target"), elem_id="target",
                                  info=label(target_info))
            u.assistant = gr.Textbox(value=initial["assistant"], label=label("ui.race.assistant"), elem_id="assistant",
                                     visible=initial["assistant_visible"])
            u.chat_template = gr.Checkbox(initial["chat_template"], label=label("ui.race.chat_template"),
                                          elem_id="chat-template")

    def _decoding(self) -> None:
        u, initial = self.ui, self.initial
        temperature, top_p = KNOB_TABLE["temperature"], KNOB_TABLE["top_p"]
        with gr.Accordion(label("ui.race.decoding"), open=True, elem_id="decoding-box") as u.decoding_box:
            u.max_new_tokens = gr.Slider(1, self.config.max_new_tokens_cap, value=initial["max_new_tokens"], step=1,
                                         label=label("ui.race.max_new_tokens"), elem_id="max-new-tokens")
            u.decoding = gr.Radio([(label("ui.race.greedy"), GREEDY), (label("ui.race.sampling"), SAMPLING)],
                                  value=initial["decoding"], label=label("ui.race.decoding"), elem_id="decoding",
                                  info=label("ui.race.decoding_info"))
            with gr.Row(visible=initial["sampling_visible"], elem_id="sampling-row") as u.sampling_row:
                u.temperature = gr.Slider(temperature.step, temperature.high, value=initial["temperature"],
                                          step=temperature.step, label=label("ui.knob.temperature.label"),
                                          elem_id="temperature")
                u.top_p = gr.Slider(top_p.step, top_p.high, value=initial["top_p"], step=top_p.step,
                                    label=label("ui.knob.top_p.label"), elem_id="top-p")
                u.seed = gr.Number(value=None, precision=0, label=label("ui.race.seed"), elem_id="seed",
                                   info=label("ui.race.seed_info"))
        u.decoding.change(self.handlers.decoding_changed, [u.decoding], [u.sampling_row], show_progress="hidden",
                          **self.light)

    def _wire_run(self) -> None:
        """Race (in the chosen mode) and Tune take every control; they share one queue slot group with the planner."""
        u = self.ui
        inputs = [u.session, *u.controls()]
        # the queue position / timer shows on the status line only; the panes render their own progress
        progress = dict(show_progress="full", show_progress_on=[u.status], api_visibility="private")
        h, outputs = self.handlers, u.stream_outputs()
        tune_outputs = [*outputs, *u.knobs.values()]

        def stopped(session):  # the last frame when Stop ends a run inside a ZeroGPU worker (app/ui/gpu.py)
            return {**h.buttons(False), u.status: status_html(t("race.stopped_short"), "info")}

        u.run.click(None, None, None, js=SHOW_PANES_JS, queue=False)
        u.run.click(gpu.stream(h.race_click, gpu.race_click_duration, outputs, stopped),
                    [u.session, u.mode, *u.controls()], outputs, **progress, **self.gen)
        u.tune.click(gpu.stream(h.tune_stream, gpu.race_stream_duration(True), tune_outputs, stopped), inputs,
                     tune_outputs, **progress, **self.gen)

    def on_load(self, demo: gr.Blocks) -> None:
        """Apply the preset's values when a page loads (see RaceHandlers.page_loaded)."""
        u = self.ui
        demo.load(self.handlers.page_loaded, [u.preset, u.prompt], [*u.preset_outputs(), *self.handlers.loaded_outputs()],
                  show_progress="hidden", **self.light)
