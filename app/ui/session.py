"""Per-browser-session state (held in ``gr.State``) and turning control values into a preset.

Nothing user-specific lives in module globals: each session gets its own :class:`Session`
(gradio deep-copies the initial value; :meth:`Session.__deepcopy__` hands out a fresh one).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ..engine.methods import get_method
from ..engine.presets import KNOBS, Preset, get_preset
from .render import PaneView

#: Control values the race/measure events receive, in this order (after session and toggle).
CONTROL_NAMES = ("preset", "prompt", "target", "assistant", "chat_template", "max_new_tokens",
                 "decoding", "temperature", "top_p", "seed") + KNOBS
GREEDY, SAMPLING = "greedy", "sampling"
DEFAULT_SCHEDULE = "default"


class Session:
    """One browser session: its running race, last results and view toggles.

    results: mode ("concurrent" | "sequential") -> (settings signature, result dict).
    views: the last (baseline, assisted) PaneView, re-rendered when a toggle changes.
    """

    def __init__(self) -> None:
        self.race = None
        self.active = False  # a race/measure event of this session is in progress (loading or running)
        self.cancel = threading.Event()
        self.show_rejected = False
        self.results: dict[str, tuple[Any, dict]] = {}
        self.latest: dict | None = None
        self.latest_signature: Any = None
        self.lossless = True
        self.views: tuple[PaneView, PaneView] | None = None
        self.facts: dict | None = None

    def __deepcopy__(self, memo: dict) -> "Session":
        return Session()

    def begin(self) -> None:
        """A new run starts: forget an old stop request."""
        self.cancel.clear()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop the running race (if any) and wait for its threads; True when they ended."""
        self.cancel.set()
        race = self.race
        if race is None:
            return True
        race.stop()
        return race.join(timeout)

    def running(self) -> bool:
        race = self.race
        return race is not None and any(t.is_alive() for t in race.threads)

    def paired(self, mode: str, signature: Any) -> dict | None:
        """The last result of `mode` if it was run with the same settings, else None."""
        hit = self.results.get(mode)
        return hit[1] if hit and hit[0] == signature else None


@dataclass(frozen=True)
class RunRequest:
    """A validated request: the preset with every override applied, the prompt and the seed."""

    preset: Preset
    prompt: str
    seed: int | None

    @property
    def signature(self) -> tuple:
        """Identifies the settings, so a race and a measurement of the same settings pair up."""
        return (self.preset, self.prompt, self.seed)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def request_from_controls(values: dict[str, Any]) -> RunRequest:
    """Build a request from the UI controls (see CONTROL_NAMES).

    Only the active method's knobs are applied; the others are cleared, because the method
    rejects knobs it does not accept. An empty target/assistant box keeps the preset's model.
    Raises ArenaError for invalid values.
    """
    base = get_preset(values["preset"])
    method = get_method(base.method)
    changes: dict[str, Any] = {}
    for knob in KNOBS:
        value = values.get(knob) if knob in method.knobs else None
        if knob == "num_assistant_tokens_schedule" and value == DEFAULT_SCHEDULE:
            value = None
        changes[knob] = None if _blank(value) else value
    _model_changes(base, values.get("target"), values.get("assistant") if method.needs_assistant else None, changes)
    if values.get("chat_template") is not None:
        changes["chat_template"] = bool(values["chat_template"])
    if values.get("max_new_tokens") is not None:
        changes["max_new_tokens"] = values["max_new_tokens"]
    sampling = values.get("decoding") == SAMPLING
    changes["do_sample"] = sampling
    if sampling:
        for name in ("temperature", "top_p"):
            if values.get(name) is not None:
                changes[name] = values[name]
    seed = values.get("seed")
    return RunRequest(base.with_overrides(**changes), values.get("prompt") or "", None if _blank(seed) else int(seed))


def _model_changes(base: Preset, target: Any, assistant: Any, changes: dict[str, Any]) -> None:
    """Apply target/assistant overrides; a new model drops the preset's separate tokenizer id."""
    if not _blank(target) and target.strip() != base.target:
        changes["target"] = target.strip()
        changes["tokenizer"] = None
    if not _blank(assistant) and assistant.strip() != (base.assistant or ""):
        changes["assistant"] = assistant.strip()
        changes["assistant_tokenizer"] = None


def request_from_api(preset: str, prompt: str, overrides: dict[str, Any], seed: int | None) -> RunRequest:
    """Build a request like the CLI does: None means 'keep the preset's value'."""
    base = get_preset(preset)
    changes = {k: v for k, v in overrides.items() if v is not None and k not in ("target", "assistant")}
    _model_changes(base, overrides.get("target"), overrides.get("assistant"), changes)
    return RunRequest(base.with_overrides(**changes) if changes else base, prompt, seed)
