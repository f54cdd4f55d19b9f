"""Measuring alpha on real prompts (docs/DESIGN.md §5.5): the pieces of alpha by greedy agreement (each kind of draft
puts them together its own way, app/planner/kinds.py) and alpha as observed in the rounds of real assisted runs; c and
the verification slope are in timing.py."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator, Sequence

import torch

from ..core.errors import ArenaError
from ..core.presets import Preset
from ..core.requests import Limits
from ..core.theory import per_token_alpha
from ..core.words import msg
from ..race.hooks import private_view
from ..race.prepare import RaceSetup, generate_call, prepare

Progress = Callable[[str], None]


@dataclass
class AgreementAlpha:
    """alpha by greedy agreement over prompts: the mean of per-prompt agreement (as the article averages) and
    the pooled share. space: 'target tokens' or 'drafter tokens'; proposal_rate: prompt lookup only."""

    value: float | None
    pooled: float | None
    space: str
    how: str
    per_prompt: list[dict[str, Any]] = field(default_factory=list)
    proposal_rate: float | None = None
    is_lookup: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "is_lookup" and (k != "proposal_rate" or self.is_lookup)}


@dataclass
class LookupAgreement:
    """What prompt lookup would get on these prompts: agreement and how often a lookup proposes anything."""

    value: float | None
    proposal_rate: float | None
    positions: int
    prompt_lookup_num_tokens: int
    max_matching_ngram_size: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ObservedAlpha:
    """Alpha from assisted rounds: the per-token estimate (value), accepted/drafted, and round counts."""

    value: float | None
    acceptance_rate: float | None
    rounds: int
    drafting_rounds: int
    drafted: int
    accepted: int
    mean_drafted: float
    mean_accepted_length: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@contextmanager
def borrowed_tokenizers(setup: RaceSetup) -> Iterator[tuple[Any, Any]]:
    """(target, assistant or None) tokenizer copies this thread may use exclusively (see core/tokenizers.py)."""
    with setup.tokenizers.borrow() as tok:
        if setup.assistant_tokenizers is None:
            yield tok, None
        else:
            with setup.assistant_tokenizers.borrow() as atok:
                yield tok, atok


def prepare_all(preset: Preset, prompts: Sequence[str], limits: Limits, progress: Progress | None = None) -> list[RaceSetup]:
    """One RaceSetup per prompt (models load once, from the cache), under the request's `limits`."""
    if not prompts:
        raise ArenaError(msg("No prompts to measure on: give --prompts FILE or use a preset with example prompts."))
    return [prepare(preset, prompt, limits, progress=progress) for prompt in prompts]


# ----- reference output and alpha by agreement ---------------------------------------------------------
@torch.inference_mode()
def reference_tokens(setup: RaceSetup) -> list[int]:
    """The target's plain greedy new tokens for the setup's prompt."""
    model, kwargs = generate_call(setup, assisted=False)
    kwargs["do_sample"] = False
    kwargs.pop("temperature", None), kwargs.pop("top_p", None)
    return model.generate(**kwargs)[0, setup.input_ids.shape[1]:].tolist()


@torch.inference_mode()
def _top1(model: Any, ids: torch.Tensor) -> torch.Tensor:
    """Greedy next-token prediction at every position of `ids` (1, T) -> (T,)."""
    return model(input_ids=ids.to(model.device), use_cache=False).logits[0].argmax(-1).cpu()


def teacher_forced(model: Any, setup: RaceSetup, ref: list[int]) -> tuple[int, int]:
    """(positions where `model`'s top-1 equals the target's greedy token `ref`, positions), reading the target's text."""
    n = setup.input_ids.shape[1]
    seq = torch.cat([setup.input_ids.cpu(), torch.tensor([ref])], dim=1)
    pred = _top1(model, seq)[n - 1:-1]
    return int((pred == torch.tensor(ref)).sum()), len(ref)


def exit_view(model: Any, exit_layer: int) -> Any:
    """A private view of `model` that runs only its first `exit_layer` layers (as early exit drafts)."""
    view = private_view(model)
    view.config.num_hidden_layers = exit_layer
    base = view._modules.get(getattr(view, "base_model_prefix", ""))
    if base is not None:
        base.config.num_hidden_layers = exit_layer
    return view


def lookup_agreement(setup: RaceSetup, ref: list[int], num_tokens: int, ngram: int) -> tuple[int, int, int]:
    """(positions where the first n-gram lookup proposal equals `ref`'s token, positions, positions with a proposal)."""
    from transformers.generation.candidate_generator import PromptLookupCandidateGenerator

    gen = PromptLookupCandidateGenerator(num_output_tokens=num_tokens, max_matching_ngram_size=ngram, max_length=10 ** 9)
    seq = torch.cat([setup.input_ids.cpu(), torch.tensor([ref])], dim=1)
    n, matches, proposed = setup.input_ids.shape[1], 0, 0
    for t, token in enumerate(ref):
        cand, _ = gen.get_candidates(seq[:, :n + t])
        if cand.shape[1] > n + t:
            proposed += 1
            matches += int(cand[0, n + t]) == token
    return matches, len(ref), proposed


def _uad_scored_positions(setup: RaceSetup, ref: list[int]) -> tuple[torch.Tensor, list[int]]:
    """The target's text re-tokenized by the drafter, and the drafter-token positions inside the new text."""
    prompt_ids = setup.input_ids[0].tolist()
    with borrowed_tokenizers(setup) as (tok, atok):
        prompt_text = tok.decode(prompt_ids, skip_special_tokens=True)
        full = tok.decode(prompt_ids + ref, skip_special_tokens=True)
        new_text = tok.decode(ref, skip_special_tokens=True)
        boundary = len(prompt_text) if full.startswith(prompt_text) else len(full) - len(new_text)
        if getattr(atok, "is_fast", False):
            enc = atok(full, return_tensors="pt", return_offsets_mapping=True)
            spans = enc["offset_mapping"][0].tolist()
            return enc["input_ids"], [j for j in range(1, len(spans)) if spans[j][0] >= boundary and spans[j][1] > spans[j][0]]
        enc = atok(full, return_tensors="pt")
        first = len(atok(prompt_text)["input_ids"])
        return enc["input_ids"], list(range(max(first, 1), enc["input_ids"].shape[1]))


def uad_agreement(setup: RaceSetup, ref: list[int]) -> tuple[int, int]:
    """Drafter top-1 agreement on the target's text re-tokenized by the drafter (counted in drafter tokens)."""
    ids, scored = _uad_scored_positions(setup, ref)
    if not scored:
        return 0, 0
    pred = _top1(setup.assistant.model, ids)
    idx = torch.tensor(scored)
    return int((pred[idx - 1] == ids[0, idx]).sum()), len(scored)


def lookup_alpha(setups: Sequence[RaceSetup], refs: Sequence[list[int]], num_tokens: int = 5,
                 ngram: int = 2) -> LookupAgreement:
    """What prompt lookup would get on these prompts (costs no model call): agreement and proposal rate."""
    m = p = q = 0
    for setup, ref in zip(setups, refs):
        a, b, c = lookup_agreement(setup, ref, num_tokens, ngram)
        m, p, q = m + a, p + b, q + c
    return LookupAgreement(m / p if p else None, q / p if p else None, p, num_tokens, ngram)


def observed_alpha(rounds: Sequence[Any]) -> ObservedAlpha:
    """Alpha from assisted rounds (objects with ``drafted`` and ``accepted``)."""
    drafting = [r for r in rounds if r.drafted > 0]
    drafted = sum(r.drafted for r in drafting)
    accepted = sum(r.accepted for r in drafting)
    return ObservedAlpha(per_token_alpha(rounds), accepted / drafted if drafted else None,
                         len(rounds), len(drafting), drafted, accepted,
                         drafted / len(drafting) if drafting else 0.0,
                         (accepted + len(rounds)) / len(rounds) if rounds else 0.0)
