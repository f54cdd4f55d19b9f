"""Measuring alpha on real prompts (docs/DESIGN.md §5.5): by greedy agreement per method (:data:`HOW`) and as
observed in the rounds of real assisted runs; c and the verification slope are in timing.py."""

from __future__ import annotations

import statistics
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator, Sequence

import torch

from ..core.errors import ArenaError
from ..core.presets import Preset
from ..core.requests import Limits
from ..core.theory import per_token_alpha
from ..race.hooks import private_view
from ..race.methods import METHODS
from ..race.prepare import RaceSetup, generate_call, prepare

KIND_BY_METHOD = {m.id: m.plan_kind for m in METHODS.values() if m.plan_kind}
Progress = Callable[[str], None]
HOW = {"drafter": "drafter top-1 on the target's greedy text (teacher forcing)",
       "early-exit": "top-1 of the first {exit} layers on the target's greedy text",
       "lookup": "first n-gram lookup proposal at each position of the target's greedy text (no match = miss)",
       "uad": "drafter top-1 on the target's greedy text re-tokenized by the drafter; counted in drafter "
              "tokens, so not the per-target-token acceptance the formula uses"}


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


def method_kind(method: str) -> str:
    """'drafter' | 'uad' | 'early-exit' | 'lookup' for a method id; ArenaError for methods not measurable here."""
    if method not in KIND_BY_METHOD:
        raise ArenaError(f"The planner measures {', '.join(KIND_BY_METHOD)} presets; "
                         f"'{method}' drafts from the target's own hidden states, so use the calculator "
                         "(--alpha A --c C) with alpha from a race.")
    return KIND_BY_METHOD[method]


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
        raise ArenaError("No prompts to measure on: give --prompts FILE or use a preset with example prompts.")
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


def _teacher_forced(model: Any, setup: RaceSetup, ref: list[int]) -> tuple[int, int]:
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


def _lookup_agreement(setup: RaceSetup, ref: list[int], num_tokens: int, ngram: int) -> tuple[int, int, int]:
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


def _uad_agreement(setup: RaceSetup, ref: list[int]) -> tuple[int, int]:
    """Drafter top-1 agreement on the target's text re-tokenized by the drafter (counted in drafter tokens)."""
    ids, scored = _uad_scored_positions(setup, ref)
    if not scored:
        return 0, 0
    pred = _top1(setup.assistant.model, ids)
    idx = torch.tensor(scored)
    return int((pred[idx - 1] == ids[0, idx]).sum()), len(scored)


def _prompt_agreement(setup: RaceSetup, ref: list[int], kind: str) -> tuple[int, int, int | None]:
    """(matches, positions, lookup proposals or None) on one prompt."""
    preset = setup.preset
    if kind == "drafter":
        return (*_teacher_forced(setup.assistant.model, setup, ref), None)
    if kind == "early-exit":
        return (*_teacher_forced(exit_view(setup.target.model, preset.assistant_early_exit), setup, ref), None)
    if kind == "lookup":
        return _lookup_agreement(setup, ref, preset.prompt_lookup_num_tokens, preset.max_matching_ngram_size or 2)
    return (*_uad_agreement(setup, ref), None)


def agreement_alpha(setups: Sequence[RaceSetup], refs: Sequence[list[int]]) -> AgreementAlpha:
    """alpha by greedy agreement over prompts (see the module docstring)."""
    preset = setups[0].preset
    kind = method_kind(preset.method)
    per_prompt = []
    for setup, ref in zip(setups, refs):
        m, p, proposed = _prompt_agreement(setup, ref, kind)
        per_prompt.append({"matches": m, "positions": p, "alpha": m / p if p else None, "proposed": proposed})
    valid = [x["alpha"] for x in per_prompt if x["alpha"] is not None]
    positions = sum(x["positions"] for x in per_prompt)
    proposed_total = sum(x["proposed"] or 0 for x in per_prompt)
    return AgreementAlpha(
        value=statistics.mean(valid) if valid else None,
        pooled=sum(x["matches"] for x in per_prompt) / positions if positions else None,
        space="drafter tokens" if kind == "uad" else "target tokens",
        how=HOW[kind].format(exit=preset.assistant_early_exit), per_prompt=per_prompt,
        proposal_rate=proposed_total / positions if positions and kind == "lookup" else None, is_lookup=kind == "lookup")


def lookup_alpha(setups: Sequence[RaceSetup], refs: Sequence[list[int]], num_tokens: int = 5,
                 ngram: int = 2) -> LookupAgreement:
    """What prompt lookup would get on these prompts (costs no model call): agreement and proposal rate."""
    m = p = q = 0
    for setup, ref in zip(setups, refs):
        a, b, c = _lookup_agreement(setup, ref, num_tokens, ngram)
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
