"""The regret sweep: its variants and job order, the report from hand-made rows (ties, missing variants, a
stopped run), and where it shows (results.json, summary.md, the plot, the command line)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

import app.bench.runner as runner_module
from app.render.bench_plots import all_plots
from app.bench.regret import best_length, regret_report
from app.bench.results import BenchResult, load_results, write_results
from app.bench.runner import Bench, BenchPlan
from app.bench.summary import summary_markdown
from app.bench.sweep import DEFAULT_REGRET_LENGTHS, Regret, parse_regret, parse_sweep, regret_layout, regret_variants
from app.cli import main
from app.core.errors import ArenaError
from tests.helpers import make_preset
from tests.fakes import PROMPTS, ROUNDS, FakeClock, fake_result

LOOKUP = {"knob": "prompt_lookup_num_tokens", "shipped_length": 4, "lengths": [1, 2, 4], "default_schedule": "constant",
          "default_length": 4}


def row(prompt: str, value: int | None, speedup: float, category: str = "code", preset: str = "pl", repeat: int = 1):
    return {"preset": preset, "category": category, "prompt_id": prompt, "sweep_value": value, "speedup": speedup,
            "repeat": repeat}


def prompt_rows(prompt: str, shipped: float, by_length: dict, category: str = "code", repeat: int = 1) -> list[dict]:
    return [row(prompt, None, shipped, category, repeat=repeat)] + [row(prompt, k, v, category, repeat=repeat)
                                                                     for k, v in by_length.items()]


def test_per_prompt_medians_over_repeats_best_length_and_ratios():
    rows = (prompt_rows("a", 2.0, {1: 1.5, 2: 2.2, 4: 2.5}) + prompt_rows("a", 1.8, {1: 1.3, 2: 2.6, 4: 2.3}, repeat=2)
            + prompt_rows("a", 2.2, {1: 1.4, 2: 2.4, 4: 2.4}, repeat=3))
    [p] = regret_report(rows, {"pl": LOOKUP})["prompts"]
    assert p["shipped"] == 2.0 and p["by_length"] == {"1": 1.4, "2": 2.4, "4": 2.4}
    assert (p["best_length"], p["best"]) == (2, 2.4)  # a tie goes to the shorter length
    assert p["share_of_best"] == pytest.approx(2.0 / 2.4, abs=1e-4) and p["default"] == 2.4
    assert p["vs_default"] == pytest.approx(2.0 / 2.4, abs=1e-4) and p["complete"]


def test_categories_take_the_length_with_the_best_median_not_each_prompts_best():
    rows = (prompt_rows("a", 3.0, {1: 1.0, 2: 2.0, 4: 3.2}) + prompt_rows("b", 1.0, {1: 1.1, 2: 1.2, 4: 0.8})
            + prompt_rows("c", 2.0, {1: 1.0, 2: 2.1, 4: 2.0}) + prompt_rows("q", 1.0, {1: 0.9, 2: 0.8, 4: 0.7}, "qa"))
    report = regret_report(rows, {"pl": LOOKUP})
    code = next(c for c in report["categories"] if c["category"] == "code")
    assert code["by_length"] == {"1": 1.0, "2": 2.0, "4": 2.0} and (code["best_length"], code["best"]) == (2, 2.0)
    assert code["shipped"] == 2.0 and code["share_of_best"] == 1.0 and code["vs_default"] == 1.0
    shares = sorted(p["share_of_best"] for p in report["prompts"] if p["category"] == "code")
    assert code["share_median"] == shares[1] and code["share_min"] == shares[0] and code["prompts"] == 3
    qa = next(c for c in report["categories"] if c["category"] == "qa")
    assert (qa["best_length"], qa["share_of_best"], qa["vs_default"]) == (1, pytest.approx(1 / 0.9, abs=1e-4),
                                                                          pytest.approx(1 / 0.7, abs=1e-4))


def test_missing_variants_and_a_stopped_run_leave_partial_prompts_out_of_the_categories():
    rows = prompt_rows("a", 2.0, {1: 1.0, 2: 1.5, 4: 2.5}) + [row("b", None, 1.0), row("b", 1, 1.2)]  # stopped in b
    report = regret_report(rows, {"pl": LOOKUP})
    b = next(p for p in report["prompts"] if p["prompt_id"] == "b")
    assert not b["complete"] and (b["best_length"], b["default"], b["vs_default"]) == (1, None, None)
    [code] = report["categories"]
    assert (code["prompts"], code["incomplete"], code["best_length"], code["shipped"]) == (1, 1, 4, 2.0)
    only_constants = regret_report([row("c", 2, 1.5)], {"pl": LOOKUP})
    assert only_constants["prompts"][0]["share_of_best"] is None
    assert only_constants["categories"][0]["prompts"] == 0 and only_constants["categories"][0]["best"] is None
    assert regret_report([row("z", None, 1.0, preset="other")], {"pl": LOOKUP}) == {"categories": [], "prompts": []}
    assert best_length({}) == (None, None)


def test_regret_variants_cost_aware_then_constant_lengths_with_the_default():
    preset = make_preset("prompt-lookup", "tiny-target", prompt_lookup_num_tokens=6,
                         num_assistant_tokens_schedule="cost-aware")
    layout = regret_layout(preset, Regret())
    assert layout["lengths"] == [v for v in DEFAULT_REGRET_LENGTHS if v <= 6] and layout["default_length"] == 6
    vs = regret_variants(preset, parse_regret("2,8"))
    assert [v for v, _ in vs] == [None, 2, 6, 8]
    assert vs[0][1].num_assistant_tokens_schedule == "cost-aware" and vs[0][1].prompt_lookup_num_tokens == 6
    assert {(p.num_assistant_tokens_schedule, p.prompt_lookup_num_tokens) for _, p in vs[1:]} == {
        ("constant", 2), ("constant", 6), ("constant", 8)}
    drafter = make_preset("drafter", "tiny-target", assistant="tiny-drafter", num_assistant_tokens_schedule="heuristic")
    assert regret_layout(drafter, Regret())["default_length"] == 20  # no length set: transformers' 20
    assert regret_variants(drafter, parse_regret("3"))[1][1].num_assistant_tokens == 3


@pytest.mark.parametrize("method, fields, needle", [
    ("glm-mtp", {}, "no draft-length knob"),
    ("gemma-drafter", {"assistant": "tiny-drafter"}, "no draft-length schedule"),
])
def test_regret_rejects_methods_without_a_length_or_a_schedule(method, fields, needle):
    with pytest.raises(ArenaError, match=needle):
        regret_variants(make_preset(method, "tiny-target", **fields), Regret())


@pytest.mark.parametrize("text, values", [("1..3,6", (1, 2, 3, 6)), ("4, 2,2", (2, 4)), ("", None), (None, None)])
def test_parse_regret(text, values):
    assert parse_regret(text).lengths == values


@pytest.mark.parametrize("text, needle", [("a,b", "draft lengths like"), ("5..2", "must go up"), ("1..40", "at most")])
def test_bad_regret_lengths_are_one_line(text, needle):
    with pytest.raises(ArenaError, match=needle):
        parse_regret(text)


def test_sweep_takes_comma_lists():
    sweep = parse_sweep("prompt-lookup-num-tokens=2,4..5,8")
    assert sweep.values == (2, 4, 5, 8) and sweep.text == "prompt_lookup_num_tokens=2,4,5,8"
    assert parse_sweep("prompt_lookup_num_tokens=1..3").text == "prompt_lookup_num_tokens=1..3"


def test_regret_jobs_interleave_variants_per_prompt_and_count_in_the_work():
    preset = make_preset("prompt-lookup", "tiny-target", prompt_lookup_num_tokens=3, max_new_tokens=8,
                         num_assistant_tokens_schedule="cost-aware")
    plain = Bench(BenchPlan([preset], PROMPTS[:2], repeats=2, warm_up=False), lambda *a: None, FakeClock())
    bench = Bench(BenchPlan([preset], PROMPTS[:2], repeats=2, regret=parse_regret("1,2"), warm_up=False),
                  lambda *a: None, FakeClock())
    order = [(j.repeat, j.prompt.id, j.sweep_value, j.sweep_knob) for j in bench.jobs]
    assert order[:4] == [(1, "s1", None, None), (1, "s1", 1, "prompt_lookup_num_tokens"),
                         (1, "s1", 2, "prompt_lookup_num_tokens"), (1, "s1", 3, "prompt_lookup_num_tokens")]
    assert [o[:2] for o in order[4:8]] == [(1, "s2")] * 4 and len(order) == 16
    assert bench.work_tokens == 4 * plain.work_tokens


def test_regret_and_sweep_together_fail_before_any_race():
    preset = make_preset("prompt-lookup", "tiny-target", prompt_lookup_num_tokens=3)
    plan = BenchPlan([preset], PROMPTS, sweep=parse_sweep("prompt_lookup_num_tokens=1..2"), regret=Regret())
    with pytest.raises(ArenaError, match="leave out --sweep"):
        Bench(plan, lambda *a: pytest.fail("no race may start"), FakeClock())


def test_a_regret_run_on_fakes_reports_rows_with_the_knob_only_on_constant_lengths():
    preset = make_preset("prompt-lookup", "tiny-target", prompt_lookup_num_tokens=3, num_assistant_tokens_schedule="cost-aware")
    seconds = {"cost-aware": 0.5, 1: 0.8, 2: 0.6, 3: 0.4}

    def race_fn(p, prompt, stop):
        key = p.num_assistant_tokens_schedule if p.num_assistant_tokens_schedule == "cost-aware" else \
            p.prompt_lookup_num_tokens
        return fake_result(p, seconds[key], ROUNDS)

    bench = Bench(BenchPlan([preset], PROMPTS[:1], regret=parse_regret("1,2"), warm_up=False), race_fn, FakeClock())
    rows = bench.run()
    assert [(r["sweep_knob"], r["sweep_value"]) for r in rows] == [
        (None, None), ("prompt_lookup_num_tokens", 1), ("prompt_lookup_num_tokens", 2), ("prompt_lookup_num_tokens", 3)]
    [p] = regret_report(rows, {preset.id: regret_layout(preset, bench.plan.regret)})["prompts"]
    assert (p["best_length"], p["shipped"], p["share_of_best"]) == (3, 2.0, pytest.approx(0.8))


# ----- where the report shows -------------------------------------------------------------------------
def regret_result(stopped: bool = False):
    rows = (prompt_rows("a", 2.0, {1: 1.0, 2: 1.5, 4: 2.5}) + prompt_rows("b", 1.0, {1: 1.2, 2: 1.1, 4: 0.9}, "qa")
            + [row("c", None, 1.0, "qa")])
    for r in rows:
        r.update(method="prompt-lookup", sweep_knob="prompt_lookup_num_tokens" if r["sweep_value"] else None,
                 identical=True, acceptance_rate=0.5, alpha=0.5, mean_accepted_length=2.0, predicted_speedup=None,
                 baseline_tokens_per_second=10.0, assisted_tokens_per_second=10.0 * r["speedup"],
                 drafted_by_position=[2, 1], accepted_by_position=[1, 1], accepted_histogram=[0, 1])
    settings = {"sweep_knob": "prompt_lookup_num_tokens", "sweep_values": [1, 2, 4], "planned_runs": 12,
                "regret": {"lengths": [1, 2], "presets": {"pl": LOOKUP}}}
    return BenchResult(rows, settings, {"device": "cpu"}, stopped)


def test_summary_has_the_regret_tables_and_labels_the_cost_aware_rows():
    text = summary_markdown(regret_result(stopped=True))
    regret = text.split("## Regret")[1]
    assert "| pl | code | 1 | 2.00x | 2.50x at 4 | 80% | 2.50x at 4 | 0.80 | 80% (80%) |" in regret
    assert "| pl | qa | 1 (+1 partial) | 1.00x | 1.20x at 1 | 83% | 0.90x at 4 | 1.11 | 83% (83%) |" in regret
    assert "| pl | qa | c (partial) | 1.00x | n/a | n/a | n/a | n/a |" in regret
    assert "| pl (prompt-lookup), cost-aware |" in text and "prompt\\_lookup\\_num\\_tokens=4" in text


def test_plots_results_json_and_a_plain_run_without_regret(tmp_path):
    result = regret_result()
    plots = all_plots(result)
    assert {"regret.svg", "sweep.svg"} <= set(plots)
    root = ET.fromstring(plots["regret.svg"])
    assert len(root.findall("{http://www.w3.org/2000/svg}rect")) >= 1 + 3 + 6  # background, legend, bars
    assert "2.50" in plots["regret.svg"] and "share 80%" in plots["regret.svg"]
    write_results(result, tmp_path, plots, "x")
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["regret"] == result.regret and data["regret"]["categories"][0]["best_length"] == 4
    assert load_results(tmp_path / "results.json").regret == result.regret
    data["settings"]["regret"]["presets"]["pl"] = {"lengths": "1,2"}
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ArenaError, match="settings.regret must give each preset"):
        load_results(tmp_path / "bad.json")
    plain = BenchResult([r for r in result.rows if r["sweep_value"] is None])
    assert "regret" not in plain.to_dict() and "regret.svg" not in all_plots(plain)


def test_cli_regret_run_prints_the_category_table_at_the_end(tmp_path, monkeypatch, capsys):
    class Fake:
        dtypes: dict = {}

        def __init__(self, *args, **kwargs):
            pass

        def __call__(self, preset, prompt, stop):
            schedule, length = preset.num_assistant_tokens_schedule, preset.prompt_lookup_num_tokens
            return fake_result(preset, 0.5 if schedule == "cost-aware" else 1.0 / length, ROUNDS)

    monkeypatch.setattr(runner_module, "PresetRacer", Fake)
    suite = tmp_path / "s.jsonl"
    suite.write_text('{"prompt": "copy this", "category": "copy", "id": "c1"}\n', encoding="utf-8")
    code = main(["bench", "--presets", "offline-prompt-lookup", "--suite", str(suite), "--no-warm-up", "--regret",
                 "2,4", "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 0 and (tmp_path / "o" / "regret.svg").exists()
    tail = out.split("Regret per category")[1]
    assert "| offline-prompt-lookup | copy | 1 | 2.00x | 10.00x at 10 | 20% | 10.00x at 10 | 0.20 |" in tail
    data = json.loads((tmp_path / "o" / "results.json").read_text(encoding="utf-8"))
    assert data["settings"]["command"].endswith("--regret 2,4") and data["settings"]["planned_runs"] == 4


@pytest.mark.parametrize("argv, needle", [
    (["--regret", "x"], "--regret takes draft lengths"),
    (["--regret", "--sweep", "prompt_lookup_num_tokens=1..2"], "leave out --sweep"),
    (["--regret", "--presets", "glm-mtp"], "no draft-length knob"),
])
def test_bad_regret_requests_are_one_line_exit_2(argv, needle, tmp_path, capsys):
    argv = argv if "--presets" in argv else [*argv, "--presets", "offline-prompt-lookup"]
    assert main(["bench", *argv, "--limit", "1", "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1
