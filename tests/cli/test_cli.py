"""The command line: JSON contract, presets listing, and one clean line for every bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


from tests.helpers import ROOT, assert_clean_error, run_main

CONTRACT_KEYS = {"preset", "method", "target", "assistant", "mode", "do_sample", "device", "baseline", "assisted",
                 "speedup", "identical", "first_divergence"}
SIDE_KEYS = {"text", "token_ids", "new_tokens", "seconds", "tokens_per_second", "ttft_seconds"}
ASSISTED_KEYS = SIDE_KEYS | {"tokens", "rounds", "acceptance_rate", "mean_accepted_length"}


def test_json_contract_on_tiny_models(capsys, tiny):
    code, out, err = run_main(capsys, "race", "--preset", "drafter", "--target", tiny["llama_target"],
                              "--assistant", tiny["llama_drafter"], "--prompt", "The cat likes",
                              "--max-new-tokens", "12", "--num-assistant-tokens", "3", "--json")
    assert code == 0, err
    result = json.loads(out)  # exactly one JSON object on stdout
    assert CONTRACT_KEYS <= set(result)
    assert SIDE_KEYS <= set(result["baseline"]) and ASSISTED_KEYS <= set(result["assisted"])
    assert result["identical"] is True and result["mode"] == "concurrent" and result["do_sample"] is False
    assert {t["status"] for t in result["assisted"]["tokens"]} <= {"accepted", "resampled", "bonus", "target"}
    assert isinstance(result["speedup"], float)


def test_human_mode_prints_both_texts_and_stats(capsys, tiny):
    code, out, _ = run_main(capsys, "race", "--preset", "prompt-lookup", "--target", tiny["llama_target"],
                            "--no-chat-template", "--prompt", "a b a b a b", "--max-new-tokens", "8", "--sequential")
    assert code == 0
    assert "plain" in out and "assisted" in out and "fair race on" in out and "speedup" in out


def test_presets_listing(capsys):
    code, out, _ = run_main(capsys, "presets")
    assert code == 0
    assert "offline-uad" in out and "offline" in out and "needs hub + GPU" in out
    code, out, _ = run_main(capsys, "presets", "--json")
    assert {row["id"] for row in json.loads(out)} >= {"drafter", "offline-prompt-lookup"}


BAD_INPUTS = [
    (["race", "--preset", "nope", "--prompt", "x"], ["Unknown preset"]),
    (["race", "--preset", "offline-prompt-lookup"], ["--prompt"]),
    (["race", "--preset", "offline-prompt-lookup", "--prompt", "   "], ["empty"]),
    (["race", "--preset", "offline-prompt-lookup", "--prompt", "a", "--prompt", "b"], ["batch size 1"]),
    (["race", "--preset", "offline-prompt-lookup", "--prompt-file", "/nonexistent/p.txt"], ["Cannot read"]),
    (["race", "--preset", "offline-prompt-lookup", "--prompt", "x", "--num-assistant-tokens", "abc"],
     ["--num-assistant-tokens", "whole number"]),
    (["race", "--preset", "offline-prompt-lookup", "--prompt", "x", "--max-new-tokens", "0"],
     ["--max-new-tokens", "between 1 and 4096"]),
    (["race", "--preset", "offline-prompt-lookup", "--prompt", "x", "--assistant-ensemble-weight", "0.5"],
     ["does not apply to the prompt-lookup", "ensemble"]),
    (["race", "--preset", "ensemble", "--prompt", "x", "--assistant-ensemble-weight", "1.5"], ["in (0, 1)"]),
    (["race", "--preset", "ensemble", "--prompt", "x", "--assistant-ensemble-weight", "0"], ["in (0, 1)"]),
    (["race", "--preset", "drafter", "--prompt", "x", "--target", "/nonexistent/model"], ["does not exist"]),
    (["race", "--preset", "drafter", "--prompt", "x", "--target", "bad id with spaces"], ["not a valid model id"]),
    (["race", "--preset", "glm-mtp", "--prompt", "x"], ["needs a CUDA GPU"]),
    (["bogus"], ["invalid choice"]),
]


@pytest.mark.parametrize("argv,needles", BAD_INPUTS, ids=[" ".join(a[:4]) for a, _ in BAD_INPUTS])
def test_bad_input_is_one_clean_line(capsys, argv, needles):
    code, out, err = run_main(capsys, *argv)
    assert out == ""
    assert_clean_error(code, err, *needles)


def test_invalid_method_combinations_on_tiny_models(capsys, tiny):
    cases = [
        (["--preset", "drafter", "--target", tiny["llama_target"], "--assistant", tiny["llama_other_tokenizer"]],
         ["different vocabulary", "uad"]),
        (["--preset", "uad", "--target", tiny["llama_target"], "--assistant", tiny["llama_drafter"]],
         ["same vocabulary size", "drafter"]),
        (["--preset", "glm-mtp", "--quantization", "none", "--no-chat-template", "--target", tiny["llama_target"]],
         ["no multi-token-prediction layers"]),
        (["--preset", "glm-mtp", "--quantization", "none", "--no-chat-template", "--target", tiny["glm_no_mtp"]],
         ["no multi-token-prediction layers"]),
        (["--preset", "layerskip", "--target", tiny["llama_target"], "--assistant-early-exit", "4"],
         ["must be below the target's layer count (4)"]),
        (["--preset", "gemma-drafter", "--no-chat-template", "--target", tiny["gemma4_target"],
          "--assistant", tiny["llama_drafter"]], ["not a Gemma 4 assistant"]),
        (["--preset", "prompt-lookup", "--target", tiny["llama_target"], "--assistant", tiny["llama_drafter"]],
         ["drafts without a separate model"]),
    ]
    for extra, needles in cases:
        code, out, err = run_main(capsys, "race", "--prompt", "The cat", "--max-new-tokens", "4", *extra)
        assert out == ""
        assert_clean_error(code, err, *needles)


def test_mtp_weights_missing_is_a_clean_error(capsys, tiny):
    code, out, err = run_main(capsys, "race", "--preset", "glm-mtp", "--quantization", "none", "--no-chat-template",
                              "--target", tiny["glm_no_mtp_weights"], "--prompt", "The cat", "--max-new-tokens", "4",
                              "--json")
    # a failed side makes the whole race an error (docs/DESIGN.md §4): exit 2, one line, no JSON on stdout
    assert code == 2 and out == ""
    assert_clean_error(code, err, "assisted failed:", "does not ship their weights")


def test_real_process_exit_code_and_single_line(tmp_path):
    """The same contract from a real process: non-zero exit, one stderr line, nothing on stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "app", "race", "--preset", "offline-prompt-lookup", "--prompt", "x",
                           "--assistant-ensemble-weight", "2"], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr
