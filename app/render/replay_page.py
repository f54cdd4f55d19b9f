"""The replay page: one self-contained HTML file that replays a trace side by side with the app's own renderer and
player, everything inline (docs/DESIGN.md §4.3), written in the current language (``<html lang>``): the visitor's for
a page the app makes, English from the command line (docs/DESIGN.md §4.10)."""

from __future__ import annotations

import json

from ..core.sources import short_name
from ..race.methods import METHODS
from ..race.result import RaceResult
from ..core.words import language, t, translate
from .figures import (badge_html, mode_words, card_html, race_cards, round_times, rounds_chart_html, ttft_card,
                      verdict_lead)
from .html import esc
from .hardware import versions_text, when_text
from .live import legend_html, subtitles
from .player import JS, REPLAY_BOOT, SPEEDS
from .race_data import recorded_data
from .replay_tab import html_t, machine_words
from .style import REPLAY_CSS as CSS
from .why_panel import why_words
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
                       for title, text in ((t("pane.baseline"), r.baseline.text), (t("pane.assisted"), r.assisted.text)))
    return (f'<div id="player" class="race-player"></div><script type="application/json" id="race-data">'
            f'{script_json(data)}</script><noscript><p>{esc(t("replay.page.noscript"))}</p>{fallback}</noscript>')


def header_html(trace: Trace) -> str:
    """The recording banner (when and where, never mistaken for a live run) and the page title."""
    r, env = trace.result, trace.environment
    helper = t("replay.page.helper", name=short_name(r.assistant)) if r.assistant else ""
    label, note = mode_words(r.mode)
    banner = html_t("replay.page.banner", when=f"<b>{esc(when_text(trace.recorded_at))}</b>",
                    machine=f"<b>{esc(machine_words(env))}</b>")
    subtitle = t("replay.page.subtitle", method=_method_title(r), target=short_name(r.target), helper=helper,
                 preset=r.preset, mode=label, note=note)
    return ('<div class="rec-banner" role="note" id="recording"><span class="rec-tag"><span class="rec-dot"></span>'
            f'{esc(t("replay.page.tag"))}</span><span>{banner}</span></div>'
            f'<header class="hdr"><h1>{esc(t("page.title"))} <span>{esc(t("replay.page.suffix"))}</span></h1>'
            f'<p>{esc(subtitle)}</p></header>')


def controls_html(speed: float) -> str:
    """Play/pause, restart, end, the speed buttons (0.25x to 8x) and the clock."""
    buttons = "".join(f'<button type="button" data-speed="{s:g}" aria-pressed="{str(s == speed).lower()}">{s:g}\u00d7'
                      '</button>' for s in SPEEDS)
    return (f'<section class="controls" aria-label="{esc(t("replay.page.playback"))}">'
            f'<button type="button" id="play">{esc(t("player.play"))}</button>'
            f'<button type="button" id="restart">{esc(t("replay.page.restart"))}</button>'
            f'<button type="button" id="end">{esc(t("replay.page.end"))}</button>'
            f'<div class="speeds" role="group" aria-label="{esc(t("replay.page.speed"))}">{buttons}</div>'
            f'<span class="clock" id="clock" aria-live="off">{esc(t("replay.page.final_state"))}</span></section>')


def final_figures_html(trace: Trace) -> str:
    """The final figures, hidden while the replay runs (the player shows them at the end)."""
    r = trace.result
    label, note = mode_words(r.mode)
    lossless = METHODS[r.method].lossless if r.method in METHODS else True
    verdict = r.verdict  # the race's one verdict, as saved with it (app/race/verdict.py)
    lead = verdict_lead(verdict) if r.mode == "sequential" else None
    if r.mode == "sequential" and not verdict.measured:
        label = t("why.mode.sequential_unmeasured")
    cards = [card_html(f"{verdict.speedup:.2f}\u00d7", t("replay.page.speedup", mode=label),
                       f"{lead} \u00b7 {note}" if lead else note, f"stat-speedup speed-{verdict.kind}"),
             *race_cards(r), card_html(f"{r.baseline.tokens_per_second:.1f} / {r.assisted.tokens_per_second:.1f}",
                                       t("replay.page.rates"), t("replay.page.sides")), ttft_card(r)]
    why = why_words(r.why) if r.why is not None else translate(trace.verdict or "")
    explained = f'<div class="verdict"><b>{esc(t("replay.page.why"))}</b> {esc(why)}</div>' if why else ""
    return (f'<section class="card stats" id="stats" aria-label="{esc(t("replay.page.figures_aria"))}">'
            f'<div class="card-title">{esc(t("replay.page.figures_title"))}</div>'
            f'<div class="final-wait">{esc(t("replay.page.final_wait"))}</div>'
            f'<div class="final" data-mode="{esc(r.mode)}"><div class="badges">{badge_html(r, lossless)}</div>'
            f'<div class="stats-grid">{"".join(cards)}</div>{explained}</div></section>')


def _facts(trace: Trace) -> list[tuple[str, str]]:
    s, r, env = trace.settings, trace.result, trace.environment
    decoding = t("replay.fact.greedy")
    if r.do_sample:
        decoding = t("replay.fact.sampling", temperature=s.get("temperature"), top_p=s.get("top_p"), seed=s.get("seed"))
    knobs = s.get("knobs") if isinstance(s.get("knobs"), dict) else {}
    facts = [("preset", r.preset), ("method", f"{_method_title(r)} ({r.method})"), ("target", r.target),
             ("assistant", r.assistant or "\u2013"), ("decoding", decoding),
             ("max_new_tokens", str(s.get("max_new_tokens", "\u2013"))),
             ("knobs", ", ".join(f"{k}={v}" for k, v in knobs.items()) or "\u2013"),
             ("draft_policy", r.assisted.draft_policy or t("replay.fact.default_policy")),
             ("mode", " ".join(mode_words(r.mode))), ("machine", machine_words(env)),
             ("versions", versions_text(env) or "\u2013"), ("recorded", when_text(trace.recorded_at))]
    return [(t(f"replay.fact.{name}"), value) for name, value in facts]


def setup_html(trace: Trace) -> str:
    """The prompt, settings and machine (folded), and a line saying how the replay keeps time."""
    code = t("replay.fact.knobs")  # the knobs as generate() takes them: code
    facts = "".join(f"<dt>{esc(k)}</dt><dd>{f'<code>{esc(v)}</code>' if k == code and '=' in v else esc(v)}</dd>"
                    for k, v in _facts(trace))
    order = ""
    if trace.result.mode == "sequential":
        order = t("replay.page.order_fair" if trace.result.baseline_kept_at is None else "replay.page.order_kept")
    provenance = html_t("replay.page.provenance", when=esc(when_text(trace.recorded_at)),
                        machine=esc(machine_words(trace.environment)), versions=esc(versions_text(trace.environment)),
                        order=esc(order), command="<code>python -m app replay</code>")
    return (f'<details class="card setup"><summary>{esc(t("replay.page.setup"))}</summary><pre>{esc(trace.prompt)}</pre>'
            f'<dl class="facts">{facts}</dl></details><p class="provenance">{provenance}</p>')


def replay_html(trace: Trace, speed: float = 1.0) -> str:
    """The whole page for `trace`; `speed` is the starting speed (the URL's ?speed= wins)."""
    result: RaceResult = trace.result
    title = t("replay.page.title", preset=result.preset, speedup=f"{result.speedup:.2f}", mode=mode_words(result.mode)[0],
              when=when_text(trace.recorded_at))
    legend = ('<div class="legend-row">' + legend_html() +
              f'<label><input type="checkbox" id="show-rej"> {esc(t("ui.race.show_rejected"))}</label></div>')
    chart = rounds_chart_html(result.assisted.rounds, times=round_times(result)) if result.assisted.rounds else ""
    return (f'<!DOCTYPE html>\n<html lang="{language()}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="assisted-decoding-arena replay"><title>{esc(title)}</title>'
            f'<style>{CSS}</style></head>\n'
            f'<body data-state="static" data-speed="{min(8.0, max(0.25, float(speed))):g}"><main class="wrap">'
            f'{header_html(trace)}{controls_html(speed)}{panes_html(trace)}{legend}{final_figures_html(trace)}'
            f'{chart}{setup_html(trace)}</main>\n<script>{JS}\n{REPLAY_BOOT}</script></body></html>\n')
