"""Pure HTML for the figures around the race: stats cards, badge, round chart, hardware, method card.

Inputs are :class:`app.race.result.RaceResult` objects and plain dicts of machine facts;
nothing here imports gradio or loads a model.
"""

from __future__ import annotations

from typing import Sequence

from ...core.sources import short_name
from ...race.result import RaceResult, Round
from ...race.stats import speedup_verdict
from ..html import esc

WHERE_LABELS = {"offline": "runs offline", "needs hub": "needs hub", "needs hub + GPU": "needs hub + GPU"}


def fmt_params(n: int | None) -> str:
    """134515008 -> '134.5 M' parameters."""
    if not n:
        return "\u2013"
    if n >= 1e9:
        return f"{n / 1e9:.2f} B"
    return f"{n / 1e6:.1f} M"


def fmt_bytes(n: int | None) -> str:
    """Bytes in MB / GB (powers of 1024)."""
    if not n:
        return "\u2013"
    if n >= 1 << 30:
        return f"{n / (1 << 30):.2f} GB"
    return f"{n / (1 << 20):.0f} MB"


def _card(value: str, label: str, note: str = "", cls: str = "") -> str:
    note_html = f'<div class="stat-note">{esc(note)}</div>' if note else ""
    return (f'<div class="stat {esc(cls)}"><div class="stat-value">{esc(value)}</div>'
            f'<div class="stat-label">{esc(label)}</div>{note_html}</div>')


def badge_html(result: RaceResult | None, lossless: bool = True) -> str:
    """Identical / diverged badge with the first divergent token and whether that is expected."""
    if not result:
        return '<span class="badge badge-none">output check after the run</span>'
    if result.stopped and result.prefix_only:
        n = result.first_divergence
        return (f'<span class="badge badge-identical badge-partial">\u2713 identical so far</span>'
                f'<span class="badge-why">stopped early: the first {n} tokens of both runs match</span>')
    if result.identical:
        return ('<span class="badge badge-identical" title="assisted token ids equal the baseline\'s">'
                '\u2713 identical output</span>')
    at = result.first_divergence
    where = f"at token {at}" if at is not None else ""
    why, expected = result.divergence_reason(lossless)
    cls = "badge-expected" if expected else "badge-unexpected"
    return (f'<span class="badge badge-diverged {cls}" data-first-divergence="{esc(at)}">'
            f'\u2260 diverged {esc(where)}</span><span class="badge-why">{esc(why)}</span>')


def _speedup(result: RaceResult | None) -> str:
    return "\u2013" if not result else f"{result.speedup:.2f}\u00d7"


def _speed_class(result: RaceResult | None) -> str:
    """'speed-win' / 'speed-loss' / 'speed-even' (a speedup below 1 is a slowdown, in colour and words)."""
    if not result:
        return ""
    return f"speed-{speedup_verdict(result.speedup)}"


def _speed_note(result: RaceResult | None, note: str) -> str:
    if result and speedup_verdict(result.speedup) == "loss":
        return f"slower than plain decoding \u00b7 {note}"
    return note


def stats_html(latest: RaceResult | None, race: RaceResult | None = None, measured: RaceResult | None = None,
               lossless: bool = True) -> str:
    """The after-run figures.

    latest: the result whose rounds/acceptance/TTFT are shown (the last run of either mode).
    race: a concurrent-mode result for the same settings, or None. measured: a sequential
    result for the same settings, or None. lossless: whether the method keeps the target's
    output (decides whether a divergence is expected).
    """
    if latest is None:
        return ('<div class="stats stats-empty">Speedup, acceptance rate, mean accepted length and the '
                'round chart appear here after a race.</div>')
    a, b = latest.assisted, latest.baseline
    alpha = a.acceptance_rate
    drafted = sum(r.drafted for r in a.rounds)
    accepted = sum(r.accepted for r in a.rounds)
    race_note = "concurrent race (both runs share the machine)" if race else "run the race"
    measured_note = ("measured fairly: sequential, after a warm-up" if measured
                     else "press Measure fairly for a fair figure")
    ttft = lambda v: "\u2013" if v is None else f"{v:.2f}"  # noqa: E731
    cards = [
        _card(_speedup(race), "speedup", _speed_note(race, race_note), f"stat-speedup stat-race {_speed_class(race)}"),
        _card(_speedup(measured), "measured speedup", _speed_note(measured, measured_note),
              f"stat-speedup stat-measured {_speed_class(measured)}"),
        _card("n/a" if alpha is None else f"{alpha:.0%}", "acceptance rate \u03b1",
              f"{accepted} of {drafted} drafted tokens kept"),
        _card(f"{a.mean_accepted_length:.2f}", "mean accepted length \u03c4", "tokens kept per target forward pass"),
        _card(str(len(a.rounds)), "rounds", f"for {a.new_tokens} new tokens"),
        _card(f"{ttft(b.ttft_seconds)} / {ttft(a.ttft_seconds)} s", "time to first token", "baseline / assisted"),
    ]
    rates = (f'{latest.mode} run on {esc(latest.device)}: baseline '
             f'{b.tokens_per_second:.1f} tok/s, assisted {a.tokens_per_second:.1f} tok/s')
    errors = "".join(f'<div class="status status-error" role="alert">{esc(side)}: {esc(msg)}</div>'
                     for side, msg in latest.errors.items())
    return (f'<div class="stats" data-mode="{esc(latest.mode)}">'
            f'<div class="stats-badge">{badge_html(latest, lossless)}</div>'
            f'<div class="stats-grid">{"".join(cards)}</div>'
            f'<div class="stats-foot">{rates}</div>{errors}</div>')


def rounds_chart_html(rounds: Sequence[Round], height: int = 150) -> str:
    """Per-round bars as inline SVG: accepted drafts (solid) stacked under rejected drafts (hatched).

    Rounds that drafted nothing get a small neutral tick. Each bar has an SVG <title> tooltip.
    """
    if not rounds:
        return '<div class="chart chart-empty">The per-round chart of drafted vs accepted tokens appears after a race.</div>'
    n = len(rounds)
    top = max(max(r.drafted for r in rounds), max(r.accepted for r in rounds), 1)
    left, plot_h = 28, height - 30
    slot = max(8.0, min(64.0, 760 / n))
    width = int(left + n * slot + 8)
    bar = min(30, max(3, int(slot * 0.72)))
    y = lambda v: 6 + plot_h - plot_h * v / top  # noqa: E731
    parts = [
        '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="4" height="4" class="bar-rejected-bg"/><line x1="0" y1="0" x2="0" y2="4" class="bar-rejected-line"/>'
        '</pattern></defs>'
    ]
    for tick in sorted({0, top // 2, top}):
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>'
                     f'<text x="{left - 5}" y="{y(tick) + 3:.1f}" class="axis" text-anchor="end">{tick}</text>')
    step = max(1, round(n / 12))
    for i, r in enumerate(rounds):
        x = left + i * slot + (slot - bar) / 2
        drafted, acc = r.drafted, r.accepted
        tip = f"round {i + 1}: drafted {drafted}, accepted {acc}"
        if r.rejected_text:
            tip += f" \u00b7 rejected: \u201c{r.rejected_text}\u201d"
        g = [f'<g class="round"><title>{esc(tip)}</title>']
        if drafted == 0:
            g.append(f'<rect x="{x:.1f}" y="{y(0) - 3:.1f}" width="{bar}" height="3" class="bar-none"/>')
        else:
            if acc:
                g.append(f'<rect x="{x:.1f}" y="{y(acc):.1f}" width="{bar}" height="{y(0) - y(acc):.1f}" class="bar-accepted"/>')
            if drafted > acc:
                g.append(f'<rect x="{x:.1f}" y="{y(drafted):.1f}" width="{bar}" height="{y(acc) - y(drafted):.1f}" '
                         'class="bar-rejected" fill="url(#hatch)"/>')
        g.append("</g>")
        parts.append("".join(g))
        if i % step == 0:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - 4}" class="axis" text-anchor="middle">{i + 1}</text>')
    drafted_sum = sum(r.drafted for r in rounds)
    accepted_sum = sum(r.accepted for r in rounds)
    legend = ('<div class="chart-legend"><span class="key key-accepted"></span>accepted drafts'
              '<span class="key key-rejected"></span>rejected drafts'
              '<span class="key key-none"></span>no draft this round'
              f'<span class="chart-sum">{n} rounds \u00b7 {drafted_sum} drafted \u00b7 {accepted_sum} accepted</span></div>')
    svg = (f'<svg class="chart-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'role="img" aria-label="drafted versus accepted tokens per round">{"".join(parts)}</svg>')
    return (f'<div class="chart"><div class="chart-title">Drafted vs accepted tokens per round</div>{legend}'
            f'<div class="chart-scroll">{svg}</div></div>')


def hardware_html(facts: dict) -> str:
    """Device, dtype, parameter counts and weight memory; the CPU note when there is no GPU.

    facts: {"device": str, "gpu": str|None, "cpu_cores": int, "torch_threads": int,
    "models": [{"role", "spec", "n_params", "weight_bytes", "dtype", "device", "load_seconds"}]}.
    """
    device = facts.get("device", "cpu")
    where = esc(facts.get("gpu") or f"CPU \u00b7 {facts.get('cpu_cores', '?')} cores, "
                                     f"{facts.get('torch_threads', '?')} torch threads")
    rows = []
    for m in facts.get("models", []):
        cells = (esc(m["role"]), f'<span class="mono" title="{esc(m["spec"])}">{esc(short_name(m["spec"]))}</span>',
                 fmt_params(m.get("n_params")), fmt_bytes(m.get("weight_bytes")), esc(m.get("dtype", "")),
                 esc(m.get("device", "")))
        rows.append("".join(f"<span>{c}</span>" for c in cells))
    head = "".join(f'<span class="hw-th">{h}</span>' for h in ("model", "id", "params", "weights", "dtype", "device"))
    table = (f'<div class="hw-grid" role="table">{head}{"".join(rows)}</div>' if rows
             else '<div class="hw-pending">Models load on the first race (the first load of a packaged GGUF converts it '
                  'once, about 15-40 s).</div>')
    note = ""
    if not str(device).startswith("cuda"):
        note = ('<div class="hw-note" role="note"><b>CPU only.</b> In the concurrent race both runs share the same '
                'cores, so its speedup is a show, not a measurement. <b>Measure fairly</b> runs them one after the '
                'other after a warm-up.</div>')
    return f'<div class="hw"><div class="hw-device">Device: <b>{esc(device)}</b> \u00b7 {where}</div>{table}{note}</div>'


def method_card_html(preset, method) -> str:
    """Where the preset runs, the method's one-line summary and the preset's description.

    preset: an engine Preset. method: the engine Method (title, summary, lossless).
    """
    where = preset.where
    where_cls = "where-offline" if where == "offline" else "where-hub"
    lossless = ('<span class="pill pill-lossless">lossless</span>' if method.lossless
                else '<span class="pill pill-lossy">lossy by design</span>')
    return (f'<div class="method-card"><div class="method-head"><span class="pill {where_cls}">'
            f'{esc(WHERE_LABELS.get(where, where))}</span>{lossless}<span class="method-title">{esc(method.title)}</span></div>'
            f'<div class="method-summary">{esc(method.summary)}</div>'
            f'<div class="method-desc">{esc(preset.description)}</div>{_wins_html(preset)}</div>')


def _wins_html(preset) -> str:
    """Where the preset's method pays off and where it does not (the preset's wins_on / loses_on)."""
    rows = [(cls, label, text) for cls, label, text in (("wins", "Wins on", preset.wins_on),
                                                        ("loses", "Loses on", preset.loses_on)) if text]
    return "".join(f'<div class="method-{cls}"><b>{label}:</b> {esc(text)}</div>' for cls, label, text in rows)
