"""Statuses and rounds from an engine's own figures (app/engine/rounds.py), the CLI's engine race on a fake server,
and the serve command's argv (docs/DESIGN.md §4.7)."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.core.presets import get_preset
from app.deploy.build import deploy
from app.engine import rounds, server
from tests.engine_fake import IDS, PREDICTED_MS


def _statuses(counters, n=None):
    steps = rounds.steps_from_counters(counters)
    tokens, _ = rounds.build(list(range(n or len(counters))), [""] * (n or len(counters)), steps)
    return [t.status for t in tokens]


def test_a_step_starts_where_the_counters_change():
    assert _statuses([(0, 0), (4, 0), (4, 0), (6, 2), (6, 2), (6, 2)]) == [
        "target", "resampled", "target", "accepted", "accepted", "bonus"]


def test_a_step_cut_by_the_end_keeps_its_drafts_only():
    assert _statuses([(0, 0), (3, 3), (3, 3)]) == ["target", "accepted", "accepted"]


@pytest.mark.parametrize("bad", [[(0, 0), None], [(3, 1), (2, 1)], [(1, 2)]])
def test_missing_or_backwards_counters_give_no_steps(bad):
    assert rounds.steps_from_counters(bad) is None


def test_counters_that_do_not_add_up_fall_back_to_the_totals():
    steps, source = rounds.choose([(0, 0), (2, 1)], drafted=5, accepted=3)
    assert source == rounds.TOTALS and sum(s.accepted for s in steps) == 3


def test_in_order_steps_start_after_the_prefill_token():
    steps = rounds.steps_in_order([3, 3], [1, 3])
    assert [s.start for s in steps] == [1, 3]


def test_the_cli_prints_one_json_object(engine_pair, capsys):
    assert main(["race", "--endpoint", engine_pair[0].url, "--plain-endpoint", engine_pair[1].url, "--prompt", "hi",
                 "--max-new-tokens", str(len(IDS)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["engine"]["reported"]["assisted"]["draft_n_accepted"] == 4 and out["identical"]


def test_the_cli_says_a_fault_in_one_line(engine_pair, capsys):
    engine_pair[0].mode = "http500"
    assert main(["race", "--endpoint", engine_pair[0].url, "--plain-endpoint", engine_pair[1].url, "--prompt", "hi",
                 "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "HTTP 500" in captured.err


@pytest.mark.parametrize("argv, words", [(["--preset", "offline-prompt-lookup"], "--preset cannot be used"),
                                         (["--sample"], "--sample cannot be used")])
def test_preset_flags_are_refused_with_an_endpoint(argv, words, capsys):
    assert main(["race", "--endpoint", "http://127.0.0.1:9", "--prompt", "x", *argv]) == 2
    assert words in capsys.readouterr().err


def test_serve_uses_the_deploy_command_with_the_packaged_file():
    preset = get_preset("offline-prompt-lookup")
    argv = server.local_argv(deploy(preset, "llama.cpp").argv, preset.target)
    assert argv[argv.index("--spec-type") + 1] == "ngram-simple"
    assert argv[argv.index("-m") + 1].endswith("SmolLM2-135M-Instruct.Q4_1.gguf")


def test_an_engine_race_saves_a_trace_that_replays(engine_pair, tmp_path, capsys):
    from app.replay.tracefile import load_trace

    trace, page = tmp_path / "engine.json", tmp_path / "engine.html"
    assert main(["race", "--endpoint", engine_pair[0].url, "--plain-endpoint", engine_pair[1].url, "--prompt", "hi",
                 "--max-new-tokens", str(len(IDS)), "--save-trace", str(trace), "--json"]) == 0
    loaded = load_trace(trace)
    assert loaded.settings["engine"] == "llama.cpp" and loaded.data["result"]["engine"]["name"] == "llama.cpp"
    assert [t.status for t in loaded.result.assisted.tokens][:4] == ["target", "accepted", "accepted", "resampled"]
    assert main(["replay", str(trace), "--html", str(page)]) == 0
    assert "llama.cpp" in page.read_text(encoding="utf-8")


def test_bench_races_an_endpoint_into_the_same_files(engine_pair, tmp_path, capsys):
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"prompt": "a", "category": "qa"}\n{"prompt": "b", "category": "code-editing"}\n',
                     encoding="utf-8")
    out = tmp_path / "out"
    assert main(["bench", "--endpoint", engine_pair[0].url, "--plain-endpoint", engine_pair[1].url, "--suite", str(suite),
                 "--max-new-tokens", str(len(IDS)), "--out", str(out), "--no-warm-up"]) == 0
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    rows = data["runs"]
    assert data["settings"]["methods"] == ["llama.cpp ngram-simple"]  # not the lending preset's prompt-lookup
    assert data["settings"]["knobs"] == {"endpoint": {"max_new_tokens": len(IDS)}}
    reported = data["settings"]["engine"]["reported"]
    assert data["settings"]["engine"]["name"] == "llama.cpp" and len(reported) == len(rows)
    assert all(r["assisted"]["predicted_per_second"] == 1e3 * len(IDS) / PREDICTED_MS[True] and r["baseline"]["draft_n"] == 0
               for r in reported)
    assert [r["preset"] for r in rows] == ["endpoint", "endpoint"]
    assert all(r["method"] == "llama.cpp ngram-simple" and r["identical"] for r in rows)
    assert all(sum(r["accepted_by_position"]) == 4 for r in rows)
    assert (out / "results.csv").exists() and "endpoint" in capsys.readouterr().out
