"""Reading a saved JSON value field by field: the one reader of the arena's JSON files (race results, traces, plans),
every problem one :class:`ArenaError` line naming the file and the field's dotted path
(``t.json: result.assisted.tokens.3.status must be one of ...``).

The race result's and the trace's readers extend :class:`JsonReader` with the checks only they need; a saved plan's
draft length is read with it as it is (app/deploy/spec.py). :func:`json_ready` is the writing side for the typed
results that are dataclasses (a plan).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Sequence

from .errors import ArenaError
from .words import join


def python_kind(value: Any) -> str:
    """The Python name of `value`'s type ("int", "str"): how a race result's reader names a wrong type."""
    return type(value).__name__


def json_kind(value: Any) -> str:
    """The JSON name of `value`'s type as a person who wrote the file would say it ("a list", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}.get(type(value), "a value")


def shown(value: Any, most: int = 40) -> str:
    """`value` as it reads in the file (JSON), cut to `most` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= most else text[:most - 1] + "\u2026"


def _joined(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


class JsonReader:
    """Checks fields of one JSON value. where: the file (or what it is) every message starts with; kind: how a wrong
    type is named in a message (:func:`python_kind` or :func:`json_kind`)."""

    def __init__(self, where: str, kind: Callable[[Any], str] = python_kind):
        self.where, self.kind = where, kind

    def fail(self, path: str, problem: str) -> ArenaError:
        """'<where>: <path> <problem>' (no path: '<where>: <problem>')."""
        return ArenaError(join((f"{self.where}:", *([path] if path else []), problem)))

    def get(self, data: Any, key: str, kinds: tuple, path: str = "", optional: bool = False) -> Any:
        """data[key], which must be one of the types `kinds` (a bool is never a number); optional: absent or null
        gives None."""
        if not isinstance(data, dict):
            raise self.fail(path or "the file", "must be a JSON object")
        name = _joined(path, key)
        if key not in data:
            if optional:
                return None
            raise self.fail(name, "is missing")
        value = data[key]
        if value is None and optional:
            return None
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise self.fail(name, f"has the wrong type ({self.kind(value)})")
        return value

    def one_of(self, value: Any, choices: Sequence[str], path: str) -> Any:
        """`value` when it is one of `choices`, else the one line naming them."""
        if value not in choices:
            raise self.fail(path, f"must be one of {', '.join(choices)}; got {value!r}")
        return value


def omitted_when_none(**kwargs: Any) -> Any:
    """A dataclass field that :func:`json_ready` leaves out of the object when its value is None (a key some
    objects of the type have and others do not)."""
    return dataclasses.field(metadata={"omit_none": True}, **kwargs)


def not_in_json(**kwargs: Any) -> Any:
    """A dataclass field that :func:`json_ready` never writes (a value kept beside the JSON, not part of it)."""
    return dataclasses.field(metadata={"json": False}, **kwargs)


def json_ready(value: Any) -> Any:
    """`value` as plain JSON values: a dataclass as an object of its fields in order (its own ``to_dict`` when it has
    one; fields made with :func:`not_in_json` left out, those made with :func:`omitted_when_none` when None), lists
    and tuples as lists, dicts with each value converted."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return value.to_dict()
        return {f.name: json_ready(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.metadata.get("json", True) and not (f.metadata.get("omit_none") and getattr(value, f.name) is None)}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    return value
