"""The status line every tab shares (pure HTML, no gradio): one line of info, success, a slowdown or an error."""

from __future__ import annotations

from ..core.words import translate
from .html import esc

ICONS = {"error": "\u26a0", "ok": "\u2713", "info": "\u2139", "loss": "\u25bc"}


def status_html(message: str, kind: str = "info") -> str:
    """A one-line status or error box (kind: info | error | ok | loss, a slowdown); errors are plain words, never a
    traceback."""
    if not message:
        return ""
    role = ' role="alert"' if kind == "error" else ' role="status"'
    icon = ICONS.get(kind, ICONS["info"])
    return (f'<div class="status status-{esc(kind)}"{role}><span class="status-icon">{icon}</span>'
            f'{esc(translate(message))}</div>')
