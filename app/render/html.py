"""The one escaping helper every piece of generated HTML, SVG and CSS-free markup goes through."""

from __future__ import annotations

import html


def esc(text: object) -> str:
    """HTML-escape any value, quotes too (safe inside attributes); line breaks become ``&#10;`` (kept in tooltips,
    the same character in text)."""
    return html.escape("" if text is None else str(text), quote=True).replace("\n", "&#10;")


#: The longest text a popup shows (characters, before escaping).
POPUP_CHARS = 300


def one_line(text: object, limit: int = POPUP_CHARS) -> str:
    """`text` as one line of at most `limit` characters (whitespace runs become one space; a longer line ends in an
    ellipsis). Not escaped: for a refusal nothing draws as HTML (a named API call, an MCP tool)."""
    line = " ".join(("" if text is None else str(text)).split())
    return line[:limit - 1] + "\u2026" if len(line) > limit else line


def popup_text(text: object, limit: int = POPUP_CHARS) -> str:
    """`text` as one line of at most `limit` characters, with ``&``, ``<`` and ``>`` escaped: gradio draws a popup's
    text as (sanitised) HTML, and its sanitiser keeps some live markup (an SVG link), so nothing a visitor typed may
    reach it as markup (docs/DESIGN.md §4.5). Quotes stay as they are: outside a tag they are only text."""
    return html.escape(one_line(text, limit), quote=False)
