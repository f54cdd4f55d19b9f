"""The replay page: one self-contained HTML file that replays a trace side by side (docs/DESIGN.md §4).

Everything is inline (CSS and JavaScript from :mod:`app.replay.assets`, the race as markup); nothing is
loaded from the network, so the file opens from an e-mail or a slide deck with no server. Every token is a
span with its status class (``tok-accepted``, ``tok-resampled``, ``tok-bonus``, ``tok-target``: the app's
classes and colours, docs/DESIGN.md §3) and ``data-t``, the seconds from its side's generate() start; the
player reveals each token at that moment times the chosen speed. Both sides start together: in a
sequential trace they ran one after the other, each timed from its own start. Every piece of model or user
text is escaped.
"""

from __future__ import annotations

from typing import Sequence

from ..race.methods import METHODS
from ..race.result import STATUSES, RaceResult, Round, Token, special_label
from .assets import CSS, JS
from .sections import chart_html, controls_html, header_html, setup_html, stats_html
from ..core.sources import short_name
from .text import LEGEND, MODE_LABELS, esc, when_text
from .tracefile import Trace


# ----- tokens ----------------------------------------------------------------------------------------------
def round_of_tokens(tokens: Sequence[Token]) -> list[int]:
    """Round index of each assisted token: a round closes at every token that is not an accepted draft."""
    out, current = [], 0
    for tok in tokens:
        out.append(current)
        current += tok.status != "accepted"
    return out


def _title(tok: Token, i: int, r: int, rnd: Round | None) -> str:
    parts = [f"#{i} {LEGEND[tok.status][0]}", f"id {tok.id}"]
    if rnd is not None:
        parts.append(f"round {r + 1}: drafted {rnd.drafted}, accepted {rnd.accepted}")
        if tok.status == "resampled" and rnd.rejected_text:
            parts.append(f"rejected draft: \u201c{rnd.rejected_text}\u201d")
    return " \u00b7 ".join(parts)


def token_spans(texts: Sequence[str], times: Sequence[float], ids: Sequence[int], tokens: Sequence[Token] | None = None,
                rounds: Sequence[Round] = (), diverge_at: int | None = None) -> str:
    """One pane's spans, each with ``data-t`` (seconds). tokens: the assisted side's (statuses, rejected drafts);
    None for the baseline, whose tokens are all 'target'."""
    round_ids = round_of_tokens(tokens) if tokens is not None else []
    pieces = []
    for i, (text, t) in enumerate(zip(texts, times)):
        tok = tokens[i] if tokens is not None else None
        status = tok.status if tok is not None and tok.status in STATUSES else "target"
        label = special_label(text, tok.special if tok is not None else False)
        classes = ["tok", f"tok-{status}"] + (["tok-special"] if label is not None else [])
        classes += ["tok-diverge"] if i == diverge_at else []
        title = f"#{i} id {ids[i]}"
        if tok is not None:
            r = round_ids[i]
            rnd = rounds[r] if r < len(rounds) else None
            title = _title(tok, i, r, rnd)
            if status == "resampled" and rnd is not None and rnd.rejected_text:
                pieces.append(f'<del class="rej" data-t="{t:.4f}" title="rejected draft of round {r + 1}">'
                              f'{esc(rnd.rejected_text)}</del>')
        pieces.append(f'<span class="{" ".join(classes)}" data-t="{t:.4f}" title="{esc(title)}">{esc(text)}</span>'
                      if label is None else
                      f'<span class="{" ".join(classes)}" data-t="{t:.4f}" data-text="{esc(text)}" '
                      f'title="{esc(title)}">{esc(label)}</span>')
    return "".join(pieces)


def pane(side: str, title: str, subtitle: str, spans: str, seconds: float, ttft: float | None, count: int,
         max_new_tokens: int | None) -> str:
    """One pane, filled with its final state (the player rewinds it); data-* attributes drive the player."""
    rate = f"{count / seconds:.1f}" if seconds > 0 and count else "\u2013"
    meta = [f"{count} tokens"] + ([f"first token {ttft:.2f} s"] if ttft is not None and count else []) + [f"{seconds:.2f} s"]
    return (f'<section class="pane pane-{side}" data-side="{side}" data-phase="done" data-seconds="{seconds:.4f}" '
            f'data-ttft="{"" if ttft is None else f"{ttft:.4f}"}" data-max="{max_new_tokens or 0}" '
            f'aria-label="{esc(title)}">'
            f'<div class="pane-head"><div class="pane-titles"><span class="pane-title">{esc(title)}</span>'
            f'<span class="pane-subtitle" title="{esc(subtitle)}">{esc(subtitle)}</span></div>'
            f'<div class="pane-rate"><span class="rate-value">{rate}</span><span class="rate-unit">tok/s</span></div></div>'
            f'<div class="pane-progress"><span style="width:100%"></span></div>'
            f'<div class="pane-body">{spans}</div>'
            f'<div class="pane-foot"><span class="phase-pill phase-done">done</span>'
            f'<span class="pane-meta">{esc(" · ".join(meta))}</span></div></section>')


def panes_html(trace: Trace) -> str:
    """Both panes: baseline left, assisted right (stacked on a narrow screen)."""
    result = trace.result
    b, a = result.baseline, result.assisted
    diverge = None if result.identical or result.prefix_only else result.first_divergence
    method = METHODS[result.method].title if result.method in METHODS else result.method
    helper = f" + {short_name(result.assistant)}" if result.assistant else ""
    target = short_name(result.target)
    left = pane("baseline", "Baseline", f"plain generate() \u00b7 {target}",
                token_spans(trace.baseline_texts, b.token_times, b.token_ids, diverge_at=diverge), b.seconds, b.ttft_seconds,
                b.new_tokens, trace.max_new_tokens)
    right = pane("assisted", "Assisted", f"{method} \u00b7 {target}{helper}",
                 token_spans([t.text for t in a.tokens], a.token_times, a.token_ids, a.tokens, a.rounds, diverge),
                 a.seconds, a.ttft_seconds, a.new_tokens, trace.max_new_tokens)
    return f'<div class="panes">{left}{right}</div>'


def legend_html() -> str:
    """The colour/underline key (the app's labels) and the rejected-drafts toggle."""
    items = "".join(f'<span class="legend-item" title="{esc(meaning)}"><span class="tok tok-{s}">{esc(label)}</span>'
                    f'<span class="legend-text">{esc(short)}</span></span>' for s, (label, short, meaning) in LEGEND.items())
    items += ('<span class="legend-item"><del class="rej" style="display:inline">rejected</del>'
              '<span class="legend-text">draft refused (hover a resampled token)</span></span>')
    return (f'<div class="legend-row"><div class="tok-legend" role="list" aria-label="token colours">{items}</div>'
            '<label><input type="checkbox" id="show-rej"> Show rejected drafts inline</label></div>')


def replay_html(trace: Trace, speed: float = 1.0) -> str:
    """The whole page for `trace`; `speed` is the starting speed (the URL's ?speed= wins)."""
    result: RaceResult = trace.result
    title = (f"Replay: {result.preset} \u00b7 {result.speedup:.2f}\u00d7 {MODE_LABELS[result.mode][0]} \u00b7 "
             f"recorded {when_text(trace.recorded_at)}")
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="assisted-decoding-arena replay"><title>{esc(title)}</title>'
            f'<style>{CSS}</style></head>\n'
            f'<body data-state="static" data-speed="{min(8.0, max(0.25, float(speed))):g}"><main class="wrap">'
            f'{header_html(trace)}{controls_html(speed)}{panes_html(trace)}{legend_html()}{stats_html(trace)}'
            f'{chart_html(trace)}{setup_html(trace)}</main>\n<script>{JS}</script></body></html>\n')
