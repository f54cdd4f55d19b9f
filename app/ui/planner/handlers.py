"""Event functions of the Planner tab (``{component: value}`` for tab.py's components): the calculator, measuring a
model pair, Stop, the /plan API. No ``from __future__ import annotations``: ``gr.api`` reads the endpoint's
annotations at runtime."""

import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import gradio as gr

from ...core.errors import ArenaError
from ...core.knobs import REQUEST, blank
from ...engine.target import EngineTarget
from ...core.presets import Preset, get_preset, load_presets
from ...planner.cost import DEFAULT_GPUS, HOURS_PER_MONTH
from ...planner.engine_plan import plan_on_engine
from ...planner.memory import DEFAULT_CONTEXT_TOKENS, DEFAULT_DTYPE, DEFAULT_GPU_MEMORY_GB
from ...planner.plan import PlanOptions, plan_for_preset, plan_from_numbers
from ...planner.report import plan_to_csv
from ...planner.request import calculator_numbers, engine_requests, plan_options, plan_preset, plan_prompts
from ...planner.types import Plan
from ...race.methods import get_method
from ..config import UIConfig
from ..engines import chosen_target, engine_name
from .. import popups
from ..exports import unique_stem
from ..boundary import failure_text
from ...core.words import msg, t
from ...render.plan import (advice_html, check_html, cost_html, headline_html, memory_html, plot_html, progress_html,
                            table_html)
from ...render.status import status_html
from ..keepalive import in_background
from ..streaming import PerSession, run_streaming

log = logging.getLogger("app.ui")

DEFAULT_PLAN_PRESET = "offline-uad"
TICK = 0.5  # seconds between two progress frames while measuring


@dataclass
class Measuring:
    """A checked measurement, ready to run: what it measures (for the status line), how many prompts, and the work
    itself, ``run(progress, stop) -> Plan`` (progress raises to stop at the planner's next step; stop closes an
    engine's open request)."""

    label: str
    prompts: int
    run: Callable[[Callable[[str], None], threading.Event], Plan]


class PlanCancelled(Exception):
    """Raised in the progress callback when the user pressed Stop or left the page."""


class PlanState(PerSession):
    """Per-browser-session planner state: the cancel flag and the latest plan."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.plan: Optional[Plan] = None
        self.running = False


def export_plan(plan: Plan) -> tuple:
    """Write the plan as JSON and as key,value CSV into the app's "plans" export folder; returns the two paths."""
    stem = unique_stem("plans", f"plan-{plan.preset or plan.mode or 'plan'}")
    json_path, csv_path = stem.with_suffix(".json"), stem.with_suffix(".csv")
    json_path.write_text(json.dumps(plan.to_dict(), ensure_ascii=False, indent=2), encoding="utf-8")
    csv_path.write_text(plan_to_csv(plan), encoding="utf-8")
    return str(json_path), str(csv_path)


def default_prices() -> str:
    return "\n".join(f"{g.name}={g.dollars_per_hour:g}" for g in DEFAULT_GPUS)


def calculator(alpha: Any, c: Any, options: PlanOptions) -> Plan:
    """The calculator for numbers from the page (None/blank is a clear error, not a crash)."""
    plan = plan_from_numbers(*calculator_numbers(alpha, c), options)
    plan.notes = [msg("Calculator: alpha and c were typed in, nothing was measured. Theorem 3.8 assumes each draft token is "
                      "accepted independently with probability alpha.")]
    return plan


def prompt_text(preset_id: str) -> str:
    return "\n".join(get_preset(preset_id).example_prompts)


class PlannerHandlers:
    """Event functions of the Planner tab, bound to one server configuration and the tab's components."""

    def __init__(self, config: UIConfig, ui: Any):
        self.config, self.ui = config, ui

    # ----- frames -----------------------------------------------------------------------------
    def report(self, plan: Plan, status: str) -> dict:
        """Every report component from a finished plan (the downloads are written here)."""
        json_path, csv_path = export_plan(plan)
        u = self.ui
        return {u.status: status, u.headline: headline_html(plan), u.plot: plot_html(plan), u.table: table_html(plan),
                u.check: check_html(plan), u.memory: memory_html(plan), u.cost: cost_html(plan),
                u.advice: advice_html(plan), u.json_file: gr.update(value=json_path, interactive=True),
                u.csv_file: gr.update(value=csv_path, interactive=True), u.raw: plan.to_dict()}

    def buttons(self, busy: bool) -> dict:
        return {self.ui.measure: gr.update(interactive=not busy), self.ui.stop: gr.update(interactive=busy)}

    def status(self, text: str, kind: str = "info") -> dict:
        return {self.ui.status: status_html(text, kind)}

    # ----- calculator -------------------------------------------------------------------------
    def plan_calculate(self, alpha: Any, c: Any, prices: Any, hours: Any) -> dict:
        """Compute button: the calculator (no model), the whole report."""
        try:
            plan = calculator(alpha, c, plan_options(prices=prices, hours=hours))
        except ArenaError as exc:
            return self.status(failure_text(exc), "error")
        return self.report(plan, status_html(t("plan.status.calculated", alpha=f"{plan.alpha:g}", c=f"{plan.c:g}",
                                               gamma=plan.best_gamma, speedup=f"{plan.predicted_speedup:.2f}"), "ok"))

    # ----- measuring --------------------------------------------------------------------------
    def request(self, choice: Any, target: Any, assistant: Any, prompts: Any, options: PlanOptions) -> Measuring:
        """What Measure (or the /plan API) asks for, through the planner's request builder under the server's limits:
        a preset with the tab's model overrides and token count (a local folder is refused unless the server allows
        them), or one of the operator's engines (:func:`engine_choice`; picked by name, its URLs never typed), with
        the prompts to measure on."""
        engine = self.engine(choice, target, assistant)
        if engine is not None:
            requests = engine_requests(engine, prompts, options.max_new_tokens, options.limits, REQUEST)
            return Measuring(t("plan.what.engine", name=engine.name), len(requests),
                             lambda progress, stop: plan_on_engine(requests, options, progress, stop))
        changes = {"target": target, "assistant": assistant,
                   **({"max_new_tokens": options.max_new_tokens} if options.max_new_tokens else {})}
        preset = plan_preset(choice, changes, self.config.limits)
        prompt_list = plan_prompts(prompts, preset, options.limits)
        return Measuring(preset.id, len(prompt_list),
                         lambda progress, stop: plan_for_preset(preset, prompt_list, options, progress))

    def engine(self, choice: Any, target: Any, assistant: Any) -> Optional[EngineTarget]:
        """The operator's engine `choice` picks (app/ui/engines.py: its messages name it, never its URLs), or None for
        a preset; model overrides are refused: an engine serves its own models."""
        found = chosen_target(choice, self.config.endpoints)
        if found is not None and not (blank(target) and blank(assistant)):
            raise ArenaError(msg("An engine serves its own models: leave the target and drafter overrides empty."))
        return found

    def plan_measure(self, state: PlanState, preset_id: str, target: Any, assistant: Any, prompts: Any,
                     max_new_tokens: Any, gpu_memory: Any, context: Any, dtype: Any, prices: Any,
                     hours: Any) -> Iterator[dict]:
        """Measure and plan button: stream progress, then the whole report."""
        try:
            options = plan_options(gpu_memory, context, dtype, prices, hours, max_new_tokens, self.config.limits)
            what = self.request(preset_id, target, assistant, prompts, options)
        except ArenaError as exc:
            yield self.status(failure_text(exc), "error")
            return
        yield from self.measure(state, what)

    def measure_preset(self, state: PlanState, preset: Preset, prompts: list, options: PlanOptions) -> Iterator[dict]:
        """Measure `preset` on `prompts` (already checked): see :meth:`measure`."""
        yield from self.measure(state, Measuring(preset.id, len(prompts),
                                                 lambda progress, stop: plan_for_preset(preset, prompts, options,
                                                                                        progress)))

    def measure(self, state: PlanState, what: Measuring) -> Iterator[dict]:
        """Run the measurement in a worker thread; a progress frame every TICK, then the report. Stop (or the tab
        going away) sets the state's cancel event: the planner stops at its next step, an engine's open request is
        closed at once."""
        state.cancel.clear()
        state.running = True
        lines = [t("plan.status.measuring", what=what.label, prompts=what.prompts)]

        def progress(msg: str) -> None:
            if state.cancel.is_set():
                raise PlanCancelled()
            if lines[-1] != msg:
                lines.append(str(msg))

        started = time.monotonic()
        try:
            yield {self.ui.status: progress_html(lines, 0.0), **self.buttons(True)}
            plan = yield from run_streaming(lambda: what.run(progress, state.cancel),
                                            lambda elapsed: {self.ui.status: progress_html(lines, elapsed)},
                                            TICK, "plan-measure")
            state.plan = plan
            done = t("plan.status.measured", what=what.label, seconds=f"{time.monotonic() - started:.0f}",
                     alpha=f"{plan.alpha:.3f}", c=f"{plan.c:.4f}", gamma=plan.best_gamma)
            yield {**self.report(plan, status_html(done, "ok")), **self.buttons(False)}
        except Exception as error:
            yield {**self._measure_failed(state, error), **self.buttons(False)}
        finally:
            state.running = False
            state.cancel.set()  # the tab went away or the run ended: the worker stops at its next step

    def _measure_failed(self, state: PlanState, error: Exception) -> dict:
        if isinstance(error, PlanCancelled) or state.cancel.is_set():
            return self.status(t("plan.status.stopped_again"))
        return self.status(failure_text(error, "planner"), "error")

    def plan_stop(self, state: PlanState) -> dict:
        """Stop button: the measuring ends at its next step (a forward pass or a race already running finishes)."""
        if not state.running:
            return self.status(t("plan.status.idle"))
        state.cancel.set()
        return self.status(t("plan.status.stopping"))

    def preset_changed(self, preset_id: str, prompts: Optional[str]) -> dict:
        """Planner preset picked: the models' placeholders, the assistant box, and the examples (own text kept); an
        engine picked: no model boxes (it serves its own), the prompts as they are."""
        if engine_name(preset_id) is not None:
            return {self.ui.target: gr.update(value="", visible=False), self.ui.assistant: gr.update(value="",
                                                                                                     visible=False)}
        preset = get_preset(preset_id)
        examples = {prompt_text(p) for p in load_presets()}
        keep = bool(prompts and prompts.strip()) and prompts not in examples
        needs = get_method(preset.method).needs_assistant
        out = {self.ui.target: gr.update(value="", placeholder=preset.target, visible=True),
               self.ui.assistant: gr.update(value="", placeholder=preset.assistant or "", visible=needs)}
        if not keep:
            out[self.ui.prompts] = gr.update(value=prompt_text(preset_id))
        return out

    # ----- API ----------------------------------------------------------------------------------
    def make_endpoint(self):
        """A typed function for ``gr.api(api_name="plan")``: the calculator when alpha and c are given.

        A generator (see :mod:`app.ui.keepalive`): a measurement runs in a thread, and a cancelled job or a lost
        client stops it at its next step, as Stop does on the page.
        """

        def plan(preset: str = DEFAULT_PLAN_PRESET, prompts: str = "", alpha: Optional[float] = None,
                 c: Optional[float] = None, max_new_tokens: Optional[int] = 32, target: Optional[str] = None,
                 assistant: Optional[str] = None, dtype: str = DEFAULT_DTYPE, context_tokens: int = DEFAULT_CONTEXT_TOKENS,
                 gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB, gpu_prices: str = "",
                 hours_per_month: float = HOURS_PER_MONTH) -> dict:
            """The draft planner: alpha, c, the best draft length gamma, predicted and measured speedup, memory and
            cost as one dict (the CLI's `plan --json`), with one verdict in `final`. With alpha and c: the calculator
            (instant); otherwise it measures on the preset's models and your prompts, or races them through one of
            this server's serving engines.

            Args:
                preset: a preset id (offline-uad, drafter), or engine:NAME for one of this server's serving engines
                prompts: your prompts, one per line (empty: the preset's examples)
                alpha: acceptance rate per drafted token, 0-1 (give alpha and c for the instant calculator)
                c: cost ratio, one draft step over one target step (with alpha: the calculator)
                max_new_tokens: tokens generated per prompt while measuring
                target: the target model's hub id (null: the preset's)
                assistant: the drafter model's hub id (null: the preset's)
                dtype: weight dtype for the memory estimate (bfloat16, float16, float32, int8, int4)
                context_tokens: tokens of KV cache for the memory estimate
                gpu_memory_gb: the GPU's memory for the fits-or-not check
                gpu_prices: GPU prices as NAME=DOLLARS_PER_HOUR, one per line (empty: A10 and H100 list prices)
                hours_per_month: GPU hours a month for the cost estimate
            """
            hardware = (gpu_memory_gb, context_tokens, dtype, gpu_prices, hours_per_month)
            try:
                if alpha is not None or c is not None:
                    yield calculator(alpha, c, plan_options(*hardware)).to_dict()
                    return
                options = plan_options(*hardware, max_new_tokens, self.config.limits)
                yield (yield from self.api_measure(preset, prompts, target, assistant, options)).to_dict()
            except ArenaError as exc:
                raise popups.error(exc) from None

        return plan

    def api_measure(self, preset_id: Any, prompts: Any, target: Any, assistant: Any,
                    options: PlanOptions) -> Iterator[None]:
        """``plan = yield from api_measure(...)``: measure in a thread; closing the generator stops it at its next step
        (an engine's open request at once)."""
        what = self.request(preset_id, target, assistant, prompts, options)
        cancel = threading.Event()

        def progress(message: str) -> None:
            if cancel.is_set():
                raise PlanCancelled()
            log.info("%s", message)

        try:
            return (yield from in_background(lambda: what.run(progress, cancel), "api-plan"))
        finally:
            cancel.set()  # a cancelled job or a lost client: the worker stops at its next step
