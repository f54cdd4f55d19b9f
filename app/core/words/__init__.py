"""Every word a visitor reads, in English, Korean and Indonesian (docs/DESIGN.md §4.10).

- Keys: one folder per language (``en/``, ``ko/``, ``id/``), each holding the same JSON files of keys (one per
  surface: ``race.json``, ``planner.json``, ...) with the same keys and the same ``{placeholders}``, checked by
  tests/core/test_words_tables.py; Korean and Indonesian also hold ``presets.json`` (app/render/preset_words.py).
  :func:`t` gives a key's text in the current language, formatted with its values.
- Sentences written below the page (an error line, a loading message, a verdict) are messages (:class:`Message`) made by
  :func:`msg` from an English template and its values: each is its English text, and keeps the template, which is
  a message id of the gettext catalogs ``locale/<lang>/LC_MESSAGES/messages.po`` (Babel's; ``python -m
  app.core.words.catalogs`` extracts and updates them). :func:`translate` gives a Message in the current language
  (its template's translation, formatted with its values, which are translated in turn); any other text stays as
  it is.
- The current language is a context variable: the page sets it from the visitor's choice for the length of each
  event (app/ui/language.py); everywhere else (the command line, a trace, the JSON) it stays English.
"""

from __future__ import annotations

import json
import string
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

#: The page's languages: code -> its own name (what the switch shows).
LANGUAGES = {"en": "English", "ko": "\ud55c\uad6d\uc5b4", "id": "Bahasa Indonesia"}
DEFAULT = "en"
_CURRENT: ContextVar[str] = ContextVar("arena_language", default=DEFAULT)
_FOLDER = Path(__file__).parent
#: Where the gettext catalogs are: ``<lang>/LC_MESSAGES/messages.po`` (and the template ``messages.pot``).
LOCALE = _FOLDER / "locale"
DOMAIN = "messages"


@lru_cache(maxsize=None)
def files(lang: str) -> dict[str, dict[str, str]]:
    """Each JSON file of `lang`'s folder by name (a missing language: none)."""
    folder = _FOLDER / lang
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, str]:
    """`lang`'s table of keys: key -> text, every surface's file together."""
    merged: dict[str, str] = {}
    for part in files(lang).values():
        merged.update(part)
    return merged


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
    words = table(language())
    text = words.get(key)
    if text is None:
        text = table(DEFAULT)[key]  # a KeyError here is a key missing from English: a bug
    return text.format(**values) if values else text


def words(prefix: str) -> dict[str, str]:
    """Every key under ``prefix.`` in the current language, without the prefix (the player's words)."""
    start = prefix + "."
    return {k[len(start):]: t(k) for k in table(DEFAULT) if k.startswith(start)}


def ui_words(lang: str) -> dict[str, str]:
    """The words of `lang` that gradio translates in the browser (the components' labels, help texts and choices:
    keys under ``ui.``), for ``gr.I18n``; English where a table lacks one."""
    english = {k: v for k, v in table(DEFAULT).items() if k.startswith("ui.")}
    return {**english, **{k: v for k, v in table(lang).items() if k.startswith("ui.")}}


def placeholders(text: str) -> set[str]:
    """The names of the ``{placeholders}`` in `text` (:func:`fields`, without their format specs)."""
    return {name for name, _ in fields(text)}


class Message(str):
    """A sentence written in English below the page, made by :func:`msg`: the string is its English text (what the
    command line, the JSON and the traces keep), and it remembers the ``template`` it was formatted from (a message
    id of the catalogs) and its ``values``, so the page can translate it whole (:func:`translate`). ``str()`` of a
    Message (and so of an ArenaError holding one) is the Message itself; anything else done to it as a string (a
    slice, ``+``, an f-string) gives plain English text, which is no longer translated: join Messages with
    :func:`join`."""

    template: str
    values: dict[str, Any]

    def __new__(cls, text: str = "", template: str | None = None, values: Mapping[str, Any] | None = None) -> "Message":
        self = super().__new__(cls, text)
        self.template = _escape(text) if template is None else template
        self.values = dict(values or {})
        return self

    def __str__(self) -> "Message":
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copy, deepcopy (dataclasses.asdict) and pickle keep it a Message
        return Message, (str.__str__(self), self.template, self.values)

    def squeezed(self) -> "Message":
        """The same message with its English text's whitespace collapsed (one line: ArenaError's)."""
        return Message(" ".join(self.split()), self.template, self.values)


def _escape(text: str) -> str:
    """`text` as a template that formats to itself (its braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def _value(value: Any) -> Any:
    """A value as a Message keeps it: text and numbers as they are (a format spec in the template formats them),
    anything else as its ``str()`` (an ArenaError: its Message)."""
    return value if isinstance(value, (str, int, float)) or value is None else str(value)


def msg(template: str, /, **values: Any) -> Message:
    """The Message of `template` (English, with ``{name}`` placeholders, a message id of the catalogs) formatted with
    `values` (``msg("Unknown preset {name}.", name=x)``). `pybabel extract -k msg` finds every template."""
    kept = {name: _value(v) for name, v in values.items()}
    return Message(template.format_map(kept), template, kept)


def join(parts: Iterable[str], separator: str = " ") -> Message:
    """One Message of `parts` (Messages or plain text) with `separator` between them: its translation is each part's
    translation, joined the same way (the separator is not translated)."""
    parts = list(parts)
    names = [f"part{i}" for i in range(len(parts))]
    template = _escape(separator).join("{" + name + "}" for name in names)
    return Message(separator.join(parts), template, dict(zip(names, parts)))


def message_data(text: Any) -> dict[str, Any] | None:
    """A :class:`Message` as JSON, for a file that keeps a sentence (a benchmark file's verdict reasons): its template and
    its values, a value that is a Message as its own data; None for anything else (plain text)."""
    if not isinstance(text, Message):
        return None
    return {"template": text.template,
            "values": {k: message_data(v) if isinstance(v, Message) else v for k, v in text.values.items()}}


def _known_template(template: str, its_fields: list[tuple[str, str]]) -> bool:
    """Whether `template` (whose :func:`fields` are `its_fields`) is one of the catalogs' message ids, or a
    :func:`join` of parts: a file names no other."""
    if template in catalog_ids():
        return True
    return bool(its_fields) and its_fields == [(f"part{i}", "") for i in range(len(its_fields))]


def message_from(text: Any, data: Any) -> Any:
    """The Message that `data` (:func:`message_data`'s) describes, when it is made of known templates and formats to
    `text` again (the file's English sentence and the message kept beside it agree): so a file read back translates
    whole. Anything else gives `text` as it is (plain text, shown as written)."""
    built = _message(data)
    return built if built is not None and isinstance(text, str) and str.__str__(built) == text else text


def _message(data: Any) -> Message | None:
    if not isinstance(data, dict) or not isinstance(data.get("template"), str) or not isinstance(data.get("values"), dict):
        return None
    template, values = data["template"], {}
    its_fields = fields(template)
    if not _known_template(template, its_fields) or {name for name, _ in its_fields} - set(data["values"]):
        return None
    for name, value in data["values"].items():
        value = _message(value) if isinstance(value, dict) else value
        if not (isinstance(value, (str, int, float)) or value is None):
            return None  # a bool, a list: not what msg() keeps; a nested dict that is no message
        values[name] = value
    try:
        return Message(template.format_map(values), template, values)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


def fields(template: str) -> list[tuple[str, str]]:
    """The ``(name, format spec)`` of each replacement field of `template`, in order (str.format's parser)."""
    return [(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template) if name is not None]


def read_catalog(path: Path) -> dict[str, str]:
    """The translations of the gettext catalog at `path` (a ``.po`` file, read with Babel): message id -> its
    translation. A fuzzy entry (a template reworded since it was translated, which ``pybabel update`` marks so) and an
    empty one are left out: their sentences stay English until a translator confirms them."""
    return {m.id: m.string for m in _entries(path) if m.string and not m.fuzzy}


def _entries(path: Path) -> list[Any]:
    """The messages of the gettext catalog or template at `path` that have a (singular) message id, read with Babel."""
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return [m for m in read_po(f) if isinstance(m.id, str) and m.id]


@lru_cache(maxsize=None)
def catalog_ids() -> frozenset[str]:
    """Every message id of the catalogs (the template ``locale/messages.pot``, which ``pybabel extract`` writes)."""
    path = LOCALE / f"{DOMAIN}.pot"
    return frozenset(m.id for m in _entries(path)) if path.is_file() else frozenset()


@lru_cache(maxsize=None)
def catalog(lang: str) -> dict[str, str]:
    """`lang`'s translations (:func:`read_catalog` of ``locale/<lang>/LC_MESSAGES/messages.po``; none for English or a
    language without a catalog)."""
    path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    return read_catalog(path) if path.is_file() else {}


def translate(text: Any) -> Any:
    """`text` in the current language: a :class:`Message` becomes its template's translation from the current
    language's catalog (the English template where the catalog lacks it) formatted with its values, each value that
    is a Message translated in turn; anything else (a plain string: a user's text, a model's, a file name) comes back
    as it is. In English a Message is its own text."""
    if not isinstance(text, Message):
        return text
    lang = language()
    if lang == DEFAULT:
        return text
    values = {name: translate(v) for name, v in text.values.items()}
    return catalog(lang).get(text.template, text.template).format_map(values)
