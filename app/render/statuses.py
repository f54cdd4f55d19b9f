"""The token-status table (docs/DESIGN.md §3): each status's label, meaning and terminal colour, from which the
legend, the tooltips and the CLI's colours all derive. The words are the tables' (``status.<status>.label``,
``.short``, ``.meaning`` in app/core/words); the page colours are in app/render/css/race.css."""

from __future__ import annotations

from typing import NamedTuple

from ..race import protocol
from ..core.words import t


class Status(NamedTuple):
    """label: the legend's word; short / meaning: what it means, briefly and in full; ansi: its terminal colour."""

    label: str
    short: str
    meaning: str
    ansi: str


#: Terminal colour of each status (``python -m app race`` on a terminal).
COLOURS = {"accepted": "\033[38;5;33m", "resampled": "\033[38;5;208m", "bonus": "\033[38;5;141m", "target": "\033[0m"}


def status_table() -> dict[str, Status]:
    """Every status with its words in the current language (English on the command line)."""
    return {s.value: Status(t(f"status.{s}.label"), t(f"status.{s}.short"), t(f"status.{s}.meaning"), COLOURS[s])
            for s in protocol.Status}


#: The statuses in English (the command line and the JSON are English).
STATUS_TABLE = status_table()
#: Terminal colours of the statuses, plus reset and bold.
ANSI = {**COLOURS, "reset": "\033[0m", "bold": "\033[1m"}
