"""What to do, in words: the drafter-choice article's situation-to-choice guidance applied to a plan.

:func:`advice` reads a :class:`~app.planner.types.Plan` as far as it is built (a calculator plan has no memory or
vocabulary) and the measurement's extras, and returns short sentences; each topic has its own small function. See
docs/DESIGN.md §9 for the article's rows.
"""

from __future__ import annotations

from typing import Any

from ..core.words import msg
from ..race.methods import METHODS
from .measure import LookupAgreement
from .memory import PairMemory
from .types import HardwareAdjusted, Plan, Vocabulary


def vocabulary_check(target_tok: Any, drafter_tok: Any) -> Vocabulary:
    """Whether two tokenizers have identical vocabularies (token -> id), as the article's assert checks."""
    tv, dv = target_tok.get_vocab(), drafter_tok.get_vocab()
    return Vocabulary(tv == dv, len(tv), len(dv), len(tv.keys() & dv.keys()))


def _vocabulary(vocab: Vocabulary | None) -> list[str]:
    if not vocab:
        return []
    if vocab.identical:
        return [msg("Vocabularies identical ({size} tokens): the plain drafter path works.", size=vocab.target_size)]
    return [msg("Vocabularies differ ({target} vs {drafter} tokens, {shared} strings shared): this pair needs uad, which adds "
                "re-tokenization to c; a same-vocabulary drafter (or one distilled on the target's outputs) avoids it.",
                target=vocab.target_size, drafter=vocab.drafter_size, shared=vocab.shared_strings)]


def _drafter_size(mem: PairMemory | None, c: float | None) -> list[str]:
    ratio = mem.param_ratio if mem else None
    if not ratio:
        return []
    size = msg("the drafter is 1/{n} of the target's parameters", n=f"{1 / ratio:.0f}")
    if ratio <= 1 / 50:
        out = [msg("{detail}: the article's first row - use it, gamma 6-10 from the table or the dynamic default.",
                   detail=size)]
    elif ratio <= 1 / 10:
        out = [msg("{detail}: small enough (at least 10x smaller); c decides, see below.", detail=size)]
    elif ratio <= 1 / 5:
        out = [msg("{detail} (1/5-1/10 row): keep it only if c stays low; fixed gamma <= 3 or the dynamic default.",
                   detail=size)]
    else:
        out = [msg("{detail}: too large - the paper's best drafters were about 100x smaller; pick a smaller one.", detail=size)]
    if c is not None and c > 1.5 * ratio:
        out.append(msg("c ({c}) is {times}x the parameter ratio ({ratio}), as the article warns: fixed per-layer costs do not "
                       "shrink with size.", c=f"{c:.3f}", times=f"{c / ratio:.1f}", ratio=f"{ratio:.3f}"))
    t, d = mem.target, mem.drafter
    if d and d.layers >= t.layers:
        out.append(msg("The drafter has {drafter} layers, the target {target}: a deep, narrow drafter runs slower than its "
                       "size suggests.", drafter=d.layers, target=t.layers))
    return out


def _hardware(exit_layer: int | None, mem: PairMemory | None, hw: HardwareAdjusted | None) -> list[str]:
    out = []
    if exit_layer and mem:
        n = mem.target.layers
        out.append(msg("Early exit at layer {layer} of {layers} costs about {share} of a full step; only a shallow exit of a "
                       "model trained for it (LayerSkip checkpoints) keeps c low and alpha high.", layer=exit_layer, layers=n,
                       share=f"{exit_layer / n:.2f}"))
    if hw and hw.verify_slope.value > 0.02:
        out.append(msg("Here verifying costs {slope} of a step per extra token (a GPU is near 0): effective c {c}, best gamma "
                       "{gamma} ({speedup}x).", slope=f"{hw.verify_slope.value:.2f}", c=f"{hw.c_effective:.3f}",
                       gamma=hw.best_gamma, speedup=f"{hw.predicted_speedup:.2f}"))
    return out


def _lookup(lookup: LookupAgreement | None, method: str | None, alpha: float | None) -> list[str]:
    out, copies = [], method in METHODS and METHODS[method].drafts_from_prompt
    if lookup is not None and lookup.value is not None and not copies and lookup.value >= 0.3:
        out.append(msg("The target's output copies the prompt (prompt lookup would match {share} of its tokens): for "
                       "summaries, translation and code edits try prompt-lookup first, prompt_lookup_num_tokens about 5 - no "
                       "second model, c close to 0.", share=f"{lookup.value:.0%}"))
    if copies and alpha is not None and alpha < 0.2:
        out.append(msg("Only {share} of the output is found in the prompt: prompt lookup cannot help these prompts; use a "
                       "drafter.", share=f"{alpha:.0%}"))
    return out


def _serving(sampling: tuple[bool, float | None], mem: PairMemory | None, alpha: float | None,
             c: float | None) -> list[str]:
    out = []
    if sampling[0] and (sampling[1] if sampling[1] is not None else 1.0) >= 0.7:
        out.append(msg("Sampling at a high temperature: the article expects small gains for creative/chat traffic; keep gamma "
                       "small (2-3) and re-measure at the serving temperature (these numbers are greedy)."))
    if mem and not mem.fits:
        out.append(msg("Target + drafter need {total} GB with {tokens} cached tokens, more than {gb} GB: use a smaller "
                       "drafter or n-gram prompt lookup.", total=f"{mem.total_gb:.2f}", tokens=mem.context_tokens,
                       gb=f"{mem.gpu_memory_gb:g}"))
    if alpha is not None and c is not None and not alpha > c:
        out.append(msg("alpha does not exceed c: leave assisted decoding off for this pair on this hardware."))
    return out


def advice(plan: Plan, lookup: LookupAgreement | None = None, sampling: tuple[bool, float | None] = (False, 1.0),
           exit_layer: int | None = None, recommendation: str | None = None) -> list[str]:
    """The article's guidance applied to what `plan` has so far (method, alpha, c, memory when computed, vocabulary,
    hardware-adjusted prediction, the check races' recommendation) and the measurement's extras: what prompt lookup
    would get (`lookup`), the serving `sampling` (do_sample, temperature), the early-exit layer, and what a
    measurement without check races recommends (an engine's plan)."""
    mem = plan.memory if isinstance(plan.memory, PairMemory) else None
    out = (_vocabulary(plan.vocabulary) + _drafter_size(mem, plan.c) + _hardware(exit_layer, mem, plan.hardware_adjusted)
           + _lookup(lookup, plan.method, plan.alpha) + _serving(sampling, mem, plan.alpha, plan.c))
    out.append(recommendation or (plan.check.recommendation if plan.check else
                                  msg("Race the table's fixed gamma against the dynamic default on real prompts and keep the "
                                      "faster.")))
    return out
