"""vLLM: ``vllm serve MODEL --speculative-config '{json}'`` (sources checked: docs/DESIGN.md §4.7)."""

from __future__ import annotations

import json
from typing import Callable

from ..core.presets import Preset
from .spec import served_id

ENGINE = "vllm"
TITLE = "vLLM"
CHECKED = ("vllm-project/vllm vllm/config/speculative.py (commit 002e77c1): SpeculativeConfig fields and "
           "SpeculativeMethod names",)
#: Every key this module may put in --speculative-config (a test checks the generated JSON against it).
CONFIG_KEYS = frozenset({"method", "model", "num_speculative_tokens", "prompt_lookup_max", "prompt_lookup_min",
                         "use_heterogeneous_vocab"})
#: Preset methods vLLM has no equivalent for: (why, closest preset method).
MISSING = {
    "layerskip": ("vLLM has no early-exit self-drafting (LayerSkip): its drafters are a separate model, "
                  "MTP/EAGLE heads or n-grams", "prompt-lookup"),
    "ensemble": ("vLLM verifies drafts against the target alone; it has no ensemble verification (a blend of "
                 "target and drafter probabilities)", "drafter"),
}


def _ngram(preset: Preset, gamma: int, ngram: int) -> tuple[dict, list[str]]:
    return ({"method": "ngram", "num_speculative_tokens": gamma, "prompt_lookup_max": ngram,
             "prompt_lookup_min": 1},
            ["vLLM's n-gram proposer matches the prompt and the text generated so far, like transformers' "
             "prompt lookup (longest n-gram first, down to prompt_lookup_min)"])


def _drafter(preset: Preset, gamma: int, ngram: int) -> tuple[dict, list[str]]:
    return ({"method": "draft_model", "model": served_id(preset.assistant), "num_speculative_tokens": gamma},
            ["the drafter must share the target's vocabulary (vLLM checks the sizes at start-up)"])


def _mtp(preset: Preset, gamma: int, ngram: int) -> tuple[dict, list[str]]:
    notes = ["with no model given, vLLM loads the MTP layer from the target checkpoint itself"]
    if gamma > 1:
        notes.append("more than one token per step reruns the single MTP layer, which vLLM warns lowers acceptance")
    return {"method": "mtp", "num_speculative_tokens": gamma}, notes


def _gemma(preset: Preset, gamma: int, ngram: int) -> tuple[dict, list[str]]:
    return ({"method": "mtp", "model": served_id(preset.assistant), "num_speculative_tokens": gamma},
            ["vLLM runs Gemma 4 assistants as MTP drafters (model type gemma4_assistant -> gemma4_mtp); it needs "
             "a release with Gemma 4 MTP support"])


def _uad(preset: Preset, gamma: int, ngram: int) -> tuple[dict, list[str]]:
    return ({"method": "draft_model", "model": served_id(preset.assistant), "num_speculative_tokens": gamma,
             "use_heterogeneous_vocab": True},
            ["vLLM's different-vocabulary drafting (TLI, the same universal assisted decoding paper) keeps only "
             "the tokens both vocabularies share, where transformers re-tokenizes text; acceptance can differ",
             "use_heterogeneous_vocab supports greedy draft sampling only"])


BUILDERS: dict[str, Callable[[Preset, int, int], tuple[dict, list[str]]]] = {
    "prompt-lookup": _ngram, "drafter": _drafter, "glm-mtp": _mtp, "gemma-drafter": _gemma, "uad": _uad}
ENGINE_METHODS = {"prompt-lookup": "n-gram speculation (method ngram)", "drafter": "a draft model (method draft_model)",
                  "glm-mtp": "multi-token prediction (method mtp)", "gemma-drafter": "the Gemma 4 assistant (method mtp)",
                  "uad": "a draft model with another vocabulary (draft_model + use_heterogeneous_vocab)"}


def command(method: str, preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    """(argv, notes) for `method` (a key of BUILDERS) on the preset's models."""
    config, notes = BUILDERS[method](preset, gamma, ngram)
    argv = ["vllm", "serve", served_id(preset.target)]
    if preset.dtype != "auto":
        argv += ["--dtype", preset.dtype]
    argv += ["--speculative-config", json.dumps(config)]
    if preset.quantization != "none":
        notes.append(f"the preset loads the target {preset.quantization} with bitsandbytes to fit one GPU; on vLLM "
                     "serve a quantized checkpoint (FP8/AWQ) or spread it with --tensor-parallel-size")
    return argv, notes
