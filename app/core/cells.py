"""Escaping for the two download formats whose cells carry user text (suite categories and ids, preset names):
a Markdown table cell and a spreadsheet (CSV) cell."""

from __future__ import annotations

import html
import re

#: Characters that make a spreadsheet treat a cell as a formula (OWASP's CSV-injection list).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN = re.compile(r"([\\`*_\[\]|])")


def md_cell(text: object) -> str:
    """`text` as the content of one Markdown table cell: HTML escaped (no tag renders; quotes stay as they are),
    Markdown punctuation and the cell separator ``|`` backslash-escaped (no link, emphasis or extra column), on one
    line."""
    flat = " ".join(str("" if text is None else text).split())
    return _MARKDOWN.sub(r"\\\1", html.escape(flat, quote=False))


def csv_cell(value: object) -> object:
    """`value` made inert for a spreadsheet: text that starts like a formula gets a leading apostrophe (the value is
    shown as typed); numbers and other values pass unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value
