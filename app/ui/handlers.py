"""Event functions of the page: the streaming race, stop, toggles, preset changes.

The streaming generator (:meth:`Handlers.race_stream` / :meth:`Handlers.measure_stream`)
drives the same engine path as the CLI: ``prepare(...)`` then ``Race(...).events()`` (read on a
helper thread, see :func:`_pump`); it renders the two panes every :data:`TICK` seconds, so the
live tokens/s moves about 6 times a second. Its
``finally`` stops the race whenever the generator ends early: gradio closes it when the
browser tab goes away (the SSE stream disconnects, the queue marks the event dead and calls
``close()`` on the iterator), and GeneratorExit lands in that ``finally``.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from typing import Any, Iterator

import gradio as gr

from ..engine.errors import ArenaError
from ..engine.methods import get_method
from ..engine.runner import Race
from ..engine.setup import RaceSetup, prepare
from .config import UIConfig
from .render import PaneView, legend_html, pane_html, status_html
from .render_stats import hardware_html, prefix_only, rounds_chart_html, short_model_name, stats_html
from .session import CONTROL_NAMES, RunRequest, Session, request_from_controls

log = logging.getLogger("app.ui")

#: Seconds between two renders of the panes while a race runs (>= 5 updates a second).
TICK = 0.15
#: Outputs of the streaming events, in order (layout.py passes components in this order).
STREAM_OUTPUTS = ("baseline", "assisted", "stats", "chart", "hardware", "status", "run", "measure", "stop")


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


def _subtitles(request: RunRequest) -> tuple[str, str]:
    p = request.preset
    method = get_method(p.method)
    target = short_model_name(p.target)
    helper = f" + {short_model_name(p.assistant)}" if p.assistant else ""
    return f"plain generate() \u00b7 {target}", f"{method.title} \u00b7 {target}{helper}"


class Live:
    """What the panes show while a race streams.

    The rate ticks with the clock: tokens so far over the seconds since that side's generate()
    started (the final figure once it is done), so it moves on every frame, not only on tokens.
    """

    def __init__(self, race: Race, request: RunRequest, show_rejected: bool):
        self.race, self.request = race, request
        self.show_rejected = show_rejected
        self.titles = _subtitles(request)

    def _phase(self, side: str) -> str:
        rec, race = self.race.records[side], self.race
        if rec.done:
            return "error" if rec.error else "stopped" if rec.stopped else "done"
        if race.side_started(side) or not race.sequential:
            return "running"
        return "waiting" if race.side_started("baseline") else "warmup"

    def _rate(self, side: str, n: int) -> float | None:
        elapsed = self.race.elapsed(side)
        if elapsed is None or n == 0 or elapsed <= 0:
            return None
        return n / max(elapsed, 1e-6)

    def view(self, side: str, diverge_at: int | None = None) -> PaneView:
        rec = self.race.records[side]
        tokens, rounds = list(rec.tokens), list(rec.rounds)  # snapshots: the pump thread appends meanwhile
        phase = self._phase(side)
        message = rec.error or {"warmup": "Warming up both runs (not timed)\u2026",
                                "waiting": "Waits for the baseline: a fair measurement runs one side at a time."
                                }.get(phase, "")
        return PaneView(side=side, title="Baseline" if side == "baseline" else "Assisted",
                        subtitle=self.titles[side == "assisted"], tokens=tokens, rounds=rounds, phase=phase,
                        tokens_per_second=self._rate(side, len(tokens)), seconds=rec.seconds if rec.done else None,
                        ttft=rec.ttft, message=message, show_rejected=self.show_rejected, diverge_at=diverge_at,
                        max_new_tokens=self.request.preset.max_new_tokens)


_END = object()


def _pump(race: Race, out: "queue.Queue[Any]") -> None:
    """Drive ``race.events()`` (the engine's reader) on a helper thread, forwarding every event.

    The UI generator then renders on a clock (every TICK) even while no event arrives (prefill,
    warm-up), and sees a closed tab at once. Always ends with the _END marker.
    """
    try:
        for event in race.events(poll=0.05):
            out.put(event)
    except BaseException as exc:  # handed to the UI generator
        out.put(exc)
    finally:
        out.put(_END)


def _buttons(running: bool) -> tuple:
    return (gr.update(interactive=not running), gr.update(interactive=not running), gr.update(interactive=running))


def _join_in_background(race: Race, why: str) -> None:
    def wait() -> None:
        start = time.perf_counter()
        ended = race.join(30)
        log.info("race stopped (%s): workers %s after %.2f s", why, "ended" if ended else "STILL RUNNING",
                 time.perf_counter() - start)

    threading.Thread(target=wait, name="race-reaper", daemon=True).start()


class Handlers:
    """The page's event functions, bound to one server configuration."""

    def __init__(self, config: UIConfig):
        self.config = config

    # ----- streaming race -------------------------------------------------------------------
    def race_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[tuple]:
        """Concurrent race (the show): both sides start at once."""
        yield from self._stream(session, bool(show_rejected), dict(zip(CONTROL_NAMES, values)), sequential=False)

    def measure_stream(self, session: Session, show_rejected: bool, *values: Any) -> Iterator[tuple]:
        """Measure fairly: warm-up, then baseline and assisted one after the other."""
        yield from self._stream(session, bool(show_rejected), dict(zip(CONTROL_NAMES, values)), sequential=True)

    def _frame(self, session: Session, views: tuple[PaneView, PaneView], status: str, *, full: bool = False,
               stats: str | None = None, chart: str | None = None, buttons: tuple | None = None) -> tuple:
        session.views = views
        skip = gr.skip()
        hw = hardware_html(session.facts or machine_facts()) if full else skip
        return (pane_html(views[0]), pane_html(views[1]), skip if stats is None else stats,
                skip if chart is None else chart, hw, status, *(buttons or (skip, skip, skip)))

    def _prepare(self, session: Session, request: RunRequest, views: tuple[PaneView, PaneView]) -> Iterator:
        """Load models in a helper thread, yielding progress frames; returns the RaceSetup."""
        box: dict[str, Any] = {}
        messages: list[str] = []

        def work() -> None:
            try:
                box["setup"] = prepare(request.preset, request.prompt, limits=self.config.limits, progress=messages.append)
            except BaseException as exc:  # handed to the generator below
                box["error"] = exc

        worker = threading.Thread(target=work, name="race-prepare", daemon=True)
        worker.start()
        started = time.monotonic()
        while worker.is_alive():
            worker.join(0.25)
            if worker.is_alive():
                msg = messages[-1] if messages else "Preparing models and prompt"
                for v in views:
                    v.message = f"{msg}\u2026 ({time.monotonic() - started:.0f} s)"
                yield self._frame(session, views, status_html(f"{msg}\u2026", "info"))
        if "error" in box:
            raise box["error"]
        for v in views:
            v.message = ""
        return box["setup"]

    def _stream(self, session: Session, show_rejected: bool, values: dict, sequential: bool) -> Iterator[tuple]:
        session.begin()
        session.active = True
        session.show_rejected = show_rejected
        mode = "sequential" if sequential else "concurrent"
        race: Race | None = None
        live: Live | None = None
        views = (PaneView("baseline", "Baseline", phase="loading"), PaneView("assisted", "Assisted", phase="loading"))
        try:
            request = request_from_controls(values)
            session.lossless = get_method(request.preset.method).lossless
            subtitles = _subtitles(request)
            for v, sub in zip(views, subtitles):
                v.subtitle = sub
            yield self._frame(session, views, status_html("Preparing\u2026"), buttons=_buttons(True))
            setup = yield from self._prepare(session, request, views)
            session.facts = machine_facts(setup)
            if session.cancel.is_set():
                for v in views:
                    v.phase, v.message = "stopped", "Stopped before the race started."
                yield self._frame(session, views, status_html("Stopped before the race started."), full=True,
                                  buttons=_buttons(False))
                return
            race = session.race = Race(setup, sequential=sequential, seed=request.seed)
            live = Live(race, request, show_rejected)
            note = ("Measuring fairly: warm-up, then baseline, then assisted." if sequential else
                    "Racing: both runs at once" + (" on shared CPU cores (a show, not a measurement)."
                                                  if not str(setup.device).startswith("cuda") else "."))
            yield self._frame(session, (live.view("baseline"), live.view("assisted")), status_html(note), full=True)
            events: queue.Queue[Any] = queue.Queue()
            threading.Thread(target=_pump, args=(race, events), name="race-reader", daemon=True).start()
            ended, last = False, time.monotonic()
            while not ended:
                try:
                    item = events.get(timeout=max(0.0, TICK - (time.monotonic() - last)))
                except queue.Empty:
                    item = None
                while item is not None:  # drain everything that arrived, then render once
                    if item is _END:
                        ended = True
                    elif isinstance(item, BaseException):
                        raise item
                    try:
                        item = events.get_nowait()
                    except queue.Empty:
                        item = None
                if ended:
                    break
                live.show_rejected = session.show_rejected
                if time.monotonic() - last >= TICK:
                    last = time.monotonic()
                    yield self._frame(session, (live.view("baseline"), live.view("assisted")), status_html(note))
            result = race.result()
            yield self._finish(session, request, live, result, mode)
        except ArenaError as exc:
            gr.Warning(str(exc))
            yield self._failed(session, views, live, str(exc))
        except Exception as exc:  # a bug: keep serving, say what happened, keep the traceback in the log
            log.exception("race failed")
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            yield self._failed(session, views, live, f"Unexpected error ({type(exc).__name__}: {first}); see the server log.")
        finally:
            session.active = False
            session.cancel.set()
            if race is not None and not all(r.done for r in race.records.values()):
                race.stop()  # the tab went away (GeneratorExit) or the run failed: end both workers
                _join_in_background(race, "client left or run ended early")

    def _finish(self, session: Session, request: RunRequest, live: Live, result: dict, mode: str) -> tuple:
        signature = request.signature
        session.results[mode] = (signature, result)
        session.latest, session.latest_signature = result, signature
        diverge = None if result["identical"] or prefix_only(result) else result["first_divergence"]
        views = (live.view("baseline", diverge), live.view("assisted", diverge))
        stats = stats_html(result, session.paired("concurrent", signature), session.paired("sequential", signature),
                           session.lossless)
        if result.get("errors"):
            status = status_html("; ".join(f"{s}: {m}" for s, m in result["errors"].items()), "error")
        elif result.get("stopped"):
            status = status_html("Stopped: both runs ended after their current forward pass.", "info")
        else:
            label = "Measured fairly" if mode == "sequential" else "Race finished"
            status = status_html(f"{label}: {result['assisted']['new_tokens']} assisted tokens, speedup "
                                 f"{result['speedup']:.2f}\u00d7 ({'sequential' if mode == 'sequential' else 'concurrent race'}).", "ok")
        return self._frame(session, views, status, full=True, stats=stats,
                           chart=rounds_chart_html(result["assisted"]["rounds"]), buttons=_buttons(False))

    def _failed(self, session: Session, views: tuple[PaneView, PaneView], live: Live | None, message: str) -> tuple:
        if live is not None:
            views = (live.view("baseline"), live.view("assisted"))
        for v in views:
            v.phase = "error"
            if not v.tokens:
                v.message = message
        return self._frame(session, views, status_html(message, "error"), full=True, buttons=_buttons(False))

    # ----- small events -----------------------------------------------------------------------
    def stop(self, session: Session) -> str:
        """Stop button: end both runs after their current forward pass and wait for the threads."""
        if not session.running():
            session.cancel.set()
            if session.active:
                return status_html("Stopping: the race will not start once the models are ready.")
            return status_html("Nothing is running.")
        ended = session.stop(timeout=15)
        return status_html("Stopped: both runs ended after their current forward pass." if ended
                           else "Stopping: the current forward pass is still running\u2026", "info")

    def toggle_rejected(self, session: Session, show: bool) -> tuple[str, str]:
        """Show or hide rejected drafts inline (re-renders the assisted pane)."""
        session.show_rejected = bool(show)
        legend = legend_html(session.show_rejected)
        if session.views is None:
            return gr.skip(), legend
        assisted = session.views[1]
        assisted.show_rejected = session.show_rejected
        return pane_html(assisted), legend
