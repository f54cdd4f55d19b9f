"""The Race tab's sampling check, lossless in distribution? (docs/DESIGN.md §5.15): an accordion with its own
controls that runs on the tab's request, always sampling at the tab's temperature and top-p; Stop, or a closed tab,
ends it after the current generate() call."""

from __future__ import annotations

import threading
from typing import Any, Iterator

import gradio as gr

from ...core.errors import StoppedError
from ...core.knobs import KNOB_TABLE, REQUEST
from ...race.sampling_check_result import SAMPLES, TOKENS, TOP_K, CheckSettings, check_work_tokens
from .. import gpu
from ..config import UIConfig
from ..boundary import failure_text
from ...core.words import t, translate
from ...render.status import status_html
from ..language import label
from ..streaming import PerSession, run_streaming
from .controls import CONTROL_NAMES
from .entry import request_from_controls
from ...render.sampling_check import check_html, empty_html

#: The page's defaults: on the offline default preset these take about two minutes on a 2-core CPU (README).
DEFAULT_SAMPLES, DEFAULT_TOKENS = 300, 4
TICK = 0.5


class CheckState(PerSession):
    """One browser session's check: its stop event (``cancel``, as app/ui/gpu.py expects) and whether it runs."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.running = False


def check_settings(samples: Any, tokens: Any, top_k: Any, values: dict[str, Any], seed: int | None) -> CheckSettings:
    """The check's settings from its own controls and the tab's temperature and top-p (checked, origin: request)."""
    return CheckSettings(SAMPLES.check(samples, REQUEST), TOKENS.check(tokens, REQUEST),
                         KNOB_TABLE["temperature"].check(values.get("temperature") or 1.0, REQUEST),
                         KNOB_TABLE["top_p"].check(values.get("top_p") or 1.0, REQUEST),
                         None if top_k in (None, "") else TOP_K.check(top_k, REQUEST), seed)


def check_seconds(samples: Any = None, tokens: Any = None, *rest: Any) -> int:
    """ZeroGPU seconds a check asks for: a cold load plus every generated token (app/ui/gpu.py's rates)."""
    try:
        return gpu.work_seconds(check_work_tokens(int(samples or DEFAULT_SAMPLES), int(tokens or DEFAULT_TOKENS)))
    except (TypeError, ValueError):
        return gpu.work_seconds(check_work_tokens(DEFAULT_SAMPLES, DEFAULT_TOKENS))


class SamplingCheckPanel:
    """Builds the check's controls (:meth:`build`, inside the tab's layout) and wires them (:meth:`wire`)."""

    def __init__(self, config: UIConfig):
        self.config = config

    def build(self) -> "SamplingCheckPanel":
        with gr.Accordion(label("ui.check.title"), open=False, elem_id="check-box"):
            with gr.Row():
                self.samples = gr.Number(DEFAULT_SAMPLES, precision=0, minimum=SAMPLES.low, maximum=SAMPLES.high,
                                         step=SAMPLES.step, label=label(f"ui.knob.{SAMPLES.name}.label"),
                                         info=label(f"ui.knob.{SAMPLES.name}.info"), elem_id="check-samples")
                self.tokens = gr.Number(DEFAULT_TOKENS, precision=0, minimum=TOKENS.low, maximum=TOKENS.high,
                                        label=label(f"ui.knob.{TOKENS.name}.label"),
                                        info=label(f"ui.knob.{TOKENS.name}.info"), elem_id="check-tokens")
                self.top_k = gr.Number(None, precision=0, minimum=TOP_K.low, label=label(f"ui.knob.{TOP_K.name}.label"),
                                       info=label(f"ui.knob.{TOP_K.name}.help"), elem_id="check-top-k")
            with gr.Row():
                self.run = gr.Button(label("ui.check.run"), variant="secondary", elem_id="check-btn", scale=2)
                self.stop = gr.Button(label("ui.check.stop"), variant="stop", elem_id="check-stop-btn", interactive=False,
                                      scale=1)
            self.status = gr.HTML("", elem_id="check-status", js_on_load=None)
            self.result = gr.HTML(empty_html(), elem_id="check-result-box", js_on_load=None)
        self.state = gr.State(CheckState())
        return self

    def outputs(self) -> list:
        return [self.status, self.result, self.run, self.stop]

    def wire(self, controls: list, gen: dict, light: dict) -> None:
        """Check takes the check's controls and then the tab's (CONTROL_NAMES order); it shares the generation slot."""
        inputs = [self.state, self.samples, self.tokens, self.top_k, *controls]
        stream = gpu.stream(self.check_stream, check_seconds, self.outputs(), self.stopped)
        self.run.click(stream, inputs, self.outputs(), show_progress="full", show_progress_on=[self.status],
                       api_visibility="private", **gen)
        self.stop.click(self.stop_check, [self.state], [self.status], show_progress="hidden", **light)

    # ----- events ----------------------------------------------------------------------------------------------
    def buttons(self, running: bool) -> dict:
        return {self.run: gr.update(interactive=not running), self.stop: gr.update(interactive=running)}

    def stopped(self, state: CheckState) -> dict:
        return {self.status: status_html(t("check.stopped"), "info"), **self.buttons(False)}

    def stop_check(self, state: CheckState) -> dict:
        """Stop: the check ends after its current generate() call."""
        state.cancel.set()
        return {self.status: status_html(t("check.stopping") if state.running else t("check.none_running"), "info")}

    def check_stream(self, state: CheckState, samples: Any, tokens: Any, top_k: Any, *values: Any) -> Iterator[dict]:
        """Build the request, run the check in a thread with progress in the status, then show the verdict."""
        state.cancel.clear()
        state.running = True
        try:
            yield {self.status: status_html(t("check.preparing")), **self.buttons(True)}
            result = yield from self._run(state, samples, tokens, top_k, dict(zip(CONTROL_NAMES, values)))
            kind = "ok" if result["verdict"] == "same" else "loss"
            yield {self.status: status_html(t("check.status", text=translate(result["verdict_text"])), kind),
                   self.result: check_html(result), **self.buttons(False)}
        except StoppedError as exc:
            yield {self.status: status_html(str(exc), "info"), **self.buttons(False)}
        except Exception as exc:  # a bad request or a bug: keep serving, one line for the user
            yield {self.status: status_html(failure_text(exc, "sampling check"), "error"), **self.buttons(False)}
        finally:
            state.cancel.set()  # a closed tab (GeneratorExit) or an error: the worker stops after its current call
            state.running = False

    def _run(self, state: CheckState, samples: Any, tokens: Any, top_k: Any, values: dict) -> Iterator:
        from ...race.sampling_check import sampling_check

        request = request_from_controls(values, self.config.limits)
        settings = check_settings(samples, tokens, top_k, values, request.seed)
        messages = [t("check.loading", target=request.preset.target)]

        def frame(elapsed: float) -> dict:
            return {self.status: status_html(t("check.progress", line=translate(messages[-1]), seconds=f"{elapsed:.0f}"))}

        result = yield from run_streaming(
            lambda: sampling_check(request.preset, request.prompt, request.limits, settings,
                                   progress=messages.append, stop=state.cancel),
            frame, TICK, "sampling-check")
        return result.to_dict()
