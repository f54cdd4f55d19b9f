"""What the panes say besides their tokens: the two subtitles and the legend of the token statuses (docs/DESIGN.md
§3). The panes themselves, every token span and its tooltip, are drawn in the browser by the one player
(app/render/player.js) from the race's data (app/render/race_data.py)."""

from __future__ import annotations

from ..core.sources import short_name
from .html import esc
from .statuses import LEGEND


def subtitles(method_title: str, target: str, assistant: str | None) -> tuple[str, str]:
    """The two panes' subtitles: what runs on each side."""
    helper = f" + {short_name(assistant)}" if assistant else ""
    return f"plain generate() \u00b7 {short_name(target)}", f"{method_title} \u00b7 {short_name(target)}{helper}"


def legend_html() -> str:
    """The colour/underline key of the assisted pane, and how to see a rejected draft."""
    items = [f'<span class="legend-item" title="{esc(meaning)}"><span class="tok tok-{s}">{esc(label)}</span>'
             f'<span class="legend-text">{esc(short)}</span></span>' for s, (label, short, meaning) in LEGEND.items()]
    items.append('<span class="legend-item" title="what the helper proposed and the target refused">'
                 '<del class="rej">rejected</del><span class="legend-text">draft refused (hover a resampled token, or '
                 'show them inline)</span></span>')
    return f'<div class="tok-legend" role="list" aria-label="token colours">{"".join(items)}</div>'
