"""What the Race tab's controls show for a preset (plain values, no gradio); the request their values make is
app/ui/race/entry.py's."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from ...core.knobs import KNOBS
from ...core.presets import Preset, get_preset, load_presets
from ...race.methods import METHODS, get_method
from ...core.words import t
from ...render.method_card import method_card_html
from ...render.preset_words import example_notes, method_text, preset_choice_text
from ..language import label

#: Control values the race/measure events receive, in this order (after session and toggle).
CONTROL_NAMES = ("preset", "prompt", "target", "assistant", "chat_template", "max_new_tokens",
                 "decoding", "temperature", "top_p", "seed") + KNOBS
GREEDY, SAMPLING = "greedy", "sampling"
#: The Race button's two modes: the fair race (each side with the machine to itself, measured) and both at once.
FAIR, CONCURRENT = "fair", "concurrent"
RACE_MODES = [(label("ui.race.mode_fair"), FAIR), (label("ui.race.mode_both"), CONCURRENT)]


def default_race_mode(gpu: bool) -> str:
    """The fair race on a CPU; on a GPU both at once, until measurements there say otherwise (docs/DESIGN.md §1)."""
    return CONCURRENT if gpu else FAIR


#: The schedule dropdown's entry for "not set" (transformers' default).
DEFAULT_SCHEDULE = "default"
#: The preset list's order: offline first, then hub, then hub + GPU (Preset.where).
ORDER = ("offline", "needs hub", "needs hub + GPU")


def ranked_presets(presets: dict[str, Preset] | None = None) -> list[Preset]:
    presets = presets if presets is not None else load_presets()
    return sorted(presets.values(), key=lambda p: (ORDER.index(p.where) if p.where in ORDER else len(ORDER), p.id))


def preset_choices(presets: dict[str, Preset] | None = None) -> list[tuple[Any, str]]:
    """(label, id) pairs grouped by where each preset runs; the labels are translation keys (``ui.preset_choice.ID``,
    their texts from :func:`preset_choice_words`)."""
    return [(label(f"ui.preset_choice.{p.id}"), p.id) for p in ranked_presets(presets)]


def preset_choice_words() -> dict[str, str]:
    """The preset list's entries in the current language, by their ``ui.`` keys (for gradio's tables)."""
    return {f"ui.preset_choice.{p.id}": preset_choice_text(p) for p in ranked_presets()}


def example_headers() -> list[str]:
    """The example table's two column headers in the current language (gradio does not translate a Dataset's
    headers itself)."""
    return [t("ui.race.example_prompt"), t("ui.race.example_note")]


def methods_overview() -> str:
    """Markdown list: one line per method (title, lossless or not, summary), in the current language."""
    return "\n".join(f"- **{method_text(m, 'title')}** (`{m.id}`{'' if m.lossless else ', ' + t('card.lossy_short')}): "
                     f"{method_text(m, 'summary')}" for m in METHODS.values())


def knob_value(preset: Preset, name: str) -> Any:
    value = getattr(preset, name)
    return DEFAULT_SCHEDULE if value is None and name == "num_assistant_tokens_schedule" else value


def preset_state(preset_id: str, prompt: str | None, cap: int) -> dict[str, Any]:
    """Plain values the controls take when `preset_id` is picked, under the server's max_new_tokens `cap`; the
    `prompt` is kept unless it is empty or one of any preset's examples."""
    preset = get_preset(preset_id)
    method = get_method(preset.method)
    all_examples = {e for p in load_presets().values() for e in p.example_prompts}
    keep = bool(prompt and prompt.strip()) and prompt not in all_examples
    return {
        "card": method_card_html(preset, method),
        "target": preset.target,
        "assistant": preset.assistant or "",
        "assistant_visible": method.needs_assistant,
        "chat_template": preset.chat_template,
        "max_new_tokens": min(preset.max_new_tokens, cap),
        "decoding": SAMPLING if preset.do_sample else GREEDY,
        "temperature": preset.temperature,
        "top_p": preset.top_p,
        "sampling_visible": preset.do_sample,
        "knobs": {k: {"value": knob_value(preset, k), "visible": k in method.knobs} for k in KNOBS},
        "knobs_label": t("race.knobs_label" if method.knobs else "race.knobs_label_none",
                         method=method_text(method, "title")),
        "examples": [list(x) for x in zip_longest(preset.example_prompts, example_notes(preset), fillvalue="")],
        "prompt": prompt if keep else (preset.example_prompts[0] if preset.example_prompts else (prompt or "")),
    }
