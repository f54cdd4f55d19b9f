"""The Benchmark tab: built and wired into the generation queue, inputs checked, a run streamed on a fake racer
(table and plots as races finish, downloads at the end), Stop keeping partial results, rendering."""

from __future__ import annotations

import inspect

import json
import threading
from pathlib import Path

import gradio as gr
import pytest

from app.bench.results import BenchResult
from app.bench.runner import BenchProgress
from app.core.requests import Limits
from app.ui.bench.handlers import BenchState
from app.render.bench_tab import EMPTY, leaderboard_html, progress_html, runs_html
from tests.helpers import by_elem_id, server_events
from tests.fakes import ROUNDS, SUITE, fake_result, named, upload

class FakeRacer:
    """Returns a finished fake race at once; with `permits`, only that many races finish and the next one waits
    until Stop (then it comes back stopped, as a real race does)."""

    def __init__(self, permits: int | None = None, speed: float = 0.5):
        self.permits = None if permits is None else threading.Semaphore(permits)
        self.speed, self.calls = speed, 0
        self.dtypes = {"offline-prompt-lookup": "float32"}

    def __call__(self, preset, prompt, stop):
        self.calls += 1
        while self.permits is not None and not self.permits.acquire(timeout=0.02):
            if stop.is_set():
                break
        return fake_result(preset, self.speed, ROUNDS, stopped=stop.is_set())


@pytest.fixture
def tab(built, monkeypatch):
    """The built page's Benchmark tab with a fake racer instead of real models."""
    racer = FakeRacer()
    monkeypatch.setattr(built.bench.handlers, "racer_factory", lambda limits: racer)
    built.bench.racer = racer
    return built.bench


def test_tab_is_third_and_run_shares_the_generation_queue(built):
    tabs = [b for b in built.demo.blocks.values() if isinstance(b, gr.Tab)]
    assert [t.label.key for t in tabs][:3] == ["ui.tab.race", "ui.tab.planner", "ui.tab.bench"] and tabs[2].id == "bench"
    (run,) = server_events(built, "bench-run-btn")
    (race,) = server_events(built, "run-btn")
    assert inspect.unwrap(run.fn) == built.bench.handlers.run and run.types_generator
    assert run.concurrency_id == race.concurrency_id == "generation" and run.concurrency_limit == race.concurrency_limit
    (stop,) = server_events(built, "bench-stop-btn")
    assert stop.concurrency_id != "generation" and stop.concurrency_limit is None
    assert by_elem_id(built, "bench-categories").value == ["multi-turn", "translation", "summarisation", "qa", "maths",
                                                          "rag", "code-editing"]


def test_a_run_streams_rows_then_offers_every_file(tab, tmp_path):
    frames = [named(tab, f) for f in tab.handlers.run(BenchState(), ["offline-prompt-lookup"], upload(tmp_path, SUITE),
                                                        ["copy", "open"], "all", 5, 2, 16)]
    assert frames[0]["board"] == EMPTY and frames[0]["run"]["interactive"] is False
    last = frames[-1]
    assert "Finished 6 races" in last["status"] and last["run"]["interactive"] is True
    assert "bench-table" in last["board"] and "<svg" in last["heatmap"] and "<svg" in last["positions"]
    assert "<svg" in last["scatter"] and last["runs"].count("<tr>") == 1 + 6
    files = {Path(f).name: Path(f) for f in last["files"]["value"]}
    assert set(files) >= {"results.csv", "results.json", "summary.md", "heatmap.svg"}
    data = json.loads(files["results.json"].read_text(encoding="utf-8"))
    assert data["settings"]["suite"] == "mine.jsonl" and len(data["runs"]) == 6 and tab.racer.calls == 7


def test_stop_keeps_the_finished_races(built, monkeypatch, tmp_path):
    racer = FakeRacer(permits=4)  # the warm-up and three races finish, the fourth waits for Stop
    monkeypatch.setattr(built.bench.handlers, "racer_factory", lambda limits: racer)
    state = BenchState()
    frames = built.bench.handlers.run(state, ["offline-prompt-lookup"], upload(tmp_path, SUITE), ["copy", "open"],
                                      "all", 5, 2, 16)
    first = named(built.bench, next(frames))
    assert first["stop"]["interactive"] is True and state.bench is not None
    while racer.calls < 5:
        named(built.bench, next(frames))
    assert "Stopping" in named(built.bench, built.bench.handlers.stop(state))["status"]
    last = [named(built.bench, f) for f in frames][-1]
    assert "Stopped after 3 of 6 races" in last["status"]
    paths = {Path(f).name: Path(f) for f in last["files"]["value"]}
    data = json.loads(paths["results.json"].read_text(encoding="utf-8"))
    assert data["stopped"] is True and len(data["runs"]) == 3
    assert "Stopped" in paths["summary.md"].read_text(encoding="utf-8")
    assert state.bench is None
    assert "No benchmark is running" in named(built.bench, built.bench.handlers.stop(state))["status"]


@pytest.mark.parametrize("change, needle", [
    (dict(presets=[]), "Choose at least one preset"),
    (dict(categories=[]), "Choose at least one category"),
    (dict(categories=["poetry"]), "unknown category poetry"),
    (dict(max_new_tokens=100000), "Max new tokens must be between 1 and 512"),
    (dict(repeats=2.5), "Repeats must be a whole number"),
    (dict(split="tune", limit=1, file=None, categories=["qa"], presets=["offline-prompt-lookup", "offline-uad"]), None),
])
def test_bad_inputs_are_one_line_and_nothing_runs(tab, tmp_path, change, needle):
    args = dict(presets=["offline-prompt-lookup"], file=upload(tmp_path, SUITE), categories=["copy"], split="all",
                limit=5, repeats=1, max_new_tokens=16)
    args.update(change)
    frames = [named(tab, f) for f in tab.handlers.run(BenchState(), *args.values())]
    if needle is None:  # a good plan for contrast: two presets x one built-in qa prompt of the tune split
        assert "Finished 2 races" in frames[-1]["status"]
        return
    assert len(frames) == 1 and "status-error" in frames[0]["status"] and needle in frames[0]["status"]
    assert tab.racer.calls == 0


def test_too_many_races_for_the_page(tab):
    frames = [named(tab, f) for f in tab.handlers.run(BenchState(), ["offline-prompt-lookup", "offline-uad",
                                                                      "offline-early-exit"], None, None, "all", 20, 5, 16)]
    assert "Choose at least one category" in frames[0]["status"]
    cats = ["multi-turn", "translation", "summarisation", "qa", "maths", "rag", "code-editing"]
    frames = [named(tab, f) for f in tab.handlers.run(BenchState(), ["offline-prompt-lookup", "offline-uad"], None, cats,
                                                      "all", 20, 5, 16)]
    assert f"at most {Limits().bench_races} at once" in frames[0]["status"] and "700 races" in frames[0]["status"]


def test_uploading_a_suite_offers_its_categories_or_names_the_bad_line(tab, tmp_path):
    out = named(tab, tab.handlers.suite_changed(upload(tmp_path, SUITE)))
    assert out["categories"]["choices"] == ["copy", "open"] and out["categories"]["value"] == ["copy", "open"]
    assert "mine.jsonl: 3 prompts in 2 categories" in out["status"]
    bad = named(tab, tab.handlers.suite_changed(upload(tmp_path, "prompt,category\nok,qa\n,qa\n", "mine.csv")))
    assert "mine.csv line 3" in bad["status"] and "categories" not in bad
    back = named(tab, tab.handlers.suite_changed(None))
    assert len(back["categories"]["choices"]) == 7


def test_render_marks_best_and_losses_and_escapes():
    rows = []
    from tests.fakes import lookup_preset
    from app.bench.stats import make_row
    from app.bench.suite import SuitePrompt

    for preset_id, category, speed in (("a<b", "qa", 2.0), ("c", "qa", 0.5), ("a<b", "rag", 0.25)):
        preset = lookup_preset().with_overrides({"id": preset_id})
        rows.append(make_row(fake_result(preset, speed, ROUNDS), preset, SuitePrompt("p", "x", category), 1))
    html = leaderboard_html(BenchResult(rows))
    assert "a&lt;b" in html and "a<b" not in html
    assert html.count("bench-best") == 1 and "\u25bc loss" in html
    assert "2.00x" in html and "0.50x" in html and "4.00x" in html  # qa: c best (0.5 s), a<b a loss (2 s)
    assert runs_html(BenchResult(rows)).count("<tr>") == 4
    assert leaderboard_html(BenchResult([])) == EMPTY
    bar = progress_html(BenchProgress("run", 2, 8, "p", "qa", "q1", 1, None, 30.0, 90.0), 8, 30.0)
    assert 'aria-valuenow="2"' in bar and "width:25.0%" in bar and "about 1:30 left" in bar
