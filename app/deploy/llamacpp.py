"""llama.cpp: ``llama-server -m TARGET.gguf --spec-type ...`` (sources checked: docs/DESIGN.md §4.7)."""

from __future__ import annotations

from typing import Callable

from ..core.presets import Preset
from .spec import gguf_name, gguf_notes

ENGINE = "llama.cpp"
TITLE = "llama.cpp"
CHECKED = ("ggml-org/llama.cpp tools/server/README.md (commit 00dc8057, generated from common/arg.cpp): "
           "speculative decoding options",)
#: Every flag this module may emit (a test checks the generated argv against it).
FLAGS = frozenset({"-m", "-md", "--spec-type", "--spec-draft-n-max", "--spec-draft-n-min",
                   "--spec-ngram-simple-size-n", "--spec-ngram-simple-size-m"})
#: --spec-type values this module may emit (common/speculative.cpp's name table).
SPEC_TYPES = frozenset({"draft-simple", "draft-mtp", "ngram-simple"})
MISSING = {
    "layerskip": ("llama.cpp has no early-exit self-drafting (LayerSkip)", "prompt-lookup"),
    "ensemble": ("llama.cpp verifies drafts against the target alone; it has no ensemble verification", "drafter"),
    "uad": ("llama.cpp refuses a draft model whose vocabulary differs from the target's", "prompt-lookup"),
    "glm-mtp": ("llama.cpp's draft-mtp runs the MTP heads of the architectures implemented in tree; GLM-4.5's "
                "NextN layer (glm4moe) is not among them at the version checked", "prompt-lookup"),
}


def _ngram(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", str(ngram),
             "--spec-ngram-simple-size-m", str(gamma)],
            ["ngram-simple drafts the m tokens that followed the last match of the current n-gram in the token "
             "history (prompt and output), like transformers' prompt lookup"])


def _drafter(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["-md", gguf_name(preset.assistant), "--spec-type", "draft-simple", "--spec-draft-n-max", str(gamma),
             "--spec-draft-n-min", "0"], gguf_notes(preset.assistant))


def _gemma(preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    return (["-md", gguf_name(preset.assistant), "--spec-type", "draft-mtp", "--spec-draft-n-max", str(gamma)],
            ["the Gemma 4 assistant runs as an MTP draft model (llama.cpp PR #23398)", *gguf_notes(preset.assistant)])


BUILDERS: dict[str, Callable[[Preset, int, int], tuple[list[str], list[str]]]] = {
    "prompt-lookup": _ngram, "drafter": _drafter, "gemma-drafter": _gemma}
ENGINE_METHODS = {"prompt-lookup": "n-gram lookup (--spec-type ngram-simple)",
                  "drafter": "a draft model (--spec-type draft-simple)",
                  "gemma-drafter": "the Gemma 4 assistant (--spec-type draft-mtp)"}


def command(method: str, preset: Preset, gamma: int, ngram: int) -> tuple[list[str], list[str]]:
    """(argv, notes) for `method` (a key of BUILDERS) on the preset's models."""
    flags, notes = BUILDERS[method](preset, gamma, ngram)
    notes = [*gguf_notes(preset.target), *notes,
             "builds before the --spec-* renaming name these flags --draft-max/--draft-min and "
             "--spec-ngram-size-n/-m"]
    return ["llama-server", "-m", gguf_name(preset.target), *flags], notes
