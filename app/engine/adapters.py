"""vLLM and SGLang: their streamed responses read into the same :class:`~app.engine.llamacpp.EngineSide` as
llama.cpp's, and their per-request speculative figures into drafted / accepted counts and steps (docs/DESIGN.md §4.7).

What the readers rely on, read in the engines' sources (they do not run on these machines: GPU builds):

- vLLM, the stream: ``vllm/entrypoints/openai/completion/protocol.py`` at commit 002032ee: ``CompletionRequest``
  has ``return_token_ids`` ("In streaming mode, prompt_token_ids is included only in the first chunk, and token_ids
  contains the delta tokens for each chunk") and ``stream_options``; ``CompletionResponseStreamChoice`` has
  ``token_ids`` and ``prompt_token_ids``; ``CompletionStreamResponse`` has ``metrics``. And
  ``vllm/entrypoints/openai/completion/serving.py`` at 030ea52e (``completion_stream_generator``): a streamed
  request's outputs are deltas (``RequestOutputKind.DELTA``), one chunk per engine output, so a verify step's accepted
  drafts and its own token arrive together; each choice's ``token_ids`` is ``as_list(output.token_ids)`` of that
  delta; the per-request metrics ride only on the final usage chunk (``choices: []``), sent only with
  ``stream_options.include_usage`` (or the server's ``--enable-force-include-usage``); an error inside the stream is
  a ``{"error": ...}`` chunk, then ``[DONE]``.
- vLLM, the speculative figures: ``vllm/entrypoints/generate/base/protocol.py`` at 022e555d,
  ``SpeculativeDecodingMetrics`` under ``metrics.speculative_decoding`` ("experimental, subject to change"):
  ``mean_acceptance_length``, ``draft_acceptance_rate``, ``acceptance_histogram`` (dense: item j the verify steps
  that accepted exactly j drafts, length num_spec_tokens + 1), ``num_spec_steps``, ``num_accepted_draft_tokens``,
  ``num_draft_tokens``, ``num_spec_tokens``, and at the ``detailed`` level ``per_step_accepted`` /
  ``per_step_drafted``. serving.py builds them whenever the engine's output carries ``spec_decode_metrics``
  (``build_spec_decoding_metrics``); the server flag that turns them on is not in the stored
  ``vllm/config/observability.py`` (at 046be823, older), and launch scripts in other stored repositories pass
  ``--per-request-spec-decode-metrics summary|detailed``.
  ``docs/features/speculative_decoding/acceptance_metrics.md`` at cd199986 describes an earlier shape,
  ``--per-request-spec-decode-stats`` with ``speculative_decoding_stats`` on the terminal choice and a sparse
  histogram {"j": count}; both shapes are read.
- SGLang, the stream: ``python/sglang/srt/managers/tokenizer_manager_components/output_processor.py`` at 29ff63a5
  (``_build_out_dict_str``): by default a streamed chunk carries all of ``output_ids`` so far (and the text so far,
  filled in by ``_wait_one_response``); with ``--incremental-streaming-output`` only the new ids and text. Every
  chunk's ``meta_info`` has ``prompt_tokens`` and ``completion_tokens`` (the request's output length so far); the
  speculative fields are filled only once the request finished (``fill_spec_decoding_meta``).
- SGLang, the speculative figures: ``spec_decoding_meta.py`` in that components folder: ``spec_verify_ct``,
  ``spec_accept_rate``, ``spec_accept_length``, ``spec_num_correct_drafts`` / ``spec_num_proposed_drafts`` (proposed =
  verify steps x (speculative_num_draft_tokens - 1)) and ``spec_correct_drafts_histogram``, with the older names
  ``spec_accepted_drafts`` / ``spec_proposed_drafts`` / ``spec_accept_histogram`` kept as aliases; at commit 9155cf0e
  it sets the older names only.
"""

from __future__ import annotations

import threading
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from ..core.errors import ArenaError
from ..core.words import msg
from .http import DONE, Endpoint, Timeouts, error_message, stream_post
from .llamacpp import Chunk, EngineSide


@dataclass
class SpecReport:
    """An engine's per-request speculative figures. drafted / accepted: totals; steps: verify steps (None when
    unknown); detailed: (drafted per step, accepted per step) in order; histogram: (steps per accepted count,
    configured draft length); raw: the engine's object as sent."""

    drafted: int = 0
    accepted: int = 0
    steps: int | None = None
    detailed: tuple[Sequence[int], Sequence[int]] | None = None
    histogram: tuple[Sequence[int], int] | None = None
    raw: dict[str, Any] | None = None


def _count(data: dict, *names: str) -> int | None:
    """The first of `names` present in `data` as a non-negative integer; ArenaError for another type."""
    for name in names:
        if name in data and data[name] is not None:
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ArenaError(msg("The engine sent malformed output: {name} is {value}.", name=name, value=repr(value)))
            return value
    return None


def _ints(value: Any, name: str) -> list[int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ArenaError(msg("The engine sent malformed output: {name} is not a list of counts.", name=name))
    return value


def _vllm_stats(response: Any) -> dict[str, Any] | None:
    """The speculative object of a vLLM response in either documented shape (see the module docstring)."""
    if not isinstance(response, dict):
        return None
    spec = (response.get("metrics") or {}).get("speculative_decoding")
    for choice in response.get("choices") or []:
        if isinstance(choice, dict) and isinstance(choice.get("speculative_decoding_stats"), dict):
            spec = choice["speculative_decoding_stats"]
    return spec if isinstance(spec, dict) else None


def _dense(histogram: Any) -> list[int] | None:
    """A histogram as a dense list (item j: steps that accepted j drafts), from a list or a sparse {"j": count}."""
    if isinstance(histogram, dict):
        try:
            pairs = {int(k): v for k, v in histogram.items()}
        except ValueError:
            raise ArenaError(msg("The engine sent malformed output: acceptance_histogram has a key that is not a "
                                 "count.")) from None
        histogram = [pairs.get(j, 0) for j in range(max(pairs, default=-1) + 1)]
    return _ints(histogram, "acceptance_histogram")


def vllm_report(response: dict[str, Any]) -> SpecReport | None:
    """vLLM's per-request speculative stats of a (final) response; None when absent (no speculation, or the server
    runs without the per-request flag)."""
    spec = _vllm_stats(response)
    if spec is None:
        return None
    drafted_steps = _ints(spec.get("per_step_drafted"), "per_step_drafted")
    accepted_steps = _ints(spec.get("per_step_accepted"), "per_step_accepted")
    histogram = _dense(spec.get("acceptance_histogram"))
    k = _count(spec, "num_spec_tokens") or 0
    return SpecReport(drafted=_count(spec, "num_draft_tokens") or 0,
                      accepted=_count(spec, "num_accepted_draft_tokens") or 0, steps=_count(spec, "num_spec_steps"),
                      detailed=(drafted_steps, accepted_steps) if drafted_steps is not None and accepted_steps
                      is not None else None, histogram=(histogram, k) if histogram is not None else None, raw=spec)


def sglang_report(meta_info: dict[str, Any]) -> SpecReport | None:
    """SGLang's speculative fields of a response's ``meta_info``; None when it reports no verify step."""
    if not isinstance(meta_info, dict) or _count(meta_info, "spec_verify_ct") is None:
        return None
    steps = _count(meta_info, "spec_verify_ct")
    proposed = _count(meta_info, "spec_num_proposed_drafts", "spec_proposed_drafts")
    histogram = _ints(meta_info.get("spec_correct_drafts_histogram", meta_info.get("spec_accept_histogram")),
                      "spec_correct_drafts_histogram")
    k = (proposed // steps) if proposed and steps else 0
    raw = {key: value for key, value in meta_info.items() if key.startswith("spec_")}
    return SpecReport(drafted=proposed or 0, accepted=_count(meta_info, "spec_num_correct_drafts",
                                                             "spec_accepted_drafts") or 0,
                      steps=steps, histogram=(histogram, k) if histogram else None, raw=raw)


def vllm_body(model: str, prompt: str, max_new_tokens: int) -> dict[str, Any]:
    """vLLM's OpenAI /v1/completions request: greedy, streamed, token ids (``return_token_ids``) and the final usage
    chunk (``stream_options.include_usage``, which carries the per-request metrics) included."""
    return {"model": model, "prompt": prompt, "max_tokens": int(max_new_tokens), "temperature": 0.0, "stream": True,
            "stream_options": {"include_usage": True}, "return_token_ids": True}


def _endless(endpoint: Endpoint, count: int, cap: int) -> None:
    if count > cap:
        raise ArenaError(msg("{name} at {shown} sent endless output: over {cap} tokens; the connection was closed.",
                             name=endpoint.name, shown=endpoint.shown, cap=cap))


def stream_vllm(endpoint: Endpoint, model: str, prompt: str, max_new_tokens: int, side: EngineSide,
                timeouts: Timeouts = Timeouts(), stop: threading.Event | None = None) -> Iterator[Chunk]:
    """One streamed vLLM completion into `side`, yielding each chunk as it arrives; its speculative report (the final
    usage chunk's, or the terminal choice's) goes to ``side.report``. Each chunk's ``token_ids`` are that engine
    step's new tokens and the first chunk's ``prompt_token_ids`` the prompt's (see the module docstring)."""
    side.model, count, cap = model, 0, max_new_tokens + 8
    request = vllm_body(model, prompt, max_new_tokens)
    with closing(stream_post(endpoint, "/v1/completions", request, timeouts, stop, side.begin)) as stream:
        for t, data in _objects(endpoint, stream, side, lambda: count):
            side.report = vllm_report(data) or side.report
            for choice in data.get("choices") or []:
                if not isinstance(choice, dict):
                    raise ArenaError(msg("{name} at {shown} sent malformed output: a choice is not an object.",
                                         name=endpoint.name, shown=endpoint.shown))
                ids = _ints(choice.get("token_ids"), "token_ids") or []
                prompt_ids = _ints(choice.get("prompt_token_ids"), "prompt_token_ids")
                chunk = Chunk(t, ids, str(choice.get("text") or ""),
                              prompt_tokens=len(prompt_ids) if prompt_ids is not None else None)
                count += len(ids)
                _endless(endpoint, count, cap)
                if chunk.ids or chunk.text or chunk.prompt_tokens is not None:
                    side.add(chunk)
                    yield chunk
    side.timings = _timings(side.report)


def sglang_body(prompt: str, max_new_tokens: int) -> dict[str, Any]:
    """SGLang's native /generate request: greedy and streamed."""
    return {"text": prompt, "sampling_params": {"max_new_tokens": int(max_new_tokens), "temperature": 0.0},
            "stream": True}


def _sglang_new(data: dict[str, Any], ids: list[int], text: str, endpoint: Endpoint) -> tuple[list[int], str]:
    """The new ids and text of one SGLang chunk, given the `ids` and `text` so far. By default a chunk carries all the
    ids and text so far (cumulative); with --incremental-streaming-output only the new ones. ``meta_info``'s
    ``completion_tokens`` (the request's output length so far) tells the two apart exactly: a cumulative chunk holds
    that many ids, an incremental one (after the first) fewer. Without it, a chunk that extends the ids so far counts
    as cumulative."""
    new_ids = _ints(data.get("output_ids"), "output_ids") or []
    chunk_text = data.get("text")
    if chunk_text is None:  # --skip-tokenizer-init: ids only
        chunk_text = ""
    if not isinstance(chunk_text, str):
        raise ArenaError(msg("{name} at {shown} sent malformed output: a chunk's text is not text.", name=endpoint.name,
                             shown=endpoint.shown))
    total = _count(data.get("meta_info") or {}, "completion_tokens")
    cumulative = len(new_ids) == total if total is not None else new_ids[:len(ids)] == ids and len(new_ids) >= len(ids)
    if cumulative and ids:
        if new_ids[:len(ids)] != ids:
            raise ArenaError(msg("{name} at {shown} sent malformed output: a chunk's output_ids do not extend the earlier "
                                 "ones.", name=endpoint.name, shown=endpoint.shown))
        return new_ids[len(ids):], chunk_text[len(text):] if chunk_text.startswith(text) else chunk_text
    return new_ids, chunk_text


def stream_sglang(endpoint: Endpoint, prompt: str, max_new_tokens: int, side: EngineSide,
                  timeouts: Timeouts = Timeouts(), stop: threading.Event | None = None) -> Iterator[Chunk]:
    """One streamed SGLang generation into `side`, yielding each chunk's new tokens as they arrive (cumulative or
    incremental chunks: :func:`_sglang_new`); the final chunk's ``meta_info`` speculative fields go to
    ``side.report``, each chunk's ``meta_info.prompt_tokens`` to the chunk."""
    text, ids, cap = "", [], max_new_tokens + 8
    request = sglang_body(prompt, max_new_tokens)
    with closing(stream_post(endpoint, "/generate", request, timeouts, stop, side.begin)) as stream:
        for t, data in _objects(endpoint, stream, side, lambda: len(ids)):
            new_ids, chunk_text = _sglang_new(data, ids, text, endpoint)
            meta = data.get("meta_info") if isinstance(data.get("meta_info"), dict) else {}
            text, ids = text + chunk_text, ids + new_ids
            _endless(endpoint, len(ids), cap)
            side.report = sglang_report(meta) or side.report
            chunk = Chunk(t, new_ids, chunk_text, prompt_tokens=_count(meta, "prompt_tokens"))
            side.add(chunk)
            yield chunk
    side.timings = _timings(side.report)


def _objects(endpoint: Endpoint, stream: Any, side: EngineSide, count: Callable[[], int]) -> Any:
    """(seconds, chunk object) of a stream until its [DONE] (whose time becomes ``side.seconds``); ArenaError for a
    stream that ends without [DONE] (naming the `count()` tokens it sent) or a chunk that is not a JSON object."""
    for t, data in stream:
        if data is DONE:
            side.seconds = t
            return
        if data is None:
            raise ArenaError(msg("{name} at {shown} died mid-stream after {count} tokens (no [DONE]).", name=endpoint.name,
                                 shown=endpoint.shown, count=count()))
        if not isinstance(data, dict):
            raise ArenaError(msg("{name} at {shown} sent malformed output: a chunk is not an object.", name=endpoint.name,
                                 shown=endpoint.shown))
        if "error" in data:  # vLLM and SGLang send a failure inside the stream as {"error": {...}}, then [DONE]
            raise ArenaError(msg("{name} at {shown} failed mid-stream: {error_message}", name=endpoint.name,
                                 shown=endpoint.shown, error_message=error_message(data)))
        yield t, data


def _timings(report: SpecReport | None) -> dict[str, Any]:
    """The report in llama.cpp's names (draft_n, draft_n_accepted) plus the engine's own object under its name."""
    if report is None:
        return {}
    return {"draft_n": report.drafted, "draft_n_accepted": report.accepted, "engine_fields": report.raw or {}}
