"""summary.md, the SVG plots and results.json round trips from known rows (no model)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from app.render.bench_plots import all_plots, heat_colour
from app.render.charts import axis_ticks
from app.bench.results import BenchResult, load_results, write_results
from app.bench.stats import make_row
from app.bench.suite import SuitePrompt
from app.bench.summary import summary_markdown
from app.core.errors import ArenaError
from tests.fakes import ROUNDS, fake_result, lookup_preset

SVG = "{http://www.w3.org/2000/svg}"


def rows_for(speeds: dict, sweep: tuple | None = None) -> list[dict]:
    """One row per (preset id, category, assisted seconds); baseline 1 s, so speedup = 1 / seconds."""
    out = []
    for (preset_id, category), seconds in speeds.items():
        preset = lookup_preset().with_overrides({"id": preset_id})
        for i, s in enumerate(seconds):
            out.append(make_row(fake_result(preset, s, ROUNDS, diverge_at=3 if preset_id == "lossy" else None), preset,
                                SuitePrompt(f"{category}-{i}", "x", category), 1, sweep))
    return out


def test_summary_marks_best_losses_geomean_and_identical():
    rows = rows_for({("fast", "summarisation"): [0.25, 0.5], ("fast", "qa"): [2.0], ("lossy", "summarisation"): [1.0],
                     ("lossy", "qa"): [0.5]})
    text = summary_markdown(BenchResult(rows, {"suite": "builtin", "repeats": 1, "prompts": 3}, {"device": "cpu"}))
    board = text.split("## Speedup")[1].split("## Acceptance")[0]
    fast = next(x for x in board.splitlines() if x.startswith("| fast"))
    lossy = next(x for x in board.splitlines() if x.startswith("| lossy"))
    assert "| **3.00x** \u2605 (2.00-4.00) |" in fast and "0.50x \u25bc loss (0.50-0.50)" in fast
    assert "| **2.00x** \u2605 (2.00-2.00) |" in lossy and "| 1.00x (1.00-1.00) |" in lossy
    assert fast.endswith("| 1.22x |")  # sqrt(3 * 0.5)
    checks = text.split("## Checks")[1]
    assert "| fast (prompt-lookup) | 3/3 |" in checks and "| lossy (prompt-lookup) | 0/2 |" in checks


def test_summary_of_a_stopped_run_and_of_nothing():
    result = BenchResult(rows_for({("a", "qa"): [0.5]}), {"planned_runs": 10}, stopped=True)
    assert "**Stopped** after 1 of 10 races" in summary_markdown(result)
    assert "No race finished" in summary_markdown(BenchResult([], stopped=True))


def test_plots_are_valid_svg_with_a_sweep_plot_only_for_sweeps():
    plain = BenchResult(rows_for({("a", "qa"): [0.5, 2.0], ("b", "rag"): [0.25]}))
    plots = all_plots(plain)
    assert set(plots) == {"heatmap.svg", "acceptance_by_position.svg", "speedup_vs_acceptance.svg"}
    for name, text in plots.items():
        root = ET.fromstring(text)
        assert root.find(f"{SVG}title") is not None, name
    heat = ET.fromstring(plots["heatmap.svg"])
    labels = [t.text for t in heat.iter(f"{SVG}text")]
    assert "1.25x" in labels and "4.00x" in labels  # qa median of 2x and 0.5x; rag 4x
    scatter = ET.fromstring(plots["speedup_vs_acceptance.svg"])
    assert len([c for c in scatter.iter(f"{SVG}circle")]) + len([r for r in scatter.iter(f"{SVG}rect")]) >= 3
    swept = rows_for({("a", "qa"): [0.5]}, ("prompt_lookup_num_tokens", 2)) + \
        rows_for({("a", "qa"): [0.4]}, ("prompt_lookup_num_tokens", 3))
    plots = all_plots(BenchResult(swept, {"sweep_knob": "prompt_lookup_num_tokens"}))
    assert "sweep.svg" in plots and ET.fromstring(plots["sweep.svg"]).find(f"{SVG}polyline") is not None


def test_heat_colours_and_ticks():
    assert heat_colour(1.0)[0] == "#ffffff"
    assert heat_colour(4.0)[0] == heat_colour(10.0)[0] == "#0072b2"  # saturates at 4x
    assert heat_colour(0.25)[0] == "#d55e00"
    assert axis_ticks(0, 1, 4) == [0, 0.25, 0.5, 0.75, 1.0]


def test_results_json_round_trip_and_bad_files(tmp_path):
    result = BenchResult(rows_for({("a", "qa"): [0.5]}), {"repeats": 1}, {"device": "cpu"})
    write_results(result, tmp_path, {"x.svg": "<svg/>"}, "# s\n")
    back = load_results(tmp_path / "results.json")
    assert back.rows == json.loads(json.dumps(result.rows)) and back.cells == result.cells
    (tmp_path / "bad.json").write_text('{"format": "arena-bench/1", "runs": [{"preset": "a"}]}', encoding="utf-8")
    with pytest.raises(ArenaError, match=r"bad.json: runs\[0\] lacks category, speedup, identical"):
        load_results(tmp_path / "bad.json")
    with pytest.raises(ArenaError, match="Cannot write the results into"):
        write_results(result, tmp_path / "results.json" / "sub", {}, "")
