"""``python -m app bench`` end to end on tiny models: every file written and readable, --compare, Ctrl-C keeping
the finished races, and one clean line for bad input."""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

import app.bench.runner as runner_module
import app.core.requests as core_requests
from app.bench.compare import compare_lines
from app.bench.results import BenchResult, load_results
from app.cli import main
from app.core.loader import ModelCache
from app.core.presets import get_preset
from tests.fakes import SUITE
from tests.helpers import make_preset

@pytest.fixture(scope="module")
def cli_run(tiny, tmp_path_factory):
    """One CLI run of two tiny presets over a three-prompt suite; yields (exit code, out dir, stdout, stderr)."""
    tmp = tmp_path_factory.mktemp("bench_cli")
    suite = tmp / "suite.jsonl"
    suite.write_text(SUITE, encoding="utf-8")
    presets = {"tiny-drafter": make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3)
               .with_overrides({"id": "tiny-drafter"}),
               "tiny-lookup": make_preset("prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=3)
               .with_overrides({"id": "tiny-lookup"})}
    cache = ModelCache()
    mp = pytest.MonkeyPatch()
    mp.setattr(core_requests, "get_preset", lambda i: presets[i] if i in presets else get_preset(i))
    real = runner_module.PresetRacer
    mp.setattr(runner_module, "PresetRacer", lambda limits, seed, progress: real(limits, seed, progress, cache=cache))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["bench", "--presets", "tiny-drafter,tiny-lookup", "--suite", str(suite), "--repeats", "2",
                     "--max-new-tokens", "10", "--out", str(tmp / "out")])
    mp.undo()
    return code, tmp / "out", out.getvalue(), err.getvalue()


def test_cli_writes_every_file(cli_run):
    code, out, stdout, stderr = cli_run
    assert code == 0, stderr
    names = {p.name for p in out.iterdir()}
    assert names == {"results.csv", "results.json", "summary.md", "heatmap.svg", "acceptance_by_position.svg",
                     "speedup_vs_acceptance.svg"}
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    env = data["environment"]
    for key in ("device", "device_name", "dtype", "torch", "transformers", "gradio", "python", "cpu", "cpu_cores",
                "torch_threads", "date"):
        assert env[key] not in (None, ""), key
    assert env["dtype"] == "float32" and data["stopped"] is False
    assert len(data["runs"]) == 2 * 3 * 2 and all(isinstance(r["acceptance_by_position"], list) for r in data["runs"])
    assert data["settings"]["command"].startswith("python -m app bench --presets tiny-drafter,tiny-lookup")
    assert {(c["preset"], c["category"]) for c in data["cells"]} == {(p, c) for p in ("tiny-drafter", "tiny-lookup")
                                                                      for c in ("copy", "open")}
    frame = pd.read_csv(out / "results.csv")
    assert len(frame) == len(data["runs"]) and list(frame["speedup"]) == [r["speedup"] for r in data["runs"]]
    assert json.loads(frame["acceptance_by_position"][0]) == data["runs"][0]["acceptance_by_position"]
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "| preset (method) | copy | open | overall (geomean) |" in summary and "tiny-lookup (prompt-lookup)" in summary
    assert summary in stdout and "wrote " in stdout
    for svg in out.glob("*.svg"):
        root = ET.fromstring(svg.read_text(encoding="utf-8"))
        assert root.tag.endswith("svg") and root.find("{http://www.w3.org/2000/svg}title") is not None
    assert "[########################] 12/12 done" in stderr


def test_compare_two_result_files(cli_run, tmp_path, capsys):
    _, out, _, _ = cli_run
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    for run in data["runs"]:  # every race a measurement: the comparison is under test, not this machine's load
        run["verdict"], run["verdict_reason"] = "level", ""
    before = tmp_path / "before.json"
    before.write_text(json.dumps(data), encoding="utf-8")
    for run in data["runs"]:
        if run["preset"] == "tiny-lookup" and run["category"] == "copy":
            run["speedup"] = run["speedup"] * 2
            run["identical"] = False
    data["environment"]["torch_threads"] = 99
    after = tmp_path / "after.json"
    after.write_text(json.dumps(data), encoding="utf-8")
    assert main(["bench", "--compare", str(before), str(after)]) == 0
    text = capsys.readouterr().out
    assert "environment torch_threads" in text and "-> 99" in text
    line = next(x for x in text.splitlines() if "tiny-lookup / copy" in x)
    assert "+100%" in line and "4/4 -> 0/4" in line and "outputs now differ" in line
    same = next(x for x in text.splitlines() if "tiny-drafter / open" in x)
    assert "+0%" in same


def test_compare_lines_marks_new_losses_and_missing_cells():
    def row(preset, category, speedup):
        return {"preset": preset, "method": "prompt-lookup", "category": category, "prompt_id": "p", "sweep_value": None,
                "speedup": speedup, "identical": True, "acceptance_rate": 0.5, "alpha": 0.5, "mean_accepted_length": 2,
                "baseline_tokens_per_second": 10, "assisted_tokens_per_second": 10 * speedup, "predicted_speedup": None,
                "drafted_by_position": [1], "accepted_by_position": [1], "accepted_histogram": [0, 1]}

    a = BenchResult([row("p", "qa", 1.2), row("p", "rag", 2.0)])
    b = BenchResult([row("p", "qa", 0.9), row("p", "maths", 1.5)])
    text = "\n".join(compare_lines(a, b, "a.json", "b.json"))
    assert "(now a loss)" in text and "(only before)" in text and "(only after)" in text


def test_ctrl_c_keeps_the_finished_races(tmp_path, monkeypatch, capsys):
    calls = []

    class Interrupting:
        dtypes: dict = {}

        def __init__(self, *args, **kwargs):
            pass

        def __call__(self, preset, prompt, stop):
            calls.append(prompt)
            if len(calls) == 2:
                raise KeyboardInterrupt
            from tests.fakes import ROUNDS, fake_result

            return fake_result(preset, 0.5, ROUNDS)

    monkeypatch.setattr(runner_module, "PresetRacer", Interrupting)
    suite = tmp_path / "s.jsonl"
    suite.write_text(SUITE, encoding="utf-8")
    code = main(["bench", "--presets", "offline-prompt-lookup", "--suite", str(suite), "--no-warm-up",
                 "--out", str(tmp_path / "o")])
    assert code == 130
    result = load_results(tmp_path / "o" / "results.json")
    assert result.stopped and len(result.rows) == 1
    assert "Stopped" in (tmp_path / "o" / "summary.md").read_text(encoding="utf-8")
    assert "stopped: kept 1 finished race(s) of 3" in capsys.readouterr().err


@pytest.mark.parametrize("argv, needle", [
    (["--suite", "{bad}"], "line 2: needs a non-empty 'prompt'"),
    (["--presets", "nope"], "Unknown preset 'nope'"),
    (["--presets", ","], "Choose at least one preset"),
    (["--limit", "0"], "argument --limit: must be between 1"),
    (["--max-new-tokens", "0"], "--max-new-tokens"),
    (["--sweep", "prompt_lookup_num_tokens=1..3", "--presets", "offline-early-exit"], "layerskip method, which does not"),
    (["--compare", "{bad}", "{bad}"], "bad.jsonl: not valid JSON"),
    (["--compare", "{suite}", "{suite}"], "not a benchmark results file"),
])
def test_bad_input_is_one_line_exit_2(argv, needle, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "ok", "format": "x"}\n{"promt": "typo"}\n', encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"runs": []}', encoding="utf-8")
    argv = [str(bad) if a == "{bad}" else str(other) if a == "{suite}" else a for a in argv]
    assert main(["bench", *argv, "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1
    assert not (tmp_path / "never").exists()
