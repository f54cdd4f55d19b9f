"""The one escaping helper every piece of generated HTML, SVG and CSS-free markup goes through."""

from __future__ import annotations

import html


def esc(text: object) -> str:
    """HTML-escape any value, quotes too (safe inside attributes); line breaks become ``&#10;`` (kept in tooltips,
    the same character in text)."""
    return html.escape("" if text is None else str(text), quote=True).replace("\n", "&#10;")
