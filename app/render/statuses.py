"""The token-status table (docs/DESIGN.md §3): each status's label, meaning and terminal colour, from which the
legend, the tooltips and the CLI's colours all derive. The page colours are in :mod:`app.render.style`."""

from __future__ import annotations

from typing import NamedTuple


class Status(NamedTuple):
    """label: the legend's word; short / meaning: what it means, briefly and in full; ansi: its terminal colour."""

    label: str
    short: str
    meaning: str
    ansi: str


STATUS_TABLE = {
    "accepted": Status("accepted", "draft kept", "drafted by the helper and verified by the target", "\033[38;5;33m"),
    "resampled": Status("resampled", "target's fix", "the target's own token where a draft token was rejected",
                        "\033[38;5;208m"),
    "bonus": Status("bonus", "extra token", "the target's extra token after every draft token was accepted",
                    "\033[38;5;141m"),
    "target": Status("target only", "no draft", "a round with no draft at all (a plain decoding step)", "\033[0m"),
}
#: status -> (label, short meaning, full meaning), for the legend and tooltips.
LEGEND = {s: (x.label, x.short, x.meaning) for s, x in STATUS_TABLE.items()}
#: Terminal colours of the statuses (``python -m app race`` on a terminal), plus reset and bold.
ANSI = {**{s: x.ansi for s, x in STATUS_TABLE.items()}, "reset": "\033[0m", "bold": "\033[1m"}
