"""The status line and the error line every tab shares (pure HTML, no gradio)."""

from __future__ import annotations

from ..render.html import esc

ICONS = {"error": "\u26a0", "ok": "\u2713", "info": "\u2139", "loss": "\u25bc"}


def status_html(message: str, kind: str = "info") -> str:
    """A one-line status or error box (kind: info | error | ok | loss, a slowdown); errors are plain words, never a
    traceback."""
    if not message:
        return ""
    role = ' role="alert"' if kind == "error" else ' role="status"'
    icon = ICONS.get(kind, ICONS["info"])
    return f'<div class="status status-{esc(kind)}"{role}><span class="status-icon">{icon}</span>{esc(message)}</div>'


def unexpected_error_text(exc: BaseException) -> str:
    """The one line a user sees for a bug (the traceback goes to the server log)."""
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"Unexpected error ({type(exc).__name__}: {first}); see the server log."
