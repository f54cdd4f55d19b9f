"""Event functions of the Race tab, each returning or yielding ``{component: value}``: the streaming race (the
engine's :class:`~app.race.lifecycle.RaceRun`, rendered from its snapshot every :data:`TICK` s), Tune, stop, toggles."""

from __future__ import annotations

import os
import time
from typing import Any, Iterator

import gradio as gr

from ...core.errors import ArenaError
from ...core.machine import device_name
from ...core.presets import get_preset
from ...core.requests import RaceRequest, check_preset_id
from ...race.methods import get_method
from ...race.ghosts import GHOSTS
from ...race.lifecycle import RaceRun
from ...race.prepare import RaceSetup
from ...race.result import RaceResult
from ...race.runner import RaceSnapshot, SideSnapshot
from ..config import UIConfig
from ..boundary import failure_text
from ..html import status_html
from ..streaming import run_streaming
from ..uploads import whole_index
from .controls import CONCURRENT, CONTROL_NAMES, SAMPLING, preset_state, request_from_controls
from ...render.why_panel import speedup_words, why_panel_html
from ...render.panes import PaneView, legend_html, pane_html, subtitles
from .session import Session
from ...render.figures import rounds_chart_html, race_stats_html
from ...render.hardware import hardware_html

#: Seconds between two renders of the panes while a race runs (>= 5 updates a second).
TICK = 0.15
FAIR_NOTE = ("Fair race: plain runs first with the machine to itself, then assisted runs live while plain's recorded "
             "run replays from zero in step (measured).")


def machine_facts(setup: RaceSetup | None = None) -> dict:
    """Device and model facts for the hardware panel (no model is loaded here)."""
    import torch

    device = setup.device if setup is not None else ("cuda" if torch.cuda.is_available() else "cpu")
    gpu = device_name(device) if str(device).startswith("cuda") and torch.cuda.is_available() else None
    loaded = [] if setup is None else [("target", setup.target), ("assistant", setup.assistant)]
    models = [{"role": role, "spec": m.spec, "n_params": m.n_params, "weight_bytes": m.weight_bytes, "dtype": m.dtype,
               "device": m.device, "load_seconds": m.load_seconds} for role, m in loaded if m is not None]
    return {"device": str(device), "gpu": gpu, "cpu_cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "models": models}


def titles(request: RaceRequest) -> tuple[str, str]:
    p = request.preset
    return subtitles(get_method(p.method).title, p.target, p.assistant)


def clock_time(epoch: float) -> str:
    """A recorded time of day, for "kept from 10:41:02"."""
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def plain_provenance(result: RaceResult) -> str:
    """When plain ran in a fair race and whether its run was kept: 'plain ran just now', 'plain's run kept from
    10:41:02, reused: <the check>' or 'plain ran again: <why the kept run was not reused>'."""
    check = result.baseline_check or {}
    if result.baseline_kept_at is not None:
        return f"plain's run kept from {clock_time(result.baseline_kept_at)}, reused: {check.get('reason', '')}"
    if check:
        return check.get("reason", "plain ran again")
    return "plain ran just now"


def finished_status(result: RaceResult) -> str:
    """The status line of a race that ended normally: the speedup in the race's own verdict's words (a gap inside
    its noise reads as level, a speedup its rounds cannot explain as not a measurement), and for a fair race when
    plain ran (docs/DESIGN.md §5.16)."""
    verdict = result.verdict
    words, kind = speedup_words(result.speedup, verdict)
    if result.mode != "sequential":
        how = "both at once: a show"
    elif kind == "unmeasured":
        how = verdict.reason
    else:
        how = "measured: each side ran with the machine to itself; " + plain_provenance(result)
    level = f"; {verdict.reason}" if kind == "even" else ""
    label = "Fair race" if result.mode == "sequential" else "Race finished"
    return status_html(f"{label}: {result.assisted.new_tokens} assisted tokens, {words}{level} ({how}).",
                       "loss" if kind in ("loss", "unmeasured") else "ok")


class Live:
    """What the panes show while a race streams, drawn from the snapshot the race publishes: rates tick with the
    clock, and in a fair race the plain pane replays its recorded run in step with assisted (docs/DESIGN.md §1)."""

    def __init__(self, run: RaceRun, session: Session):
        self.run, self.request, self.session = run, run.request, session
        self.titles = titles(run.request)
        self.ghost_zero: float | None = None  # monotonic time at which the assisted side started
        self.replaying = True  # False once the race is over: the plain pane shows its whole run

    def ghost_clock(self, snap: RaceSnapshot | None) -> float | None:
        """Seconds since the assisted side of a fair race started (the ghost's clock); None before, or when concurrent."""
        if snap is None or not self.run.sequential or not self.replaying:
            return None
        assisted = snap.sides["assisted"]
        if self.ghost_zero is None and assisted.started and assisted.elapsed is not None:
            self.ghost_zero = time.monotonic() - assisted.elapsed
        return None if self.ghost_zero is None else time.monotonic() - self.ghost_zero

    def ghost_left(self) -> float:
        """Seconds of the plain run still to replay after the assisted side ended (0 when nothing is left)."""
        snap = self.run.snapshot()
        clock, plain = self.ghost_clock(snap), snap.sides["baseline"] if snap is not None else None
        if clock is None or plain is None or plain.error or plain.stopped or snap.sides["assisted"].stopped:
            return 0.0
        return max(0.0, plain.seconds - clock)

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
        return n / max(elapsed, 1e-6) if n and elapsed is not None and elapsed > 0 else None

    @staticmethod
    def _message(phase: str, snap: RaceSnapshot | None) -> str:
        kept = snap.baseline_kept_at if snap is not None else None
        if phase == "warmup":
            return ("Warming up the assisted side (not timed)\u2026" if kept else "Warming up both sides (not timed)\u2026")
        if phase == "waiting":
            return "Waits: plain runs first with the machine to itself, then this side races its recorded run."
        return ""

    def view(self, name: str, snap: RaceSnapshot | None, diverge_at: int | None = None) -> PaneView:
        sequential = self.run.sequential
        side = snap.sides[name] if snap is not None else SideSnapshot()
        baseline_started = snap is not None and snap.sides["baseline"].started
        phase = self._phase(side, sequential, baseline_started)
        view = PaneView(side=name, title="Baseline" if name == "baseline" else "Assisted",
                        subtitle=self.titles[name == "assisted"], tokens=list(side.tokens), rounds=list(side.rounds),
                        phase=phase, tokens_per_second=self._rate(side), seconds=side.seconds if side.done else None,
                        ttft=side.ttft, message=side.error or self._message(phase, snap),
                        show_rejected=self.session.show_rejected, diverge_at=diverge_at,
                        max_new_tokens=self.request.preset.max_new_tokens)
        clock = self.ghost_clock(snap)
        if name == "baseline" and clock is not None and phase == "done" and clock < side.seconds:
            self._as_ghost(view, side, clock, snap)
        return view

    def _as_ghost(self, view: PaneView, side: SideSnapshot, clock: float, snap: RaceSnapshot) -> None:
        """The plain pane replaying its recorded run at `clock` seconds."""
        shown = sum(1 for t in side.token_times if t <= clock)
        kept = f"kept from {clock_time(snap.baseline_kept_at)}" if snap.baseline_kept_at else "recorded just now"
        view.tokens, view.phase, view.seconds, view.diverge_at = view.tokens[:shown], "replay", None, None
        view.tokens_per_second = shown / clock if shown and clock > 0 else None
        view.subtitle = f"{view.subtitle} \u00b7 its run {kept}, replayed in step"

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
        return {u.run: gr.update(interactive=not running), u.mode: gr.update(interactive=not running),
                u.tune: gr.update(interactive=not running), u.stop: gr.update(interactive=running), **cleared}

    def panes(self, session: Session, views: tuple[PaneView, PaneView], status: str) -> dict:
        session.views = views
        return {self.ui.baseline: pane_html(views[0]), self.ui.assisted: pane_html(views[1]), self.ui.status: status}

    def hardware(self, session: Session) -> dict:
        return {self.ui.hardware: hardware_html(session.facts or machine_facts())}

    # ----- streaming race --------------------------------------------------------------------------
    def race_click(self, session: Session, show_rejected: bool, mode: Any, *values: Any) -> Iterator[dict]:
        """The Race button: the fair race, or both sides at once, as the mode control says (docs/DESIGN.md §1)."""
        yield from self._stream(session, bool(show_rejected), dict(zip(CONTROL_NAMES, values)), mode != CONCURRENT)

    def race_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[dict]:
        """Both sides at once (the show): they share the machine, so the speedup is not a measurement."""
        yield from self._stream(session, bool(show_rejected), dict(zip(CONTROL_NAMES, values)), sequential=False)

    def measure_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[dict]:
        """The fair race: warm-up, plain with the machine to itself, then assisted live against plain's recorded
        run (kept runs reused: app/race/ghosts.py)."""
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
        shared = "" if str(setup.device).startswith("cuda") else " on shared CPU cores"
        note = FAIR_NOTE if run.sequential else f"Racing both sides at once{shared} (a show, not a measurement)."

        def frame(_: float = 0.0) -> dict:
            snap = run.snapshot()
            kept = snap.baseline_kept_at if snap is not None else None
            text = f"Fair race against plain's run kept from {clock_time(kept)}: assisted runs now." if kept else note
            return self.panes(session, live.views(), status_html(text))

        yield {**frame(), **self.hardware(session)}
        result = yield from run_streaming(run.run, frame, TICK, "race-reader")
        while (left := live.ghost_left()) > 0 and not session.cancel.is_set() and not result.errors:
            time.sleep(min(TICK, left))  # the plain run is still replaying: the race is not over
            yield frame()
        return live, result

    def _stream(self, session: Session, show_rejected: bool, values: dict, sequential: bool) -> Iterator[dict]:
        session.begin()
        session.active, session.show_rejected, session.run = True, show_rejected, None
        views = session.views = (PaneView("baseline", "Baseline", phase="loading"),
                                 PaneView("assisted", "Assisted", phase="loading"))
        try:
            request = request_from_controls(values, self.config.limits)
            run = session.run = RaceRun(request, sequential, ghosts=GHOSTS if sequential else None)
            session.lossless = get_method(request.preset.method).lossless
            for v, sub in zip(views, titles(request)):
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
        except Exception as exc:  # a bad request or a bug: keep serving, say what happened in one line
            yield self._failed(session, failure_text(exc, "race"))
        finally:
            session.active = False
            session.cancel.set()
            if session.run is not None:  # the tab went away (GeneratorExit) or the run failed: end both workers
                session.run.close("client left or run ended early")

    def _finish(self, session: Session, request: RaceRequest, live: Live, result: RaceResult) -> dict:
        live.replaying = False
        session.remember(result.mode, request.signature, result)
        diverge = None if result.identical or result.prefix_only else result.first_divergence
        stats = race_stats_html(result, session.paired("concurrent", request.signature),
                           session.paired("sequential", request.signature), session.lossless)
        if result.errors:
            status = status_html("; ".join(f"{s}: {m}" for s, m in result.errors.items()), "error")
        elif result.stopped:
            status = status_html("Stopped: both runs ended after their current forward pass.", "info")
        else:
            status = finished_status(result)
        return {**self.panes(session, live.views(diverge), status), **self.hardware(session), **self.buttons(False),
                self.ui.stats: stats, self.ui.why: why_panel_html(result), self.ui.chart: rounds_chart_html(result.assisted.rounds),
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
            yield {self.ui.status: status_html(failure_text(exc), "error"), **self.buttons(False)}
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
            session.stop(timeout=0)  # before the race: stops a download in progress
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
        values = ("target", "chat_template", "max_new_tokens", "decoding", "temperature", "top_p", "prompt")
        return {u.card: s["card"], **{getattr(u, name): gr.update(value=s[name]) for name in values},
                u.assistant: gr.update(value=s["assistant"], visible=s["assistant_visible"]),
                u.sampling_row: gr.update(visible=s["sampling_visible"]),
                u.knobs_box: gr.update(label=s["knobs_label"]), u.examples: gr.update(samples=s["examples"]),
                **{u.knobs[k]: gr.update(value=v["value"], visible=v["visible"]) for k, v in s["knobs"].items()}}

    def page_loaded(self, preset_id: str, prompt: str | None) -> dict:
        """gr.Number cannot start empty (it shows and sends 0), but an update to None empties it: apply the
        preset's values on page load so unset knobs and the seed mean "default" / "random"."""
        return {**self.preset_changed(preset_id, prompt), self.ui.seed: gr.update(value=None),
                self.ui.status: status_html("Ready: pick a preset, edit the prompt, press Race.")}

    def decoding_changed(self, decoding: str) -> dict:
        return {self.ui.sampling_row: gr.update(visible=decoding == SAMPLING)}

    def example_picked(self, index: int | None, preset_id: str) -> dict:
        """The prompt for the clicked example of the current preset."""
        index = whole_index(index)
        try:
            examples = get_preset(check_preset_id(preset_id)).example_prompts
        except ArenaError:
            return {}
        if index is None or not 0 <= index < len(examples):
            return {}
        return {self.ui.prompt: examples[index]}
