"""The Race tab on one of the operator's serving engines (docs/DESIGN.md §4.7): what the controls show when an engine
is picked, and its request through the one request builder with the server's limits. An engine race is always the
fair race's shape (plain, then assisted, each with the engine to itself) and greedy; the engine runs its own model
and speculation, so the models, decoding and method knobs do not apply."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from ...core.knobs import KNOBS, REQUEST
from ...core.presets import get_preset
from ...core.requests import Limits
from ...engine.request import DEFAULT_MAX_NEW_TOKENS, EngineRequest, build_engine_request
from ...engine.target import EngineTarget
from ...render.method_card import engine_card_html
from ..config import DEFAULT_PRESET
from .controls import GREEDY

#: The examples an engine race offers: the offline prompt lookup preset's (n-gram drafting copies from the prompt too).
EXAMPLES_FROM = DEFAULT_PRESET


def engine_state(target: EngineTarget, prompt: str | None, cap: int) -> dict[str, Any]:
    """Plain values the controls take when the engine `target` is picked (the keys of
    :func:`app.ui.race.controls.preset_state`), under the server's max_new_tokens `cap`."""
    examples = get_preset(EXAMPLES_FROM)
    keep = bool(prompt and prompt.strip())
    return {
        "card": engine_card_html(target),
        "target": target.model or "",
        "assistant": "",
        "assistant_visible": False,
        "chat_template": target.engine == "llama.cpp",
        "max_new_tokens": min(DEFAULT_MAX_NEW_TOKENS, cap),
        "decoding": GREEDY,
        "temperature": 1.0,
        "top_p": 1.0,
        "sampling_visible": False,
        "knobs": {k: {"value": None, "visible": False} for k in KNOBS},
        "knobs_label": "Method knobs \u00b7 the engine's own (set when it was started)",
        "examples": [list(x) for x in zip_longest(examples.example_prompts, examples.example_notes, fillvalue="")],
        "prompt": prompt if keep else examples.example_prompts[0],
        "engine": True,
    }


def engine_request(target: EngineTarget, values: dict[str, Any], limits: Limits) -> EngineRequest:
    """The engine race the controls ask for: the prompt, the token cap and the chat-template choice, checked as a
    transformers request is (one line naming the request); everything else is the engine's."""
    return build_engine_request(target, values.get("prompt") or "", values.get("max_new_tokens"),
                                bool(values.get("chat_template", True)), limits, origin=REQUEST)
