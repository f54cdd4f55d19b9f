"""The two race panes, their token spans and the legend (docs/DESIGN.md §3): each token a span with the classes
``tok tok-<status>``, and on a recording ``data-t`` (seconds from its side's start) for the player."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..core.sources import short_name
from ..race.result import STATUSES, Round, Token, special_label
from .html import esc
from .statuses import LEGEND

PHASE_LABELS = {"idle": "ready", "queued": "queued", "loading": "loading", "warmup": "warming up", "waiting": "waiting",
                "running": "racing", "replay": "replaying its run", "done": "done", "stopped": "stopped", "error": "error"}


def subtitles(method_title: str, target: str, assistant: str | None) -> tuple[str, str]:
    """The two panes' subtitles: what runs on each side."""
    helper = f" + {short_name(assistant)}" if assistant else ""
    return f"plain generate() \u00b7 {short_name(target)}", f"{method_title} \u00b7 {short_name(target)}{helper}"


def round_of_tokens(tokens: Sequence[Token]) -> list[int]:
    """Round index of each assisted token: a round keeps its accepted drafts and ends with one token of the
    target's own (resampled, bonus or target), so a round closes at every token that is not an accepted draft."""
    out, current = [], 0
    for tok in tokens:
        out.append(current)
        current += tok.status != "accepted"
    return out


def _round_note(index: int, rnd: Round | None) -> str:
    return f"round {index + 1}" + ("" if rnd is None else f": drafted {rnd.drafted}, accepted {rnd.accepted}")


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


def _token_span(tok: Token, classes: list[str], title: str, when: str) -> str:
    """A token's span; a special token (end of text, chat markers) is a small marker, its raw text in data-text."""
    label = special_label(tok.text, tok.special)
    if label is not None:
        return (f'<span class="{" ".join(classes + ["tok-special"])}"{when} data-text="{esc(tok.text)}" '
                f'title="{esc(title)}" aria-label="special token">{label}</span>')
    return f'<span class="{" ".join(classes)}"{when} title="{esc(title)}">{esc(tok.text)}</span>'


def tokens_html(tokens: Sequence[Token], rounds: Sequence[Round] = (), *, show_rejected: bool = False,
                diverge_at: int | None = None, assisted: bool = True, times: Sequence[float] | None = None) -> str:
    """The coloured token spans of one pane.

    rounds: may lag one round behind while streaming. show_rejected: also show each round's rejected draft,
    struck through, right before the target's resampled token. diverge_at: token index to mark as the first
    difference from the other pane. times: each token's seconds from its side's start (a recording: the spans get
    ``data-t`` for the player).
    """
    pieces: list[str] = []
    round_ids = round_of_tokens(tokens) if assisted else [None] * len(tokens)
    for i, tok in enumerate(tokens):
        status = tok.status if assisted and tok.status in STATUSES else "target"
        r, when = round_ids[i], "" if times is None else f' data-t="{times[i]:.4f}"'
        rnd = rounds[r] if r is not None and r < len(rounds) else None
        classes = ["tok", f"tok-{status}"] + (["tok-diverge"] if i == diverge_at else [])
        if show_rejected and status == "resampled" and rnd is not None and rnd.rejected_text:
            pieces.append(f'<del class="rej"{when} title="{esc("rejected draft of " + _round_note(r, rnd))}">'
                          f'{esc(rnd.rejected_text)}</del>')
        pieces.append(_token_span(tok, classes, token_title(tok, r, rnd, i) if assisted else f"#{i} id {tok.id}", when))
    return "".join(pieces)


def legend_html(show_rejected: bool = False) -> str:
    """The colour/underline key of the assisted pane."""
    items = [f'<span class="legend-item" title="{esc(meaning)}"><span class="tok tok-{s}">{esc(label)}</span>'
             f'<span class="legend-text">{esc(short)}</span></span>' for s, (label, short, meaning) in LEGEND.items()]
    how = "shown inline, struck through" if show_rejected else "hover a resampled token"
    items.append('<span class="legend-item" title="what the helper proposed and the target refused">'
                 f'<del class="rej">rejected</del><span class="legend-text">draft refused ({how})</span></span>')
    return f'<div class="tok-legend" role="list" aria-label="token colours">{"".join(items)}</div>'


@dataclass
class PaneView:
    """Everything one pane shows. side: "baseline" or "assisted"; phase: a key of PHASE_LABELS; seconds / ttft:
    generate()'s wall time and time to first token (s); times: each token's recorded time (a replay)."""

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
    times: list[float] | None = None


def _body(view: PaneView, phase: str) -> str:
    body = tokens_html(view.tokens, view.rounds, show_rejected=view.show_rejected, diverge_at=view.diverge_at,
                       assisted=view.side == "assisted", times=view.times)
    if not body:
        hint = view.message or ("Press Race to start." if phase == "idle" else "\u2026")
        body = f'<span class="pane-placeholder">{esc(hint)}</span>'
    elif view.message:
        body += f'<div class="pane-message">{esc(view.message)}</div>'
    return body + ('<span class="cursor" aria-hidden="true"></span>' if phase in ("running", "replay") else "")


def _player_data(view: PaneView) -> str:
    """The attributes the player reads on a recorded pane: its seconds, time to first token and token cap."""
    if view.times is None:
        return ""
    ttft = "" if view.ttft is None else f"{view.ttft:.4f}"
    return f' data-seconds="{view.seconds or 0:.4f}" data-ttft="{ttft}" data-max="{view.max_new_tokens or 0}"'


def pane_html(view: PaneView) -> str:
    """One pane: header with the live tokens/s, the token text, and a footer line."""
    phase = view.phase if view.phase in PHASE_LABELS else "idle"
    meta = [f"{len(view.tokens)} tokens"] + ([f"first token {view.ttft:.2f} s"] if view.ttft is not None else [])
    meta += [f"{view.seconds:.2f} s"] if view.seconds and phase in ("done", "stopped") else []
    meta += [f"{len(view.rounds)} rounds"] if view.side == "assisted" and view.rounds else []
    share = 100.0 if phase == "done" else min(100.0, 100.0 * len(view.tokens) / view.max_new_tokens) \
        if view.max_new_tokens else 0.0
    rate = "\u2013" if view.tokens_per_second is None else f"{view.tokens_per_second:.1f}"
    return (
        f'<section class="pane pane-{esc(view.side)} phase-{phase}" data-side="{esc(view.side)}" data-phase="{phase}"'
        f'{_player_data(view)} aria-label="{esc(view.title)}">'
        f'<div class="pane-head"><div class="pane-titles"><span class="pane-title">{esc(view.title)}</span>'
        f'<span class="pane-subtitle" title="{esc(view.subtitle)}">{esc(view.subtitle)}</span></div>'
        f'<div class="pane-rate"><span class="rate-value">{rate}</span><span class="rate-unit">tok/s</span></div></div>'
        f'<div class="pane-progress" title="share of max new tokens"><span style="width:{share:.1f}%"></span></div>'
        f'<div class="pane-body">{_body(view, phase)}</div>'
        f'<div class="pane-foot"><span class="phase-pill phase-{phase}">{esc(PHASE_LABELS[phase])}</span>'
        f'<span class="pane-meta">{esc(" · ".join(meta))}</span></div></section>')
