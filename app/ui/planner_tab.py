"""The Planner tab (seed 004): measure alpha and c on a model pair, or type them in; best gamma, memory, cost.

:func:`build_planner_tab` creates the tab's components inside an open ``gr.Tab`` and wires them.
:class:`PlannerHandlers` holds the event functions: :meth:`~PlannerHandlers.plan_calculate` (the seed's
calculator, instant, no model), :meth:`~PlannerHandlers.plan_measure` (streams progress lines while
``plan_for_preset`` measures on a helper thread; Stop ends it at the next step) and
:meth:`~PlannerHandlers.plan_stop`. No ``from __future__ import annotations``: ``gr.api`` reads the
endpoint's annotations at runtime.
"""

import json
import logging
import math
import re
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import gradio as gr

from ..engine.cost import DEFAULT_GPUS, HOURS_PER_MONTH, parse_gpu_price
from ..engine.errors import ArenaError
from ..engine.memory import DTYPE_BYTES
from ..engine.methods import get_method
from ..engine.planner import PlanOptions, plan_from_numbers, plan_to_csv
from ..engine.presets import Preset, get_preset, load_presets
from ..engine.sources import resolve
from .config import UIConfig
from .controls import preset_choices
from .render_plan import (advice_html, check_html, cost_html, headline_html, memory_html,
                          message_html, plot_html, progress_html, table_html)

log = logging.getLogger("app.ui")

DEFAULT_PLAN_PRESET = "offline-uad"
MAX_PROMPTS = 8
TICK = 0.5  # seconds between two progress frames while measuring
#: Report outputs, in order (every handler returns one value per name, then the extra outputs of its event).
REPORT = ("status", "headline", "plot", "table", "check", "memory", "cost", "advice", "json_file", "csv_file", "raw")
BUTTONS = ("measure", "stop")
_EXPORT_DIR: Path | None = None


class PlanCancelled(Exception):
    """Raised in the progress callback when the user pressed Stop or left the page."""


class PlanState:
    """Per-browser-session planner state: the cancel flag and the latest plan."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.plan: dict | None = None
        self.running = False

    def __deepcopy__(self, memo: dict) -> "PlanState":  # gr.State deep-copies its value per session
        return PlanState()


def export_dir() -> Path:
    """The app-owned temp folder the downloads are written to (created once per process)."""
    global _EXPORT_DIR
    if _EXPORT_DIR is None:
        _EXPORT_DIR = Path(tempfile.mkdtemp(prefix="arena-plans-"))
    return _EXPORT_DIR


def export_plan(plan: dict) -> tuple[str, str]:
    """Write the plan as JSON and as key,value CSV into :func:`export_dir`; returns the two paths."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(plan.get("preset") or plan.get("mode") or "plan"))[:60]
    stem = export_dir() / f"plan-{name}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    json_path, csv_path = stem.with_suffix(".json"), stem.with_suffix(".csv")
    json_path.write_text(json.dumps(plan, ensure_ascii=False, indent=2), encoding="utf-8")
    csv_path.write_text(plan_to_csv(plan), encoding="utf-8")
    return str(json_path), str(csv_path)


def parse_prices(text: str | None) -> tuple:
    """GPU prices, one 'NAME=DOLLARS_PER_HOUR' a line (or ';'-separated); empty: the seed's defaults."""
    items = [x.strip() for x in re.split(r"[\n;]", text or "") if x.strip()]
    return tuple(parse_gpu_price(x) for x in items) if items else DEFAULT_GPUS


def default_prices() -> str:
    return "\n".join(f"{g.name}={g.dollars_per_hour:g}" for g in DEFAULT_GPUS)


def _number(value: Any, name: str, minimum: float, whole: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ArenaError(f"{name} must be a number; got {value!r}.") from None
    if not math.isfinite(x) or x < minimum or (whole and x != int(x)):
        kind = "a whole number" if whole else "a number"
        raise ArenaError(f"{name} must be {kind} of at least {minimum:g}; got {value}.")
    return int(x) if whole else x


def plan_options(gpu_memory: Any, context: Any, dtype: Any, prices: Any, hours: Any,
                 max_new_tokens: Any = None, cap: int = 512) -> PlanOptions:
    """PlanOptions from the tab's inputs; ArenaError with a plain sentence for a bad value."""
    if dtype not in DTYPE_BYTES:
        raise ArenaError(f"dtype must be one of {', '.join(DTYPE_BYTES)}; got {dtype!r}.")
    n = None
    if max_new_tokens is not None:
        n = _number(max_new_tokens, "Max new tokens", 1, whole=True)
        if n > cap:
            raise ArenaError(f"Max new tokens {n} is above this server's cap of {cap}.")
    return PlanOptions(dtype=dtype, context_tokens=_number(context, "Context length", 1, whole=True),
                       gpu_memory_gb=_number(gpu_memory, "GPU memory (GB)", 0.001), gpus=parse_prices(prices),
                       hours_per_month=_number(hours, "Hours per month", 0.001), max_new_tokens=n)


def read_prompts(text: str | None, preset: Preset) -> list[str]:
    """One prompt a line; none: the preset's example prompts. At most MAX_PROMPTS."""
    prompts = [line.strip() for line in (text or "").splitlines() if line.strip()] or list(preset.example_prompts)
    if not prompts:
        raise ArenaError("Give at least one prompt (one per line): this preset has no example prompts.")
    if len(prompts) > MAX_PROMPTS:
        raise ArenaError(f"{len(prompts)} prompts: the planner measures at most {MAX_PROMPTS} (each is run several times).")
    return prompts


def calculator(alpha: Any, c: Any, options: PlanOptions) -> dict:
    """The seed's calculator for numbers from the page (None/blank is a clear error, not a crash)."""
    if alpha is None or c is None or alpha == "" or c == "":
        raise ArenaError("Enter both alpha (acceptance rate, 0-1) and c (draft step / target step, above 0).")
    plan = plan_from_numbers(float(alpha), float(c), options)
    plan["notes"] = ["Calculator: alpha and c were typed in, nothing was measured. Theorem 3.8 assumes each draft "
                     "token is accepted independently with probability alpha."]
    return plan


class PlannerHandlers:
    """Event functions of the Planner tab, bound to one server configuration."""

    def __init__(self, config: UIConfig):
        self.config = config

    # ----- frames -----------------------------------------------------------------------------
    def report(self, plan: dict, status: str) -> tuple:
        """Values for REPORT from a finished plan (the downloads are written here)."""
        json_path, csv_path = export_plan(plan)
        return (status, headline_html(plan), plot_html(plan), table_html(plan), check_html(plan), memory_html(plan),
                cost_html(plan), advice_html(plan), gr.update(value=json_path, interactive=True),
                gr.update(value=csv_path, interactive=True), plan)

    @staticmethod
    def status_only(status: str) -> tuple:
        return (status, *([gr.skip()] * (len(REPORT) - 1)))

    # ----- calculator -------------------------------------------------------------------------
    def plan_calculate(self, alpha: Any, c: Any, prices: Any, hours: Any) -> tuple:
        """Compute button: the seed's calculator (no model), the whole report."""
        try:
            options = plan_options(24.0, 4096, "bfloat16", prices, hours)
            plan = calculator(alpha, c, options)
        except ArenaError as exc:
            gr.Warning(str(exc))
            return self.status_only(message_html(str(exc), "error"))
        return self.report(plan, message_html(f"Calculated for alpha {plan['alpha']:g}, c {plan['c']:g}: best gamma "
                                              f"{plan['best_gamma']} \u2192 {plan['predicted_speedup']:.2f}x.", "ok"))

    # ----- measuring --------------------------------------------------------------------------
    def preset_for(self, preset_id: str, target: Any, assistant: Any) -> Preset:
        """The preset with the tab's model overrides; local folders only when the server allows them."""
        base = get_preset(preset_id)
        changes: dict[str, Any] = {}
        if isinstance(target, str) and target.strip() and target.strip() != base.target:
            changes.update(target=target.strip(), tokenizer=None)
        needs = get_method(base.method).needs_assistant
        if needs and isinstance(assistant, str) and assistant.strip() and assistant.strip() != (base.assistant or ""):
            changes.update(assistant=assistant.strip(), assistant_tokenizer=None)
        preset = base.with_overrides(**changes) if changes else base
        for spec in filter(None, (preset.target, preset.assistant)):
            resolve(spec, allow_local=self.config.limits.allow_local)  # ArenaError for a folder when not allowed
        return preset

    def plan_measure(self, state: PlanState, preset_id: str, target: Any, assistant: Any, prompts: Any, max_new_tokens: Any,
                gpu_memory: Any, context: Any, dtype: Any, prices: Any, hours: Any) -> Iterator[tuple]:
        """Measure and plan button: stream progress, then the whole report (REPORT + BUTTONS)."""
        try:
            options = plan_options(gpu_memory, context, dtype, prices, hours, max_new_tokens,
                                   self.config.max_new_tokens_cap)
            preset = self.preset_for(preset_id, target, assistant)
            prompt_list = read_prompts(prompts, preset)
        except ArenaError as exc:
            gr.Warning(str(exc))
            yield (*self.status_only(message_html(str(exc), "error")), gr.skip(), gr.skip())
            return
        yield from self.measure_preset(state, preset, prompt_list, options)

    def measure_preset(self, state: PlanState, preset: Preset, prompts: list[str], options: PlanOptions) -> Iterator[tuple]:
        """Run ``plan_for_preset`` on a helper thread; a progress frame every TICK, then the report."""
        from ..engine.planner import plan_for_preset

        state.cancel.clear()
        state.running = True
        lines: list[str] = [f"Measuring {preset.id}: {len(prompts)} prompt(s), greedy"]
        box: dict[str, Any] = {}

        def progress(msg: str) -> None:
            if state.cancel.is_set():
                raise PlanCancelled()
            if not lines or lines[-1] != msg:
                lines.append(str(msg))

        def work() -> None:
            try:
                box["plan"] = plan_for_preset(preset, prompts, options, progress)
            except BaseException as exc:  # handed to the generator below
                box["error"] = exc

        busy = (gr.update(interactive=False), gr.update(interactive=True))
        idle = (gr.update(interactive=True), gr.update(interactive=False))
        worker = threading.Thread(target=work, name="plan-measure", daemon=True)
        started = time.monotonic()
        try:
            worker.start()
            yield (*self.status_only(progress_html(lines, 0.0)), *busy)
            while worker.is_alive():
                worker.join(TICK)
                if worker.is_alive():
                    yield (*self.status_only(progress_html(lines, time.monotonic() - started)), gr.skip(), gr.skip())
            error = box.get("error")
            if isinstance(error, PlanCancelled) or (error is not None and state.cancel.is_set()):
                yield (*self.status_only(message_html("Stopped: nothing was planned. Press Measure and plan to "
                                                      "start again.", "info")), *idle)
                return
            if isinstance(error, ArenaError):
                gr.Warning(str(error))
                yield (*self.status_only(message_html(str(error), "error")), *idle)
                return
            if error is not None:
                log.error("planner failed", exc_info=error)
                first = (str(error).strip().splitlines() or [""])[0][:200]
                yield (*self.status_only(message_html(f"Unexpected error ({type(error).__name__}: {first}); see the "
                                                      "server log.", "error")), *idle)
                return
            plan = state.plan = box["plan"]
            took = time.monotonic() - started
            yield (*self.report(plan, message_html(f"Measured {preset.id} in {took:.0f} s: alpha {plan['alpha']:.3f}, "
                                                   f"c {plan['c']:.4f}, best gamma {plan['best_gamma']}.", "ok")), *idle)
        finally:
            state.running = False
            state.cancel.set()  # the tab went away or the run ended: the worker stops at its next step

    def plan_stop(self, state: PlanState) -> str:
        """Stop button: the measuring ends at its next step (a forward pass or a race already running finishes)."""
        if not state.running:
            return message_html("Nothing is being measured.")
        state.cancel.set()
        return message_html("Stopping after the current step\u2026")

    # ----- API ----------------------------------------------------------------------------------
    def make_endpoint(self):
        """A typed function for ``gr.api(api_name="plan")``: the calculator when alpha and c are given."""
        config = self.config

        def plan(preset: str = DEFAULT_PLAN_PRESET, prompts: str = "", alpha: float | None = None,
                 c: float | None = None, max_new_tokens: int | None = 32, target: str | None = None,
                 assistant: str | None = None, dtype: str = "bfloat16", context_tokens: int = 4096,
                 gpu_memory_gb: float = 24.0, gpu_prices: str = "", hours_per_month: float = HOURS_PER_MONTH) -> dict:
            """The planner: alpha/c/best gamma/memory/cost as one dict (the CLI's `plan --json`). With alpha and c:
            the calculator (instant); otherwise measures on the preset's models (prompts: one per line)."""
            try:
                if alpha is not None or c is not None:
                    return calculator(alpha, c, plan_options(gpu_memory_gb, context_tokens, dtype, gpu_prices,
                                                             hours_per_month))
                options = plan_options(gpu_memory_gb, context_tokens, dtype, gpu_prices, hours_per_month,
                                       max_new_tokens, config.max_new_tokens_cap)
                handlers = PlannerHandlers(config)
                p = handlers.preset_for(preset, target, assistant)
                from ..engine.planner import plan_for_preset

                return plan_for_preset(p, read_prompts(prompts, p), options, lambda m: log.info("%s", m))
            except ArenaError as exc:
                raise gr.Error(str(exc), print_exception=False) from None

        return plan


def _prompt_text(preset_id: str) -> str:
    return "\n".join(get_preset(preset_id).example_prompts)


def preset_changed(preset_id: str, prompts: str | None) -> tuple:
    """Planner preset picked: the models' placeholders, the assistant box, and the examples (own text kept)."""
    preset = get_preset(preset_id)
    examples = {_prompt_text(p) for p in load_presets()}
    keep = bool(prompts and prompts.strip()) and prompts not in examples
    needs = get_method(preset.method).needs_assistant
    return (gr.update(value="", placeholder=preset.target),
            gr.update(value="", placeholder=preset.assistant or "", visible=needs),
            gr.update() if keep else gr.update(value=_prompt_text(preset_id)))


def build_planner_tab(config: UIConfig, gen: dict, light: dict) -> dict[str, Any]:
    """Create the Planner tab's components (call inside ``with gr.Tab(...)``) and wire them; returns them by name."""
    handlers = PlannerHandlers(config)
    presets = load_presets()
    start = DEFAULT_PLAN_PRESET if DEFAULT_PLAN_PRESET in presets else config.preset
    first = get_preset(start)
    calc = calculator(0.8, 0.05, PlanOptions())
    local = " or local folder" if config.allow_local_models else " (local folders need --allow-local-models)"
    cap = min(128, config.max_new_tokens_cap)
    c: dict[str, Any] = {}
    state = gr.State(PlanState())
    gr.HTML('<div class="plan-intro"><b>Draft planner.</b> Theorem 3.8 (Leviathan et al., 2022): with acceptance '
            'rate <i>\u03b1</i> and cost ratio <i>c</i>, drafting \u03b3 tokens a round gives (1 \u2212 \u03b1<sup>'
            '\u03b3+1</sup>) / ((1 \u2212 \u03b1)(\u03b3c + 1)); faster than plain generate() only if \u03b1 &gt; c. '
            'Type \u03b1 and c for an instant answer, or measure them on a model pair.</div>', elem_id="plan-intro")
    with gr.Row(elem_id="plan-row"):
        with gr.Column(scale=2, min_width=360, elem_id="plan-inputs"):
            with gr.Group(elem_id="plan-calc-box"):
                gr.HTML('<div class="plan-box-title">Calculator \u00b7 no model</div>')
                with gr.Row():
                    c["alpha"] = gr.Number(0.8, label="alpha (acceptance rate, 0-1)", step=0.05,
                                           elem_id="plan-alpha")
                    c["c"] = gr.Number(0.05, label="c (draft / target step)", step=0.01, elem_id="plan-c")
                c["compute"] = gr.Button("Compute", variant="secondary", elem_id="plan-compute-btn")
            with gr.Group(elem_id="plan-measure-box"):
                gr.HTML('<div class="plan-box-title">Measure on a model pair \u00b7 greedy \u00b7 minutes on a CPU</div>')
                c["preset"] = gr.Dropdown(choices=preset_choices(presets), value=start, label="Preset",
                                          elem_id="plan-preset")
                with gr.Row():
                    c["target"] = gr.Textbox("", label="Target override", placeholder=first.target,
                                             elem_id="plan-target", info="empty: the preset's; hub id" + local)
                    c["assistant"] = gr.Textbox("", label="Drafter override", placeholder=first.assistant or "",
                                                elem_id="plan-assistant", info="empty: the preset's",
                                                visible=get_method(first.method).needs_assistant)
                c["prompts"] = gr.Textbox(_prompt_text(start), lines=3, max_lines=8, label="Prompts (one per line)",
                                          elem_id="plan-prompts", info=f"empty: the preset's examples; at most {MAX_PROMPTS}")
                c["max_new_tokens"] = gr.Slider(8, cap, value=min(32, cap), step=1, label="Max new tokens per prompt",
                                                elem_id="plan-max-new-tokens")
                with gr.Row():
                    c["measure"] = gr.Button("\u25b6  Measure and plan", variant="primary", elem_id="plan-measure-btn",
                                             scale=3)
                    c["stop"] = gr.Button("\u25a0  Stop", variant="stop", interactive=False, elem_id="plan-stop-btn",
                                          scale=1)
            with gr.Accordion("Memory and cost", open=True, elem_id="plan-hw-box"):
                with gr.Row():
                    c["gpu_memory"] = gr.Number(24, label="GPU memory (GB)", elem_id="plan-gpu-memory")
                    c["context"] = gr.Number(4096, label="Context (tokens)", precision=0,
                                             elem_id="plan-context")
                    c["dtype"] = gr.Dropdown(list(DTYPE_BYTES), value="bfloat16", label="Weights dtype",
                                             elem_id="plan-dtype")
                with gr.Row():
                    c["prices"] = gr.Textbox(default_prices(), lines=2, label="GPU prices ($/hour, NAME=PRICE per line)",
                                             elem_id="plan-prices", scale=2)
                    c["hours"] = gr.Number(HOURS_PER_MONTH, label="GPU hours per month", elem_id="plan-hours",
                                           scale=1)
        with gr.Column(scale=3, min_width=520, elem_id="plan-outputs"):
            c["status"] = gr.HTML(message_html("Calculator example: alpha 0.8, c 0.05 (the seed's table). Measure a "
                                               "preset for real numbers."), elem_id="plan-status")
            c["headline"] = gr.HTML(headline_html(calc), elem_id="plan-headline")
            with gr.Row(elem_id="plan-figs"):
                c["plot"] = gr.HTML(plot_html(calc), elem_id="plan-plot")
                c["table"] = gr.HTML(table_html(calc), elem_id="plan-table")
            c["check"] = gr.HTML(check_html(calc), elem_id="plan-check")
            with gr.Row(elem_id="plan-money"):
                c["memory"] = gr.HTML(memory_html(calc), elem_id="plan-memory")
                c["cost"] = gr.HTML(cost_html(calc), elem_id="plan-cost")
            c["advice"] = gr.HTML(advice_html(calc), elem_id="plan-advice")
            with gr.Row(elem_id="plan-downloads"):
                c["json_file"] = gr.DownloadButton("\u2b07 Plan as JSON", value=None, interactive=False,
                                                   elem_id="plan-download-json", size="sm")
                c["csv_file"] = gr.DownloadButton("\u2b07 Plan as CSV", value=None, interactive=False,
                                                  elem_id="plan-download-csv", size="sm")
            with gr.Accordion("The whole plan (JSON)", open=False, elem_id="plan-json-box"):
                c["raw"] = gr.JSON(calc, elem_id="plan-json")
    report = [c[k] for k in REPORT]
    c["compute"].click(handlers.plan_calculate, [c["alpha"], c["c"], c["prices"], c["hours"]], report,
                       show_progress="hidden", **light)
    measure_inputs = [state, c["preset"], c["target"], c["assistant"], c["prompts"], c["max_new_tokens"],
                      c["gpu_memory"], c["context"], c["dtype"], c["prices"], c["hours"]]
    c["measure"].click(handlers.plan_measure, measure_inputs, [*report, c["measure"], c["stop"]], show_progress="full",
                       show_progress_on=[c["status"]], api_visibility="private", **gen)
    c["stop"].click(handlers.plan_stop, [state], [c["status"]], show_progress="hidden", **light)
    c["preset"].change(preset_changed, [c["preset"], c["prompts"]], [c["target"], c["assistant"], c["prompts"]],
                       show_progress="hidden", **light)
    gr.api(handlers.make_endpoint(), api_name="plan", **gen)
    c["handlers"], c["state"] = handlers, state
    return c
