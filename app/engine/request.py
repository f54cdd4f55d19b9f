"""What one engine race asks for (docs/DESIGN.md §4.5 "One way in", §4.7): an operator's :class:`EngineTarget`, the
prompt, the token cap and the chat-template choice, checked under the request's :class:`~app.core.requests.Limits`
exactly as a transformers request is (the same checks and one-line messages): the prompt's text, the token cap, the
work budget here; the prompt's length in tokens once the engine has counted it (:class:`app.engine.run.EngineRun`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.knobs import REQUEST, Origin
from ..core.requests import (Limits, check_new_tokens, check_prompt_text, check_single_prompt, check_token_cap,
                             race_tokens)
from ..race.trust import PROBE_TOKENS
from .http import Timeouts
from .target import EngineTarget

#: New tokens per side when the request gives none.
DEFAULT_MAX_NEW_TOKENS = 64


@dataclass(frozen=True)
class EngineRequest:
    """A checked engine race: `target` (the operator's), `prompt` (text), `max_new_tokens` per side, whether llama.cpp
    wraps the prompt in the server's chat template (`chat_template`; vLLM and SGLang get it as it is), the request's
    `limits` and the HTTP `timeouts` (seconds)."""

    target: EngineTarget
    prompt: str
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS
    chat_template: bool = True
    limits: Limits = Limits()
    timeouts: Timeouts = Timeouts()

    @property
    def work_tokens(self) -> int:
        """The most tokens this race generates: both sides, a warm-up of each and the plain probe after the assisted
        side (docs/DESIGN.md §5.16)."""
        return race_tokens(self.max_new_tokens, sequential=True) + min(PROBE_TOKENS + 1, self.max_new_tokens)


def build_engine_request(target: EngineTarget, prompt: Any, max_new_tokens: Any = None, chat_template: bool = True,
                         limits: Limits = Limits(), timeouts: Timeouts = Timeouts(),
                         origin: Origin = REQUEST) -> EngineRequest:
    """The engine race of `prompt` on `target` under `limits` (the server's, or :meth:`Limits.operator` for the command
    line): one prompt of text, `max_new_tokens` (None or blank: :data:`DEFAULT_MAX_NEW_TOKENS`) within the knob's
    bounds and the server's cap, and 2 x max_new_tokens within the work budget. ArenaError (one line, naming
    `origin`) otherwise. `target` comes from the operator's configuration only (:func:`app.engine.target.find_target`
    for a name a visitor picked)."""
    prompt = check_single_prompt(check_prompt_text(prompt, origin))
    tokens = check_new_tokens(max_new_tokens, limits, origin)  # the cap's one line, however far above it
    tokens = check_token_cap(DEFAULT_MAX_NEW_TOKENS if tokens is None else tokens, limits, origin)
    request = EngineRequest(target, prompt, tokens, bool(chat_template), limits, timeouts)
    limits.check_work(request.work_tokens, "race", "ask for fewer new tokens")
    return request
