"""What one request asks for: a preset with the user's overrides applied, the prompt, the seed, under the request's
:class:`Limits` (one way in for every front end: docs/DESIGN.md §4.5). Prompt files are read here with a byte cap.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import groupby
from pathlib import Path
from typing import Any

from .errors import ArenaError
from .knobs import KNOB_TABLE, REQUEST, Origin, blank, shown
from .presets import Preset, get_preset
from .sources import MAX_ID_CHARS, refuse_local_path
from .words import msg

#: A model field and the separate tokenizer id it makes stale when it changes.
MODEL_FIELDS = {"target": "tokenizer", "assistant": "assistant_tokenizer"}
#: The largest prompt or prompts file read (bytes); the prompt-token cap applies after encoding.
MAX_PROMPT_FILE_BYTES = 1_000_000
#: The longest prompt text accepted before encoding (characters), so a huge request is refused before the tokenizer.
MAX_PROMPT_CHARS = MAX_PROMPT_FILE_BYTES
#: The longest preset id looked up (characters); preset ids are short file names.
MAX_PRESET_ID_CHARS = 100
#: A line that separates prompts in a prompts file.
PROMPT_SEPARATOR = "---"


#: The most tokens one request may generate over all its races (warm-ups and planner passes included), on a page
#: reachable only from this machine and on a public one (a --share link or a Space). ``--work-budget-tokens`` sets it.
LOCAL_WORK_TOKENS = 250_000
PUBLIC_WORK_TOKENS = 8_000


@dataclass(frozen=True)
class Limits:
    """What one request may ask for (docs/DESIGN.md §4.5); the defaults are the safe side, a public page's.

    max_prompt_tokens / max_new_tokens: per race; allow_local: local folders as model ids; trust_remote_code: run code
    from model repositories; work_tokens, max_model_bytes (hub weights), plan_prompts, bench_races: None is no limit.
    """

    max_prompt_tokens: int = 4096
    max_new_tokens: int = 512
    allow_local: bool = False
    trust_remote_code: bool = False
    work_tokens: int | None = PUBLIC_WORK_TOKENS
    max_model_bytes: int | None = None
    plan_prompts: int | None = 8
    bench_races: int | None = 300

    @classmethod
    def operator(cls) -> "Limits":
        """The command line's limits: the person at the keyboard owns the machine (local folders, no work budget)."""
        return cls(max_prompt_tokens=32_768, max_new_tokens=int(KNOB_TABLE["max_new_tokens"].high), allow_local=True,
                   work_tokens=None, plan_prompts=None, bench_races=None)

    def check_prompt_tokens(self, n_prompt: int) -> None:
        """ArenaError when an encoded prompt of `n_prompt` tokens is longer than `max_prompt_tokens` (a transformers
        race counts with its tokenizer, an engine race with the engine's: app/engine/run.py)."""
        if n_prompt > self.max_prompt_tokens:
            raise ArenaError(msg("The prompt is {n_prompt} tokens; this server accepts at most {max_prompt_tokens}.",
                                 n_prompt=n_prompt, max_prompt_tokens=self.max_prompt_tokens))

    def check_work(self, tokens: int, what: str, fewer: str) -> None:
        """ArenaError when `what` would generate more than `work_tokens` tokens; `fewer` says what to ask for less of."""
        if self.work_tokens is not None and tokens > self.work_tokens:
            raise ArenaError(msg("This {what} would generate about {tokens} tokens; this server allows {work_tokens} per "
                                 "request: {fewer}.", what=what, tokens=f"{tokens:,}", work_tokens=f"{self.work_tokens:,}",
                                 fewer=fewer))


@dataclass(frozen=True)
class RaceRequest:
    """A validated request: the preset with every override applied, the prompt and the RNG seed."""

    preset: Preset
    prompt: str
    seed: int | None = None
    limits: Limits = Limits()

    @property
    def signature(self) -> tuple:
        """Identifies the settings, so a race and a measurement of the same settings pair up."""
        return (self.preset, self.prompt, self.seed)


def apply_overrides(base: Preset, changes: dict[str, Any], origin: Origin = REQUEST) -> Preset:
    """`base` with `changes` applied and checked.

    A key that is absent keeps the preset's value; a knob set to None is cleared (transformers'
    default). A blank target/assistant keeps the preset's model; a different one drops the preset's
    separate tokenizer id. Errors name `origin` (the preset file, a flag, or the request).
    """
    changes = dict(changes)
    for name, tokenizer_field in MODEL_FIELDS.items():
        value = changes.pop(name, None)
        if not blank(value) and check_model_id(value, name, origin).strip() != (getattr(base, name) or ""):
            changes[name], changes[tokenizer_field] = value.strip(), None
    return base.with_overrides(changes, origin) if changes else base


def check_model_id(value: Any, name: str, origin: Origin = REQUEST) -> str:
    """A model id as given (text, at most MAX_ID_CHARS characters, printable); checked before any filesystem call."""
    if not isinstance(value, str):
        raise origin.blame(name, f"must be a model id, got {shown(value)}")
    if len(value.strip()) > MAX_ID_CHARS:
        raise origin.blame(name, f"is {len(value.strip())} characters long; a model id has at most {MAX_ID_CHARS}")
    if not value.strip().isprintable():
        raise origin.blame(name, f"contains control or invisible characters: {shown(value)}")
    return value


def check_prompt_text(prompt: Any, origin: Origin = REQUEST) -> Any:
    """The prompt as given: text of at most MAX_PROMPT_CHARS characters (a list goes on to the batch check)."""
    if prompt is None:
        return ""
    if isinstance(prompt, (list, tuple)):
        return prompt
    if not isinstance(prompt, str):
        raise origin.blame("prompt", f"must be text, got {shown(prompt)}")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise origin.blame("prompt", f"is {len(prompt):,} characters long; at most {MAX_PROMPT_CHARS:,} are accepted")
    return prompt


def check_seed(seed: Any, origin: Origin = REQUEST) -> int | None:
    """A seed within 0..2**63-1 (None or blank: random)."""
    return None if blank(seed) else KNOB_TABLE["seed"].check(seed, origin)


def check_single_prompt(prompt: Any) -> str:
    """A single non-empty prompt, or a clear error (a transformers race and an engine race alike)."""
    if isinstance(prompt, (list, tuple)):
        raise ArenaError(msg("Assisted generation runs one prompt at a time (batch size 1): race the prompts one after "
                             "another instead of as a batch."))
    if not isinstance(prompt, str) or not prompt.strip():
        raise ArenaError(msg("The prompt is empty: type some text to continue or a question to answer."))
    return prompt


def check_token_cap(max_new_tokens: int, limits: Limits, origin: Origin = REQUEST) -> int:
    """`max_new_tokens` (already a valid knob value) if it is within this server's cap; else the one-line refusal,
    worded as the knob's own range error with the cap as its bound (one wording whatever the number)."""
    return _capped(limits).check(max_new_tokens, origin)


def check_new_tokens(value: Any, limits: Limits, origin: Origin = REQUEST) -> int | None:
    """A max_new_tokens value within 1..`limits.max_new_tokens` (None or blank: not set, the preset's)."""
    return None if blank(value) else _capped(limits).check(value, origin)


def _capped(limits: Limits) -> Any:
    """The max_new_tokens knob with this server's cap as its upper bound."""
    return replace(KNOB_TABLE["max_new_tokens"], high=min(KNOB_TABLE["max_new_tokens"].high, limits.max_new_tokens))


def build_preset(preset_id: Any, changes: dict[str, Any], limits: Limits, origin: Origin = REQUEST) -> Preset:
    """The preset `preset_id` with `changes` applied (:func:`apply_overrides`), within `limits`
    (:func:`within_limits`); a max_new_tokens change is checked against the server's cap first, so a number above it
    gets the same line however far above it is."""
    if "max_new_tokens" in changes:
        check_new_tokens(changes["max_new_tokens"], limits, origin)
    return within_limits(apply_overrides(get_preset(check_preset_id(preset_id, origin)), changes, origin), limits,
                         origin)


def within_limits(preset: Preset, limits: Limits, origin: Origin = REQUEST) -> Preset:
    """`preset` when it keeps to `limits`: the token cap, and model ids that name no local folder unless the limits
    allow them (checked on the text, before any file call)."""
    check_token_cap(preset.max_new_tokens, limits, origin)
    if not limits.allow_local:
        for spec in filter(None, (preset.target, preset.assistant, preset.tokenizer, preset.assistant_tokenizer)):
            refuse_local_path(spec)
    return preset


def build_request(preset_id: str, prompt: Any, changes: dict[str, Any], seed: Any = None,
                  origin: Origin = REQUEST, limits: Limits = Limits()) -> RaceRequest:
    """The request for `preset_id` with `changes` (see :func:`build_preset`), `prompt` and `seed`, under `limits`
    (the server's, or :meth:`Limits.operator` for the command line). Every way in builds its work through here."""
    prompt = check_prompt_text(prompt, origin)
    seed = check_seed(seed, origin)
    preset = build_preset(preset_id, changes, limits, origin)
    limits.check_work(race_tokens(preset.max_new_tokens), "race", "ask for fewer new tokens")
    return RaceRequest(preset, prompt, seed, limits)


#: Tokens per side of the warm-up before a sequential (measured) race (docs/DESIGN.md §4).
WARMUP_TOKENS = 8


def race_tokens(max_new_tokens: int, sequential: bool = True) -> int:
    """The most tokens one race generates: both sides, plus the warm-up when it is sequential."""
    return 2 * max_new_tokens + (2 * WARMUP_TOKENS if sequential else 0)


def check_preset_id(preset_id: Any, origin: Origin = REQUEST) -> str:
    """A preset id as text (short, printable, stripped); whether it exists is :func:`get_preset`'s check."""
    if (not isinstance(preset_id, str) or not preset_id.strip() or len(preset_id) > MAX_PRESET_ID_CHARS
            or not preset_id.isprintable()):
        raise origin.blame("preset", f"must name a preset (see `python -m app presets`); got {shown(preset_id)}")
    return preset_id.strip()


def read_text_file(path: Path | str, what: str = "prompt file", max_bytes: int = MAX_PROMPT_FILE_BYTES) -> str:
    """The UTF-8 text of `path`, reading at most `max_bytes` (a bigger file is an error, not a hang)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte or an unencodable character in the name
        raise ArenaError(msg("Cannot read {what} {shown}: {strerror}", what=what, shown=shown(str(path)),
                             strerror=getattr(exc, 'strerror', None) or exc)) from None
    if len(data) > max_bytes:
        raise ArenaError(msg("The {what} {shown} is larger than {max_bytes} kB: give a shorter prompt.", what=what,
                             shown=shown(str(path)), max_bytes=max_bytes // 1000))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ArenaError(msg("The {what} {shown} is not UTF-8 text.", what=what, shown=shown(str(path)))) from None


def split_prompts(text: str) -> list[str]:
    """Prompts in `text`: blocks separated by '---' lines when there are any, else one per line."""
    lines = text.splitlines()
    if not any(line.strip() == PROMPT_SEPARATOR for line in lines):
        return [line.strip() for line in lines if line.strip()]
    groups = groupby(lines, key=lambda line: line.strip() == PROMPT_SEPARATOR)
    return [block for is_separator, group in groups if not is_separator and (block := "\n".join(group).strip())]
