"""What the panes say besides their tokens: the two subtitles and the legend of the token statuses (docs/DESIGN.md
§3). The panes themselves, every token span and its tooltip, are drawn in the browser by the one player
(app/render/player.js) from the race's data (app/render/race_data.py)."""

from __future__ import annotations

from ..core.sources import short_name
from .html import esc
from .statuses import status_table
from ..core.words import t


def subtitles(method_title: str, target: str, assistant: str | None) -> tuple[str, str]:
    """The two panes' subtitles: what runs on each side."""
    helper = f" + {short_name(assistant)}" if assistant else ""
    return (t("pane.plain_subtitle", target=short_name(target)),
            t("pane.assisted_subtitle", method=method_title, target=short_name(target), helper=helper))


def legend_html() -> str:
    """The colour/underline key of the assisted pane, and how to see a rejected draft."""
    items = [f'<span class="legend-item" title="{esc(x.meaning)}"><span class="tok tok-{s}">{esc(x.label)}</span>'
             f'<span class="legend-text">{esc(x.short)}</span></span>' for s, x in status_table().items()]
    items.append(f'<span class="legend-item" title="{esc(t("legend.rejected_title"))}">'
                 f'<del class="rej">{esc(t("legend.rejected"))}</del><span class="legend-text">'
                 f'{esc(t("legend.rejected_how"))}</span></span>')
    return f'<div class="tok-legend" role="list" aria-label="{esc(t("legend.aria"))}">{"".join(items)}</div>'
