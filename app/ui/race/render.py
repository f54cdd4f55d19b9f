"""Pure HTML for the two race panes and the token legend (no gradio, no models).

Every piece of model or user text goes through :func:`esc` before it reaches the page, so a
prompt or a generated ``<script>`` shows as text. Token statuses follow docs/DESIGN.md §3;
the CSS classes ``tok-accepted``, ``tok-resampled``, ``tok-bonus`` and ``tok-target`` are
styled in :mod:`app.ui.theme` with an Okabe-Ito palette plus a distinct underline style
each, so colour is never the only cue. Tokens and rounds are :class:`app.race.result.Token`
and :class:`app.race.result.Round` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ...race.result import STATUSES, Round, Token, special_label
from ..html import attr, esc

#: Legend entries: status -> (label, short meaning, full meaning for the tooltip).
LEGEND = {
    "accepted": ("accepted", "draft kept", "drafted by the helper and verified by the target"),
    "resampled": ("resampled", "target's fix", "the target's own token where a draft token was rejected"),
    "bonus": ("bonus", "extra token", "the target's extra token after every draft token was accepted"),
    "target": ("target only", "no draft", "a round with no draft at all (a plain decoding step)"),
}


PHASE_LABELS = {
    "idle": "ready",
    "queued": "queued",
    "loading": "loading",
    "warmup": "warming up",
    "waiting": "waiting",
    "running": "racing",
    "done": "done",
    "stopped": "stopped",
    "error": "error",
}


def round_of_tokens(tokens: Sequence[Token]) -> list[int]:
    """Round index of each assisted token.

    A round keeps its accepted drafts and ends with one token of the target's own
    (resampled, bonus or target), so a round closes at every non-accepted token.
    """
    out, current = [], 0
    for tok in tokens:
        out.append(current)
        if tok.status != "accepted":
            current += 1
    return out


def _round_note(index: int, rnd: Round | None) -> str:
    if rnd is None:
        return f"round {index + 1}"
    return f"round {index + 1}: drafted {rnd.drafted}, accepted {rnd.accepted}"


def _p(label: str, value: float | None) -> str:
    return "" if value is None else f"{label} p={value:.2f}"


def token_title(tok: Token, round_index: int | None, rnd: Round | None, position: int) -> str:
    """Tooltip of one token: status, round, id, the target's (and drafter's) probability for it and, for a
    resampled token, the rejected draft with both probabilities."""
    head = f"#{position} {LEGEND.get(tok.status, (tok.status,))[0]}" + (f" \u00b7 {tok.text.strip()}" if tok.special else "")
    lines = [f"{head} \u00b7 id {tok.id}"]
    probs = ", ".join(x for x in (_p("target", tok.p_target), _p("drafter", tok.p_draft)) if x)
    if probs:
        lines.append(probs)
    if round_index is not None:
        lines.append(_round_note(round_index, rnd))
    if tok.status == "resampled" and rnd is not None and rnd.rejected_text:
        rej = ", ".join(x for x in (_p("target", rnd.rejected_p_target), _p("drafter", rnd.rejected_p_draft)) if x)
        lines.append(f"rejected draft: \u201c{rnd.rejected_text}\u201d" + (f" ({rej})" if rej else ""))
    return "\n".join(lines)


def _token_span(tok: Token, classes: list[str], title: str) -> str:
    """A token's span; a special token (end of text, chat markers) is a small marker, not its raw text."""
    label = special_label(tok.text, tok.special)
    if label is not None:
        classes = classes + ["tok-special"]
        return f'<span class="{" ".join(classes)}" title="{attr(title)}" aria-label="special token">{label}</span>'
    return f'<span class="{" ".join(classes)}" title="{attr(title)}">{esc(tok.text)}</span>'


def tokens_html(tokens: Sequence[Token], rounds: Sequence[Round] = (), *, show_rejected: bool = False,
                diverge_at: int | None = None, assisted: bool = True) -> str:
    """The coloured token spans of one pane.

    tokens: in order. rounds: may lag one round behind while streaming.
    show_rejected: also show each round's rejected draft inline, struck through, right
    before the target's resampled token. diverge_at: token index to mark as the first
    difference from the other pane.
    """
    pieces: list[str] = []
    round_ids = round_of_tokens(tokens) if assisted else [None] * len(tokens)
    for i, tok in enumerate(tokens):
        status = tok.status if assisted and tok.status in STATUSES else "target"
        r = round_ids[i]
        rnd = rounds[r] if r is not None and r < len(rounds) else None
        classes = ["tok", f"tok-{status}"]
        if diverge_at is not None and i == diverge_at:
            classes.append("tok-diverge")
        if show_rejected and status == "resampled" and rnd is not None and rnd.rejected_text:
            pieces.append(f'<del class="rej" title="{attr("rejected draft of " + _round_note(r, rnd))}">'
                          f'{esc(rnd.rejected_text)}</del>')
        title = token_title(tok, r, rnd, i) if assisted else f"#{i} id {tok.id}"
        pieces.append(_token_span(tok, classes, title))
    return "".join(pieces)


def legend_html(show_rejected: bool = False) -> str:
    """The colour/underline key for the assisted pane."""
    items = []
    for status in STATUSES:
        label, short, meaning = LEGEND[status]
        items.append(f'<span class="legend-item" title="{esc(meaning)}"><span class="tok tok-{status}">{esc(label)}</span>'
                     f'<span class="legend-text">{esc(short)}</span></span>')
    how = "shown inline, struck through" if show_rejected else "hover a resampled token"
    items.append('<span class="legend-item" title="what the helper proposed and the target refused">'
                 f'<del class="rej">rejected</del><span class="legend-text">draft refused ({how})</span></span>')
    return f'<div class="tok-legend" role="list" aria-label="token colours">{"".join(items)}</div>'


@dataclass
class PaneView:
    """Everything one pane shows.

    side: "baseline" or "assisted". phase: a key of PHASE_LABELS. tokens_per_second: live
    or final rate (None before the first token). seconds / ttft: wall time of generate()
    and time to first token, in seconds.
    """

    side: str
    title: str
    subtitle: str = ""
    tokens: list[Token] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    phase: str = "idle"
    tokens_per_second: float | None = None
    seconds: float | None = None
    ttft: float | None = None
    message: str = ""
    show_rejected: bool = False
    diverge_at: int | None = None
    max_new_tokens: int | None = None


def _rate(tps: float | None) -> str:
    return "\u2013" if tps is None else f"{tps:.1f}"


def pane_html(view: PaneView) -> str:
    """One pane: header with the live tokens/s, the token text, and a footer line."""
    assisted = view.side == "assisted"
    phase = view.phase if view.phase in PHASE_LABELS else "idle"
    body = tokens_html(view.tokens, view.rounds, show_rejected=view.show_rejected,
                       diverge_at=view.diverge_at, assisted=assisted)
    if not body:
        hint = view.message or ("Press Race to start." if phase == "idle" else "\u2026")
        body = f'<span class="pane-placeholder">{esc(hint)}</span>'
    elif view.message:
        body += f'<div class="pane-message">{esc(view.message)}</div>'
    if phase == "running":
        body += '<span class="cursor" aria-hidden="true"></span>'
    meta = [f"{len(view.tokens)} tokens"]
    if view.ttft is not None:
        meta.append(f"first token {view.ttft:.2f} s")
    if view.seconds and phase in ("done", "stopped"):
        meta.append(f"{view.seconds:.2f} s")
    if assisted and view.rounds:
        meta.append(f"{len(view.rounds)} rounds")
    share = 0.0
    if view.max_new_tokens:
        share = 100.0 if phase == "done" else min(100.0, 100.0 * len(view.tokens) / view.max_new_tokens)
    return (
        f'<div class="pane pane-{esc(view.side)} phase-{phase}" data-side="{esc(view.side)}" data-phase="{phase}">'
        f'<div class="pane-head"><div class="pane-titles"><span class="pane-title">{esc(view.title)}</span>'
        f'<span class="pane-subtitle">{esc(view.subtitle)}</span></div>'
        f'<div class="pane-rate"><span class="rate-value">{_rate(view.tokens_per_second)}</span>'
        f'<span class="rate-unit">tok/s</span></div></div>'
        f'<div class="pane-progress" title="share of max new tokens"><span style="width:{share:.1f}%"></span></div>'
        f'<div class="pane-body">{body}</div>'
        f'<div class="pane-foot"><span class="phase-pill phase-{phase}">{esc(PHASE_LABELS[phase])}</span>'
        f'<span class="pane-meta">{esc(" · ".join(meta))}</span></div></div>'
    )
