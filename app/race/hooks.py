"""The only place that reaches into transformers internals (docs/DESIGN.md §3, §7).

1. **Draft capture** (§3): ``GenerationMixin._get_candidate_generator`` is wrapped once per process, and the
   generator it returns reports every round to the sink bound to the current thread (:func:`bind_tracer`): the
   drafts, their logits and the drafting time (``get_candidates``), then the target's scores, the number accepted
   and the verification time (``update_candidate_strategy``). Threads without a sink see transformers unchanged.
2. **Draft length per round** (§5.12): a bound :class:`DraftPolicy` (app/race/drafting.py) sets
   ``num_assistant_tokens`` on a model drafter before the round, or keeps a prefix of prompt lookup's proposal.
3. **Private model views** (§7): :func:`private_view`.
4. **UAD's drafter probabilities in the pruned head's order** (§7): :func:`fix_uad_logit_order`.
5. **Gemma 4's greedy drafts go to sampling without logits** (§7): :func:`drop_greedy_draft_logits`.

``tests/race/test_hooks.py`` fails loudly if the pinned transformers changes underneath this.
"""

from __future__ import annotations

import copy
import threading
import types
from contextlib import contextmanager
from typing import Any, Iterator, Protocol

import torch

from transformers.generation.candidate_generator import (PromptLookupCandidateGenerator,
                                                        SinglePositionMultiTokenCandidateGenerator,
                                                        _prepare_attention_mask, _prepare_position_ids,
                                                        _prepare_token_type_ids)
from transformers.generation.utils import GenerationMixin
from transformers.utils.output_capturing import _CAN_RECORD_REGISTRY, maybe_install_capturing_hooks

from . import costs, lookup

PINNED_TRANSFORMERS = "5.24.0"


class DraftSink(Protocol):
    """Receives each round (implemented by app/race/tracer.py's TraceStreamer). Times are seconds."""

    def on_candidates(self, prompt_len: int, candidate_ids: list[int], draft_seconds: float,
                      candidate_logits: Any) -> None: ...

    def on_verified(self, scores: Any, accepted: int, verify_seconds: float) -> None: ...


class DraftPolicy(Protocol):
    """Chooses each round's draft length (implemented by drafting.CostAwarePolicy)."""

    drafts_first: bool

    def draft_length(self, available: int | None = None, match: int | None = None) -> int: ...

    def observe(self, drafted: int, accepted: int, draft_seconds: float, verify_seconds: float,
                first_round: bool = False) -> None: ...


_local = threading.local()
_ORIGINAL = GenerationMixin._get_candidate_generator


@contextmanager
def bind_tracer(sink: DraftSink | None, policy: DraftPolicy | None = None) -> Iterator[DraftSink | None]:
    """Route this thread's rounds to `sink` and let `policy` choose their draft lengths."""
    previous = (getattr(_local, "sink", None), getattr(_local, "policy", None))
    _local.sink, _local.policy = sink, policy
    try:
        yield sink
    finally:
        _local.sink, _local.policy = previous


class _RoundInFlight:
    """Timing and draft length of the round in flight (one per candidate generator)."""

    def __init__(self) -> None:
        self.drafted, self.draft_seconds, self.drafted_at, self.first = 0, 0.0, 0.0, True


def _extend_first_inputs(generator: Any, input_ids: Any) -> None:
    """A model drafter whose first rounds were skipped has no cache yet, and transformers only grows the drafter's
    attention mask and position ids once it has one: extend them to the tokens so far, as it does later."""
    kwargs = getattr(generator, "assistant_kwargs", None)
    if not isinstance(kwargs, dict) or kwargs.get("cache") is not None:
        return
    length, enc_dec = input_ids.shape[-1], generator.assistant_model.config.is_encoder_decoder
    kwargs = _prepare_attention_mask(kwargs, length, enc_dec)
    kwargs = _prepare_position_ids(kwargs, length, enc_dec)
    generator.assistant_kwargs = _prepare_token_type_ids(kwargs, length)


def _longest_lookup(generator: Any, input_ids: torch.Tensor, policy: DraftPolicy) -> torch.Tensor:
    """Prompt lookup by the longest match (app/race/lookup.py), its length handed to the policy; the candidates
    as transformers' lookup returns them (the text so far, then the kept copy). Within max_length - 1 tokens, as
    transformers keeps room for the target's own token."""
    room = int(generator.max_length) - 1 - input_ids.shape[1]
    copied, match = lookup.proposal(input_ids[0], min(int(generator.num_output_tokens), max(room, 0)),
                                    generator.eos_token_id)  # a tensor or None, as transformers keeps it
    k = policy.draft_length(int(copied.numel()), match.length)
    return torch.cat([input_ids, copied[:k].to(input_ids.device).unsqueeze(0)], dim=1)


def _wrap_get_candidates(generator: Any, sink: DraftSink | None, policy: DraftPolicy | None, state: _RoundInFlight) -> None:
    inner = generator.get_candidates
    longest = policy is not None and isinstance(generator, PromptLookupCandidateGenerator)

    def get_candidates(input_ids, *a: Any, **kw: Any):
        start = costs.CLOCK()
        if policy is not None and not policy.drafts_first:
            generator.num_assistant_tokens = policy.draft_length()
            if generator.num_assistant_tokens:
                _extend_first_inputs(generator, input_ids)
        cur_len = input_ids.shape[1]
        if longest:
            candidate_ids, candidate_logits = _longest_lookup(generator, input_ids, policy), None
        else:
            candidate_ids, candidate_logits = inner(input_ids, *a, **kw)
        if policy is not None and policy.drafts_first and not longest:
            k = policy.draft_length(candidate_ids.shape[1] - cur_len)
            candidate_ids = candidate_ids[:, :cur_len + k]
            candidate_logits = None if candidate_logits is None else candidate_logits[:, :k]
        state.drafted_at = costs.CLOCK()
        state.draft_seconds, state.drafted = state.drafted_at - start, candidate_ids.shape[1] - cur_len
        if sink is not None:
            sink.on_candidates(cur_len, candidate_ids[0, cur_len:].tolist(), state.draft_seconds, candidate_logits)
        return candidate_ids, candidate_logits

    generator.get_candidates = get_candidates


def _wrap_update(generator: Any, sink: DraftSink | None, policy: DraftPolicy | None, state: _RoundInFlight) -> None:
    inner = generator.update_candidate_strategy

    def update_candidate_strategy(input_ids, scores, num_matches):
        verify_seconds = costs.CLOCK() - state.drafted_at
        accepted = int(num_matches)
        if sink is not None:
            sink.on_verified(scores, accepted, verify_seconds)
        if policy is not None:
            policy.observe(state.drafted, min(accepted, state.drafted), state.draft_seconds, verify_seconds, state.first)
        state.first = False
        return inner(input_ids, scores, num_matches)

    generator.update_candidate_strategy = update_candidate_strategy


def _target_logits_in_head_order(translator: Any, assistant_logits: torch.Tensor) -> torch.Tensor:
    """AssistantToTargetTranslator.get_target_logits for a pruned head: logit j belongs to drafter token
    ``assistant_overlap_token_ids[j]``, so it goes to that token's target id."""
    shape = (*assistant_logits.shape[:-1], translator.target_vocab_size)
    target_logits = torch.full(shape, translator.FILTER_VALUE, device=translator._assistant_model_device)
    target_logits[..., translator._arena_target_ids] = assistant_logits
    return target_logits


def fix_uad_logit_order(generator: Any) -> None:
    """Give a UAD generator's translator the head-order logit mapping (idempotent; no-op for other generators
    and for translators that did not prune the head; docs/DESIGN.md §7)."""
    translator = getattr(generator, "_atm_translator", None)
    if (translator is None or getattr(translator, "_arena_target_ids", None) is not None
            or not getattr(translator, "assistant_prune_lm_head", False)
            or getattr(translator, "assistant_overlap_token_ids", None) is None):
        return
    ids = translator._assistant_to_target_input_ids[translator.assistant_overlap_token_ids]
    translator._arena_target_ids = ids.to(translator._assistant_model_device)
    translator.get_target_logits = types.MethodType(_target_logits_in_head_order, translator)


def drop_greedy_draft_logits(generator: Any) -> None:
    """With sampling, a Gemma 4 drafter's candidates go to the target without logits (docs/DESIGN.md §7)."""
    if not isinstance(generator, SinglePositionMultiTokenCandidateGenerator) or not generator.generation_config.do_sample:
        return
    inner = generator.get_candidates

    def get_candidates(*args: Any, **kwargs: Any):
        candidate_ids, _ = inner(*args, **kwargs)
        return candidate_ids, None

    generator.get_candidates = get_candidates


def _traced_get_candidate_generator(self, *args: Any, **kwargs: Any):
    generator = _ORIGINAL(self, *args, **kwargs)
    fix_uad_logit_order(generator)
    drop_greedy_draft_logits(generator)
    sink, policy = getattr(_local, "sink", None), getattr(_local, "policy", None)
    if sink is None and policy is None:
        return generator
    state = _RoundInFlight()
    _wrap_get_candidates(generator, sink, policy, state)
    _wrap_update(generator, sink, policy, state)
    return generator


def install() -> None:
    """Install the draft-capture wrapper (idempotent)."""
    if GenerationMixin._get_candidate_generator is not _traced_get_candidate_generator:
        GenerationMixin._get_candidate_generator = _traced_get_candidate_generator


def private_view(model: Any) -> Any:
    """A shallow copy of `model` sharing all weights, with its own config objects.

    The copy's base model (``model.<base_model_prefix>``) is a shallow copy as well, so that
    state transformers writes into ``base_model.config`` during a run stays in the view.
    """
    prefix = getattr(model, "base_model_prefix", "")
    base = model._modules.get(prefix) if prefix else None
    # transformers installs its output-capturing hooks on shared layers and marks the owning
    # module with a flag; a copy made before that would install them a second time.
    for module in (model, base):
        if module is not None and _CAN_RECORD_REGISTRY.get(module):
            maybe_install_capturing_hooks(module)
    view = copy.copy(model)
    config = copy.deepcopy(model.config)
    view.__dict__["_modules"] = dict(model._modules)
    view.__dict__["config"] = config
    if getattr(model, "generation_config", None) is not None:
        view.__dict__["generation_config"] = copy.deepcopy(model.generation_config)
    if base is not None:
        base_view = copy.copy(base)
        base_view.__dict__["_modules"] = dict(base._modules)  # e.g. UAD swaps the input embeddings
        base_view.__dict__["config"] = config if base.config is model.config else copy.deepcopy(base.config)
        view._modules[prefix] = base_view
    return view


install()
