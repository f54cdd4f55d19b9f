"""Event functions of the Race tab: the streaming race, stop, toggles, preset changes.

Each returns or yields ``{component: value}`` for the components it changes. The streaming events
(:meth:`RaceHandlers.race_stream` / :meth:`RaceHandlers.measure_stream`) drive the same engine
lifecycle as the CLI, :class:`app.race.lifecycle.RaceRun` (prepare, then run, each in a worker thread
through :func:`app.ui.streaming.run_streaming`), rendering both panes from the race's snapshot every
:data:`TICK` seconds. Their ``finally`` closes the run (stop and reap) whenever the generator ends early:
gradio closes it when the browser tab goes away, and GeneratorExit lands in that ``finally``.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Iterator

import gradio as gr

from ...core.errors import ArenaError
from ...core.requests import RaceRequest, check_preset_id
from ...race.methods import get_method
from ...race.lifecycle import RaceRun
from ...race.prepare import RaceSetup
from ...race.result import RaceResult
from ...race.runner import RaceSnapshot, SideSnapshot
from ..config import UIConfig
from ..html import status_html, unexpected_error_text
from ..streaming import run_streaming
from ..uploads import whole_index
from .controls import CONTROL_NAMES, SAMPLING, preset_state, request_from_controls
from ...render.explain import speedup_words, why_html
from ...render.panes import PaneView, legend_html, pane_html
from .session import Session
from ...core.sources import short_name
from ...render.figures import rounds_chart_html, stats_html
from ...render.machine import hardware_html

log = logging.getLogger("app.ui")

#: Seconds between two renders of the panes while a race runs (>= 5 updates a second).
TICK = 0.15


def machine_facts(setup: RaceSetup | None = None) -> dict:
    """Device and model facts for the hardware panel (no model is loaded here)."""
    import torch

    device = setup.device if setup is not None else ("cuda" if torch.cuda.is_available() else "cpu")
    gpu = torch.cuda.get_device_name(0) if str(device).startswith("cuda") and torch.cuda.is_available() else None
    models = []
    if setup is not None:
        for role, loaded in (("target", setup.target), ("assistant", setup.assistant)):
            if loaded is not None:
                models.append({"role": role, "spec": loaded.spec, "n_params": loaded.n_params,
                               "weight_bytes": loaded.weight_bytes, "dtype": loaded.dtype,
                               "device": loaded.device, "load_seconds": loaded.load_seconds})
    return {"device": str(device), "gpu": gpu, "cpu_cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "models": models}


def subtitles(request: RaceRequest) -> tuple[str, str]:
    """The two panes' subtitles: what runs on each side."""
    p = request.preset
    target = short_name(p.target)
    helper = f" + {short_name(p.assistant)}" if p.assistant else ""
    return f"plain generate() \u00b7 {target}", f"{get_method(p.method).title} \u00b7 {target}{helper}"


class Live:
    """What the panes show while a race streams, drawn from the snapshot the race publishes.

    The rate ticks with the clock: tokens so far over the seconds since that side's generate()
    started (the final figure once it is done), so it moves on every frame, not only on tokens.
    """

    def __init__(self, run: RaceRun, session: Session):
        self.run, self.request, self.session = run, run.request, session
        self.titles = subtitles(run.request)

    @staticmethod
    def _phase(side: SideSnapshot, sequential: bool, baseline_started: bool) -> str:
        if side.done:
            return "error" if side.error else "stopped" if side.stopped else "done"
        if side.started or not sequential:
            return "running"
        return "waiting" if baseline_started else "warmup"

    @staticmethod
    def _rate(side: SideSnapshot) -> float | None:
        n, elapsed = len(side.tokens), side.elapsed
        if elapsed is None or n == 0 or elapsed <= 0:
            return None
        return n / max(elapsed, 1e-6)

    def view(self, name: str, snap: RaceSnapshot | None, diverge_at: int | None = None) -> PaneView:
        sequential = self.run.sequential
        side = snap.sides[name] if snap is not None else SideSnapshot()
        baseline_started = snap is not None and snap.sides["baseline"].started
        phase = self._phase(side, sequential, baseline_started)
        message = side.error or {"warmup": "Warming up both runs (not timed)\u2026",
                                 "waiting": "Waits for the baseline: a fair measurement runs one side at a time."
                                 }.get(phase, "")
        return PaneView(side=name, title="Baseline" if name == "baseline" else "Assisted",
                        subtitle=self.titles[name == "assisted"], tokens=list(side.tokens), rounds=list(side.rounds),
                        phase=phase, tokens_per_second=self._rate(side), seconds=side.seconds if side.done else None,
                        ttft=side.ttft, message=message, show_rejected=self.session.show_rejected,
                        diverge_at=diverge_at, max_new_tokens=self.request.preset.max_new_tokens)

    def views(self, diverge_at: int | None = None) -> tuple[PaneView, PaneView]:
        snap = self.run.snapshot()  # one moment for both panes
        return self.view("baseline", snap, diverge_at), self.view("assisted", snap, diverge_at)


class _TuneStopped(Exception):
    """Stop was pressed while Tune measured."""


class RaceHandlers:
    """The Race tab's event functions, bound to one server configuration and the tab's components (`ui`)."""

    def __init__(self, config: UIConfig, ui: Any):
        self.config, self.ui = config, ui

    # ----- frames ----------------------------------------------------------------------------------
    def buttons(self, running: bool) -> dict:
        u = self.ui
        cleared = u.downloads.cleared() if running else {}  # the last race's files go when a new one starts
        return {u.run: gr.update(interactive=not running), u.measure: gr.update(interactive=not running),
                u.tune: gr.update(interactive=not running), u.stop: gr.update(interactive=running), **cleared}

    def panes(self, session: Session, views: tuple[PaneView, PaneView], status: str) -> dict:
        session.views = views
        return {self.ui.baseline: pane_html(views[0]), self.ui.assisted: pane_html(views[1]), self.ui.status: status}

    def hardware(self, session: Session) -> dict:
        return {self.ui.hardware: hardware_html(session.facts or machine_facts())}

    # ----- streaming race --------------------------------------------------------------------------
    def race_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[dict]:
        """Concurrent race (the show): both sides start at once."""
        yield from self._stream(session, bool(show_rejected), dict(zip(CONTROL_NAMES, values)), sequential=False)

    def measure_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[dict]:
        """Measure fairly: warm-up, then baseline and assisted one after the other."""
        yield from self._stream(session, bool(show_rejected), dict(zip(CONTROL_NAMES, values)), sequential=True)

    def _prepare(self, session: Session, run: RaceRun, views: tuple[PaneView, PaneView]) -> Iterator:
        """Load models in a worker thread, yielding progress frames; returns the RaceSetup."""
        messages: list[str] = []
        run.progress = messages.append

        def frame(elapsed: float) -> dict:
            msg = messages[-1] if messages else "Preparing models and prompt"
            for v in views:
                v.message = f"{msg}\u2026 ({elapsed:.0f} s)"
            return self.panes(session, views, status_html(f"{msg}\u2026", "info"))

        setup = yield from run_streaming(run.prepare, frame, 0.25, "race-prepare")
        for v in views:
            v.message = ""
        return setup

    def _run(self, session: Session, run: RaceRun, setup: RaceSetup) -> Iterator:
        """Race in a worker thread (the engine's reader), rendering the panes every TICK; returns the result."""
        live = Live(run, session)
        note = ("Measuring fairly: warm-up, then baseline, then assisted." if run.sequential else
                "Racing: both runs at once" + (" on shared CPU cores (a show, not a measurement)."
                                              if not str(setup.device).startswith("cuda") else "."))
        yield {**self.panes(session, live.views(), status_html(note)), **self.hardware(session)}
        result = yield from run_streaming(run.run, lambda _: self.panes(session, live.views(), status_html(note)),
                                          TICK, "race-reader")
        return live, result

    def _stream(self, session: Session, show_rejected: bool, values: dict, sequential: bool) -> Iterator[dict]:
        session.begin()
        session.active, session.show_rejected, session.run = True, show_rejected, None
        session.views = (PaneView("baseline", "Baseline", phase="loading"), PaneView("assisted", "Assisted", phase="loading"))
        views = session.views
        try:
            request = request_from_controls(values, self.config.limits)
            run = session.run = RaceRun(request, sequential)
            session.lossless = get_method(request.preset.method).lossless
            for v, sub in zip(views, subtitles(request)):
                v.subtitle = sub
            yield {**self.panes(session, views, status_html("Preparing\u2026")), **self.buttons(True)}
            setup = yield from self._prepare(session, run, views)
            session.facts = machine_facts(setup)
            if session.cancel.is_set():
                for v in views:
                    v.phase, v.message = "stopped", "Stopped before the race started."
                yield {**self.panes(session, views, status_html("Stopped before the race started.")),
                       **self.hardware(session), **self.buttons(False)}
                return
            live, result = yield from self._run(session, run, setup)
            yield self._finish(session, request, live, result)
        except ArenaError as exc:
            gr.Warning(str(exc))
            yield self._failed(session, str(exc))
        except Exception as exc:  # a bug: keep serving, say what happened, keep the traceback in the log
            log.exception("race failed")
            yield self._failed(session, unexpected_error_text(exc))
        finally:
            session.active = False
            session.cancel.set()
            if session.run is not None:  # the tab went away (GeneratorExit) or the run failed: end both workers
                session.run.close("client left or run ended early")

    def _finish(self, session: Session, request: RaceRequest, live: Live, result: RaceResult) -> dict:
        session.remember(result.mode, request.signature, result)
        diverge = None if result.identical or result.prefix_only else result.first_divergence
        stats = stats_html(result, session.paired("concurrent", request.signature),
                           session.paired("sequential", request.signature), session.lossless)
        if result.errors:
            status = status_html("; ".join(f"{s}: {m}" for s, m in result.errors.items()), "error")
        elif result.stopped:
            status = status_html("Stopped: both runs ended after their current forward pass.", "info")
        else:
            label, how = ("Measured fairly", "sequential") if result.mode == "sequential" else ("Race finished",
                                                                                               "concurrent race")
            words, kind = speedup_words(result.speedup)
            status = status_html(f"{label}: {result.assisted.new_tokens} assisted tokens, {words} ({how}).",
                                 "loss" if kind == "loss" else "ok")
        return {**self.panes(session, live.views(diverge), status), **self.hardware(session), **self.buttons(False),
                self.ui.stats: stats, self.ui.why: why_html(result), self.ui.chart: rounds_chart_html(result.assisted.rounds),
                **self.ui.downloads.ready(request, result)}

    def _failed(self, session: Session, message: str) -> dict:
        """The last views shown, marked as failed, with the message where a pane has no tokens."""
        views = session.views
        for v in views:
            v.phase = "error"
            if not v.tokens:
                v.message = message
        return {**self.panes(session, views, status_html(message, "error")), **self.hardware(session),
                **self.buttons(False)}

    # ----- tune ---------------------------------------------------------------------------------------
    def tune_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[dict]:
        """Tune: measure this preset on this prompt with the planner, put the best draft settings into the knobs,
        then measure fairly with them."""
        values = dict(zip(CONTROL_NAMES, values))
        try:
            tuning = yield from self._tune(session, values)
        except ArenaError as exc:
            gr.Warning(str(exc))
            yield {self.ui.status: status_html(str(exc), "error"), **self.buttons(False)}
            return
        if tuning is None:
            yield {self.ui.status: status_html("Tune stopped: nothing was changed."), **self.buttons(False)}
            return
        values.update(tuning.knobs)
        yield {self.ui.status: status_html(f"Tuned: {tuning.reason} Measuring fairly with it\u2026", "ok"),
               **{self.ui.knobs[k]: gr.update(value=v) for k, v in tuning.knobs.items()}}
        yield from self._stream(session, show_rejected, values, sequential=True)

    def _tune(self, session: Session, values: dict) -> Iterator:
        from ...planner.tune import tune

        request = request_from_controls(values, self.config.limits)
        session.begin()
        session.active = True  # Stop now cancels the measuring at its next step
        lines = ["Measuring alpha and c on this prompt"]

        def progress(message: str) -> None:
            if session.cancel.is_set():
                raise _TuneStopped()
            lines.append(message)

        yield {self.ui.status: status_html(f"Tuning: {lines[-1]}\u2026"), **self.buttons(True)}
        try:
            return (yield from run_streaming(
                lambda: tune(request, progress),
                lambda elapsed: {self.ui.status: status_html(f"Tuning: {lines[-1]}\u2026 ({elapsed:.0f} s)")},
                0.5, "race-tune"))
        except _TuneStopped:
            return None
        finally:
            session.active = False

    # ----- small events -----------------------------------------------------------------------------
    def stop(self, session: Session) -> dict:
        """Stop button: end both runs after their current forward pass and wait for the threads."""
        if not session.running():
            session.cancel.set()
            if session.active:
                return {self.ui.status: status_html("Stopping: the race will not start once the models are ready.")}
            return {self.ui.status: status_html("Nothing is running.")}
        ended = session.stop(timeout=15)
        return {self.ui.status: status_html("Stopped: both runs ended after their current forward pass." if ended
                                            else "Stopping: the current forward pass is still running\u2026", "info")}

    def toggle_rejected(self, session: Session, show: bool) -> dict:
        """Show or hide rejected drafts inline (re-renders the assisted pane)."""
        session.show_rejected = bool(show)
        out = {self.ui.legend: legend_html(session.show_rejected)}
        if session.views is not None:
            session.views[1].show_rejected = session.show_rejected
            out[self.ui.assisted] = pane_html(session.views[1])
        return out

    def preset_changed(self, preset_id: str, prompt: str | None) -> dict:
        """A preset was picked: the card, models, decoding, the method's knobs, examples and prompt."""
        u, s = self.ui, preset_state(preset_id, prompt, self.config.max_new_tokens_cap)
        out = {u.card: s["card"], u.target: gr.update(value=s["target"]),
               u.assistant: gr.update(value=s["assistant"], visible=s["assistant_visible"]),
               u.chat_template: gr.update(value=s["chat_template"]), u.max_new_tokens: gr.update(value=s["max_new_tokens"]),
               u.decoding: gr.update(value=s["decoding"]), u.temperature: gr.update(value=s["temperature"]),
               u.top_p: gr.update(value=s["top_p"]), u.sampling_row: gr.update(visible=s["sampling_visible"]),
               u.knobs_box: gr.update(label=s["knobs_label"]), u.examples: gr.update(samples=s["examples"]),
               u.prompt: gr.update(value=s["prompt"])}
        out.update({u.knobs[k]: gr.update(value=v["value"], visible=v["visible"]) for k, v in s["knobs"].items()})
        return out

    def page_loaded(self, preset_id: str, prompt: str | None) -> dict:
        """gr.Number cannot start empty (it shows and sends 0), but an update to None empties it: apply the
        preset's values on page load so unset knobs and the seed mean "default" / "random"."""
        return {**self.preset_changed(preset_id, prompt), self.ui.seed: gr.update(value=None),
                self.ui.status: status_html("Ready: pick a preset, edit the prompt, press Race.")}

    def decoding_changed(self, decoding: str) -> dict:
        return {self.ui.sampling_row: gr.update(visible=decoding == SAMPLING)}

    def example_picked(self, index: int | None, preset_id: str) -> dict:
        """The prompt for the clicked example of the current preset."""
        from ...core.presets import get_preset

        index = whole_index(index)
        try:
            examples = get_preset(check_preset_id(preset_id)).example_prompts
        except ArenaError:
            return {}
        if index is None or not 0 <= index < len(examples):
            return {}
        return {self.ui.prompt: examples[index]}
