"""SGLang: ``python -m sglang.launch_server --model-path MODEL --speculative-algorithm ...`` (sources checked:
docs/DESIGN.md §4.7)."""

from __future__ import annotations

from typing import Callable

from ..core.presets import Preset
from .spec import served_id

ENGINE = "sglang"
TITLE = "SGLang"
CHECKED = ("sgl-project/sglang python/sglang/srt/server_args.py (commit 001067ff): speculative flags",
           "sgl-project/sglang python/sglang/srt/arg_groups/speculative_hook.py (commit d9ccf6a7): algorithm "
           "aliases and their constraints")
#: Every flag this module may emit (a test checks the generated argv against it).
FLAGS = frozenset({"--model-path", "--dtype", "--speculative-algorithm", "--speculative-draft-model-path",
                   "--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens",
                   "--speculative-ngram-max-bfs-breadth"})
MISSING = {
    "layerskip": ("SGLang has no early-exit self-drafting (LayerSkip); its drafters are EAGLE/MTP heads, a "
                  "separate model or n-grams", "prompt-lookup"),
    "ensemble": ("SGLang verifies drafts against the target alone; it has no ensemble verification", "drafter"),
    "uad": ("SGLang's STANDALONE drafter must use the target's tokenizer; it has no drafting across vocabularies",
            "prompt-lookup"),
}


def _chain(gamma: int) -> list[str]:
    """One chain of gamma drafts: top-k 1 and gamma + 1 verified tokens (the last accepted token included)."""
    return ["--speculative-num-steps", str(gamma), "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", str(gamma + 1)]


def _ngram(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["--speculative-algorithm", "NGRAM", "--speculative-num-draft-tokens", str(gamma + 1),
             "--speculative-ngram-max-bfs-breadth", "1"],
            ["SGLang's NGRAM drafts from a trie of recent tokens of this and earlier requests, not only the prompt",
             "breadth 1 drafts one chain as transformers does; a larger breadth verifies a tree of candidates",
             "NGRAM runs on CUDA only"])


def _drafter(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", served_id(preset.assistant),
             *_chain(gamma)], ["STANDALONE does not support --enable-dp-attention"])


def _mtp(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["--speculative-algorithm", "NEXTN", *_chain(gamma)],
            ["NEXTN is SGLang's EAGLE path; for GLM-4.5 it drafts with the checkpoint's own NextN layer"])


def _gemma(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["--speculative-algorithm", "NEXTN", "--speculative-draft-model-path", served_id(preset.assistant),
             *_chain(gamma)],
            ["SGLang promotes NEXTN with a Gemma 4 assistant draft to FROZEN_KV_MTP (the assistant reads the "
             "target's KV cache), which needs top-k 1"])


BUILDERS: dict[str, Callable[[Preset, int, int], tuple[list[str], list[str]]]] = {
    "prompt-lookup": _ngram, "drafter": _drafter, "glm-mtp": _mtp, "gemma-drafter": _gemma}
ENGINE_METHODS = {"prompt-lookup": "n-gram speculation (NGRAM)", "drafter": "a draft model (STANDALONE)",
                  "glm-mtp": "multi-token prediction (NEXTN)", "gemma-drafter": "the Gemma 4 assistant (NEXTN -> FROZEN_KV_MTP)"}


def command(method: str, preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    """(argv, notes) for `method` (a key of BUILDERS) on the preset's models."""
    flags, notes = BUILDERS[method](preset, gamma, ngram)
    argv = ["python", "-m", "sglang.launch_server", "--model-path", served_id(preset.target)]
    if preset.dtype != "auto":
        argv += ["--dtype", preset.dtype]
    if preset.quantization != "none":
        notes.append(f"the preset loads the target {preset.quantization} with bitsandbytes to fit one GPU; on SGLang "
                     "serve a quantized checkpoint (FP8/AWQ) or spread it with --tp-size")
    return argv + flags, notes
