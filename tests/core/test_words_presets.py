"""The presets', methods' and knobs' own words (app/render/preset_words.py): their English is where they are defined
(presets/*.yaml, app/race/methods.py, the knob tables), and every other language's presets.json translates each of
them, with nothing left in English and the same placeholders (docs/DESIGN.md §4.10)."""

from __future__ import annotations

import pytest

from app.core.knobs import KNOB_TABLE
from app.core.presets import load_presets
from app.core.words import DEFAULT, LANGUAGES, files, placeholders, speaking
from app.race.methods import METHODS
from app.race.sampling_check_result import SAMPLES, TOKENS, TOP_K
from app.render.preset_words import METHOD_FIELDS, PRESET_FIELDS, example_notes, examples_note, preset_text

OTHERS = [lang for lang in LANGUAGES if lang != DEFAULT]


def sourced() -> dict[str, str]:
    """Every sourced key with its English."""
    out = {}
    for p in load_presets().values():
        out.update({f"preset.{p.id}.{f}": getattr(p, f) for f in PRESET_FIELDS if getattr(p, f)})
        out.update({f"preset.{p.id}.note.{i}": note for i, note in enumerate(p.example_notes) if note})
    for m in METHODS.values():
        out.update({f"method.{m.id}.{f}": getattr(m, f) for f in METHOD_FIELDS})
    for k in (*KNOB_TABLE.values(), SAMPLES, TOKENS, TOP_K):
        out.update({f"knob.{k.name}.label": k.label, f"knob.{k.name}.help": k.help})
    return out


@pytest.mark.parametrize("lang", OTHERS)
def test_every_preset_method_and_knob_text_is_translated(lang):
    theirs = files(lang).get("presets.json", {})
    english = sourced()
    missing = sorted(set(english) - set(theirs))
    assert not missing, (lang, missing[:15])
    assert "presets.note" in theirs  # why the offline presets' example prompts stay English
    stale = sorted(set(theirs) - set(english) - {"presets.note"})
    assert not stale, (lang, stale[:15])
    same = [k for k, text in english.items() if theirs[k] == text and len(text) > 12]
    assert not same, (lang, same[:15])
    wrong = [k for k, text in english.items() if placeholders(text) != placeholders(theirs[k])]
    assert not wrong, (lang, wrong)


@pytest.mark.parametrize("lang", OTHERS)
def test_the_page_reads_them_in_its_language(lang):
    preset = load_presets()["offline-prompt-lookup"]
    with speaking(lang):
        assert preset_text(preset, "title") != preset.title and examples_note()
        assert all(a != b for a, b in zip(example_notes(preset), preset.example_notes))
    with speaking(DEFAULT):
        assert preset_text(preset, "title") == preset.title and examples_note() == ""
