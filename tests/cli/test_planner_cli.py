"""`plan` on the command line: the calculator, JSON/CSV export, measured runs on tiny models, clean errors.

Runs through app.cli.main, as `python -m app plan` does.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from app.cli import main as app_main

from tests.helpers import ROOT


ENTRY_POINTS = [pytest.param(lambda argv: app_main(["plan", *argv]), id="app_cli")]


@pytest.fixture(params=ENTRY_POINTS)
def run(request, capsys):
    def call(*argv: str) -> tuple[int, str, str]:
        code = request.param(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return call


def assert_clean_error(code: int, err: str, *needles: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code != 0 and len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_calculator_json(run):
    code, out, err = run("--alpha", "0.8", "--c", "0.05", "--json")
    assert code == 0, err
    plan = json.loads(out)  # exactly one JSON object
    assert (plan["alpha"], plan["c"], plan["best_gamma"], round(plan["predicted_speedup"], 2)) == (0.8, 0.05, 8, 3.09)
    assert [int(g) for g in plan["speedup_by_gamma"]] == list(range(1, 21))
    assert plan["mode"] == "calculator" and plan["verdict"]["alpha_exceeds_c"]


def test_free_drafting_is_a_cost_ratio_of_zero_as_on_the_page(run):
    code, out, err = run("--alpha", "0.5", "--c", "0", "--json")
    assert code == 0, err
    assert json.loads(out)["c"] == 0


def test_calculator_human_and_csv(run, tmp_path):
    path = tmp_path / "plan.csv"
    code, out, err = run("--alpha", "0.7", "--c", "0.2", "--csv", str(path), "--gpu-price", "L4=0.8",
                         "--speedup", "1.3", "--preset", "drafter")
    assert code == 0, err
    assert "best gamma 3 -> 1.58x" in out and "0.97x at gamma 12" in out and "L4 $" in out
    assert "192 KiB/token" in out  # memory of the drafter preset from the built-in reference configs
    rows = dict(list(csv.reader(io.StringIO(path.read_text())))[1:])
    assert rows["best_gamma"] == "3" and all(f"speedup_by_gamma.{g}" in rows for g in range(1, 21))
    assert rows["cost.rows.1.label"] == "given" and rows["cost.gpus.0.gpu"] == "L4"


def test_calculator_with_models_reads_only_configs(run, tiny):
    code, out, err = run("--alpha", "0.6", "--c", "0.1", "--target", tiny["llama_target"], "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["memory"]["drafter"] is None and plan["memory"]["target"]["layers"] == 4
    code, out, err = run("--alpha", "0.6", "--c", "0.1", "--preset", "uad", "--json")  # gemma-2-9b: no config here
    assert code == 0, err
    assert "Cannot read the config" in json.loads(out)["memory"]["error"]


@pytest.mark.parametrize("argv,needle", [
    (["--alpha", "1.5", "--c", "0.1"], "--alpha must be between 0 and 1"),
    (["--alpha", "-0.1", "--c", "0.1"], "--alpha must be between 0 and 1"),
    (["--alpha", "0.5", "--c", "-2"], "--c must be between 0 and 1000"),
    (["--alpha", "0.5", "--c", "0.1", "--hours-per-month", "800"], "--hours-per-month must be in (0, 744]"),
    (["--alpha", "0.5", "--c", "nan"], "--c must be"),
    (["--alpha", "0.5"], "Give both --alpha and --c"),
    ([], "Say what to plan"),
    (["--alpha", "abc", "--c", "0.1"], "invalid float value"),
    (["--preset", "no-such-preset"], "Unknown preset 'no-such-preset'"),
    (["--preset", "offline-uad", "--prompts", "/no/such/file.txt", "--no-check"], "Cannot read prompts file"),
    (["--alpha", "0.5", "--c", "0.1", "--gpu-price", "A10"], "NAME=DOLLARS_PER_HOUR"),
    (["--alpha", "0.5", "--c", "0.1", "--gpu-memory", "0"], "--gpu-memory"),
    (["--target", "/tmp"], "--target alone needs --assistant"),
    (["--preset", "glm-mtp", "--prompt", "hi"], "calculator"),
])
def test_bad_inputs_give_one_clean_line(run, argv, needle):
    code, out, err = run(*argv)
    assert_clean_error(code, err, needle)
    assert out == ""


def test_standalone_module_has_no_traceback():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "app", "plan", "--alpha", "2", "--c", "0.1"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().startswith("error: --alpha must be between 0 and 1") and "Traceback" not in proc.stderr


def test_measured_plan_on_tiny_models(run, tiny, tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("The cat likes the dog\n---\nthe old man reads\nan old book\n", encoding="utf-8")
    code, out, err = run("--target", tiny["llama_target"], "--assistant", tiny["llama_drafter"], "--prompts",
                         str(prompts), "--max-new-tokens", "8", "--repeats", "2", "--steps", "2", "--threads", "1",
                         "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["method"] == "drafter" and plan["measurement"]["prompts"] == 2
    assert plan["vocabulary"]["identical"] and plan["check"]["constant"]["identical"]
    assert {"alpha", "c", "best_gamma", "predicted_speedup", "speedup_by_gamma"} <= set(plan)


def test_uad_is_inferred_when_vocabularies_differ(run, tiny):
    code, out, err = run("--target", tiny["llama_target"], "--assistant", tiny["llama_other_tokenizer"], "--prompt",
                         "The cat likes the dog", "--max-new-tokens", "6", "--repeats", "1", "--steps", "2",
                         "--no-check", "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["method"] == "uad" and plan["check"] is None and plan["vocabulary"]["identical"] is False
    # no race to observe alpha in with --no-check
    assert plan["alpha_source"] == "greedy agreement (the drafter-choice article's method)"


def test_the_plan_builder_guesses_the_method_and_takes_the_lookup_length_from_its_preset(tiny):
    """One builder (app/planner/request.py) for the page and the command line: models without a preset are the
    command line's; their method is drafter when the vocabularies match (uad when not), and prompt lookup without a
    length takes its own preset's."""
    from app.core.errors import ArenaError
    from app.core.knobs import FLAG, REQUEST
    from app.core.presets import get_preset
    from app.core.requests import Limits
    from app.planner.request import plan_preset

    lookup = plan_preset(None, {"target": tiny["llama_target"], "method": "prompt-lookup"}, Limits.operator(), FLAG)
    assert lookup.prompt_lookup_num_tokens == get_preset("prompt-lookup").prompt_lookup_num_tokens
    pair = {"target": tiny["llama_target"], "assistant": tiny["llama_drafter"]}
    assert plan_preset(None, pair, Limits.operator(), FLAG).method == "drafter"
    with pytest.raises(ArenaError, match="must name a preset"):
        plan_preset(None, pair, Limits(allow_local=True), REQUEST)


def test_the_page_and_the_command_line_refuse_alike(run, built, monkeypatch):
    """A drafter for a method that drafts without one is the same one line on the page and on the command line."""
    import gradio as gr

    from app.ui.planner.handlers import PlanState

    monkeypatch.setattr(gr, "Warning", lambda msg: None)
    code, out, err = run("--preset", "offline-prompt-lookup", "--assistant", "HuggingFaceTB/SmolLM2-135M", "--no-check")
    assert_clean_error(code, err, "drafts without a separate model")
    frames = list(built.planner.handlers.plan_measure(PlanState(), "offline-prompt-lookup", "",
                                                      "HuggingFaceTB/SmolLM2-135M", "", 8, 24, 4096, "bfloat16", "", 720))
    assert len(frames) == 1 and "drafts without a separate model" in list(frames[0].values())[0]
