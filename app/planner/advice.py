"""What to do, in words: the drafter-choice article's situation-to-choice guidance applied to a plan.

:func:`advice` takes a plan's facts (keys of the plan dict; any may be missing) and returns short
sentences; each topic has its own small function. See docs/DESIGN.md §9 for the article's rows.
"""

from __future__ import annotations

from typing import Any

from ..race.methods import METHODS


def vocabulary_check(target_tok: Any, drafter_tok: Any) -> dict[str, Any]:
    """Whether two tokenizers have identical vocabularies (token -> id), as the article's assert checks."""
    tv, dv = target_tok.get_vocab(), drafter_tok.get_vocab()
    return {"identical": tv == dv, "target_size": len(tv), "drafter_size": len(dv),
            "shared_strings": len(tv.keys() & dv.keys())}


def _vocabulary(vocab: dict | None) -> list[str]:
    if not vocab:
        return []
    if vocab["identical"]:
        return [f"Vocabularies identical ({vocab['target_size']} tokens): the plain drafter path works."]
    return [f"Vocabularies differ ({vocab['target_size']} vs {vocab['drafter_size']} tokens, "
            f"{vocab['shared_strings']} strings shared): this pair needs uad, which adds re-tokenization "
            "to c; a same-vocabulary drafter (or one distilled on the target's outputs) avoids it."]


def _drafter_size(mem: dict, c: float | None) -> list[str]:
    ratio = mem.get("param_ratio")
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
    t, d = mem.get("target") or {}, mem.get("drafter") or {}
    if d and d.get("layers", 0) >= t.get("layers", 1):
        out.append(f"The drafter has {d['layers']} layers, the target {t['layers']}: a deep, narrow drafter "
                   "runs slower than its size suggests.")
    return out


def _hardware(facts: dict, mem: dict) -> list[str]:
    out = []
    if facts.get("exit_layer") and mem.get("target"):
        n = mem["target"]["layers"]
        out.append(f"Early exit at layer {facts['exit_layer']} of {n} costs about {facts['exit_layer'] / n:.2f} of a full "
                   "step; only a shallow exit of a model trained for it (LayerSkip checkpoints) keeps c low and alpha high.")
    hw = facts.get("hardware_adjusted")
    if hw and hw["verify_slope"]["value"] > 0.02:
        out.append(f"Here verifying costs {hw['verify_slope']['value']:.2f} of a step per extra token (a GPU is near 0): "
                   f"effective c {hw['c_effective']:.3f}, best gamma {hw['best_gamma']} ({hw['predicted_speedup']:.2f}x).")
    return out


def _lookup(facts: dict, method: str | None, alpha: float | None) -> list[str]:
    lookup = facts.get("lookup") or {}
    out, copies = [], method in METHODS and METHODS[method].drafts_from_prompt
    if lookup.get("value") is not None and not copies and lookup["value"] >= 0.3:
        out.append(f"The target's output copies the prompt (prompt lookup would match {lookup['value']:.0%} of its "
                   "tokens): for summaries, translation and code edits try prompt-lookup first, "
                   "prompt_lookup_num_tokens about 5 - no second model, c close to 0.")
    if copies and alpha is not None and alpha < 0.2:
        out.append(f"Only {alpha:.0%} of the output is found in the prompt: prompt lookup cannot help these prompts; "
                   "use a drafter.")
    return out


def _serving(facts: dict, mem: dict, alpha: float | None, c: float | None) -> list[str]:
    out = []
    if facts.get("do_sample") and facts.get("temperature", 1.0) >= 0.7:
        out.append("Sampling at a high temperature: the article expects small gains for creative/chat traffic; keep "
                   "gamma small (2-3) and re-measure at the serving temperature (these numbers are greedy).")
    if mem and not mem.get("fits", True):
        out.append(f"Target + drafter need {mem['total_gb']:.2f} GB with {mem['context_tokens']} cached tokens, more "
                   f"than {mem['gpu_memory_gb']:g} GB: use a smaller drafter or n-gram prompt lookup.")
    if alpha is not None and c is not None and not alpha > c:
        out.append("alpha does not exceed c: leave assisted decoding off for this pair on this hardware.")
    return out


def advice(facts: dict[str, Any]) -> list[str]:
    """The article's guidance applied to measured facts (plan dict keys; any may be missing)."""
    method, alpha, c = facts.get("method"), facts.get("alpha"), facts.get("c")
    mem = facts.get("memory") or {}
    out = (_vocabulary(facts.get("vocabulary")) + _drafter_size(mem, c) + _hardware(facts, mem)
           + _lookup(facts, method, alpha) + _serving(facts, mem, alpha, c))
    out.append(facts.get("recommendation") or
               "Race the table's fixed gamma against the dynamic default on real prompts and keep the faster.")
    return out
