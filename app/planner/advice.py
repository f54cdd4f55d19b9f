"""What to do, in words: the drafter-choice article's situation-to-choice guidance applied to a plan.

:func:`advice` reads a :class:`~app.planner.types.Plan` as far as it is built (a calculator plan has no memory or
vocabulary) and the measurement's extras, and returns short sentences; each topic has its own small function. See
docs/DESIGN.md §9 for the article's rows.
"""

from __future__ import annotations

from typing import Any

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
        return [f"Vocabularies identical ({vocab.target_size} tokens): the plain drafter path works."]
    return [f"Vocabularies differ ({vocab.target_size} vs {vocab.drafter_size} tokens, "
            f"{vocab.shared_strings} strings shared): this pair needs uad, which adds re-tokenization "
            "to c; a same-vocabulary drafter (or one distilled on the target's outputs) avoids it."]


def _drafter_size(mem: PairMemory | None, c: float | None) -> list[str]:
    ratio = mem.param_ratio if mem else None
    if not ratio:
        return []
    size = f"the drafter is 1/{1 / ratio:.0f} of the target's parameters"
    if ratio <= 1 / 50:
        out = [f"{size}: the article's first row - use it, gamma 6-10 from the table or the dynamic default."]
    elif ratio <= 1 / 10:
        out = [f"{size}: small enough (at least 10x smaller); c decides, see below."]
    elif ratio <= 1 / 5:
        out = [f"{size} (1/5-1/10 row): keep it only if c stays low; fixed gamma <= 3 or the dynamic default."]
    else:
        out = [f"{size}: too large - the paper's best drafters were about 100x smaller; pick a smaller one."]
    if c is not None and c > 1.5 * ratio:
        out.append(f"c ({c:.3f}) is {c / ratio:.1f}x the parameter ratio ({ratio:.3f}), as the article warns: "
                   "fixed per-layer costs do not shrink with size.")
    t, d = mem.target, mem.drafter
    if d and d.layers >= t.layers:
        out.append(f"The drafter has {d.layers} layers, the target {t.layers}: a deep, narrow drafter "
                   "runs slower than its size suggests.")
    return out


def _hardware(exit_layer: int | None, mem: PairMemory | None, hw: HardwareAdjusted | None) -> list[str]:
    out = []
    if exit_layer and mem:
        n = mem.target.layers
        out.append(f"Early exit at layer {exit_layer} of {n} costs about {exit_layer / n:.2f} of a full "
                   "step; only a shallow exit of a model trained for it (LayerSkip checkpoints) keeps c low and alpha high.")
    if hw and hw.verify_slope.value > 0.02:
        out.append(f"Here verifying costs {hw.verify_slope.value:.2f} of a step per extra token (a GPU is near 0): "
                   f"effective c {hw.c_effective:.3f}, best gamma {hw.best_gamma} ({hw.predicted_speedup:.2f}x).")
    return out


def _lookup(lookup: LookupAgreement | None, method: str | None, alpha: float | None) -> list[str]:
    out, copies = [], method in METHODS and METHODS[method].drafts_from_prompt
    if lookup is not None and lookup.value is not None and not copies and lookup.value >= 0.3:
        out.append(f"The target's output copies the prompt (prompt lookup would match {lookup.value:.0%} of its "
                   "tokens): for summaries, translation and code edits try prompt-lookup first, "
                   "prompt_lookup_num_tokens about 5 - no second model, c close to 0.")
    if copies and alpha is not None and alpha < 0.2:
        out.append(f"Only {alpha:.0%} of the output is found in the prompt: prompt lookup cannot help these prompts; "
                   "use a drafter.")
    return out


def _serving(sampling: tuple[bool, float | None], mem: PairMemory | None, alpha: float | None,
             c: float | None) -> list[str]:
    out = []
    if sampling[0] and (sampling[1] if sampling[1] is not None else 1.0) >= 0.7:
        out.append("Sampling at a high temperature: the article expects small gains for creative/chat traffic; keep "
                   "gamma small (2-3) and re-measure at the serving temperature (these numbers are greedy).")
    if mem and not mem.fits:
        out.append(f"Target + drafter need {mem.total_gb:.2f} GB with {mem.context_tokens} cached tokens, more "
                   f"than {mem.gpu_memory_gb:g} GB: use a smaller drafter or n-gram prompt lookup.")
    if alpha is not None and c is not None and not alpha > c:
        out.append("alpha does not exceed c: leave assisted decoding off for this pair on this hardware.")
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
                                  "Race the table's fixed gamma against the dynamic default on real prompts and keep "
                                  "the faster."))
    return out
