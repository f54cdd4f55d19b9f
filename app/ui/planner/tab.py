"""The Planner tab: measure alpha and c on a model pair, or type them in; best gamma, memory, cost (formulas:
app/core/theory.py, docs/DESIGN.md §5). Section builders put the components on a :class:`PlannerUI`."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from ...core.presets import get_preset, load_presets
from ...planner.cost import HOURS_PER_MONTH
from ...planner.memory import DEFAULT_CONTEXT_TOKENS, DEFAULT_DTYPE, DEFAULT_GPU_MEMORY_GB, DTYPE_BYTES
from ...planner.request import PLAN_NUMBERS
from ...planner.plan import PlanOptions
from ...race.methods import get_method
from .. import gpu
from ..config import UIConfig
from ...render.status import status_html
from ..race.controls import preset_choices
from ..engines import engine_choices
from .handlers import DEFAULT_PLAN_PRESET, PlannerHandlers, PlanState, calculator, default_prices, prompt_text
from .render import advice_html, check_html, cost_html, headline_html, memory_html, plot_html, table_html

INTRO = ('<div class="plan-intro"><b>Draft planner.</b> Theorem 3.8 (Leviathan et al., 2022): with acceptance '
         'rate <i>\u03b1</i> and cost ratio <i>c</i>, drafting \u03b3 tokens a round gives (1 \u2212 \u03b1<sup>'
         '\u03b3+1</sup>) / ((1 \u2212 \u03b1)(\u03b3c + 1)); faster than plain generate() only if \u03b1 &gt; c. '
         'Type \u03b1 and c for an instant answer, or measure them on a model pair.</div>')


class PlannerUI(SimpleNamespace):
    """The Planner tab's components by name."""

    def report(self) -> list:
        """Everything a finished plan fills in."""
        return [self.status, self.headline, self.plot, self.table, self.check, self.memory, self.cost, self.advice,
                self.json_file, self.csv_file, self.raw]


class PlannerTab:
    """Builds the Planner tab (see :meth:`build`)."""

    def __init__(self, config: UIConfig):
        self.config = config
        self.ui = PlannerUI()
        self.handlers = PlannerHandlers(config, self.ui)
        self.start = DEFAULT_PLAN_PRESET if DEFAULT_PLAN_PRESET in load_presets() else config.preset
        self.example = calculator(0.8, 0.05, PlanOptions())

    def build(self, gen: dict, light: dict) -> "PlannerTab":
        self.gen, self.light = gen, light
        self.ui.state = gr.State(PlanState())
        gr.HTML(INTRO, elem_id="plan-intro")
        with gr.Row(elem_id="plan-row"):
            with gr.Column(scale=2, min_width=300, elem_id="plan-inputs"):
                self._calculator_box()
                self._measure_box()
                self._hardware_box()
            with gr.Column(scale=3, min_width=300, elem_id="plan-outputs"):
                self._report()
        self._wire()
        gr.api(gpu.plan_endpoint(self.handlers.make_endpoint()), api_name="plan", **gen)
        return self

    # ----- sections ----------------------------------------------------------------------------------
    def _calculator_box(self) -> None:
        u = self.ui
        with gr.Group(elem_id="plan-calc-box"):
            gr.HTML('<div class="plan-box-title">Calculator \u00b7 no model</div>')
            with gr.Row():
                u.alpha = gr.Number(0.8, label="alpha (acceptance rate, 0-1)", step=0.05, elem_id="plan-alpha")
                u.c = gr.Number(0.05, label="c (draft / target step)", step=0.01, elem_id="plan-c")
            u.compute = gr.Button("Compute", variant="secondary", elem_id="plan-compute-btn")

    def _measure_box(self) -> None:
        u, first = self.ui, get_preset(self.start)
        local = " or local folder" if self.config.allow_local_models else " (local folders need --allow-local-models)"
        with gr.Group(elem_id="plan-measure-box"):
            gr.HTML('<div class="plan-box-title">Measure on a model pair \u00b7 greedy \u00b7 minutes on a CPU</div>')
            u.preset = gr.Dropdown(choices=preset_choices() + engine_choices(self.config.endpoints), value=self.start,
                                   label="Preset or serving engine" if self.config.endpoints else "Preset",
                                   elem_id="plan-preset")
            with gr.Row():
                u.target = gr.Textbox("", label="Target override", placeholder=first.target, elem_id="plan-target",
                                      info="empty: the preset's; hub id" + local)
                u.assistant = gr.Textbox("", label="Drafter override", placeholder=first.assistant or "",
                                         elem_id="plan-assistant", info="empty: the preset's",
                                         visible=get_method(first.method).needs_assistant)
            most = self.config.limits.plan_prompts
            u.prompts = gr.Textbox(prompt_text(self.start), lines=3, max_lines=8, label="Prompts (one per line)",
                                   elem_id="plan-prompts", info=f"empty: the preset's examples; at most {most}")
            cap = min(128, self.config.max_new_tokens_cap)
            u.max_new_tokens = gr.Slider(min(8, cap - 1), cap, value=min(32, cap), step=1, label="Max new tokens per prompt",
                                         elem_id="plan-max-new-tokens")
            with gr.Row():
                u.measure = gr.Button("\u25b6  Measure and plan", variant="primary", elem_id="plan-measure-btn", scale=3)
                u.stop = gr.Button("\u25a0  Stop", variant="stop", interactive=False, elem_id="plan-stop-btn", scale=1)
        u.preset.change(self.handlers.preset_changed, [u.preset, u.prompts], [u.target, u.assistant, u.prompts],
                        show_progress="hidden", **self.light)

    def _hardware_box(self) -> None:
        u = self.ui
        with gr.Accordion("Memory and cost", open=True, elem_id="plan-hw-box"):
            n = PLAN_NUMBERS  # labels as the planner's errors name the fields
            with gr.Row():
                u.gpu_memory = gr.Number(DEFAULT_GPU_MEMORY_GB, label=n["gpu_memory"].label, elem_id="plan-gpu-memory")
                u.context = gr.Number(DEFAULT_CONTEXT_TOKENS, label=n["context"].label, precision=0,
                                      elem_id="plan-context")
                u.dtype = gr.Dropdown(list(DTYPE_BYTES), value=DEFAULT_DTYPE, label=n["dtype"].label,
                                      elem_id="plan-dtype")
            with gr.Row():
                u.prices = gr.Textbox(default_prices(), lines=2, label="GPU prices ($/hour, NAME=PRICE per line)",
                                      elem_id="plan-prices", scale=2)
                u.hours = gr.Number(HOURS_PER_MONTH, label=n["hours_per_month"].label, elem_id="plan-hours", scale=1)

    def _report(self) -> None:
        u, calc = self.ui, self.example
        u.status = gr.HTML(status_html("Calculator example: alpha 0.8, c 0.05 (the drafter-choice article's table). "
                                       "Measure a preset for real numbers."), elem_id="plan-status")
        u.headline = gr.HTML(headline_html(calc), elem_id="plan-headline")
        with gr.Row(elem_id="plan-figs"):
            u.plot = gr.HTML(plot_html(calc), elem_id="plan-plot")
            u.table = gr.HTML(table_html(calc), elem_id="plan-table")
        u.check = gr.HTML(check_html(calc), elem_id="plan-check")
        with gr.Row(elem_id="plan-money"):
            u.memory = gr.HTML(memory_html(calc), elem_id="plan-memory")
            u.cost = gr.HTML(cost_html(calc), elem_id="plan-cost")
        u.advice = gr.HTML(advice_html(calc), elem_id="plan-advice")
        with gr.Row(elem_id="plan-downloads"):
            u.json_file = gr.DownloadButton("\u2b07 Plan as JSON", value=None, interactive=False,
                                            elem_id="plan-download-json", size="sm")
            u.csv_file = gr.DownloadButton("\u2b07 Plan as CSV", value=None, interactive=False,
                                           elem_id="plan-download-csv", size="sm")
        with gr.Accordion("The whole plan (JSON)", open=False, elem_id="plan-json-box"):
            u.raw = gr.JSON(calc.to_dict(), elem_id="plan-json")

    def _wire(self) -> None:
        """Compute is instant (no queue slot); Measure shares the generation slot with the race; Stop never waits."""
        u, h = self.ui, self.handlers
        u.compute.click(h.plan_calculate, [u.alpha, u.c, u.prices, u.hours], u.report(), show_progress="hidden",
                        **self.light)
        inputs = [u.state, u.preset, u.target, u.assistant, u.prompts, u.max_new_tokens, u.gpu_memory, u.context,
                  u.dtype, u.prices, u.hours]
        outputs = [*u.report(), u.measure, u.stop]

        def stopped(state):  # the last frame when Stop ends a measurement inside a ZeroGPU worker (app/ui/gpu.py)
            return {**h.buttons(False), **h.status("Stopped: nothing was planned.")}

        u.measure.click(gpu.stream(h.plan_measure, gpu.plan_stream_duration, outputs, stopped), inputs, outputs,
                        show_progress="full",
                        show_progress_on=[u.status], api_visibility="private", **self.gen)
        u.stop.click(h.plan_stop, [u.state], [u.status], show_progress="hidden", **self.light)
