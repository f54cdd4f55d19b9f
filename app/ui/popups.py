"""The page's popups: every ``gr.Error``, ``gr.Warning`` and ``gr.Info`` text passes through here, and so through the
renderer's one escaping point for popups (app/render/html.py ``popup_text``; docs/DESIGN.md §4.5). Nothing else in
the app builds one (tests/ui/test_popups.py holds that).

A refusal is escaped only where it is drawn as HTML: an event of the page (a button, a box, a page load) shows its
error as a popup, while a named API endpoint (``/race``, ``/measure``, ``/plan``, and so every MCP tool) has no
control on the page, and its caller reads the line as text. The page's boundary says which one an event is
(:func:`drawn_as_html`, app/ui/boundary.py)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

import gradio as gr

from ..core.words import translate
from ..render.html import one_line, popup_text

_AS_HTML: ContextVar[bool] = ContextVar("popups_as_html", default=True)


@contextmanager
def drawn_as_html(yes: bool) -> Iterator[None]:
    """Within the block, refusals are escaped (`yes`: the page draws them) or left as plain text (a caller reads
    them: a named API call, an MCP tool)."""
    token = _AS_HTML.set(yes)
    try:
        yield
    finally:
        _AS_HTML.reset(token)


def _plain(text: object) -> str:
    """`text` in the visitor's language (an English line from below is translated: docs/DESIGN.md §4.10), as one
    line, not escaped."""
    return one_line(translate(str("" if text is None else text)))


def _line(text: object) -> str:
    """:func:`_plain`, escaped: what a popup shows."""
    return popup_text(_plain(text))


class Refusal(gr.Error):
    """A ``gr.Error`` whose ``str()`` is its line (gradio's queue answers a join its validator refused with
    ``str(error)``, and a plain ``gr.Error`` gives its ``repr``, quotes and all); `line` is the text unescaped."""

    def __init__(self, line: str, as_html: bool):
        super().__init__(popup_text(line) if as_html else line, print_exception=False)
        self.line = line

    def __str__(self) -> str:
        return str(self.message)


def error(text: object) -> gr.Error:
    """The ``gr.Error`` to raise for `text` (one line, in the visitor's language, escaped where the page draws it; no
    traceback in the server log)."""
    return Refusal(_plain(text), _AS_HTML.get())


def warning(text: object) -> None:
    """Show `text` as a warning popup (one line, escaped)."""
    gr.Warning(_line(text))


def info(text: object) -> None:
    """Show `text` as an information popup (one line, escaped)."""
    gr.Info(_line(text))
