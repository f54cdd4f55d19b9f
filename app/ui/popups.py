"""The page's popups: every ``gr.Error``, ``gr.Warning`` and ``gr.Info`` text passes through here, and so through the
renderer's one escaping point for popups (app/render/html.py ``popup_text``; docs/DESIGN.md §4.5). Nothing else in
the app builds one (tests/test_popups.py holds that)."""

from __future__ import annotations

import gradio as gr

from ..core.words import translate
from ..render.html import popup_text


def _line(text: object) -> str:
    """`text` in the visitor's language (an English line from below is translated: docs/DESIGN.md §4.10), as one
    escaped line."""
    return popup_text(translate(str("" if text is None else text)))


def error(text: object) -> gr.Error:
    """The ``gr.Error`` to raise for `text` (one line, escaped; no traceback in the server log)."""
    return gr.Error(_line(text), print_exception=False)


def warning(text: object) -> None:
    """Show `text` as a warning popup (one line, escaped)."""
    gr.Warning(_line(text))


def info(text: object) -> None:
    """Show `text` as an information popup (one line, escaped)."""
    gr.Info(_line(text))
