"""vLLM and SGLang: their streamed responses read into the same :class:`~app.engine.llamacpp.EngineSide` as
llama.cpp's, and their per-request speculative figures into drafted / accepted counts and steps (docs/DESIGN.md §4.7).

Field names, from the engines' sources as stored (they do not run on these machines: GPU builds):

- vLLM ``docs/features/speculative_decoding/acceptance_metrics.md`` (experimental, its shape has moved): at commit
  cd199986, ``--per-request-spec-decode-stats summary|detailed`` puts ``speculative_decoding_stats`` on each choice
  (streaming: on the terminal chunk's choice) with ``num_draft_tokens``, ``num_accepted_draft_tokens``,
  ``num_spec_steps``, ``num_spec_tokens``, ``acceptance_histogram`` as a sparse map {"j": steps that accepted j
  drafts}, ``mean_acceptance_length``, ``draft_acceptance_rate``, and in detailed mode ``per_step_accepted`` /
  ``per_step_drafted``. Another stored version of that document (commit not pinned; the one the issue describes)
  names the flag ``--per-request-spec-decode-metrics`` and puts the same fields under the response's
  ``metrics.speculative_decoding``, the histogram as a dense list, on the final usage chunk when streaming
  (``stream_options.include_usage``). Both shapes are read.
- SGLang ``python/sglang/srt/managers/tokenizer_manager.py`` (``_calculate_spec_decoding_metrics``) and its later
  helper ``fill_spec_decoding_meta``, as found in stored sgl-project/sglang sources whose commit was not pinned (the
  newest stored tokenizer_manager.py, at 001067ff, has moved the code): ``meta_info`` has ``spec_verify_ct``,
  ``spec_accept_rate``, ``spec_accept_length``, ``spec_num_correct_drafts`` / ``spec_num_proposed_drafts`` (older:
  ``spec_accepted_drafts`` / ``spec_proposed_drafts``) and ``spec_correct_drafts_histogram`` (older:
  ``spec_accept_histogram``).
"""

from __future__ import annotations

import threading
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Sequence

from ..core.errors import ArenaError
from .http import DONE, Endpoint, Timeouts, stream_post
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
                raise ArenaError(f"The engine sent malformed output: {name} is {value!r}.")
            return value
    return None


def _ints(value: Any, name: str) -> list[int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ArenaError(f"The engine sent malformed output: {name} is not a list of counts.")
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
            raise ArenaError("The engine sent malformed output: acceptance_histogram has a key that is not a "
                             "count.") from None
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
    """vLLM's OpenAI /v1/completions request: greedy, streamed, token ids and the final usage chunk included."""
    return {"model": model, "prompt": prompt, "max_tokens": int(max_new_tokens), "temperature": 0.0, "stream": True,
            "stream_options": {"include_usage": True}, "return_token_ids": True}


def read_vllm(endpoint: Endpoint, model: str, prompt: str, max_new_tokens: int, timeouts: Timeouts = Timeouts(),
              stop: threading.Event | None = None) -> tuple[EngineSide, SpecReport | None]:
    """One streamed vLLM completion and its speculative report (from the final usage chunk)."""
    side, report, cap = EngineSide(model=model), None, max_new_tokens + 8
    request = vllm_body(model, prompt, max_new_tokens)
    with closing(stream_post(endpoint, "/v1/completions", request, timeouts, stop)) as stream:
        for t, data in _objects(endpoint, stream, side):
            for choice in data.get("choices") or []:
                ids = _ints(choice.get("token_ids"), "token_ids") or []
                side.chunks.append(Chunk(t, ids, str(choice.get("text") or "")))
            if sum(len(c.ids) for c in side.chunks) > cap:
                raise ArenaError(f"{endpoint.name} at {endpoint.url} sent endless output: over {cap} tokens.")
            report = vllm_report(data) or report
    side.timings = _timings(report)
    return side, report


def sglang_body(prompt: str, max_new_tokens: int) -> dict[str, Any]:
    """SGLang's native /generate request: greedy and streamed."""
    return {"text": prompt, "sampling_params": {"max_new_tokens": int(max_new_tokens), "temperature": 0.0},
            "stream": True}


def read_sglang(endpoint: Endpoint, prompt: str, max_new_tokens: int, timeouts: Timeouts = Timeouts(),
                stop: threading.Event | None = None) -> tuple[EngineSide, SpecReport | None]:
    """One streamed SGLang generation: by default its chunks carry the text and ``output_ids`` so far, and each
    chunk's new ids and text are the difference from the previous one; with --incremental-streaming-output they
    carry only the new ones."""
    side, report, text, ids, cap = EngineSide(), None, "", [], max_new_tokens + 8
    request = sglang_body(prompt, max_new_tokens)
    with closing(stream_post(endpoint, "/generate", request, timeouts, stop)) as stream:
        for t, data in _objects(endpoint, stream, side):
            if not isinstance(data.get("text", ""), str):
                raise ArenaError(f"{endpoint.name} at {endpoint.url} sent malformed output: a chunk's text is not "
                                 "text.")
            new_ids = _ints(data.get("output_ids"), "output_ids") or []
            chunk_text = data.get("text", "")
            if new_ids[:len(ids)] == ids and chunk_text.startswith(text):  # the default: everything so far
                new_ids, chunk_text = new_ids[len(ids):], chunk_text[len(text):]
            # else --incremental-streaming-output: each chunk holds only its new ids and text
            side.chunks.append(Chunk(t, new_ids, chunk_text))
            text, ids = text + chunk_text, ids + new_ids
            if len(ids) > cap:
                raise ArenaError(f"{endpoint.name} at {endpoint.url} sent endless output: over {cap} tokens.")
            report = sglang_report(data.get("meta_info") or {}) or report
    side.timings = _timings(report)
    return side, report


def _objects(endpoint: Endpoint, stream: Any, side: EngineSide) -> Any:
    """(seconds, chunk object) of a stream until its [DONE] (whose time becomes ``side.seconds``); ArenaError for a
    stream that ends without [DONE] or a chunk that is not a JSON object."""
    for t, data in stream:
        if data is DONE:
            side.seconds = t
            return
        if data is None:
            raise ArenaError(f"{endpoint.name} at {endpoint.url} died mid-stream after "
                             f"{sum(len(c.ids) for c in side.chunks)} tokens (no [DONE]).")
        if not isinstance(data, dict):
            raise ArenaError(f"{endpoint.name} at {endpoint.url} sent malformed output: a chunk is not an object.")
        yield t, data


def _timings(report: SpecReport | None) -> dict[str, Any]:
    """The report in llama.cpp's names (draft_n, draft_n_accepted) plus the engine's own object under its name."""
    if report is None:
        return {}
    return {"draft_n": report.drafted, "draft_n_accepted": report.accepted, "engine_fields": report.raw or {}}
