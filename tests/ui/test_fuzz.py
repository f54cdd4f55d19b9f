"""Fuzz at scale (issue 12): 550 derandomised hostile and plausible inputs to the API and the command line.

Every input must end as a clean one-line error or a result: zero tracebacks, zero hangs (see tests/fuzzing.py
for what each count means). The API runs against the app launched in-process as a share link would be (hub
ids only, 16 new tokens at most) and races the offline prompt-lookup preset for real; the command line runs
in-process on the tiny models. ``python -m benchmarks.fuzz`` runs more inputs.
"""

from __future__ import annotations

import pytest

from tests import fuzzing

API_EXAMPLES = 250
CLI_EXAMPLES = 300


def report(counts: fuzzing.Counts, label: str) -> None:
    print("\n" + counts.line(label))
    for problem in counts.problems:
        print("  " + problem)


@pytest.mark.slow
def test_fuzz_the_api():
    counts = fuzzing.Counts()
    with fuzzing.offline_hub(), fuzzing.watching_logs() as logged, fuzzing.api_server() as client, \
            fuzzing.raw_json_client():
        fuzzing.fuzz_api(client, API_EXAMPLES, counts, logged)
    report(counts, "API fuzz")
    assert counts.tracebacks == 0 and counts.hangs == 0, counts.problems
    assert counts.tried >= API_EXAMPLES and counts.results >= API_EXAMPLES // 10, counts.line("API fuzz")
    assert counts.clean_errors >= API_EXAMPLES // 2, counts.line("API fuzz")  # most inputs are rejected


def test_fuzz_the_command_line(tiny, tmp_path):
    counts = fuzzing.Counts()
    with fuzzing.offline_hub(), fuzzing.watching_logs() as logged:
        fuzzing.fuzz_cli(tiny, fuzzing.prompt_files(tmp_path), CLI_EXAMPLES, counts, logged)
    report(counts, "CLI fuzz")
    assert counts.tracebacks == 0 and counts.hangs == 0, counts.problems
    assert counts.tried >= CLI_EXAMPLES and counts.results >= CLI_EXAMPLES // 20, counts.line("CLI fuzz")
    assert counts.clean_errors >= CLI_EXAMPLES // 2, counts.line("CLI fuzz")


def test_the_strategies_cover_every_parameter():
    """Every /race parameter and every knob flag is fuzzed (a new knob must join the strategies)."""
    from app.core.knobs import KNOB_TABLE
    from app.ui.race.api import parameters

    hostile = fuzzing._hostile_race()
    drawn = fuzzing.draw(hostile, 200)
    assert {p.name for p in parameters()} == set().union(*drawn)
    flags = {x for argv in fuzzing.draw(fuzzing.cli_argv({"llama_target": "t"}, ["f"])["hostile"], 300) for x in argv}
    assert {k.flag for k in KNOB_TABLE.values()} | {"--target", "--assistant", "--prompt", "--prompt-file"} <= flags
