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
from ...core.words import t
from ...render.plan import (advice_html, box_title_html, check_html, cost_html, headline_html, intro_html,
                            memory_html, plot_html, table_html)
from ...render.status import status_html
from ..language import label
from ..race.controls import preset_choices
from ..engines import engine_choices
from .handlers import DEFAULT_PLAN_PRESET, PlannerHandlers, PlanState, calculator, default_prices, prompt_text


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
        self.ui.intro = gr.HTML(intro_html(), elem_id="plan-intro")
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

    def prompts_info(self) -> str:
        """The prompts box's help text, with the server's cap (written by the server: it holds a value)."""
        return t("plan.prompts_info", most=self.config.limits.plan_prompts)

    # ----- sections ----------------------------------------------------------------------------------
    def _calculator_box(self) -> None:
        u = self.ui
        with gr.Group(elem_id="plan-calc-box"):
            u.calc_title = gr.HTML(box_title_html("plan.box.calculator"))
            with gr.Row():
                u.alpha = gr.Number(0.8, label=label("ui.plan.alpha"), step=0.05, elem_id="plan-alpha")
                u.c = gr.Number(0.05, label=label("ui.plan.c"), step=0.01, elem_id="plan-c")
            u.compute = gr.Button(label("ui.plan.compute"), variant="secondary", elem_id="plan-compute-btn")

    def _measure_box(self) -> None:
        u, first = self.ui, get_preset(self.start)
        target_info = "ui.plan.target_info_local" if self.config.allow_local_models else "ui.plan.target_info"
        with gr.Group(elem_id="plan-measure-box"):
            u.measure_title = gr.HTML(box_title_html("plan.box.measure"))
            u.preset = gr.Dropdown(choices=preset_choices() + engine_choices(self.config.endpoints), value=self.start,
                                   label=label("ui.plan.preset_engine" if self.config.endpoints else "ui.plan.preset"),
                                   elem_id="plan-preset")
            with gr.Row():
                u.target = gr.Textbox("", label=label("ui.plan.target"), placeholder=first.target,
                                      elem_id="plan-target", info=label(target_info))
                u.assistant = gr.Textbox("", label=label("ui.plan.assistant"), placeholder=first.assistant or "",
                                         elem_id="plan-assistant", info=label("ui.plan.assistant_info"),
                                         visible=get_method(first.method).needs_assistant)
            u.prompts = gr.Textbox(prompt_text(self.start), lines=3, max_lines=8, label=label("ui.plan.prompts"),
                                   elem_id="plan-prompts", info=self.prompts_info())
            cap = min(128, self.config.max_new_tokens_cap)
            u.max_new_tokens = gr.Slider(min(8, cap - 1), cap, value=min(32, cap), step=1,
                                         label=label("ui.plan.max_new_tokens"), elem_id="plan-max-new-tokens")
            with gr.Row():
                u.measure = gr.Button(label("ui.plan.measure"), variant="primary", elem_id="plan-measure-btn", scale=3)
                u.stop = gr.Button(label("ui.plan.stop"), variant="stop", interactive=False, elem_id="plan-stop-btn",
                                   scale=1)
        u.preset.change(self.handlers.preset_changed, [u.preset, u.prompts], [u.target, u.assistant, u.prompts],
                        show_progress="hidden", **self.light)

    def _hardware_box(self) -> None:
        u = self.ui
        with gr.Accordion(label("ui.plan.hardware"), open=True, elem_id="plan-hw-box"):
            n = {k: label(f"ui.plan.number.{k}") for k in PLAN_NUMBERS}  # in English as the planner's errors name them
            with gr.Row():
                u.gpu_memory = gr.Number(DEFAULT_GPU_MEMORY_GB, label=n["gpu_memory"], elem_id="plan-gpu-memory")
                u.context = gr.Number(DEFAULT_CONTEXT_TOKENS, label=n["context"], precision=0, elem_id="plan-context")
                u.dtype = gr.Dropdown(list(DTYPE_BYTES), value=DEFAULT_DTYPE, label=n["dtype"], elem_id="plan-dtype")
            with gr.Row():
                u.prices = gr.Textbox(default_prices(), lines=2, label=label("ui.plan.prices"), elem_id="plan-prices",
                                      scale=2)
                u.hours = gr.Number(HOURS_PER_MONTH, label=n["hours_per_month"], elem_id="plan-hours", scale=1)

    def _report(self) -> None:
        u, calc = self.ui, self.example
        u.status = gr.HTML(status_html(t("plan.status.example")), elem_id="plan-status")
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
            u.json_file = gr.DownloadButton(label("ui.plan.download_json"), value=None, interactive=False,
                                            elem_id="plan-download-json", size="sm")
            u.csv_file = gr.DownloadButton(label("ui.plan.download_csv"), value=None, interactive=False,
                                           elem_id="plan-download-csv", size="sm")
        with gr.Accordion(label("ui.plan.json_box"), open=False, elem_id="plan-json-box"):
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
            return {**h.buttons(False), **h.status(t("plan.status.stopped"))}

        u.measure.click(gpu.stream(h.plan_measure, gpu.plan_stream_duration, outputs, stopped), inputs, outputs,
                        show_progress="full",
                        show_progress_on=[u.status], api_visibility="private", **self.gen)
        u.stop.click(h.plan_stop, [u.state], [u.status], show_progress="hidden", **self.light)

    def on_load(self, demo: gr.Blocks) -> None:
        """Redraw the tab's server-written HTML in the visitor's language as a page loads (docs/DESIGN.md §4.10)."""
        u, calc = self.ui, self.example

        def loaded() -> dict:
            return {u.intro: intro_html(), u.calc_title: box_title_html("plan.box.calculator"),
                    u.measure_title: box_title_html("plan.box.measure"), u.prompts: gr.update(info=self.prompts_info()),
                    u.status: status_html(t("plan.status.example")), u.headline: headline_html(calc),
                    u.plot: plot_html(calc), u.table: table_html(calc), u.check: check_html(calc),
                    u.memory: memory_html(calc), u.cost: cost_html(calc), u.advice: advice_html(calc)}

        demo.load(loaded, None, [u.intro, u.calc_title, u.measure_title, u.prompts, u.status, u.headline, u.plot,
                                 u.table, u.check, u.memory, u.cost, u.advice], show_progress="hidden", **self.light)
