"""Preset files: every shipped preset is valid; bad files name the file and the field."""

from __future__ import annotations

import pytest

from app.core.errors import ArenaError
from app.race.methods import METHODS
from app.core.presets import METHOD_IDS, get_preset, load_preset_file, load_presets, parse_preset

MINIMAL = "id: x\nmethod: drafter\ntitle: t\ndescription: d\ntarget: a/b\nassistant: a/c\n"


def test_shipped_presets_cover_every_method_and_the_offline_three():
    presets = load_presets()
    assert {p.method for p in presets.values()} == set(METHOD_IDS) == set(METHODS)
    for pid in ("drafter", "prompt-lookup", "layerskip", "glm-mtp", "gemma-drafter", "uad", "ensemble"):
        assert presets[pid].method == pid and not presets[pid].runs_offline
    for pid in ("offline-prompt-lookup", "offline-early-exit", "offline-uad"):
        assert presets[pid].runs_offline and presets[pid].where == "offline"
        assert presets[pid].example_prompts
    assert presets["glm-mtp"].where == "needs hub + GPU"


def test_every_shipped_preset_passes_its_method_checks():
    for preset in load_presets().values():
        METHODS[preset.method].check_preset(preset)


def test_early_exit_preset_says_why():
    notes = get_preset("offline-early-exit").notes
    assert "benchmarks/choose_exit_layer.py" in notes and "28" in notes


@pytest.mark.parametrize("extra,field", [
    ("colour: red\n", "colour"),
    ("num_assistant_tokens: 0\n", "num_assistant_tokens"),
    ("num_assistant_tokens: many\n", "num_assistant_tokens"),
    ("assistant_ensemble_weight: 1.5\n", "assistant_ensemble_weight"),
    ("dtype: float8\n", "dtype"),
    ("quantization: 3bit\n", "quantization"),
    ("num_assistant_tokens_schedule: sometimes\n", "num_assistant_tokens_schedule"),
    ("temperature: -1\n", "temperature"),
    ("chat_template: maybe\n", "chat_template"),
    ("example_prompts: [1, 2]\n", "example_prompts"),
])
def test_bad_field_names_file_and_field(extra, field):
    with pytest.raises(ArenaError) as err:
        parse_preset(MINIMAL + extra, "broken.yaml")
    assert "broken.yaml" in str(err.value) and field in str(err.value)


def test_missing_required_field_and_bad_yaml():
    with pytest.raises(ArenaError, match="broken.yaml: field 'target' is required"):
        parse_preset("id: x\nmethod: drafter\ntitle: t\ndescription: d\n", "broken.yaml")
    with pytest.raises(ArenaError, match="not valid YAML"):
        parse_preset("id: [x\n", "broken.yaml")
    with pytest.raises(ArenaError, match="mapping"):
        parse_preset("- a\n- b\n", "broken.yaml")


def test_file_name_must_match_id(tmp_path):
    path = tmp_path / "other.yaml"
    path.write_text(MINIMAL)
    with pytest.raises(ArenaError, match="other.yaml: field 'id' must equal"):
        load_preset_file(path)


def test_misspelled_preset_gets_a_suggestion():
    with pytest.raises(ArenaError, match="Did you mean 'offline-uad'"):
        get_preset("offline-uda")


def test_overrides_are_validated_and_frozen():
    preset = get_preset("drafter")
    changed = preset.with_overrides(dict(num_assistant_tokens=7))
    assert changed.num_assistant_tokens == 7 and preset.num_assistant_tokens == 5
    with pytest.raises(ArenaError, match="num_assistant_tokens"):
        preset.with_overrides(dict(num_assistant_tokens=-3))
    with pytest.raises(Exception):
        preset.num_assistant_tokens = 3  # frozen
