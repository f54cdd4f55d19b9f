"""Event functions of the Race tab, each returning or yielding ``{component: value}``: the streaming race (a
:class:`~app.race.protocol.Run`: a preset's or a serving engine's; every :data:`TICK` s the race's data from its
snapshot, which the player in the browser draws: docs/DESIGN.md §4.9), Tune, stop, the preset and example choices."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Iterator

import gradio as gr

from ...core.errors import ArenaError
from ...core.presets import get_preset
from ...core.requests import check_preset_id
from ...engine.result import ENGINE_PRESET
from ...race.prepare import machine_facts
from ...race.protocol import RaceSnapshot, Run, Side
from ...race.result import RaceResult
from ..config import UIConfig
from ..boundary import failure_text
from ...core.words import t, translate
from ...render.status import status_html
from ..streaming import run_streaming
from ..replay.files import RaceDownloads
from ..uploads import whole_index
from .controls import CONCURRENT, CONTROL_NAMES, SAMPLING, example_headers, methods_overview, preset_state
from ...render.live import LiveFrames, legend_html
from ...render.race_data import idle_data
from ...render.sampling_check import empty_html
from .engine import engine_state
from .entry import Entry, entry_from_controls, request_from_controls
from ..engines import chosen_target
from ...render.why_panel import speedup_words, why_panel_html
from ...render.race_data import clock_time
from .session import Session
from ...render.figures import rounds_chart_html, race_stats_html
from ...render.hardware import hardware_html

#: Seconds between two frames of a running race (the player draws in between).
TICK = 0.15
#: Seconds between two frames while the player still replays plain's run after the assisted side ended.
REPLAY_TICK = 0.25


def plain_provenance(result: RaceResult) -> str:
    """When plain ran in a fair race and whether its run was kept: 'plain ran just now', 'plain's run kept from
    10:41:02, reused: <the check>' or 'plain ran again: <why the kept run was not reused>'."""
    check = result.baseline_check or {}
    if result.baseline_kept_at is not None:
        return t("race.kept_reused", time=clock_time(result.baseline_kept_at), reason=translate(check.get("reason", "")))
    if check:
        return translate(check["reason"]) if check.get("reason") else t("race.plain_again")
    return t("race.plain_now")


def finished_status(result: RaceResult) -> str:
    """The status line of a race that ended normally, in the race's one verdict's words (app/race/verdict.py): a gap
    inside its noise reads as level, a race that is no measurement says why; for a fair race, when plain ran
    (docs/DESIGN.md §5.16)."""
    verdict = result.verdict
    words, kind = speedup_words(verdict)
    if result.mode != "sequential":
        how = t("race.how_show")
    elif kind == "unmeasured":
        how = translate(verdict.reason)  # the words already say "not a measurement"
    elif result.preset == ENGINE_PRESET:
        how = t("race.how_engine")
    else:
        how = t("race.how_measured", provenance=plain_provenance(result))
    level = f"; {translate(verdict.reason)}" if kind == "level" else ""
    key = "race.finished_fair" if result.mode == "sequential" else "race.finished_both"
    return status_html(t(key, tokens=result.assisted.new_tokens, words=words, level=level, how=how),
                       "loss" if kind in ("loss", "unmeasured") else "ok")


class ReplayClock:
    """The server's copy of the fair race's clock: the player in the browser replays plain's run from zero once the
    assisted side starts, and the race is over when that replay ends (docs/DESIGN.md §1), so the last frame waits
    for it."""

    def __init__(self, sequential: bool):
        self.sequential = sequential
        self.zero: float | None = None  # monotonic time at which the assisted side started

    def note(self, snap: RaceSnapshot | None) -> None:
        assisted = snap.sides[Side.ASSISTED] if snap is not None else None
        if self.sequential and self.zero is None and assisted is not None and assisted.started \
                and assisted.elapsed is not None:
            self.zero = time.monotonic() - assisted.elapsed

    def left(self, snap: RaceSnapshot | None) -> float:
        """Seconds of plain's run still to replay (0 when nothing is left, or the race stopped or failed)."""
        self.note(snap)
        if self.zero is None or snap is None:
            return 0.0
        plain, assisted = snap.sides[Side.PLAIN], snap.sides[Side.ASSISTED]
        if plain.error or plain.stopped or assisted.stopped or assisted.error:
            return 0.0
        return max(0.0, plain.seconds - (time.monotonic() - self.zero))


class _TuneStopped(Exception):
    """Stop was pressed while Tune measured."""


@dataclass(eq=False)
class RaceUI:
    """The Race tab's components by name (``ui.run``, ``ui.knobs["prompt_lookup_num_tokens"]``, ...), set as
    app/ui/race/tab.py builds them (None until then); the events' inputs and outputs are listed here once."""

    session: gr.State = None
    player: gr.HTML = None
    legend: gr.HTML = None
    show_rejected: gr.Checkbox = None
    prompt: gr.Textbox = None
    run: gr.Button = None
    mode: gr.Radio = None
    tune: gr.Button = None
    stop: gr.Button = None
    status: gr.HTML = None
    examples: gr.Dataset = None
    stats: gr.HTML = None
    why: gr.HTML = None
    chart: gr.HTML = None
    downloads: RaceDownloads = None
    check_result: gr.HTML = None
    hardware: gr.HTML = None
    preset: gr.Dropdown = None
    card: gr.HTML = None
    knobs_box: gr.Accordion = None
    knobs: dict[str, gr.components.Component] = field(default_factory=dict)
    methods: gr.Markdown = None
    production: SimpleNamespace = None  # app/ui/deploy.py production_panel
    models_box: gr.Accordion = None
    target: gr.Textbox = None
    assistant: gr.Textbox = None
    chat_template: gr.Checkbox = None
    decoding_box: gr.Accordion = None
    max_new_tokens: gr.Slider = None
    decoding: gr.Radio = None
    sampling_row: gr.Row = None
    temperature: gr.Slider = None
    top_p: gr.Slider = None
    seed: gr.Number = None

    def controls(self) -> list:
        """The control components in CONTROL_NAMES order (the race events' inputs after session and toggle); each
        control is the attribute of its name, a knob's is in ``knobs``."""
        return [self.knobs[n] if n in self.knobs else getattr(self, n) for n in CONTROL_NAMES]

    def preset_outputs(self) -> list:
        return [self.card, self.target, self.assistant, self.chat_template, self.max_new_tokens, self.decoding,
                self.temperature, self.top_p, self.sampling_row, self.knobs_box, *self.knobs.values(), self.examples,
                self.prompt, self.mode, self.models_box, self.tune]

    def stream_outputs(self) -> list:
        return [self.player, self.stats, self.why, self.chart, self.hardware, self.status, self.run, self.mode,
                self.tune, self.stop, *self.downloads.outputs()]


class RaceHandlers:
    """The Race tab's event functions, bound to one server configuration and the tab's components (`ui`)."""

    def __init__(self, config: UIConfig, ui: RaceUI):
        self.config, self.ui = config, ui

    # ----- frames ----------------------------------------------------------------------------------
    def buttons(self, running: bool) -> dict:
        u = self.ui
        cleared = u.downloads.cleared() if running else {}  # the last race's files go when a new one starts
        return {u.run: gr.update(interactive=not running), u.mode: gr.update(interactive=not running),
                u.tune: gr.update(interactive=not running), u.stop: gr.update(interactive=running), **cleared}

    def panes(self, session: Session, data: dict, status: str) -> dict:
        """The player's data (app/render/race_data.py) and the status line: the whole frame of a running race."""
        return {self.ui.player: data, self.ui.status: status}

    def hardware(self, session: Session) -> dict:
        return {self.ui.hardware: hardware_html(session.facts or machine_facts())}

    # ----- streaming race --------------------------------------------------------------------------
    def race_click(self, session: Session, mode: Any, *values: Any) -> Iterator[dict]:
        """The Race button: the fair race (plain first, then assisted against plain's recorded run, measured), or
        both sides at once (a show), as the mode control says (docs/DESIGN.md §1)."""
        yield from self._stream(session, dict(zip(CONTROL_NAMES, values)), mode != CONCURRENT)

    def _prepare(self, session: Session, run: Run[RaceResult], frames: LiveFrames) -> Iterator:
        """Load models (or check an engine's pair) in a worker thread, yielding progress frames; returns the setup."""
        messages: list[str] = []
        run.progress = messages.append

        def frame(elapsed: float) -> dict:
            msg = translate(messages[-1]) if messages else t("race.preparing_models")
            return self.panes(session, frames.loading(f"{msg}\u2026 ({elapsed:.0f} s)"), status_html(f"{msg}\u2026", "info"))

        return (yield from run_streaming(run.prepare, frame, 0.25, "race-prepare"))

    def _run(self, session: Session, entry: Entry, setup: Any, frames: LiveFrames) -> Iterator:
        """Race in a worker thread (the run's own threads do the work: app/race's workers and reader, or an engine
        race's streams), sending the race's data every TICK; returns the race's result."""
        run = entry.run
        shared = "" if str(setup.device).startswith("cuda") else " on shared CPU cores"
        note = (t("race.note_engine", name=entry.engine.name) if entry.engine else t("race.note_fair") if run.sequential
                else t("race.note_both_gpu" if not shared else "race.note_both_cpu"))
        replay = ReplayClock(run.sequential)

        def frame(_: float = 0.0) -> dict:
            snap = run.snapshot()
            replay.note(snap)
            kept = snap.baseline_kept_at if snap is not None else None
            text = t("race.note_kept", time=clock_time(kept)) if kept else note
            return self.panes(session, frames.frame(snap), status_html(text))

        yield {**frame(), **self.hardware(session)}
        result = yield from run_streaming(run.run, frame, TICK, "race-reader")
        while (left := replay.left(run.snapshot())) > 0 and not session.cancel.is_set() and not result.errors:
            time.sleep(min(REPLAY_TICK, left))  # the player still replays plain's run: the race is not over
            yield frame()
        return result

    def _stream(self, session: Session, values: dict, sequential: bool) -> Iterator[dict]:
        session.begin()
        session.active, session.run = True, None
        frames = session.frames = LiveFrames(("plain generate()", "assisted generate()"), sequential, None)
        try:
            entry = entry_from_controls(values, self.config, sequential)
            session.run, session.lossless = entry.run, entry.lossless
            frames = session.frames = LiveFrames(entry.titles, entry.sequential, entry.max_tokens)
            yield {**self.panes(session, frames.loading(t("race.preparing")), status_html(t("race.preparing"))),
                   **self.buttons(True)}
            setup = yield from self._prepare(session, entry.run, frames)
            session.facts = entry.run.facts()
            frames.titles = dict(zip(Side, entry.titles_after(setup)))
            if session.cancel.is_set():
                yield {**self.panes(session, frames.loading(t("race.stopped_before"), "stopped"),
                                    status_html(t("race.stopped_before"))),
                       **self.hardware(session), **self.buttons(False)}
                return
            result = yield from self._run(session, entry, setup, frames)
            yield self._finish(session, entry, frames, result)
        except Exception as exc:  # a bad request or a bug: keep serving, say what happened in one line
            yield self._failed(session, failure_text(exc, "race"))
        finally:
            session.active = False
            session.cancel.set()
            if session.run is not None:  # the tab went away (GeneratorExit) or the run failed: end both workers
                session.run.close("client left or run ended early")

    def _finish(self, session: Session, entry: Entry, frames: LiveFrames, result: RaceResult) -> dict:
        session.remember(result.mode, entry.signature, result)
        engine_html, why = entry.panels(result)
        stats = race_stats_html(result, session.paired("concurrent", entry.signature),
                                session.paired("sequential", entry.signature), session.lossless, engine_html)
        if result.errors:
            status = status_html(result.failure, "error")
        elif result.stopped:
            status = status_html(t("race.stopped_both"), "info")
        else:
            status = finished_status(result)
        downloads = self.ui.downloads.cleared() if result.errors else self.ui.downloads.ready(
            lambda: entry.trace(result), result.preset)
        return {**self.panes(session, frames.finished(result), status), **self.hardware(session),
                **self.buttons(False), self.ui.stats: stats, self.ui.why: why,
                self.ui.chart: rounds_chart_html(result.assisted.rounds), **downloads}

    def _failed(self, session: Session, message: str) -> dict:
        """The last frame shown, marked as failed, with the message where a pane has no tokens."""
        return {**self.panes(session, session.frames.failed(message), status_html(message, "error")),
                **self.hardware(session), **self.buttons(False)}

    # ----- tune ---------------------------------------------------------------------------------------
    def tune_stream(self, session: Session, *values: Any) -> Iterator[dict]:
        """Tune: measure this preset on this prompt with the planner, put the best draft settings into the knobs,
        then measure fairly with them."""
        values = dict(zip(CONTROL_NAMES, values))
        try:
            tuning = yield from self._tune(session, values)
        except ArenaError as exc:
            yield {self.ui.status: status_html(failure_text(exc), "error"), **self.buttons(False)}
            return
        if tuning is None:
            yield {self.ui.status: status_html(t("race.tune_stopped")), **self.buttons(False)}
            return
        values.update(tuning.knobs)
        yield {self.ui.status: status_html(t("race.tuned", reason=translate(tuning.reason)), "ok"),
               **{self.ui.knobs[k]: gr.update(value=v) for k, v in tuning.knobs.items()}}
        yield from self._stream(session, values, sequential=True)

    def _tune(self, session: Session, values: dict) -> Iterator:
        from ...planner.tune import tune

        request = request_from_controls(values, self.config.limits)
        session.begin()
        session.active = True  # Stop now cancels the measuring at its next step
        lines = [t("race.tune_measuring")]

        def progress(message: str) -> None:
            if session.cancel.is_set():
                raise _TuneStopped()
            lines.append(message)

        yield {self.ui.status: status_html(t("race.tuning", line=translate(lines[-1]))), **self.buttons(True)}
        try:
            return (yield from run_streaming(
                lambda: tune(request, progress),
                lambda elapsed: {self.ui.status: status_html(t("race.tuning_for", line=translate(lines[-1]),
                                                               seconds=f"{elapsed:.0f}"))},
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
                return {self.ui.status: status_html(t("race.stopping_before"))}
            return {self.ui.status: status_html(t("race.nothing_running"))}
        ended = session.stop(timeout=15)
        return {self.ui.status: status_html(t("race.stopped_both") if ended else t("race.stopping"), "info")}

    def choice_state(self, choice: str, prompt: str | None) -> dict:
        """The controls' values for a preset, or for one of the operator's engines (app/ui/race/engine.py)."""
        cap = self.config.max_new_tokens_cap
        target = chosen_target(choice, self.config.endpoints)
        return engine_state(target, prompt, cap) if target is not None else preset_state(choice, prompt, cap)

    def preset_changed(self, preset_id: str, prompt: str | None) -> dict:
        """A preset (or an engine) was picked: the card, models, decoding, the method's knobs, examples and prompt;
        an engine runs its own model, decoding and speculation, and always races plain first (no mode to pick, nothing to
        tune): of the decoding box it keeps only the token cap, which an engine race honours."""
        u, s = self.ui, self.choice_state(preset_id, prompt)
        values = ("target", "chat_template", "max_new_tokens", "decoding", "temperature", "top_p", "prompt")
        preset = not s.get("engine", False)
        return {u.card: s["card"], **{getattr(u, name): gr.update(value=s[name]) for name in values},
                u.mode: gr.update(visible=preset), u.models_box: gr.update(visible=preset),
                u.decoding: gr.update(visible=preset), u.tune: gr.update(visible=preset),
                u.assistant: gr.update(value=s["assistant"], visible=s["assistant_visible"]),
                u.sampling_row: gr.update(visible=s["sampling_visible"]),
                u.knobs_box: gr.update(label=s["knobs_label"]),
                u.examples: gr.update(samples=s["examples"], headers=example_headers()),
                **{u.knobs[k]: gr.update(value=v["value"], visible=v["visible"]) for k, v in s["knobs"].items()}}

    def page_loaded(self, preset_id: str, prompt: str | None) -> dict:
        """gr.Number cannot start empty (it shows and sends 0), but an update to None empties it: apply the
        preset's values on page load so unset knobs and the seed mean "default" / "random"; and draw the tab's HTML
        in the visitor's language (docs/DESIGN.md §4.10)."""
        u = self.ui
        return {**self.preset_changed(preset_id, prompt), u.seed: gr.update(value=None),
                u.status: status_html(t("race.ready")), u.player: idle_data(), u.legend: legend_html(),
                u.stats: race_stats_html(None), u.why: why_panel_html(None), u.chart: rounds_chart_html([]),
                u.hardware: hardware_html(machine_facts()), u.methods: methods_overview(),
                u.production.intro: t("deploy.intro"), u.check_result: empty_html()}

    def loaded_outputs(self) -> list:
        """What :meth:`page_loaded` sets besides the preset's controls."""
        u = self.ui
        return [u.seed, u.status, u.player, u.legend, u.stats, u.why, u.chart, u.hardware, u.methods,
                u.production.intro, u.check_result]

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
