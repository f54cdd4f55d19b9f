"""The figures around a race: stat cards, the identical badge, the per-round chart, the hardware and the recording
lines (docs/DESIGN.md §3, §5). Inputs are :class:`app.race.result.RaceResult` objects and plain dicts of facts."""

from __future__ import annotations

from typing import Any, Sequence

from ..core.words import t, table, translate
from ..race.protocol import Round
from ..race.result import RaceResult
from .html import esc


def mode_words(mode: str) -> tuple[str, str]:
    """How a race ran, in the current language: (label, note), e.g. ('measured in a fair race', 'warm-up, then one
    side after the other')."""
    mode = "sequential" if mode == "sequential" else "concurrent"
    return t(f"figures.mode.{mode}"), t(f"figures.mode.{mode}_note")


#: The same in English (the command line's replay summary).
MODE_LABELS = {m: (table("en")[f"figures.mode.{m}"], table("en")[f"figures.mode.{m}_note"])
               for m in ("sequential", "concurrent")}


def card_html(value: str, label: str, note: str = "", cls: str = "") -> str:
    """One stat card: a big value, its label and a small note."""
    note_html = f'<div class="stat-note">{esc(note)}</div>' if note else ""
    return (f'<div class="stat {esc(cls)}"><div class="stat-value">{esc(value)}</div>'
            f'<div class="stat-label">{esc(label)}</div>{note_html}</div>')


def badge_html(result: RaceResult | None, lossless: bool = True) -> str:
    """Identical / diverged badge with the first divergent token and whether that is expected."""
    if not result:
        return f'<span class="badge badge-none">{esc(t("figures.badge.none"))}</span>'
    if result.stopped and result.prefix_only:
        return (f'<span class="badge badge-identical badge-partial">\u2713 {esc(t("figures.badge.so_far"))}</span>'
                f'<span class="badge-why">{esc(t("figures.badge.stopped", n=result.first_divergence))}</span>')
    if result.identical:
        return (f'<span class="badge badge-identical" title="{esc(t("figures.badge.identical_tip"))}">'
                f'\u2713 {esc(t("figures.badge.identical"))}</span>')
    at = result.first_divergence
    why, expected = result.divergence_reason(lossless)
    why = translate(why)
    if result.divergence:  # the target's own probabilities at the divergent token (app/race/divergence.py)
        d = result.divergence
        expected = bool(d.get("near_tie"))
        why = t("figures.badge.near_tie" if expected else "figures.badge.real_loss",
                plain=repr(d["plain"]["text"]), p_plain=f"{d['plain']['p']:.1%}",
                assisted=repr(d["assisted"]["text"]), p_assisted=f"{d['assisted']['p']:.1%}")
    where = "" if at is None else t("figures.badge.at", token=at)
    return (f'<span class="badge badge-diverged {"badge-expected" if expected else "badge-unexpected"}" '
            f'data-first-divergence="{esc(at)}">\u2260 {esc(t("figures.badge.diverged", at=where))}</span>'
            f'<span class="badge-why">{esc(why)}</span>')


def verdict_lead(verdict: Any) -> str | None:
    """What a speedup's card says before its note, from the race's one verdict: 'slower than plain decoding', 'level:
    <why>', 'not a measurement: <why>', or None for a win."""
    reason = translate(verdict.reason)
    return {"loss": t("figures.slower"), "level": t("figures.level", reason=reason),
            "unmeasured": t("figures.unmeasured", reason=reason)}.get(verdict.kind)


def speed_card(result: RaceResult | None, label: str, note: str, cls: str) -> str:
    """The speedup card in the race's one verdict (app/race/verdict.py) and nothing else: a slowdown in colour
    ('speed-loss') and words, level with its reason, not a measurement struck through with its reason (and not
    labelled as measured). A race of both at once is a show: its card says so in its own note."""
    if result is None:
        return card_html("\u2013", label, note, f"stat-speedup {cls}")
    verdict = result.verdict
    if result.mode != "sequential":
        return card_html(f"{verdict.speedup:.2f}\u00d7", label, note, f"stat-speedup {cls} speed-show")
    lead = verdict_lead(verdict)
    if not verdict.measured:
        label = t("figures.sequential_unmeasured")
    return card_html(f"{verdict.speedup:.2f}\u00d7", label, f"{lead} \u00b7 {note}" if lead else note,
                     f"stat-speedup {cls} speed-{verdict.kind}")


def race_cards(result: RaceResult) -> list[str]:
    """Acceptance, mean accepted length and rounds: the cards every view of a finished race shows."""
    a = result.assisted
    alpha, drafted, accepted = a.acceptance_rate, sum(r.drafted for r in a.rounds), sum(r.accepted for r in a.rounds)
    return [card_html(t("figures.na") if alpha is None else f"{alpha:.0%}", t("figures.acceptance"),
                      t("figures.kept_of", accepted=accepted, drafted=drafted)),
            card_html(f"{a.mean_accepted_length:.2f}", t("figures.tau"), t("figures.tau_note")),
            card_html(str(len(a.rounds)), t("figures.rounds"), t("figures.rounds_note", tokens=a.new_tokens))]


def ttft_card(result: RaceResult) -> str:
    ttft = lambda v: "\u2013" if v is None else f"{v:.2f}"  # noqa: E731
    return card_html(f"{ttft(result.baseline.ttft_seconds)} / {ttft(result.assisted.ttft_seconds)} s",
                     t("figures.ttft"), t("figures.sides"))


def race_stats_html(latest: RaceResult | None, race: RaceResult | None = None, measured: RaceResult | None = None,
                    lossless: bool = True, engine_html: str | None = None) -> str:
    """The Race tab's after-run figures. latest: the result whose rounds, acceptance and TTFT are shown; race / measured:
    a concurrent / sequential result for the same settings, or None; lossless: whether a divergence is expected;
    engine_html: a serving engine's own figures (app/render/engine_panel.py), shown instead of the both-at-once card
    (an engine race is always measured one side after the other)."""
    if latest is None:
        return f'<div class="stats stats-empty">{esc(t("figures.stats_empty"))}</div>'
    a, b = latest.assisted, latest.baseline
    fair = t("figures.fair_note") if engine_html is None else t("figures.engine_note")
    cards = [speed_card(measured, t("figures.measured"), fair if measured else t("figures.measured_missing"),
                        "stat-measured")]
    if engine_html is None:
        cards.append(speed_card(race, t("figures.both"), t("figures.both_note") if race else t("figures.not_run"),
                                "stat-race"))
    cards += [*race_cards(latest), ttft_card(latest)]
    rates = esc(t("figures.rates." + ("sequential" if latest.mode == "sequential" else "concurrent"),
                  device=latest.device, baseline=f"{b.tokens_per_second:.1f}", assisted=f"{a.tokens_per_second:.1f}"))
    errors = "".join(f'<div class="status status-error" role="alert">{esc(side)}: {esc(translate(msg))}</div>'
                     for side, msg in latest.errors.items())
    return (f'<div class="stats" data-mode="{esc(latest.mode)}"><div class="stats-badge">{badge_html(latest, lossless)}'
            f'</div><div class="stats-grid">{"".join(cards)}</div><div class="stats-foot">{rates}</div>'
            f'{engine_html or ""}{errors}</div>')


def round_times(result: RaceResult) -> list[float]:
    """When each round's tokens appeared (seconds): the time of its first token."""
    a = result.assisted
    out, starting = [], True
    for tok, when in zip(a.tokens, a.token_times):
        if starting:
            out.append(when)
        starting = tok.status != "accepted"
    last = a.token_times[-1] if a.token_times else 0.0
    return (out + [last] * len(a.rounds))[:len(a.rounds)]


def _bars(i: int, r: Round, x: float, bar: int, y: Any, when: str) -> str:
    tip = t("figures.round_tip", round=i + 1, drafted=r.drafted, accepted=r.accepted)
    tip += " \u00b7 " + t("figures.round_rejected", text=r.rejected_text) if r.rejected_text else ""
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
        return f'<div class="chart chart-empty">{esc(t("figures.chart_empty"))}</div>'
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
    total = t("figures.chart_sum", rounds=n, drafted=sum(r.drafted for r in rounds), accepted=sum(r.accepted for r in rounds))
    legend = (f'<div class="chart-legend"><span class="key key-accepted"></span>{esc(t("figures.key_accepted"))}'
              f'<span class="key key-rejected"></span>{esc(t("figures.key_rejected"))}<span class="key key-none"></span>'
              f'{esc(t("figures.key_none"))}<span class="chart-sum">{esc(total)}</span></div>')
    return (f'<div class="chart"><div class="chart-title">{esc(t("figures.chart_title"))}</div>{legend}'
            f'<div class="chart-scroll"><svg class="chart-svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{esc(t("figures.chart_aria"))}">{"".join(parts)}</svg>'
            '</div></div>')
