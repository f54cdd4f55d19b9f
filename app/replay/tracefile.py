"""A trace: one finished race as one JSON file, with where, when and how it ran (format: docs/DESIGN.md §4.3);
:func:`load_trace` checks a file field by field, anything malformed one ArenaError naming the file and field."""

from __future__ import annotations

import json
import math
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.jsonfields import JsonReader, json_kind, shown
from ..core.machine import race_environment
from ..core.words import join, msg
from ..race.result import RaceResult

FORMAT = "assisted-decoding-arena trace"
VERSION = 1
#: The largest trace file read (bytes); one race of 4096 tokens a side is about 1.5 MB.
MAX_TRACE_BYTES = 16_000_000


@dataclass
class Trace:
    """A trace as read back. result: the race, with both sides' token_times; baseline_texts: each baseline
    token's text (assisted texts are on ``result.assisted.tokens``); verdict: the why sentence (None if absent);
    data: the file's object as read (for re-saving)."""

    recorded_at: str
    environment: dict[str, Any]
    settings: dict[str, Any]
    prompt: str
    result: RaceResult
    baseline_texts: list[str]
    verdict: str | None = None
    data: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def max_new_tokens(self) -> int | None:
        value = self.settings.get("max_new_tokens")
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


# ----- building --------------------------------------------------------------------------------------------
def settings(request: Any, mode: str) -> dict[str, Any]:
    """How it ran: the preset with the request's overrides (an app.core.requests.RaceRequest), seed and mode."""
    p = request.preset
    return {"preset": p.id, "method": p.method, "target": p.target, "assistant": p.assistant, "knobs": p.knobs(),
            "max_new_tokens": p.max_new_tokens, "do_sample": p.do_sample, "temperature": p.temperature,
            "top_p": p.top_p, "seed": request.seed, "chat_template": p.chat_template, "mode": mode}


def build_trace(request: Any, result: RaceResult) -> dict[str, Any]:
    """The trace object of a finished race's `result`, run for `request` (a RaceRequest); a failed race has none."""
    _check_finished(result)
    return assemble_trace(settings(request, result.mode), request.prompt, result)


def _check_finished(result: RaceResult) -> None:
    if result.errors:
        raise ArenaError(msg("The race failed ({value}), so there is no trace to save.",
                             value=join((join((s, m), ": ") for s, m in result.errors.items()), "; ")))


def assemble_trace(how: dict[str, Any], prompt: str, result: RaceResult, data: dict[str, Any] | None = None,
                   env: dict[str, Any] | None = None) -> dict[str, Any]:
    """A trace object from its parts: `how` it ran (the settings), the prompt, the result; data: the result's JSON
    when the caller adds keys to it (an engine race's ``engine``, docs/DESIGN.md §4.7); env: where it ran (default:
    this machine). A failed race has none."""
    _check_finished(result)
    data = dict(data) if data is not None else result.to_dict()
    data["baseline"]["token_texts"] = list(result.baseline.token_texts)
    return {"format": FORMAT, "version": VERSION,
            "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "environment": env or race_environment(result.device, result.dtype, result.threads),
            "settings": how, "prompt": prompt, "result": data}


def engine_trace(race: Any, prompt: str, max_new_tokens: int) -> dict[str, Any]:
    """The trace of a finished engine race (an app.engine.result.EngineRace, docs/DESIGN.md §4.7): its settings name
    the engine and where the statuses came from, its environment the engine rather than this machine's CPU (the
    tokens were made on the engine's server), and its result keeps ``engine``."""
    engine = race.engine
    how = {"preset": race.result.preset, "method": race.result.method, "target": race.result.target, "assistant": None,
           "knobs": {}, "max_new_tokens": max_new_tokens, "do_sample": False, "seed": None, "mode": "sequential",
           "engine": engine["name"], "status_source": race.status_source}
    env = race_environment(race.result.device, None, None, f"{engine['name']} {engine.get('version') or ''}".strip())
    return assemble_trace(how, prompt, race.result, race.to_dict(), env)


def save_trace(trace: dict[str, Any], path: Path | str) -> Path:
    """Write `trace` as UTF-8 JSON to `path` (whole or not at all: a temporary file renamed into place)."""
    path = Path(path)
    check_writable(path, "trace")
    text = json.dumps(trace, ensure_ascii=False)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArenaError(msg("Cannot write the trace to {path}: {strerror}", path=path, strerror=exc.strerror or exc)) from None
    return path


def check_writable(path: Path, what: str) -> None:
    """A clear error now (before a long race) when `path` cannot be written: no folder, or a folder itself."""
    if path.is_dir():
        raise ArenaError(msg("Cannot write the {what} to {path}: it is a folder; give a file name.", what=what, path=path))
    if not path.parent.is_dir():
        raise ArenaError(msg("Cannot write the {what} to {path}: the folder {parent} does not exist.", what=what, path=path,
                             parent=path.parent))


# ----- reading ---------------------------------------------------------------------------------------------
def read_trace_file(path: Path | str, max_bytes: int = MAX_TRACE_BYTES) -> Any:
    """The JSON value in `path`, reading at most `max_bytes`; ArenaError for a missing, huge or non-JSON file."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise ArenaError(msg("Cannot read the trace {path}: {strerror}", path=path, strerror=exc.strerror or exc)) from None
    if len(raw) > max_bytes:
        raise ArenaError(msg("{name} is larger than {max_bytes} MB: a race trace is far smaller; is it the right file?",
                             name=path.name, max_bytes=max_bytes // 1_000_000))
    if not raw.strip():
        raise ArenaError(msg("{name} is empty: it is not a trace.", name=path.name))
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ArenaError(msg("{name} is not UTF-8 text: it is not a trace.", name=path.name)) from None
    except json.JSONDecodeError as exc:
        raise ArenaError(msg("{name} is not valid JSON (line {lineno}, column {colno}: {msg}).", name=path.name,
                             lineno=exc.lineno, colno=exc.colno, msg=exc.msg)) from None
    except RecursionError:
        raise ArenaError(msg("{name} nests too deeply to be a trace.", name=path.name)) from None


def load_trace(path: Path | str, max_bytes: int = MAX_TRACE_BYTES) -> Trace:
    """Read and check the trace in `path` (see :func:`parse_trace`)."""
    return parse_trace(read_trace_file(path, max_bytes), Path(path).name)


def parse_trace(data: Any, where: str = "trace") -> Trace:
    """Check a trace object field by field; ArenaError naming `where` and the first bad field."""
    return _TraceReader(where).trace(data)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def not_a_trace(data: dict) -> str:
    """What is wrong with a JSON object whose "format" is not a trace's, in words (docs/DESIGN.md §4.3)."""
    save = "save a race with --save-trace or the Race tab's trace download"
    found = data.get("format")
    if "format" not in data:
        if isinstance(data.get("baseline"), dict) and isinstance(data.get("assisted"), dict):
            return f"it is a race's result without the trace around it (no \"format\" field); {save}"
        return f"it has no \"format\" field, which every trace file has; {save}"
    if isinstance(found, str):
        return f"its \"format\" field says \u201c{found[:80]}\u201d, where a trace's says \u201c{FORMAT}\u201d"
    return f"its \"format\" field is {shown(found)}, where a trace's is the text \u201c{FORMAT}\u201d"


class _TraceReader(JsonReader):
    """Checks the envelope, then the result (RaceResult.from_dict), then what a replay needs beyond the contract;
    a wrong type is named as JSON names it (text, a number, a list)."""

    def __init__(self, where: str):
        super().__init__(where, json_kind)

    def envelope(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise self.fail("", f"is not a trace (a JSON object is expected, found {json_kind(data)})")
        if data.get("format") != FORMAT:
            raise self.fail("", f"is not an assisted-decoding-arena trace: {not_a_trace(data)}")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise self.fail("version", f"must be a whole number from 1; got {shown(version)}")
        if version > VERSION:
            raise self.fail("", f"was written by a newer version of the app (trace version {version}; this one reads "
                                f"version {VERSION}): update the app to replay it")

    def when(self, data: dict) -> str:
        recorded = self.get(data, "recorded_at", (str,))
        try:
            datetime.fromisoformat(recorded)
        except ValueError:
            raise self.fail("recorded_at", f"is not an ISO 8601 date: {shown(recorded)}") from None
        return recorded

    def times(self, side: dict, name: str, count: int) -> list[float]:
        times = self.get(side, "token_times", (list,), name)
        if len(times) != count:
            raise self.fail(f"{name}.token_times", f"has {len(times)} times for {count} tokens")
        if not all(_number(t) and t >= 0 for t in times):
            raise self.fail(f"{name}.token_times", "must be seconds (numbers from 0)")
        if any(b < a for a, b in zip(times, times[1:])):
            raise self.fail(f"{name}.token_times", "must not go back in time")
        return [float(t) for t in times]

    def extras(self, raw: dict, result: RaceResult) -> list[str]:
        """Token times of both sides and the baseline texts (checked against the token counts)."""
        base, assisted = raw["baseline"], raw["assisted"]
        if [t.id for t in result.assisted.tokens] != result.assisted.token_ids:
            raise self.fail("result.assisted.tokens", "do not match result.assisted.token_ids")
        result.baseline.token_times = self.times(base, "result.baseline", result.baseline.new_tokens)
        result.assisted.token_times = self.times(assisted, "result.assisted", result.assisted.new_tokens)
        texts = self.get(base, "token_texts", (list,), "result.baseline")
        if len(texts) != result.baseline.new_tokens or not all(isinstance(t, str) for t in texts):
            raise self.fail("result.baseline.token_texts", f"must be {result.baseline.new_tokens} texts, one per token")
        for name, side in (("baseline", result.baseline), ("assisted", result.assisted)):
            if side.token_times and side.token_times[-1] > side.seconds + 1e-3:
                raise self.fail(f"result.{name}.token_times", f"end after result.{name}.seconds")
        return list(texts)

    def trace(self, data: Any) -> Trace:
        self.envelope(data)
        recorded = self.when(data)
        env, sets = self.get(data, "environment", (dict,)), self.get(data, "settings", (dict,))
        self.get(env, "device", (str,), "environment")
        prompt = self.get(data, "prompt", (str,))
        raw = self.get(data, "result", (dict,))
        try:
            result = RaceResult.from_dict(raw, f"{self.where}: result")
        except (TypeError, ValueError, AttributeError):  # from_dict checks types; this is a last guard
            raise self.fail("result", "is malformed: a field has the wrong shape") from None
        texts = self.extras(raw, result)
        why = raw.get("why")
        verdict = why.get("verdict") if isinstance(why, dict) and isinstance(why.get("verdict"), str) else None
        return Trace(recorded, dict(env), dict(sets), prompt, result, texts, verdict, data)
