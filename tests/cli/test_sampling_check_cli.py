"""``python -m app sampling-check``: the JSON object (docs/DESIGN.md §4.2), the table, one clean line per bad input."""

from __future__ import annotations

import json

import pytest

from tests import tiny_vocab
from tests.helpers import assert_clean_error, run_main

KEYS = {"preset", "method", "declared_lossless", "samples", "tokens", "temperature", "top_p", "top_k", "seed",
        "tv_distance", "p_value", "min_detectable_tv", "min_detectable_tv_by_position", "joint", "positions", "alpha",
        "verdict", "verdict_text", "warning", "assisted_rounds", "assisted_drafted", "assisted_accepted",
        "acceptance_rate", "seconds"}


def drafter_args(small, *extra: str) -> list[str]:
    return ["sampling-check", "--preset", "drafter", "--target", small["target"], "--assistant", small["drafter"],
            "--prompt", tiny_vocab.PROMPT, "--num-assistant-tokens", "3", *extra]


def test_json_object(capsys, small, one_torch_thread):
    code, out, err = run_main(capsys, *drafter_args(small, "--samples", "60", "--tokens", "2", "--seed", "9",
                                                    "--temperature", "0.8", "--top-k", "6", "--json"))
    assert code == 0, err
    result = json.loads(out)  # exactly one JSON object on stdout
    assert KEYS <= set(result)
    assert (result["samples"], result["tokens"], result["seed"], result["top_k"]) == (60, 2, 9, 6)
    assert result["temperature"] == 0.8 and result["top_p"] == 1.0
    assert len(result["tv_distance"]) == len(result["p_value"]) == 2 and result["joint"]["label"] == "tokens 1-2"
    assert result["verdict"] in ("same", "different") and result["method"] == "drafter"
    assert all(0.0 <= p <= 1.0 for p in result["p_value"]) and result["min_detectable_tv"] > 0


def test_table_and_verdict(capsys, small, one_torch_thread):
    code, out, _ = run_main(capsys, *drafter_args(small, "--samples", "40", "--tokens", "1", "--seed", "2"))
    assert code == 0
    assert "token 1" in out and "p-value" in out and "detectable TV" in out
    assert "verdict: no difference found at 40 samples" in out


@pytest.mark.parametrize("argv,needle", [
    (["--preset", "drafter", "--samples", "5", "--tokens", "3"], "--samples: must be between 20 and 20000; got 5"),
    (["--preset", "drafter", "--samples", "50", "--tokens", "99"], "--tokens: must be between 1 and 32"),
    (["--preset", "drafter", "--samples", "50", "--tokens", "2", "--top-k", "-1"], "--top-k"),
    (["--preset", "drafter", "--samples", "50", "--tokens", "2", "--temperature", "0"], "--temperature"),
    (["--preset", "drafter", "--samples", "50"], "--tokens"),
    (["--preset", "drafter", "--samples", "50", "--tokens", "2", "--threads", "0"], "--threads must be at least 1"),
    (["--preset", "nope", "--samples", "50", "--tokens", "2"], "Unknown preset 'nope'"),
    (["--preset", "drafter", "--samples", "50", "--tokens", "2", "--prompt-lookup-num-tokens", "3"],
     "does not apply to the drafter method"),
    (["--preset", "offline-prompt-lookup", "--samples", "50", "--tokens", "2", "--prompt", "a", "--prompt", "b"],
     "one prompt at a time"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, out, err = run_main(capsys, "sampling-check", *argv)
    assert code == 2 and out == ""
    assert_clean_error(code, err, needle)
