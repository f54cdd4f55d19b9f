"""Small text pieces the replay page shares: escaping, model and date names, labels (no gradio)."""

from __future__ import annotations

import html
from datetime import datetime

#: status -> (label, short meaning, full meaning): the app's legend (app/ui/race/render.py; a test keeps them equal).
LEGEND = {
    "accepted": ("accepted", "draft kept", "drafted by the helper and verified by the target"),
    "resampled": ("resampled", "target's fix", "the target's own token where a draft token was rejected"),
    "bonus": ("bonus", "extra token", "the target's extra token after every draft token was accepted"),
    "target": ("target only", "no draft", "a round with no draft at all (a plain decoding step)"),
}
SPEEDS = (0.25, 0.5, 1, 2, 4, 8)
MODE_LABELS = {"sequential": ("measured sequentially", "warm-up, then one side after the other"),
               "concurrent": ("concurrent race", "both sides shared the machine: a show, not a measurement")}


def esc(text: object) -> str:
    """HTML-escape any value (quotes too, so it is safe inside attributes); line breaks kept in attributes."""
    return html.escape("" if text is None else str(text), quote=True).replace("\n", "&#10;")


def when_text(recorded_at: str) -> str:
    """'2025-06-01T12:00:00+00:00' -> '2025-06-01 12:00 UTC' (the offset kept when it is not UTC)."""
    try:
        moment = datetime.fromisoformat(recorded_at)
    except ValueError:
        return recorded_at
    offset = moment.utcoffset()
    zone = "UTC" if offset is not None and not offset.total_seconds() else moment.strftime("%z") or "local time"
    return f"{moment:%Y-%m-%d %H:%M} {zone}"


