"""Reading a saved JSON value field by field: the one reader of the arena's JSON files (race results, traces, plans),
every problem one :class:`ArenaError` line naming the file and the field's dotted path
(``t.json: result.assisted.tokens.3.status must be one of ...``).

:class:`JsonReader` reads single fields (:meth:`~JsonReader.get`) and whole dataclasses from their type hints
(:meth:`~JsonReader.typed`: the reader of a saved plan); the race result's and the trace's readers extend it with the
checks only they need.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any, Callable, Sequence

from .errors import ArenaError


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
        return ArenaError(f"{self.where}: {path} {problem}" if path else f"{self.where}: {problem}")

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

    # ----- whole dataclasses, from their type hints ------------------------------------------------------------
    def typed(self, cls: type, data: Any, path: str = "") -> Any:
        """An instance of the dataclass `cls` read from the object `data`: each field by its type hint (numbers,
        text, true/false, null for ``X | None``, lists, objects, nested dataclasses; ``Any`` as it is); a field with
        a default may be absent; keys the class does not have are left out (a newer file still reads). A class with
        a ``read_json(reader, data, path)`` classmethod reads itself."""
        if hasattr(cls, "read_json"):
            return cls.read_json(self, data, path)
        return cls(**self.typed_fields(cls, data, path))

    def typed_fields(self, cls: type, data: Any, path: str = "") -> dict[str, Any]:
        """The keyword arguments :meth:`typed` builds `cls` from (for classes that read themselves)."""
        if not isinstance(data, dict):
            raise self.fail(path or "the file", "must be a JSON object")
        hints = typing.get_type_hints(cls)
        out = {}
        for f in dataclasses.fields(cls):
            if not f.init or f.metadata.get("json") is False:
                continue
            if f.name not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise self.fail(_joined(path, f.name), "is missing")
                continue
            out[f.name] = self.value(hints[f.name], data[f.name], _joined(path, f.name))
        return out

    def value(self, hint: Any, value: Any, path: str) -> Any:
        """`value` read as the type `hint` says (see :meth:`typed`)."""
        if hint is Any:
            return value
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            if value is None and type(None) in args:
                return None
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1:
                return self.value(rest[0], value, path)
            return self._first_fitting(rest, value, path)
        if origin in (list, tuple, Sequence):
            items = self._of_type(value, (list,), path)
            inner = args[0] if args else Any
            read = [self.value(inner, item, f"{path}.{i}") for i, item in enumerate(items)]
            return tuple(read) if origin is tuple else read
        if origin is dict or hint is dict:
            items = self._of_type(value, (dict,), path)
            inner = args[1] if len(args) == 2 else Any
            return {str(k): self.value(inner, v, f"{path}.{k}") for k, v in items.items()}
        if dataclasses.is_dataclass(hint):
            return self.typed(hint, self._of_type(value, (dict,), path), path)
        if hint is float:
            return self._of_type(value, (int, float), path)  # kept as written: a whole number stays one
        return self._of_type(value, (hint,), path)

    def _of_type(self, value: Any, kinds: tuple, path: str) -> Any:
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise self.fail(path, f"has the wrong type ({self.kind(value)})")
        return value

    def _first_fitting(self, hints: list, value: Any, path: str) -> Any:
        """The first of several types that `value` reads as (a union of dataclasses or scalars); the first one's
        error when none does."""
        first: ArenaError | None = None
        for hint in hints:
            try:
                return self.value(hint, value, path)
            except ArenaError as exc:
                first = first or exc
        raise first
