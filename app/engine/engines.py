"""What differs between the engines an engine race reads (docs/DESIGN.md §4.7), one small class per engine in
:data:`ENGINES`: how the pair is checked before anything is generated, what prompt text is sent, how the prompt is
counted, how one side streams, when the assisted side proves it did not speculate, and the speculative type's name.
:class:`app.engine.run.EngineRun` drives them all the same way; no other module compares engine names.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any, Iterator

from ..core.errors import ArenaError
from ..core.words import msg
from . import adapters, llamacpp
from .http import Endpoint, Timeouts
from .llamacpp import Chunk, EngineSide
from .result import NOT_A_RACE
from .target import EngineTarget


@dataclass(frozen=True)
class PairInfo:
    """What the endpoints said before any generation: the model name, the engine's version (None: not reported) and
    its speculative type (None: it names it only once a request has run)."""

    model: str
    version: str | None = None
    speculative_type: str | None = None


class Engine:
    """The interface; the defaults are those of an OpenAI-style engine that fixes speculation at launch.

    name: the engine's name (``EngineTarget.engine``); live_statuses: whether each streamed chunk carries what the
    verify steps did so far (llama.cpp's counters), so statuses are known as tokens arrive."""

    name = ""
    live_statuses = False

    def check_pair(self, target: EngineTarget, timeouts: Timeouts) -> PairInfo:
        """Before any generation: ArenaError for a pair that cannot race."""
        if target.plain_url is None:
            raise ArenaError(msg("{name} fixes speculative decoding at launch: give the same model served without it as "
                                 "--plain-endpoint URL2 (on the page: --endpoint NAME=URL,plain=URL2).", name=self.name))
        return PairInfo(target.model or "engine model")

    def prompt_text(self, target: EngineTarget, prompt: str, chat_template: bool, timeouts: Timeouts) -> str:
        """The text both requests send (the prompt as it is)."""
        return prompt

    def count_prompt(self, target: EngineTarget, text: str, timeouts: Timeouts) -> int | None:
        """The prompt's length in tokens before generating, or None (then the first chunk's count is checked)."""
        return None

    def stream(self, endpoint: Endpoint, target: EngineTarget, text: str, max_new_tokens: int, side: EngineSide,
               timeouts: Timeouts, stop: threading.Event) -> Iterator[Chunk]:
        """One side's stream into `side` (chunks as they arrive)."""
        raise NotImplementedError

    def check_assisted(self, side: EngineSide, endpoint: Endpoint, timeouts: Timeouts) -> None:
        """After the assisted stream: ArenaError when it shows the endpoint does not speculate."""
        if side.report is None:
            raise ArenaError(msg("The assisted endpoint {shown} reported no speculative decoding: {NOT_A_RACE}.",
                                 shown=endpoint.shown, NOT_A_RACE=NOT_A_RACE))

    def speculative_type(self, side: EngineSide, info: PairInfo) -> str:
        """The method label's second half ("ngram-simple"; "speculative" when the engine does not name it)."""
        return info.speculative_type or "speculative"

    def top_two(self, endpoint: Endpoint, text: str, prefix: list[int],
                timeouts: Timeouts) -> list[tuple[int, str, float]] | None:
        """The served target's two likeliest next tokens (id, text, probability) after the prompt `text` and the token
        ids `prefix`; None where the engine cannot say (app/race/divergence.py explains a greedy divergence with it)."""
        return None


def _model_name(props: dict[str, Any]) -> str:
    path = str(props.get("model_path") or "")
    return os.path.basename(path) or str(props.get("model_alias") or "")


class LlamaCpp(Engine):
    """llama.cpp's llama-server: /props, /slots, /apply-template, /tokenize and the /completion stream with the draft
    counters on every chunk (app/engine/llamacpp.py)."""

    name = "llama.cpp"
    live_statuses = True

    def check_pair(self, target: EngineTarget, timeouts: Timeouts) -> PairInfo:
        """Both endpoints answer, serve the same model (and `target.model` when given), the assisted one speculates
        and the plain one does not."""
        assisted, plain = target.endpoints()
        if plain is None:
            raise ArenaError(msg("llama.cpp cannot switch speculative decoding off per request (its per-request speculative "
                                 "fields are compiled out), so race two servers: give the same model served without "
                                 "--spec-type as --plain-endpoint URL2 (on the page: --endpoint NAME=URL,plain=URL2)."))
        a_props, p_props = llamacpp.props(assisted, timeouts), llamacpp.props(plain, timeouts)
        a_name, p_name = _model_name(a_props), _model_name(p_props)
        if a_name and p_name and a_name != p_name:
            raise ArenaError(msg("The endpoints serve different models (assisted: {a_name}, plain: {p_name}); race one model "
                                 "with and without speculation.", a_name=a_name, p_name=p_name))
        if target.model and a_name and target.model not in (a_name, str(a_props.get("model_alias") or "")):
            raise ArenaError(msg("Wrong model name {model}: the assisted endpoint serves {a_name}.", model=repr(target.model),
                                 a_name=a_name))
        slot = llamacpp.first_slot(assisted, timeouts)
        if slot is not None and slot.get("speculative") is False:
            raise ArenaError(msg("The assisted endpoint {shown} has no speculative decoding configured (start it with "
                                 "--spec-type ngram-simple or a draft model): {NOT_A_RACE}.", shown=assisted.shown,
                                 NOT_A_RACE=NOT_A_RACE))
        if llamacpp.speculative_slots(plain, timeouts) is True:
            raise ArenaError(msg("The plain endpoint {shown} speculates too; start it without --spec-type.", shown=plain.shown))
        return PairInfo(a_name or target.model or "engine model", str(a_props.get("build_info") or "") or None,
                        llamacpp.spec_types((slot or {}).get("params")))

    def prompt_text(self, target: EngineTarget, prompt: str, chat_template: bool, timeouts: Timeouts) -> str:
        """The prompt in the assisted server's chat template (as one user message) unless `chat_template` is off."""
        return llamacpp.apply_template(target.endpoints()[0], prompt, timeouts) if chat_template else prompt

    def count_prompt(self, target: EngineTarget, text: str, timeouts: Timeouts) -> int | None:
        return llamacpp.count_prompt(target.endpoints()[0], text, timeouts)

    def stream(self, endpoint: Endpoint, target: EngineTarget, text: str, max_new_tokens: int, side: EngineSide,
               timeouts: Timeouts, stop: threading.Event) -> Iterator[Chunk]:
        return llamacpp.stream_side(endpoint, text, max_new_tokens, side, timeouts, stop)

    def check_assisted(self, side: EngineSide, endpoint: Endpoint, timeouts: Timeouts) -> None:
        """A server that drafted nothing and does not say whether it speculates cannot be told from a plain one."""
        if not side.drafted and llamacpp.speculative_slots(endpoint, timeouts) is None:
            raise ArenaError(msg("The assisted endpoint {shown} drafted nothing and does not say whether speculation is "
                                 "configured: {NOT_A_RACE}.", shown=endpoint.shown, NOT_A_RACE=NOT_A_RACE))

    def speculative_type(self, side: EngineSide, info: PairInfo) -> str:
        return llamacpp.spec_types(side.settings) or info.speculative_type or "speculative"

    def top_two(self, endpoint: Endpoint, text: str, prefix: list[int],
                timeouts: Timeouts) -> list[tuple[int, str, float]] | None:
        return llamacpp.top_two(endpoint, text, prefix, timeouts)


class Vllm(Engine):
    """vLLM's OpenAI /v1/completions stream (app/engine/adapters.py); the served model's name is required."""

    name = "vllm"

    def check_pair(self, target: EngineTarget, timeouts: Timeouts) -> PairInfo:
        info = super().check_pair(target, timeouts)
        if not target.model:
            raise ArenaError(msg("vLLM needs the served model's name: give --model NAME (on the page: --endpoint "
                                 "NAME=URL,plain=URL2,engine=vllm,model=NAME)."))
        return info

    def stream(self, endpoint: Endpoint, target: EngineTarget, text: str, max_new_tokens: int, side: EngineSide,
               timeouts: Timeouts, stop: threading.Event) -> Iterator[Chunk]:
        return adapters.stream_vllm(endpoint, target.model or "", text, max_new_tokens, side, timeouts, stop)

    def check_assisted(self, side: EngineSide, endpoint: Endpoint, timeouts: Timeouts) -> None:
        if side.report is None:
            raise ArenaError(msg("The assisted endpoint {shown} reported no speculative decoding (vLLM reports it with "
                                 "--per-request-spec-decode-stats, or --per-request-spec-decode-metrics in other versions, "
                                 "set to detailed): {NOT_A_RACE}.", shown=endpoint.shown, NOT_A_RACE=NOT_A_RACE))


class Sglang(Engine):
    """SGLang's native /generate stream (app/engine/adapters.py)."""

    name = "sglang"

    def stream(self, endpoint: Endpoint, target: EngineTarget, text: str, max_new_tokens: int, side: EngineSide,
               timeouts: Timeouts, stop: threading.Event) -> Iterator[Chunk]:
        return adapters.stream_sglang(endpoint, text, max_new_tokens, side, timeouts, stop)


#: Every engine the arena reads, by ``EngineTarget.engine`` (the names of app.engine.target.ENGINE_NAMES).
ENGINES: dict[str, Engine] = {e.name: e for e in (LlamaCpp(), Vllm(), Sglang())}
