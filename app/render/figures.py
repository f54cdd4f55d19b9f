"""The figures around a race: stat cards, the identical badge, the per-round chart, the hardware and the recording
lines (docs/DESIGN.md §3, §5). Inputs are :class:`app.race.result.RaceResult` objects and plain dicts of facts."""

from __future__ import annotations

from typing import Any, Sequence

from ..race.result import RaceResult, Round
from .html import esc

MODE_LABELS = {"sequential": ("measured sequentially", "warm-up, then one side after the other"),
               "concurrent": ("concurrent race", "both sides shared the machine: a show, not a measurement")}


def card_html(value: str, label: str, note: str = "", cls: str = "") -> str:
    """One stat card: a big value, its label and a small note."""
    note_html = f'<div class="stat-note">{esc(note)}</div>' if note else ""
    return (f'<div class="stat {esc(cls)}"><div class="stat-value">{esc(value)}</div>'
            f'<div class="stat-label">{esc(label)}</div>{note_html}</div>')


def badge_html(result: RaceResult | None, lossless: bool = True) -> str:
    """Identical / diverged badge with the first divergent token and whether that is expected."""
    if not result:
        return '<span class="badge badge-none">output check after the run</span>'
    if result.stopped and result.prefix_only:
        return (f'<span class="badge badge-identical badge-partial">\u2713 identical so far</span><span class="badge-why">'
                f'stopped early: the first {result.first_divergence} tokens of both runs match</span>')
    if result.identical:
        return ('<span class="badge badge-identical" title="assisted token ids equal the baseline\'s">'
                '\u2713 identical output</span>')
    at = result.first_divergence
    why, expected = result.divergence_reason(lossless)
    return (f'<span class="badge badge-diverged {"badge-expected" if expected else "badge-unexpected"}" '
            f'data-first-divergence="{esc(at)}">\u2260 diverged {esc("" if at is None else f"at token {at}")}</span>'
            f'<span class="badge-why">{esc(why)}</span>')


def speed_card(result: RaceResult | None, label: str, note: str, cls: str) -> str:
    """The speedup card in the race's own verdict (app/race/trust.py): a slowdown in colour ('speed-loss') and words,
    level or not a measurement with the reason."""
    if result is None:
        return card_html("\u2013", label, note, f"stat-speedup {cls}")
    verdict = result.verdict
    lead = {"loss": "slower than plain decoding", "even": f"level: {verdict.reason}",
            "unmeasured": verdict.reason}.get(verdict.kind)
    return card_html(f"{result.speedup:.2f}\u00d7", label, f"{lead} \u00b7 {note}" if lead else note,
                     f"stat-speedup {cls} speed-{verdict.kind}")


def race_cards(result: RaceResult) -> list[str]:
    """Acceptance, mean accepted length and rounds: the cards every view of a finished race shows."""
    a = result.assisted
    alpha, drafted, accepted = a.acceptance_rate, sum(r.drafted for r in a.rounds), sum(r.accepted for r in a.rounds)
    return [card_html("n/a" if alpha is None else f"{alpha:.0%}", "acceptance rate \u03b1",
                      f"{accepted} of {drafted} drafted tokens kept"),
            card_html(f"{a.mean_accepted_length:.2f}", "mean accepted length \u03c4", "tokens kept per target forward pass"),
            card_html(str(len(a.rounds)), "rounds", f"for {a.new_tokens} new tokens")]


def ttft_card(result: RaceResult) -> str:
    ttft = lambda v: "\u2013" if v is None else f"{v:.2f}"  # noqa: E731
    return card_html(f"{ttft(result.baseline.ttft_seconds)} / {ttft(result.assisted.ttft_seconds)} s",
                     "time to first token", "baseline / assisted")


def race_stats_html(latest: RaceResult | None, race: RaceResult | None = None, measured: RaceResult | None = None,
                    lossless: bool = True, engine_html: str | None = None) -> str:
    """The Race tab's after-run figures. latest: the result whose rounds, acceptance and TTFT are shown; race / measured:
    a concurrent / sequential result for the same settings, or None; lossless: whether a divergence is expected;
    engine_html: a serving engine's own figures (app/render/engine_panel.py), shown instead of the both-at-once card
    (an engine race is always measured one side after the other)."""
    if latest is None:
        return ('<div class="stats stats-empty">Speedup, acceptance rate, mean accepted length and the '
                'round chart appear here after a race.</div>')
    a, b = latest.assisted, latest.baseline
    fair = ("fair race: each side with the machine to itself, after a warm-up" if engine_html is None
            else "each side with the engine to itself, on the arena's clock (the prompt's processing included)")
    cards = [speed_card(measured, "measured speedup", fair if measured else "race in the fair mode for a measured "
                        "figure", "stat-measured")]
    if engine_html is None:
        cards.append(speed_card(race, "both at once (a show)", "both runs shared the machine" if race
                                else "not run in this mode", "stat-race"))
    cards += [*race_cards(latest), ttft_card(latest)]
    rates = (f'{latest.mode} run on {esc(latest.device)}: baseline '
             f'{b.tokens_per_second:.1f} tok/s, assisted {a.tokens_per_second:.1f} tok/s')
    errors = "".join(f'<div class="status status-error" role="alert">{esc(side)}: {esc(msg)}</div>'
                     for side, msg in latest.errors.items())
    return (f'<div class="stats" data-mode="{esc(latest.mode)}"><div class="stats-badge">{badge_html(latest, lossless)}'
            f'</div><div class="stats-grid">{"".join(cards)}</div><div class="stats-foot">{rates}</div>'
            f'{engine_html or ""}{errors}</div>')


def round_times(result: RaceResult) -> list[float]:
    """When each round's tokens appeared (seconds): the time of its first token."""
    a = result.assisted
    out, starting = [], True
    for tok, t in zip(a.tokens, a.token_times):
        if starting:
            out.append(t)
        starting = tok.status != "accepted"
    last = a.token_times[-1] if a.token_times else 0.0
    return (out + [last] * len(a.rounds))[:len(a.rounds)]


def _bars(i: int, r: Round, x: float, bar: int, y: Any, when: str) -> str:
    tip = f"round {i + 1}: drafted {r.drafted}, accepted {r.accepted}"
    tip += f" \u00b7 rejected: \u201c{r.rejected_text}\u201d" if r.rejected_text else ""
    g = [f'<g class="round"{when}><title>{esc(tip)}</title>']
    if r.drafted == 0:
        g.append(f'<rect x="{x:.1f}" y="{y(0) - 3:.1f}" width="{bar}" height="3" class="bar-none"/>')
    if r.accepted:
        g.append(f'<rect x="{x:.1f}" y="{y(r.accepted):.1f}" width="{bar}" height="{y(0) - y(r.accepted):.1f}" '
                 'class="bar-accepted"/>')
    if r.drafted > r.accepted:
        g.append(f'<rect x="{x:.1f}" y="{y(r.drafted):.1f}" width="{bar}" height="{y(r.accepted) - y(r.drafted):.1f}" '
                 'class="bar-rejected" fill="url(#hatch)"/>')
    return "".join(g) + "</g>"


def rounds_chart_html(rounds: Sequence[Round], height: int = 150, times: Sequence[float] | None = None) -> str:
    """Per-round bars as inline SVG: accepted drafts (solid) under rejected drafts (hatched), a small neutral tick for
    a round that drafted nothing, each with a <title> tooltip. times: when each round appeared (a recording: each
    bar gets ``data-t`` for the player)."""
    if not rounds:
        return '<div class="chart chart-empty">The per-round chart of drafted vs accepted tokens appears after a race.</div>'
    n, top = len(rounds), max(max(r.drafted for r in rounds), 1)
    left, plot_h, slot = 28, height - 30, max(8.0, min(64.0, 760 / n))
    width, bar = int(left + n * slot + 8), min(30, max(3, int(slot * 0.72)))
    y = lambda v: 6 + plot_h - plot_h * v / top  # noqa: E731
    parts = ['<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
             '<rect width="4" height="4" class="bar-rejected-bg"/><line x1="0" y1="0" x2="0" y2="4" '
             'class="bar-rejected-line"/></pattern></defs>']
    for tick in sorted({0, top // 2, top}):
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>'
                     f'<text x="{left - 5}" y="{y(tick) + 3:.1f}" class="axis" text-anchor="end">{tick}</text>')
    step = max(1, round(n / 12))
    for i, r in enumerate(rounds):
        x = left + i * slot + (slot - bar) / 2
        parts.append(_bars(i, r, x, bar, y, "" if times is None else f' data-t="{times[i]:.4f}"'))
        if i % step == 0:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - 4}" class="axis" text-anchor="middle">{i + 1}</text>')
    legend = ('<div class="chart-legend"><span class="key key-accepted"></span>accepted drafts<span class="key '
              'key-rejected"></span>rejected drafts<span class="key key-none"></span>no draft this round'
              f'<span class="chart-sum">{n} rounds \u00b7 {sum(r.drafted for r in rounds)} drafted \u00b7 '
              f'{sum(r.accepted for r in rounds)} accepted</span></div>')
    return (f'<div class="chart"><div class="chart-title">Drafted vs accepted tokens per round</div>{legend}'
            f'<div class="chart-scroll"><svg class="chart-svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="drafted versus accepted tokens per round">{"".join(parts)}</svg>'
            '</div></div>')
