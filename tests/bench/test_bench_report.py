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
from app.core.words import catalog, join, msg, speaking, translate
from app.render.bench_tab import left_out_html
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


STOPPED = "the race was stopped before both sides finished, so it has no verdict"
NOISE = "within this race's noise (\u00b1{band}, from the spread of plain's steps)"


def test_a_saved_file_s_verdict_reasons_read_whole_in_korean(tmp_path):
    """A results.json keeps each reason's message beside its English text, so the Benchmark tab in Korean shows a
    file's left-out races' reasons translated whole (they were English before: the file has no figures to rebuild
    them from); a message that does not match its English text, or names a template of no catalog, is not used."""
    rows = rows_for({("a", "qa"): [0.5, 0.9, 0.8]})
    reasons = [msg(STOPPED), join([msg(NOISE, band="0.05"), msg(STOPPED)], "; ")]
    for row, reason in zip(rows, reasons):
        row["verdict"], row["verdict_reason"] = "unmeasured", reason
    write_results(BenchResult(rows, {"repeats": 1}, {"device": "cpu"}), tmp_path, {}, "# s\n")
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["runs"][0]["verdict_message"] == {"template": STOPPED, "values": {}}
    assert data["runs"][1]["verdict_reason"] == str.__str__(reasons[1])  # the English sentence stays the contract
    assert "verdict_message" not in data["runs"][2] and "verdict_message" not in (tmp_path / "results.csv").read_text()
    back = load_results(tmp_path / "results.json")
    ko = catalog("ko")
    with speaking("ko"):
        html = left_out_html(back)
        assert translate(back.rows[0]["verdict_reason"]) == ko[STOPPED]
        assert translate(back.rows[1]["verdict_reason"]) == f"{ko[NOISE].format(band='0.05')}; {ko[STOPPED]}"
    assert ko[STOPPED] in html and STOPPED not in html

    forged = json.loads(json.dumps(data))
    forged["runs"][0]["verdict_message"] = {"template": "{part0.__class__}", "values": {"part0": "x"}}
    forged["runs"][1]["verdict_message"]["values"]["part0"]["values"]["band"] = "0.99"  # no longer its English text
    (tmp_path / "forged.json").write_text(json.dumps(forged), encoding="utf-8")
    back = load_results(tmp_path / "forged.json")
    assert [type(r["verdict_reason"]) for r in back.rows[:2]] == [str, str]
    assert [r["verdict_reason"] for r in back.rows[:2]] == [data["runs"][0]["verdict_reason"],
                                                            data["runs"][1]["verdict_reason"]]
