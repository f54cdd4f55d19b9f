"""The replay page's sections around the panes: the recording banner, the player controls, the final
figures (speedup labelled with its mode, acceptance, mean accepted length, identical badge, the why
verdict), the per-round chart and the prompt, settings and machine (docs/DESIGN.md §3, §4, §5)."""

from __future__ import annotations

from typing import Any

from ..race.methods import METHODS
from ..race.result import RaceResult
from ..core.sources import short_name
from .text import MODE_LABELS, SPEEDS, esc, when_text
from .tracefile import Trace


def _method_title(result: RaceResult) -> str:
    return METHODS[result.method].title if result.method in METHODS else result.method


def machine_text(env: dict[str, Any]) -> str:
    """'AMD EPYC 7763 (cpu, 2 cores, 1 torch thread per side, float32)'."""
    bits = [str(env.get("device") or "?")]
    if env.get("cores"):
        bits.append(f"{env['cores']} cores")
    if env.get("threads_per_side"):
        n = env["threads_per_side"]
        bits.append(f"{n} torch thread{'s' if n != 1 else ''} per side")
    if env.get("dtype"):
        bits.append(str(env["dtype"]))
    return f"{env.get('device_name') or 'an unnamed machine'} ({', '.join(bits)})"


def versions_text(env: dict[str, Any]) -> str:
    names = (("torch", "torch"), ("transformers", "transformers"), ("gradio", "gradio"), ("python", "Python"))
    return " \u00b7 ".join(f"{label} {env[key]}" for key, label in names if env.get(key))


def header_html(trace: Trace) -> str:
    """The recording banner (when and where, never mistaken for a live run) and the page title."""
    r, env = trace.result, trace.environment
    helper = f" drafted by {short_name(r.assistant)}" if r.assistant else ""
    label, note = MODE_LABELS[r.mode]
    return ('<div class="rec-banner" role="note" id="recording"><span class="rec-tag"><span class="rec-dot"></span>'
            f'Recording</span><span>A replay of a race recorded <b>{esc(when_text(trace.recorded_at))}</b> on '
            f'<b>{esc(machine_text(env))}</b>. Not a live run: nothing is computed here.</span></div>'
            f'<header class="hdr"><h1>Assisted-decoding arena <span>\u00b7 replay</span></h1>'
            f'<p>{esc(_method_title(r))} on {esc(short_name(r.target))}{esc(helper)} \u00b7 preset {esc(r.preset)} '
            f'\u00b7 {esc(label)} ({esc(note)})</p></header>')


def controls_html(speed: float) -> str:
    """Play/pause, restart, end, the speed buttons (0.25x to 8x) and the clock."""
    buttons = "".join(f'<button type="button" data-speed="{s:g}" aria-pressed="{str(s == speed).lower()}">{s:g}\u00d7'
                      '</button>' for s in SPEEDS)
    return ('<section class="controls" aria-label="playback">'
            '<button type="button" id="play">\u25b6 Play</button>'
            '<button type="button" id="restart">\u21ba Restart</button>'
            '<button type="button" id="end">End \u21e5</button>'
            f'<div class="speeds" role="group" aria-label="playback speed">{buttons}</div>'
            '<span class="clock" id="clock" aria-live="off">final state</span></section>')


def badge_html(result: RaceResult) -> str:
    """Identical / diverged badge, with whether a divergence is expected (as the app's badge says)."""
    if result.stopped and result.prefix_only:
        return ('<span class="badge badge-identical">\u2713 identical so far</span><span class="badge-why">stopped '
                f'early: the first {result.first_divergence} tokens of both runs match</span>')
    if result.identical:
        return '<span class="badge badge-identical">\u2713 identical output</span>'
    lossless = METHODS[result.method].lossless if result.method in METHODS else True
    why, expected = result.divergence_reason(lossless)
    cls = "badge-expected" if expected else "badge-unexpected"
    return (f'<span class="badge badge-diverged {cls}">\u2260 diverged at token {result.first_divergence}</span>'
            f'<span class="badge-why">{esc(why)}</span>')


def _card(value: str, label: str, note: str, cls: str = "") -> str:
    return (f'<div class="stat {cls}"><div class="stat-value">{esc(value)}</div><div class="stat-label">{esc(label)}'
            f'</div><div class="stat-note">{esc(note)}</div></div>')


def stats_html(trace: Trace) -> str:
    """The final figures, hidden while the replay runs (the player shows them at the end)."""
    r = trace.result
    a, b = r.assisted, r.baseline
    alpha, drafted = a.acceptance_rate, sum(x.drafted for x in a.rounds)
    label, note = MODE_LABELS[r.mode]
    ttft = lambda v: "\u2013" if v is None else f"{v:.2f}"  # noqa: E731
    cards = [_card(f"{r.speedup:.2f}\u00d7", f"speedup \u00b7 {label}", note, "stat-speedup"),
             _card("n/a" if alpha is None else f"{alpha:.0%}", "acceptance rate \u03b1",
                   f"{sum(x.accepted for x in a.rounds)} of {drafted} drafted tokens kept"),
             _card(f"{a.mean_accepted_length:.2f}", "mean accepted length \u03c4", "tokens kept per target forward pass"),
             _card(str(len(a.rounds)), "rounds", f"for {a.new_tokens} new tokens"),
             _card(f"{b.tokens_per_second:.1f} / {a.tokens_per_second:.1f}", "tokens per second", "baseline / assisted"),
             _card(f"{ttft(b.ttft_seconds)} / {ttft(a.ttft_seconds)} s", "time to first token", "baseline / assisted")]
    verdict = f'<div class="verdict"><b>Why:</b> {esc(trace.verdict)}</div>' if trace.verdict else ""
    return ('<section class="card stats" id="stats" aria-label="final figures">'
            '<div class="card-title">Final figures of the recorded run</div>'
            '<div class="final-wait">Speedup, acceptance and why appear when the replay ends (or press End).</div>'
            f'<div class="final" data-mode="{esc(r.mode)}"><div class="badges">{badge_html(r)}</div>'
            f'<div class="stats-grid">{"".join(cards)}</div>{verdict}</div></section>')


def round_times(result: RaceResult) -> list[float]:
    """When each round's tokens appeared (seconds): the time of its first token (a round closes at every
    token that is not an accepted draft)."""
    a = result.assisted
    out, starting = [], True
    for tok, t in zip(a.tokens, a.token_times):
        if starting:
            out.append(t)
        starting = tok.status != "accepted"
    last = a.token_times[-1] if a.token_times else 0.0
    return (out + [last] * len(a.rounds))[:len(a.rounds)]


def chart_html(trace: Trace, height: int = 140) -> str:
    """Drafted vs accepted tokens per round as inline SVG that scales to the page width; each round's bar
    appears when its tokens do."""
    rounds = trace.result.assisted.rounds
    if not rounds:
        return ""
    n, top = len(rounds), max(max(r.drafted for r in rounds), 1)
    left, plot_h = 30, height - 30
    slot = max(10.0, min(60.0, 900 / n))
    width, bar = int(left + n * slot + 8), max(4.0, slot * 0.72)
    y = lambda v: 6 + plot_h - plot_h * v / top  # noqa: E731
    parts = ['<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
             '<rect width="4" height="4" class="bar-rejected-bg"/><line x1="0" y1="0" x2="0" y2="4" '
             'class="bar-rejected-line"/></pattern></defs>']
    for tick in sorted({0, top // 2, top}):
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" class="axis" text-anchor="end">{tick}</text>')
    step = max(1, round(n / 10))
    for i, (r, t) in enumerate(zip(rounds, round_times(trace.result))):
        x = left + i * slot + (slot - bar) / 2
        tip = f"round {i + 1}: drafted {r.drafted}, accepted {r.accepted}"
        tip += f" \u00b7 rejected: \u201c{r.rejected_text}\u201d" if r.rejected_text else ""
        g = [f'<g class="round" data-t="{t:.4f}"><title>{esc(tip)}</title>']
        if r.drafted == 0:
            g.append(f'<rect x="{x:.1f}" y="{y(0) - 3:.1f}" width="{bar:.1f}" height="3" class="bar-none"/>')
        if r.accepted:
            g.append(f'<rect x="{x:.1f}" y="{y(r.accepted):.1f}" width="{bar:.1f}" height="{y(0) - y(r.accepted):.1f}" '
                     'class="bar-accepted"/>')
        if r.drafted > r.accepted:
            g.append(f'<rect x="{x:.1f}" y="{y(r.drafted):.1f}" width="{bar:.1f}" '
                     f'height="{y(r.accepted) - y(r.drafted):.1f}" class="bar-rejected" fill="url(#hatch)"/>')
        parts.append("".join(g) + "</g>")
        if i % step == 0:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - 6}" class="axis" text-anchor="middle">{i + 1}</text>')
    drafted, accepted = sum(r.drafted for r in rounds), sum(r.accepted for r in rounds)
    return ('<section class="card chart" id="chart"><div class="card-title">Drafted vs accepted tokens per round</div>'
            '<div class="chart-legend"><span class="key key-accepted"></span>accepted drafts<span class="key '
            'key-rejected"></span>rejected drafts<span class="key key-none"></span>no draft this round'
            f'<span>\u00b7 {n} rounds \u00b7 {drafted} drafted \u00b7 {accepted} accepted</span></div>'
            f'<svg class="chart-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="drafted versus accepted tokens per round">{"".join(parts)}</svg></section>')


def _facts(trace: Trace) -> list[tuple[str, str]]:
    s, r, env = trace.settings, trace.result, trace.environment
    decoding = "greedy"
    if r.do_sample:
        decoding = f"sampling, temperature {s.get('temperature')}, top-p {s.get('top_p')}, seed {s.get('seed')}"
    knobs = s.get("knobs") if isinstance(s.get("knobs"), dict) else {}
    return [("preset", r.preset), ("method", f"{_method_title(r)} ({r.method})"), ("target", r.target),
            ("assistant", r.assistant or "\u2013"), ("decoding", decoding),
            ("max new tokens", str(s.get("max_new_tokens", "\u2013"))),
            ("knobs", ", ".join(f"{k}={v}" for k, v in knobs.items()) or "\u2013"),
            ("draft policy", r.assisted.draft_policy or "transformers' default"),
            ("mode", " ".join(MODE_LABELS[r.mode])), ("machine", machine_text(env)),
            ("versions", versions_text(env) or "\u2013"), ("recorded", when_text(trace.recorded_at))]


def setup_html(trace: Trace) -> str:
    """The prompt, settings and machine (folded), and a line saying how the replay keeps time."""
    facts = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in _facts(trace))
    order = (" In the recording the two sides ran one after the other after a warm-up; here they start together."
             if trace.result.mode == "sequential" else "")
    return (f'<details class="card setup"><summary>Prompt, settings and machine</summary><pre>{esc(trace.prompt)}</pre>'
            f'<dl class="facts">{facts}</dl></details>'
            f'<p class="provenance">Recorded {esc(when_text(trace.recorded_at))} on {esc(machine_text(trace.environment))}'
            f' \u00b7 {esc(versions_text(trace.environment))}. Each token appears when it appeared in the recorded run, '
            f'counted from the start of its side\u2019s generate().{order} Made with '
            '<code>python -m app replay</code> (assisted-decoding arena).</p>')
