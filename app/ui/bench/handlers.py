"""Event functions of the Benchmark tab (``{component: value}`` for tab.py's components): a new suite file, Run
(every input checked first, then the leaderboard and plots redrawn as races finish), Stop (the finished races are
kept, summarised and offered as downloads like a full run)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Iterator

import gradio as gr

from ...bench.report import bench_result, write_all
from ...render.bench_plots import all_plots
from ...bench.results import BenchResult
from ...bench.request import bench_plan
from ...bench.runner import Bench, BenchProgress, PresetRacer
from ...bench.suite import categories_of, load_suite
from ...core.errors import ArenaError
from ...core.words import DEFAULT, speaking, t, translate
from ..language import redrawn_where_unchanged
from ..config import UIConfig
from ..exports import unique_stem
from ..boundary import failure_text
from ...render.status import status_html
from ..streaming import PerSession, run_streaming
from ...render.bench_tab import empty_html, hint_html, intro_html, leaderboard_html, plots_html, progress_html, runs_html

TICK = 0.5  # seconds between two frames while the benchmark runs


class BenchState(PerSession):
    """Per-browser-session state: the running Bench (for Stop) and its latest progress."""

    def __init__(self) -> None:
        self.bench: Bench | None = None
        self.progress: BenchProgress | None = None


def suite_of(file: Any) -> tuple[list, str]:
    """The uploaded suite (or the built-in one) and its display name: the name the user knows the file by."""
    if not file:
        return load_suite(), "builtin"
    path = getattr(file, "name", None) or getattr(file, "path", None) or str(file)
    name = getattr(file, "orig_name", None) or Path(path).name
    return load_suite(path, name), name


class BenchHandlers:
    """Event functions of the Benchmark tab. racer_factory(limits) makes the race_fn (tests pass fakes)."""

    def __init__(self, config: UIConfig, ui: Any, racer_factory: Callable[..., Any] | None = None):
        self.config, self.ui = config, ui
        self.racer_factory = racer_factory or (lambda limits: PresetRacer(limits))

    # ----- inputs ---------------------------------------------------------------------------------
    def suite_changed(self, file: Any) -> dict:
        """A suite file was uploaded or cleared: offer its categories (all ticked), or say what is wrong."""
        u = self.ui
        try:
            suite, name = suite_of(file)
        except ArenaError as exc:
            return {u.status: status_html(str(exc), "error")}
        cats = categories_of(suite)
        note = t("bench.suite_note", name=name, prompts=t("bench.prompts", n=len(suite)),
                 categories=t("bench.category" if len(cats) == 1 else "bench.categories", n=len(cats)))
        return {u.categories: gr.update(choices=cats, value=cats), u.status: status_html(note, "ok")}

    # ----- frames ---------------------------------------------------------------------------------
    def report(self, result: BenchResult) -> dict:
        u = self.ui
        heat, positions, scatter = plots_html(result)
        return {u.board: leaderboard_html(result), u.heatmap: heat, u.positions: positions, u.scatter: scatter,
                u.runs: runs_html(result)}

    def buttons(self, busy: bool) -> dict:
        return {self.ui.run: gr.update(interactive=not busy), self.ui.stop: gr.update(interactive=busy)}

    def cleared(self) -> dict:
        u = self.ui
        return {u.board: empty_html(), u.heatmap: "", u.positions: "", u.scatter: "", u.runs: "",
                u.files: gr.update(value=None, visible=False)}

    # ----- run ------------------------------------------------------------------------------------
    def run(self, state: BenchState, presets: Any, file: Any, categories: Any, split: Any, limit: Any,
            repeats: Any, max_new_tokens: Any) -> Iterator[dict]:
        """Run benchmark button: check the inputs, then stream frames until the last race (or Stop)."""
        try:
            suite, name = suite_of(file)
            plan = bench_plan(presets or [], suite, list(categories or []), split, limit, repeats, max_new_tokens,
                              self.config.limits, suite_name=name)
            bench = Bench(plan, self.racer_factory(self.config.limits), time.perf_counter,
                          lambda p: setattr(state, "progress", p), self.config.bench_seconds)
            self.config.limits.check_work(bench.work_tokens, "benchmark", "fewer presets, prompts, repeats or tokens, "
                                          "or `python -m app bench` for a long run")
        except ArenaError as exc:
            yield {self.ui.status: status_html(failure_text(exc), "error")}
            return
        state.bench, state.progress = bench, None
        yield {**self.cleared(), self.ui.status: progress_html(None, bench.total, 0.0), **self.buttons(True)}
        try:
            yield from self._stream(state, bench)
        except Exception as error:
            yield {**self._failed(bench, error), **self.buttons(False)}
        finally:
            bench.stop()  # the tab went away or the run ended: nothing keeps running
            state.bench = None

    def _stream(self, state: BenchState, bench: Bench) -> Iterator[dict]:
        shown = [0]
        started = time.monotonic()

        def frame(elapsed: float) -> dict:
            out = {self.ui.status: progress_html(state.progress, bench.total, elapsed)}
            if len(bench.rows) != shown[0]:
                shown[0] = len(bench.rows)
                out.update(self.report(bench_result(bench)))
            return out

        yield from run_streaming(bench.run, frame, TICK, "bench-run")
        result = bench_result(bench, "the Benchmark tab")
        with speaking(DEFAULT):  # the files are English, like the command line's (docs/DESIGN.md §4.10)
            plots = all_plots(result)
        files = write_all(result, unique_stem("bench", "bench"), plots)
        took = time.monotonic() - started
        if result.stopped:
            counts = dict(done=len(result.rows), total=bench.total, seconds=f"{took:.0f}")
            note = status_html(t("bench.stopped_limit", minutes=f"{bench.time_limit / 60:g}", **counts) if bench.timed_out
                               else t("bench.stopped", **counts), "info")
        else:
            n = len(result.rows)
            note = status_html(t("bench.finished_one" if n == 1 else "bench.finished", n=n, seconds=f"{took:.0f}"),
                               "ok")
        yield {**self.report(result), self.ui.status: note, self.ui.files: gr.update(value=[str(f) for f in files], visible=True),
               **self.buttons(False)}

    def _failed(self, bench: Bench, error: Exception) -> dict:
        """An error is shown as an error; the finished races stay on screen but are not offered as a result."""
        text = failure_text(error, "benchmark")
        if isinstance(error, ArenaError):
            text = translate(text) + t("bench.failed_after", n=len(bench.rows))
        return {self.ui.status: status_html(text, "error")}

    def stop(self, state: BenchState) -> dict:
        """Stop button: the race in flight ends after its current forward pass; finished races are kept."""
        if state.bench is None:
            return {self.ui.status: status_html(t("bench.none_running"))}
        state.bench.stop()
        return {self.ui.status: status_html(t("bench.stopping"))}

    # ----- page load ------------------------------------------------------------------------------
    def page_loaded(self, status: str | None = None, board: str | None = None) -> dict:
        """The tab's HTML in the visitor's language (docs/DESIGN.md §4.10); the status and the leaderboard only where
        they still show what the page was built with (a shared link restores a result first)."""
        u = self.ui
        return {u.intro: intro_html(), u.hint: hint_html(),
                **redrawn_where_unchanged({u.status: (status, lambda: status_html(t("bench.start"))),
                                           u.board: (board, empty_html)})}

    def loaded_outputs(self) -> list:
        u = self.ui
        return [u.intro, u.hint, u.status, u.board]
