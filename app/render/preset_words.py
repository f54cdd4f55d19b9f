"""The presets' and methods' own words in the current language (docs/DESIGN.md §4.10): their English is where they
are defined (the preset files in presets/, the method classes in app/race/methods.py, both read by the command
line), and each other language's ``presets.json`` holds ``preset.<id>.<field>``, ``preset.<id>.note.<i>`` and
``method.<id>.<field>``. Example prompts stay as the preset writes them: the offline models write English only, which
each language's ``presets.note`` says."""

from __future__ import annotations

from typing import Any

from ..core.words import DEFAULT, language, table

#: Where a preset runs (Preset.where) -> the suffix of its words' keys (``where.<suffix>``, ``group.<suffix>``).
WHERE = {"offline": "offline", "needs hub": "hub", "needs hub + GPU": "hub_gpu"}
#: A preset's fields a visitor reads, and a method's.
PRESET_FIELDS = ("title", "description", "wins_on", "loses_on")
METHOD_FIELDS = ("title", "summary")


def localized(key: str, english: str) -> str:
    """`key`'s text in the current language; `english` (the source's own text) in English or where it is missing."""
    if language() == DEFAULT or not english:
        return english
    return table(language()).get(key, english)


def preset_text(preset: Any, field: str) -> str:
    """One of PRESET_FIELDS of `preset` (an app.core.presets.Preset) in the current language."""
    return localized(f"preset.{preset.id}.{field}", getattr(preset, field) or "")


def method_text(method: Any, field: str) -> str:
    """One of METHOD_FIELDS of `method` (an app.race.methods Method) in the current language."""
    return localized(f"method.{method.id}.{field}", getattr(method, field) or "")


def example_notes(preset: Any) -> list[str]:
    """What to expect of each of the preset's example prompts, in the current language."""
    return [localized(f"preset.{preset.id}.note.{i}", note) for i, note in enumerate(preset.example_notes)]


def examples_note() -> str:
    """Why the example prompts are in English (empty in English)."""
    return "" if language() == DEFAULT else table(language()).get("presets.note", "")


#: The mark of each group in the preset list: filled where a preset runs offline.
GROUP_ICONS = {"offline": "\u25cf", "hub": "\u25cb", "hub_gpu": "\u25cb"}


def preset_choice_text(preset: Any) -> str:
    """A preset's entry in the preset list: its group, id and title ("● Runs offline here · offline-prompt-lookup —
    Offline: ...")."""
    group = WHERE.get(preset.where, "hub")
    return (f"{GROUP_ICONS[group]} {localized(f'group.{group}', table(DEFAULT)[f'group.{group}'])} \u00b7 "
            f"{preset.id} \u2014 {preset_text(preset, 'title')}")


def preset_where_text(preset: Any) -> str:
    """A preset's id and where it runs, in the current language ("offline-prompt-lookup · runs offline"): the
    Benchmark tab's preset list."""
    from ..core.words import t

    return f"{preset.id} \u00b7 {t('where.' + WHERE.get(preset.where, 'hub'))}"


def knob_text(knob: Any, field: str) -> str:
    """A knob's page label or help (field "label" or "help"; an app.core.knobs.Knob) in the current language."""
    return localized(f"knob.{knob.name}.{field}", getattr(knob, field))


def bounds_words(knob: Any) -> str:
    """A knob's bounds in words in the current language ('between 1 and 64', 'at least 1', 'above 0', 'in [0, 1)',
    'one of constant, heuristic'), as ``Knob.bounds_text`` says them in English."""
    from ..core.knobs import _num
    from ..core.words import t

    if knob.kind == "choice":
        return t("bounds.one_of", choices=", ".join(knob.choices))
    if knob.high is None:
        return t("bounds.above" if knob.low_open else "bounds.at_least", low=_num(knob.low))
    if not (knob.low_open or knob.high_open):
        return t("bounds.between", low=_num(knob.low), high=_num(knob.high))
    left, right = "(" if knob.low_open else "[", ")" if knob.high_open else "]"
    return t("bounds.interval", interval=f"{left}{_num(knob.low)}, {_num(knob.high)}{right}")


def knob_words() -> dict[str, str]:
    """Every knob's page label and help text (with its bounds) in the current language, by their ``ui.`` keys."""
    from ..core.knobs import KNOB_TABLE
    from ..race.sampling_check_result import SAMPLES, TOKENS, TOP_K

    out = {}
    for knob in (*KNOB_TABLE.values(), SAMPLES, TOKENS, TOP_K):
        out[f"ui.knob.{knob.name}.label"] = knob_text(knob, "label")
        out[f"ui.knob.{knob.name}.help"] = knob_text(knob, "help")
        out[f"ui.knob.{knob.name}.info"] = f"{knob_text(knob, 'help')} ({bounds_words(knob)})"
    return out
