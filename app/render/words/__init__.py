"""Every word a visitor reads, in English, Korean and Indonesian (docs/DESIGN.md §4.10): one table per language in
this folder (``en.json``, ``ko.json``, ``id.json``, the same keys with the same ``{placeholders}``), checked by
tests/test_words_tables.py.

- :func:`t` gives a key's text in the current language, formatted with its values.
- :func:`translate` gives a sentence written below the render floor in English (an error line, a loading message, a
  verdict) in the current language: the ``messages`` part of each table holds those sentences as templates, and a
  sentence that matches one comes back translated with its values in place; any other sentence stays as it is.
- The current language is a context variable: the page sets it from the visitor's choice for the length of each
  event (app/ui/language.py); everywhere else (the command line, a trace, the JSON) it stays English.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

#: The page's languages: code -> its own name (what the switch shows).
LANGUAGES = {"en": "English", "ko": "\ud55c\uad6d\uc5b4", "id": "Bahasa Indonesia"}
DEFAULT = "en"
_CURRENT: ContextVar[str] = ContextVar("arena_language", default=DEFAULT)
_FOLDER = Path(__file__).parent
_PLACEHOLDER = re.compile(r"\{(\w+)(?::[^{}]*)?\}")


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, Any]:
    """The whole table of `lang` (``words``: key -> text; ``messages``: template id -> template)."""
    return json.loads((_FOLDER / f"{lang}.json").read_text(encoding="utf-8"))


def language() -> str:
    """The current language's code."""
    return _CURRENT.get()


@contextmanager
def speaking(lang: str | None) -> Iterator[str]:
    """Within the block, :func:`t` and :func:`translate` answer in `lang` (an unknown one: English)."""
    token = _CURRENT.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def t(key: str, /, **values: Any) -> str:
    """The text of `key` in the current language (English where a table lacks it, which the tests forbid), with
    `values` formatted into its ``{placeholders}``."""
    words = table(language())["words"]
    text = words.get(key)
    if text is None:
        text = table(DEFAULT)["words"][key]  # a KeyError here is a key missing from English: a bug
    return text.format(**values) if values else text


def words(prefix: str) -> dict[str, str]:
    """Every key under ``prefix.`` in the current language, without the prefix (the player's words)."""
    start = prefix + "."
    return {k[len(start):]: t(k) for k in table(DEFAULT)["words"] if k.startswith(start)}


def placeholders(text: str) -> set[str]:
    """The names of the ``{placeholders}`` in `text`."""
    return set(_PLACEHOLDER.findall(text))


@lru_cache(maxsize=None)
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(template id, the regex an English sentence of that template matches), longest templates first so the most
    specific wins."""
    out = []
    for key, template in table(DEFAULT)["messages"].items():
        parts, last = [], 0
        for m in _PLACEHOLDER.finditer(template):
            parts.append(re.escape(template[last:m.start()]))
            parts.append(f"(?P<{m.group(1)}>.+?)")
            last = m.end()
        parts.append(re.escape(template[last:]))
        out.append((key, re.compile("".join(parts) + r"\Z", re.S)))
    return sorted(out, key=lambda kp: -len(table(DEFAULT)["messages"][kp[0]]))


def translate(text: str) -> str:
    """`text`, an English sentence from below (an ArenaError's line, a progress message, a verdict), in the current
    language when a template of the ``messages`` table matches it; values that are sentences themselves (a
    ``{message}`` or ``{reason}``) are translated too. Any other text comes back as it is."""
    if language() == DEFAULT or not text:
        return text
    messages = table(language())["messages"]
    for key, pattern in _patterns():
        m = pattern.match(text)
        if m and key in messages:
            values = {name: translate(v) if name in ("message", "reason", "detail") else v
                      for name, v in m.groupdict().items()}
            return messages[key].format(**values)
    return text
