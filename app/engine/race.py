"""Racing a running serving engine in one call (docs/DESIGN.md §4.7): the plain request, then the assisted one, both
greedy, read into the same :class:`~app.race.result.RaceResult` a transformers race gives, plus the engine's own
figures. Every function here goes through :class:`app.engine.run.EngineRun` (one stream path for the page, the
command line, the benchmark and the tests).

Sequential on purpose: two requests at once on one server (or two servers on one machine) compete for the same
cores or GPU, so only one-after-the-other timings are a measurement (docs/DESIGN.md §7).
"""

from __future__ import annotations

import threading
from typing import Any

from ..core.knobs import FLAG
from ..core.requests import Limits
from ..race.result import RaceResult
from .http import Timeouts
from .request import build_engine_request
from .result import EngineRace
from .run import run_engine
from .target import CLI_LABELS, make_target


def race_endpoints(engine: str, assisted_url: str, plain_url: str | None, prompt: str, max_new_tokens: int,
                   stop: threading.Event | None = None, timeouts: Timeouts = Timeouts(), chat_template: bool = True,
                   model: str | None = None, limits: Limits | None = None) -> EngineRace:
    """Race `engine`'s endpoints on `prompt` (an operator's URLs, checked), `max_new_tokens` a side, under `limits`
    (default the command line's). ArenaError (one line) for every fault of docs/DESIGN.md §4.7; a set `stop` ends it
    at once (the result is marked stopped)."""
    target = make_target("endpoint", assisted_url, plain_url, engine, model, labels=CLI_LABELS)
    request = build_engine_request(target, prompt, max_new_tokens, chat_template, limits or Limits.operator(),
                                   timeouts, FLAG)
    return run_engine(request, stop=stop)


def race_llamacpp(assisted_url: str, plain_url: str | None, prompt: str, max_new_tokens: int,
                  stop: threading.Event | None = None, timeouts: Timeouts = Timeouts(), chat_template: bool = True,
                  model: str | None = None) -> EngineRace:
    """Race two llama-server endpoints (:func:`race_endpoints` with llama.cpp)."""
    return race_endpoints("llama.cpp", assisted_url, plain_url, prompt, max_new_tokens, stop, timeouts,
                          chat_template, model)


def race_openai(engine: str, assisted_url: str, plain_url: str | None, prompt: str, max_new_tokens: int,
                stop: threading.Event | None = None, timeouts: Timeouts = Timeouts(),
                model: str | None = None) -> EngineRace:
    """Race two vLLM or SGLang servers (`engine` "vllm" or "sglang"; both fix speculation at launch, so a plain
    partner is needed); the prompt is sent as it is (no chat template)."""
    return race_endpoints(engine, assisted_url, plain_url, prompt, max_new_tokens, stop, timeouts, False, model)


class EngineRacer:
    """The benchmark's race function for an engine (``bench --endpoint``, docs/DESIGN.md §4.7): each call races
    the endpoints on one prompt with the preset's token budget and chat-template choice (the preset only carries
    those); a stop returns the result marked stopped, as a stopped transformers race does. reported: the engine's own
    figures of every finished race, in order; method: the engine and its speculative type as the races name them
    ("llama.cpp ngram-simple"; the engine's name alone until a race has finished)."""

    def __init__(self, engine: str, assisted_url: str, plain_url: str | None, model: str | None = None,
                 timeouts: Timeouts = Timeouts()):
        self.engine, self.assisted_url, self.plain_url = engine, assisted_url, plain_url
        self.model, self.timeouts = model, timeouts
        self.reported: list[dict[str, Any]] = []
        self.method = engine

    def __call__(self, preset: Any, prompt: str, stop: threading.Event) -> RaceResult:
        race = race_endpoints(self.engine, self.assisted_url, self.plain_url, prompt, preset.max_new_tokens, stop,
                              self.timeouts, preset.chat_template, self.model)
        if not race.result.stopped:
            self.reported.append(race.engine["reported"])
            self.method = race.result.method
        return race.result
