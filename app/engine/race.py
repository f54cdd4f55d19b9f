"""A race on a running serving engine (docs/DESIGN.md §4.7): the plain request, then the assisted one, both greedy,
read into the same :class:`~app.race.result.RaceResult` a transformers race gives, plus the engine's own figures.

Sequential on purpose: two requests at once on one server (or two servers on one machine) compete for the same
cores or GPU, so only one-after-the-other timings are a measurement (docs/DESIGN.md §7).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ArenaError
from ..race.result import AssistedResult, RaceResult, SideResult
from . import adapters, llamacpp, rounds
from .adapters import SpecReport
from .http import Endpoint, Timeouts

NOT_A_RACE = "a race of plain against plain is not a race"
#: The engines a race can be run on (``--engine``), and new tokens per side when a request gives none.
RACE_ENGINES = ("llama.cpp", "vllm", "sglang")
DEFAULT_MAX_NEW_TOKENS = 64


@dataclass
class EngineRace:
    """A finished engine race: the contract result, where its statuses came from (:mod:`app.engine.rounds`) and the
    ``engine`` object (name, version where reported, the engine's own figures per side)."""

    result: RaceResult
    status_source: str
    engine: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The race JSON of docs/DESIGN.md §4.1 (every key of a transformers race) plus ``engine`` and
        ``assisted.status_source``."""
        out = self.result.to_dict()
        out["assisted"]["status_source"] = self.status_source
        out["engine"] = dict(self.engine)
        return out


def _model_name(props: dict[str, Any]) -> str:
    path = str(props.get("model_path") or "")
    return os.path.basename(path) or str(props.get("model_alias") or "")


def check_pair(assisted: Endpoint, plain: Endpoint | None, model: str | None,
               timeouts: Timeouts) -> tuple[dict[str, Any], str]:
    """Before any generation: both endpoints answer, serve the same model (and `model` when given), the assisted one
    speculates and the plain one does not. Returns (the assisted server's /props, the model name)."""
    if plain is None:
        raise ArenaError("llama.cpp cannot switch speculative decoding off per request (its per-request speculative "
                         "fields are compiled out), so race two servers: give the same model served without "
                         "--spec-type as --plain-endpoint URL2.")
    a_props, p_props = llamacpp.props(assisted, timeouts), llamacpp.props(plain, timeouts)
    a_name, p_name = _model_name(a_props), _model_name(p_props)
    if a_name and p_name and a_name != p_name:
        raise ArenaError(f"The endpoints serve different models (assisted: {a_name}, plain: {p_name}); race one "
                         "model with and without speculation.")
    if model and a_name and model not in (a_name, str(a_props.get("model_alias") or "")):
        raise ArenaError(f"Wrong model name {model!r}: the assisted endpoint serves {a_name}.")
    if llamacpp.speculative_slots(assisted, timeouts) is False:
        raise ArenaError(f"The assisted endpoint {assisted.url} has no speculative decoding configured (start it with "
                         f"--spec-type ngram-simple or a draft model): {NOT_A_RACE}.")
    if llamacpp.speculative_slots(plain, timeouts) is True:
        raise ArenaError(f"The plain endpoint {plain.url} speculates too; start it without --spec-type.")
    return a_props, a_name or model or "engine model"


def _side(engine_side: llamacpp.EngineSide) -> dict[str, Any]:
    """The SideResult fields of one stream: text, ids, the arena's own clock (seconds, first token, token times)."""
    ids, texts, times = [], [], []
    for chunk in engine_side.chunks:
        for k, token in enumerate(chunk.ids):
            ids.append(token)
            texts.append(chunk.text if k == 0 else "")
            times.append(chunk.t)
    return {"text": "".join(c.text for c in engine_side.chunks), "token_ids": ids, "seconds": engine_side.seconds,
            "ttft_seconds": times[0] if times else None, "token_times": times, "token_texts": texts}


def _counters(engine_side: llamacpp.EngineSide) -> list[tuple[int, int] | None]:
    out: list[tuple[int, int] | None] = []
    for chunk in engine_side.chunks:
        pair = None if chunk.draft_n is None else (chunk.draft_n, chunk.draft_accepted or 0)
        out.extend([pair] * len(chunk.ids))
    return out


def _reported(engine_side: llamacpp.EngineSide, arena_tps: float) -> dict[str, Any]:
    timings = dict(engine_side.timings)
    timings.setdefault("draft_n", 0)
    timings.setdefault("draft_n_accepted", 0)
    return {**timings, "arena_tokens_per_second": arena_tps}


def build_result(plain: llamacpp.EngineSide, assisted: llamacpp.EngineSide, model: str, max_new_tokens: int,
                 engine: dict[str, Any], report: SpecReport | None = None) -> EngineRace:
    """The contract result of two finished streams. engine: ``name``, ``version`` and ``speculative_type`` (the
    method label); report: a vLLM or SGLang speculative report (per-step arrays, histogram). ArenaError when the plain
    side drafted."""
    if plain.drafted:
        raise ArenaError(f"The plain endpoint drafted {plain.drafted} tokens: it speculates; start it without "
                         "speculative decoding.")
    a = _side(assisted)
    steps, source = rounds.choose(_counters(assisted), assisted.drafted, assisted.accepted,
                                  report.detailed if report else None, report.histogram if report else None)
    tokens, round_list = rounds.build(a["token_ids"], a["token_texts"], steps)
    result = RaceResult(preset="endpoint", method=f"{engine['name']} {engine['speculative_type']}", target=model,
                        assistant=None, mode="sequential", do_sample=False, device=f"{engine['name']} server",
                        baseline=SideResult(**_side(plain)), assisted=AssistedResult(**a, tokens=tokens,
                                                                                      rounds=round_list),
                        knobs={"max_new_tokens": max_new_tokens})
    engine = {**engine, "reported": {"baseline": _reported(plain, result.baseline.tokens_per_second),
                                     "assisted": _reported(assisted, result.assisted.tokens_per_second)}}
    return EngineRace(result, source, engine)


def _spec_type(settings: dict[str, Any]) -> str:
    """llama.cpp's speculative types of a request ("none,ngram-simple" -> "ngram-simple")."""
    names = [n for n in str(settings.get("speculative.types") or "").split(",") if n and n != "none"]
    return ",".join(names) or "speculative"


def race_llamacpp(assisted_url: str, plain_url: str | None, prompt: str, max_new_tokens: int,
                  stop: threading.Event | None = None, timeouts: Timeouts = Timeouts(), chat_template: bool = True,
                  model: str | None = None) -> EngineRace:
    """Race two llama-server endpoints on `prompt`: plain first, then assisted, greedy, `max_new_tokens` each.

    ArenaError (one line) for every fault of docs/DESIGN.md §4.7; StoppedError when `stop` is set (the open request's
    connection is closed, so the server stops generating)."""
    assisted = Endpoint(assisted_url, "assisted endpoint")
    plain = Endpoint(plain_url, "plain endpoint") if plain_url else None
    a_props, name = check_pair(assisted, plain, model, timeouts)
    text = llamacpp.apply_template(assisted, prompt, timeouts) if chat_template else prompt
    plain_side = llamacpp.read_side(plain, text, max_new_tokens, timeouts, stop)
    assisted_side = llamacpp.read_side(assisted, text, max_new_tokens, timeouts, stop)
    if not assisted_side.drafted and llamacpp.speculative_slots(assisted, timeouts) is None:
        raise ArenaError(f"The assisted endpoint {assisted.url} drafted nothing and does not say whether speculation "
                         f"is configured: {NOT_A_RACE}.")
    engine = {"name": "llama.cpp", "version": str(a_props.get("build_info") or "") or None,
              "speculative_type": _spec_type(assisted_side.settings)}
    return build_result(plain_side, assisted_side, name, max_new_tokens, engine)


def race_openai(engine: str, assisted_url: str, plain_url: str | None, prompt: str, max_new_tokens: int,
                stop: threading.Event | None = None, timeouts: Timeouts = Timeouts(),
                model: str | None = None) -> EngineRace:
    """Race two vLLM or SGLang servers (`engine` "vllm" or "sglang"; both fix speculation at launch, so a plain
    partner is needed): plain first, then assisted, greedy; the prompt is sent as it is (no chat template)."""
    if plain_url is None:
        raise ArenaError(f"{engine} fixes speculative decoding at launch: give the same model served without it as "
                         "--plain-endpoint URL2.")
    assisted, plain = Endpoint(assisted_url, "assisted endpoint"), Endpoint(plain_url, "plain endpoint")
    if engine == "vllm":
        if not model:
            raise ArenaError("vLLM needs the served model's name: give --model NAME.")
        plain_side, _ = adapters.read_vllm(plain, model, prompt, max_new_tokens, timeouts, stop)
        assisted_side, report = adapters.read_vllm(assisted, model, prompt, max_new_tokens, timeouts, stop)
    elif engine == "sglang":
        plain_side, _ = adapters.read_sglang(plain, prompt, max_new_tokens, timeouts, stop)
        assisted_side, report = adapters.read_sglang(assisted, prompt, max_new_tokens, timeouts, stop)
    else:
        raise ArenaError(f"Unknown engine {engine!r}: choose llama.cpp, vllm or sglang.")
    if report is None:
        extra = (" (vLLM reports it with --per-request-spec-decode-stats, or --per-request-spec-decode-metrics in "
                 "other versions, set to detailed)") if engine == "vllm" else ""
        raise ArenaError(f"The assisted endpoint {assisted.url} reported no speculative decoding{extra}: "
                         f"{NOT_A_RACE}.")
    info = {"name": engine, "version": None, "speculative_type": "speculative"}
    return build_result(plain_side, assisted_side, model or "engine model", max_new_tokens, info, report)


def race_engine(engine: str, assisted_url: str, plain_url: str | None, prompt: str, max_new_tokens: int,
                stop: threading.Event | None = None, timeouts: Timeouts = Timeouts(), chat_template: bool = True,
                model: str | None = None) -> EngineRace:
    """One engine race on `engine` (one of :data:`RACE_ENGINES`): :func:`race_llamacpp` for llama.cpp (its chat template
    applied unless `chat_template` is False), else :func:`race_openai`."""
    if engine == "llama.cpp":
        return race_llamacpp(assisted_url, plain_url, prompt, max_new_tokens, stop, timeouts, chat_template, model)
    return race_openai(engine, assisted_url, plain_url, prompt, max_new_tokens, stop, timeouts, model)


class EngineRacer:
    """The benchmark's race function for an engine (``bench --endpoint``, docs/DESIGN.md §4.7): each call races
    the endpoints on one prompt with the preset's token budget and chat-template choice (the preset only carries
    those); a stop returns a result marked stopped, as a stopped transformers race does. reported: the engine's own
    figures of every race, in order."""

    def __init__(self, engine: str, assisted_url: str, plain_url: str | None, model: str | None = None,
                 timeouts: Timeouts = Timeouts()):
        self.engine, self.assisted_url, self.plain_url = engine, assisted_url, plain_url
        self.model, self.timeouts = model, timeouts
        self.reported: list[dict[str, Any]] = []

    def __call__(self, preset: Any, prompt: str, stop: threading.Event) -> RaceResult:
        from ..core.errors import StoppedError

        try:
            if self.engine == "llama.cpp":
                race = race_llamacpp(self.assisted_url, self.plain_url, prompt, preset.max_new_tokens, stop,
                                     self.timeouts, preset.chat_template, self.model)
            else:
                race = race_openai(self.engine, self.assisted_url, self.plain_url, prompt, preset.max_new_tokens,
                                   stop, self.timeouts, self.model)
        except StoppedError:
            return RaceResult("endpoint", self.engine, self.model or "", None, "sequential", False,
                              f"{self.engine} server", SideResult(), AssistedResult(), stopped=True)
        self.reported.append(race.engine["reported"])
        return race.result
