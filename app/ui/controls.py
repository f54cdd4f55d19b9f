"""What the controls show for a preset: grouped choices, knob specs, and the updates on a change.

:func:`preset_state` is pure (plain dicts, no gradio), so tests can check which knobs a
method shows; :func:`preset_updates` wraps it in ``gr.update`` objects for the event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.methods import METHODS, get_method
from ..engine.presets import KNOBS, SCHEDULES, Preset, get_preset, load_presets
from .render_stats import method_card_html
from .session import DEFAULT_SCHEDULE, GREEDY, SAMPLING

#: Preset groups in display order: where -> group label.
GROUPS = {"offline": "Runs offline here", "needs hub": "Needs the hub", "needs hub + GPU": "Needs the hub + a GPU"}
GROUP_ICONS = {"offline": "\u25cf", "needs hub": "\u25cb", "needs hub + GPU": "\u25cb"}


@dataclass(frozen=True)
class KnobSpec:
    """How one method knob is shown. kind: 'int' | 'float' | 'schedule'."""

    name: str
    label: str
    info: str
    kind: str
    minimum: float | None = None
    maximum: float | None = None


KNOB_SPECS = {
    "num_assistant_tokens": KnobSpec("num_assistant_tokens", "Draft length k",
                                     "tokens drafted per round (empty: transformers' default)", "int", 1, 64),
    "num_assistant_tokens_schedule": KnobSpec("num_assistant_tokens_schedule", "Draft length schedule",
                                              "heuristic grows k after full acceptance, shrinks it after a miss",
                                              "schedule"),
    "assistant_confidence_threshold": KnobSpec("assistant_confidence_threshold", "Confidence threshold",
                                               "drafting stops when the drafter is less sure than this (0-1)",
                                               "float", 0.0, 0.99),
    "prompt_lookup_num_tokens": KnobSpec("prompt_lookup_num_tokens", "Lookup tokens",
                                         "tokens copied from the prompt after a matching n-gram", "int", 1, 64),
    "max_matching_ngram_size": KnobSpec("max_matching_ngram_size", "Max n-gram size",
                                        "longest n-gram searched for in the prompt", "int", 1, 16),
    "assistant_early_exit": KnobSpec("assistant_early_exit", "Exit layer",
                                     "the target drafts with its first N layers", "int", 1, 1024),
    "assistant_ensemble_weight": KnobSpec("assistant_ensemble_weight", "Ensemble weight",
                                          "target share of the blended probabilities (0.7 suggested; lossy)",
                                          "float", 0.01, 0.99),
}
assert set(KNOB_SPECS) == set(KNOBS)
SCHEDULE_CHOICES = [DEFAULT_SCHEDULE, *SCHEDULES]


def preset_choices(presets: dict[str, Preset] | None = None) -> list[tuple[str, str]]:
    """(label, id) pairs grouped by where each preset runs: offline first, then hub, then hub + GPU."""
    presets = presets if presets is not None else load_presets()
    order = list(GROUPS)
    ranked = sorted(presets.values(), key=lambda p: (order.index(p.where) if p.where in order else len(order), p.id))
    return [(f"{GROUP_ICONS.get(p.where, '')} {GROUPS.get(p.where, p.where)} \u00b7 {p.id} \u2014 {p.title}", p.id)
            for p in ranked]


def methods_overview() -> str:
    """Markdown list: one line per method (title, lossless or not, summary)."""
    lines = [f"- **{m.title}** (`{m.id}`{'' if m.lossless else ', lossy'}): {m.summary}" for m in METHODS.values()]
    return "\n".join(lines)


def knob_value(preset: Preset, name: str) -> Any:
    value = getattr(preset, name)
    if name == "num_assistant_tokens_schedule" and value is None:
        return DEFAULT_SCHEDULE
    return value


def preset_state(preset_id: str, prompt: str | None, cap: int) -> dict[str, Any]:
    """Plain values the controls take when `preset_id` is picked.

    prompt: the prompt box's current text; it is replaced by the new preset's first example
    only when empty or one of any preset's examples (a user's own prompt is kept).
    cap: the server's max_new_tokens cap.
    """
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
        "knobs_label": f"Method knobs \u00b7 {method.title}" if method.knobs else f"Method knobs \u00b7 {method.title} (none)",
        "examples": [[e] for e in preset.example_prompts],
        "prompt": prompt if keep else (preset.example_prompts[0] if preset.example_prompts else (prompt or "")),
    }


#: Outputs of the preset-change event, in order (layout.py passes components in this order).
PRESET_OUTPUTS = ("card", "target", "assistant", "chat_template", "max_new_tokens", "decoding", "temperature",
                  "top_p", "sampling_row", "knobs_box", *KNOBS, "examples", "prompt")


def preset_updates(preset_id: str, prompt: str | None, cap: int) -> tuple:
    """gr.update objects for PRESET_OUTPUTS."""
    import gradio as gr

    s = preset_state(preset_id, prompt, cap)
    knobs = [gr.update(value=s["knobs"][k]["value"], visible=s["knobs"][k]["visible"]) for k in KNOBS]
    return (s["card"], gr.update(value=s["target"]), gr.update(value=s["assistant"], visible=s["assistant_visible"]),
            gr.update(value=s["chat_template"]), gr.update(value=s["max_new_tokens"]), gr.update(value=s["decoding"]),
            gr.update(value=s["temperature"]), gr.update(value=s["top_p"]), gr.update(visible=s["sampling_visible"]),
            gr.update(label=s["knobs_label"]), *knobs, gr.update(samples=s["examples"]), gr.update(value=s["prompt"]))


def example_prompt(index: int | None, preset_id: str) -> Any:
    """The prompt for the clicked example of the current preset."""
    import gradio as gr

    examples = get_preset(preset_id).example_prompts
    if index is None or not 0 <= int(index) < len(examples):
        return gr.skip()
    return examples[int(index)]
