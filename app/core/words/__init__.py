"""Every word a visitor reads, in English, Korean and Indonesian (docs/DESIGN.md §4.10): one folder per language
(``en/``, ``ko/``, ``id/``), each holding the same JSON files of keys (one per surface: ``race.json``,
``planner.json``, ...) with the same keys and the same ``{placeholders}``, checked by tests/core/test_words_tables.py;
Korean and Indonesian also hold ``messages*.json`` (see :func:`translate`) and ``presets.json``
(app/render/preset_words.py).

- :func:`t` gives a key's text in the current language, formatted with its values.
- :func:`translate` gives a sentence written in English below the page (an error line, a loading message, a verdict)
  in the current language: ``messages.json`` maps such English sentences, as templates with ``{placeholders}``, to
  their translations; a sentence that matches a template comes back translated with its values in place, and any
  other sentence stays as it is.
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


#: The files of English sentence templates and their translations (not keys: see :func:`translate`): every file
#: whose name starts so (``messages.json``, ``messages-planner.json``, ...).
MESSAGES = "messages"


def is_messages(name: str) -> bool:
    """Whether the table file `name` holds sentence templates rather than keys."""
    return name.startswith(MESSAGES)


@lru_cache(maxsize=None)
def files(lang: str) -> dict[str, dict[str, str]]:
    """Each JSON file of `lang`'s folder by name (a missing language: none)."""
    folder = _FOLDER / lang
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, Any]:
    """`lang`'s whole table: ``words`` (key -> text, every surface's file together) and ``messages`` (English
    template -> its translation)."""
    parts = files(lang)
    merged: dict[str, str] = {}
    for name, part in parts.items():
        if not is_messages(name):
            merged.update(part)
    messages = {k: v for name, part in parts.items() if is_messages(name) for k, v in part.items()}
    return {"words": merged, "messages": messages}


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


def ui_words(lang: str) -> dict[str, str]:
    """The words of `lang` that gradio translates in the browser (the components' labels, help texts and choices:
    keys under ``ui.``), for ``gr.I18n``; English where a table lacks one."""
    english = {k: v for k, v in table(DEFAULT)["words"].items() if k.startswith("ui.")}
    return {**english, **{k: v for k, v in table(lang)["words"].items() if k.startswith("ui.")}}


def placeholders(text: str) -> set[str]:
    """The names of the ``{placeholders}`` in `text`."""
    return set(_PLACEHOLDER.findall(text))


@lru_cache(maxsize=None)
def _patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """(English template, the regex an English sentence of that template matches) for `lang`'s messages, the most
    specific first (the most words of their own, then the fewest placeholders), so the most specific wins. A
    placeholder that comes twice matches the same value twice."""
    out = []
    for template in table(lang)["messages"]:
        parts, last, seen = [], 0, set()
        for m in _PLACEHOLDER.finditer(template):
            name = m.group(1)
            parts.append(re.escape(template[last:m.start()]))
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.*?)")
            seen.add(name)
            last = m.end()
        parts.append(re.escape(template[last:]))
        own = len(_PLACEHOLDER.sub("", template))
        out.append((own, -len(seen), template, re.compile("".join(parts) + r"\Z", re.S)))
    out.sort(key=lambda item: (-item[0], -item[1], item[2]))
    return [(template, pattern) for _, _, template, pattern in out]


#: Where a text of several sentences is cut to translate each: after "; ", and after ". ", ": ", "! " or "? " before a
#: capital letter or a parenthesis. Each piece keeps its own end.
_SENTENCE_END = re.compile(r"(?<=;)\s+|(?<=[.:!?])\s+(?=[A-Z(])")
#: A piece's end that a template may leave out (the sentence it ends goes on after it).
_PIECE_END = re.compile(r"[.;:]\Z")


def _fill(text: str, values: dict[str, str]) -> str:
    """`text` with each ``{name}`` of `values` replaced by its value (not str.format: braces in a value, or a
    placeholder the values lack, stay as they are)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


@lru_cache(maxsize=4096)
def _one(text: str, lang: str) -> str | None:
    """`text` translated by the most specific template of `lang` it matches whole (a template without the text's
    final '.', ';' or ':' matches too, the end kept); None when none does."""
    candidates = [(text, "")]
    end = _PIECE_END.search(text)
    if end:
        candidates.append((text[:end.start()], end.group(0)))
    for piece, tail in candidates:
        for template, pattern in _patterns(lang):
            m = pattern.match(piece)
            if m:
                values = {name: translate(v) if name in SENTENCE_VALUES else v for name, v in m.groupdict().items()}
                done = _fill(table(lang)["messages"][template], values)
                return done if not tail or done.endswith(tail) else done + tail
    return None


#: Placeholders whose values are sentences themselves (translated in turn).
SENTENCE_VALUES = ("message", "reason", "detail", "exc", "error", "figures", "what", "source")


def translate(text: str) -> str:
    """`text`, English written below the page (an ArenaError's line, a progress message, a verdict), in the current
    language: whole, when a template of the ``messages*.json`` files matches it, else piece by piece (a piece: the
    longest run of its sentences that a template matches, or one sentence left as it is); values that are sentences
    themselves (a ``{message}``, a ``{reason}``) are translated too. Text no template matches stays as it is."""
    lang = language()
    if lang == DEFAULT or not text:
        return text
    whole = _one(text, lang)
    if whole is not None:
        return whole
    cuts = [m.span() for m in _SENTENCE_END.finditer(text)]
    if not cuts:
        return text
    starts = [0] + [b for _, b in cuts]
    ends = [a for a, _ in cuts] + [len(text)]
    out, i, n = [], 0, len(starts)
    while i < n:
        for j in range(n, i, -1):
            done = _one(text[starts[i]:ends[j - 1]], lang) if (i, j) != (0, n) else None
            if done is not None:
                break
        else:
            j, done = i + 1, text[starts[i]:ends[i]]
        out.append(done)
        if j < n:
            out.append(text[ends[j - 1]:starts[j]])
        i = j
    return "".join(out)
