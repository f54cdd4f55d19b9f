"""The replay page: one self-contained HTML file that replays a trace side by side with the app's own renderer and
player, everything inline (docs/DESIGN.md §4.3)."""

from __future__ import annotations

import json

from ..core.sources import short_name
from ..race.methods import METHODS
from ..race.result import RaceResult
from .figures import MODE_LABELS, badge_html, card_html, race_cards, round_times, rounds_chart_html, ttft_card
from .html import esc
from .hardware import machine_text, versions_text, when_text
from .panes import legend_html, subtitles
from .player import JS, REPLAY_BOOT, SPEEDS
from .race_data import recorded_data
from .style import REPLAY_CSS as CSS
from ..replay.tracefile import Trace


def _method_title(result: RaceResult) -> str:
    return METHODS[result.method].title if result.method in METHODS else result.method


def script_json(value: object) -> str:
    """`value` as JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` (so no ``</script>``) and no
    line separators JavaScript would read as line ends."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                       ("\u2029", "\\u2029")):
        text = text.replace(char, code)
    return text


def panes_html(trace: Trace) -> str:
    """Where the player draws both panes, the race's data it draws them from (docs/DESIGN.md §4.9), and for a
    browser without JavaScript both texts as they ended."""
    r = trace.result
    data = recorded_data(r, trace.baseline_texts, trace.max_new_tokens, subtitles(_method_title(r), r.target, r.assistant))
    fallback = "".join(f'<section class="card"><div class="card-title">{esc(title)}</div><pre>{esc(text)}</pre></section>'
                       for title, text in (("Baseline", r.baseline.text), ("Assisted", r.assisted.text)))
    return (f'<div id="player" class="race-player"></div><script type="application/json" id="race-data">'
            f'{script_json(data)}</script><noscript><p>This replay draws its tokens with JavaScript; here is how both '
            f'sides ended.</p>{fallback}</noscript>')


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


def final_figures_html(trace: Trace) -> str:
    """The final figures, hidden while the replay runs (the player shows them at the end)."""
    r = trace.result
    label, note = MODE_LABELS[r.mode]
    lossless = METHODS[r.method].lossless if r.method in METHODS else True
    cards = [card_html(f"{r.speedup:.2f}\u00d7", f"speedup \u00b7 {label}", note, "stat-speedup"), *race_cards(r),
             card_html(f"{r.baseline.tokens_per_second:.1f} / {r.assisted.tokens_per_second:.1f}", "tokens per second",
                       "baseline / assisted"), ttft_card(r)]
    verdict = f'<div class="verdict"><b>Why:</b> {esc(trace.verdict)}</div>' if trace.verdict else ""
    return ('<section class="card stats" id="stats" aria-label="final figures">'
            '<div class="card-title">Final figures of the recorded run</div>'
            '<div class="final-wait">Speedup, acceptance and why appear when the replay ends (or press End).</div>'
            f'<div class="final" data-mode="{esc(r.mode)}"><div class="badges">{badge_html(r, lossless)}</div>'
            f'<div class="stats-grid">{"".join(cards)}</div>{verdict}</div></section>')


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
    order = ""
    if trace.result.mode == "sequential":
        order = (" The race was a fair race, replayed as it ran: after a warm-up, plain ran with the machine to itself, "
                 "then assisted ran while plain's recorded run replayed from zero beside it."
                 if trace.result.baseline_kept_at is None else
                 " The race was a fair race against plain's run kept from an earlier race: assisted ran while that "
                 "run replayed from zero beside it.")
    return (f'<details class="card setup"><summary>Prompt, settings and machine</summary><pre>{esc(trace.prompt)}</pre>'
            f'<dl class="facts">{facts}</dl></details>'
            f'<p class="provenance">Recorded {esc(when_text(trace.recorded_at))} on {esc(machine_text(trace.environment))}'
            f' \u00b7 {esc(versions_text(trace.environment))}. Each token appears when it appeared in the recorded run, '
            f'counted from the start of its side\u2019s generate().{order} Made with '
            '<code>python -m app replay</code> (assisted-decoding arena).</p>')


def replay_html(trace: Trace, speed: float = 1.0) -> str:
    """The whole page for `trace`; `speed` is the starting speed (the URL's ?speed= wins)."""
    result: RaceResult = trace.result
    title = (f"Replay: {result.preset} \u00b7 {result.speedup:.2f}\u00d7 {MODE_LABELS[result.mode][0]} \u00b7 "
             f"recorded {when_text(trace.recorded_at)}")
    legend = ('<div class="legend-row">' + legend_html() +
              '<label><input type="checkbox" id="show-rej"> Show rejected drafts inline</label></div>')
    chart = rounds_chart_html(result.assisted.rounds, times=round_times(result)) if result.assisted.rounds else ""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="assisted-decoding-arena replay"><title>{esc(title)}</title>'
            f'<style>{CSS}</style></head>\n'
            f'<body data-state="static" data-speed="{min(8.0, max(0.25, float(speed))):g}"><main class="wrap">'
            f'{header_html(trace)}{controls_html(speed)}{panes_html(trace)}{legend}{final_figures_html(trace)}'
            f'{chart}{setup_html(trace)}</main>\n<script>{JS}\n{REPLAY_BOOT}</script></body></html>\n')
