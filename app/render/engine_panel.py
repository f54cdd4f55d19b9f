"""What a race on a serving engine adds to the page (docs/DESIGN.md §4.7): the engine's own figures beside the arena's
clock (its tokens/s, which leave out the prompt's processing, and its draft counts), and the why panel of an engine
race, whose rounds come from the engine's counters and whose time the engine does not split into drafting and
verifying."""

from __future__ import annotations

from typing import Any

from ..engine.result import EngineRace
from ..engine.rounds import COUNTS, PER_STEP, TOTALS
from .figures import card_html
from .html import esc
from .why_panel import positions_html, speedup_words

#: How each source of the statuses reads (app/engine/rounds.py).
SOURCES = {PER_STEP: "exact: the engine reported every verify step",
           COUNTS: "from the engine's counts per round, in an order it did not report",
           TOTALS: "from the engine's totals only: one summary round"}


def _rate(side: dict[str, Any]) -> float | None:
    value = side.get("predicted_per_second")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def decode_speedup(race: EngineRace) -> float | None:
    """The engine's own decode-only speedup: its assisted tokens/s over its plain tokens/s (prompt processing left
    out); None where it reports no rates."""
    reported = race.engine.get("reported", {})
    plain, assisted = _rate(reported.get("baseline", {})), _rate(reported.get("assisted", {}))
    return assisted / plain if plain and assisted else None


def engine_cards_html(race: EngineRace) -> str:
    """The engine's own figures as stat cards: its decode-only speedup, its tokens/s per side, its draft counts."""
    reported = race.engine.get("reported", {})
    b, a = reported.get("baseline", {}), reported.get("assisted", {})
    ratio = decode_speedup(race)
    fmt = lambda x: "\u2013" if x is None else f"{x:.1f}"  # noqa: E731
    name = race.engine.get("name", "engine")
    cards = [card_html("\u2013" if ratio is None else f"{ratio:.2f}\u00d7", f"{name}'s own decode speedup",
                       "its assisted tokens/s over its plain tokens/s, the prompt's processing left out",
                       "stat-engine"),
             card_html(f"{fmt(_rate(b))} / {fmt(_rate(a))}", f"{name}'s own tokens/s", "plain / assisted, decoding only"),
             card_html(f"{a.get('draft_n_accepted', 0)} of {a.get('draft_n', 0)}", "drafts the engine accepted",
                       "its own counters; the rounds below add up to them")]
    return (f'<div class="stats-engine"><div class="stats-foot">Reported by {esc(name)} '
            f'{esc(race.engine.get("version") or "")} ({esc(race.engine.get("speculative_type") or "")}); '
            f'statuses {esc(SOURCES.get(race.status_source, race.status_source))}.</div>'
            f'<div class="stats-grid">{"".join(cards)}</div></div>')


def engine_verdict(race: EngineRace) -> str:
    """The engine race's why sentence: how many drafts it accepted, its own decode speedup and the arena's."""
    r = race.result
    drafted = sum(x.drafted for x in r.assisted.rounds)
    accepted = sum(x.accepted for x in r.assisted.rounds)
    ratio = decode_speedup(race)
    head = (f"The engine accepted {accepted} of {drafted} drafted tokens ({accepted / drafted:.0%})" if drafted
            else "The engine drafted nothing on this prompt: both sides decoded plainly")
    own = f"; decoding alone it ran {ratio:.2f}\u00d7 plain's speed" if ratio is not None else ""
    return (f"{head}{own}; on the arena's clock, which counts the prompt's processing too, the race was "
            f"{r.speedup:.2f}\u00d7.")


def _ms(side: dict[str, Any], key: str) -> float | None:
    value = side.get(key)
    return float(value) if isinstance(value, (int, float)) and value >= 0 else None


def engine_time_html(race: EngineRace) -> str:
    """Where each side's time went on the engine's own clock (reading the prompt, then decoding) next to the arena's
    clock (request sent to last token), so the gap between the engine's speedup and the arena's is visible."""
    reported = race.engine.get("reported", {})
    rows, longest = [], 1e-9
    for name, label in (("baseline", "plain"), ("assisted", "assisted")):
        side = reported.get(name, {})
        prompt, decode = _ms(side, "prompt_ms"), _ms(side, "predicted_ms")
        arena = getattr(race.result, name).seconds * 1000
        longest = max(longest, arena, (prompt or 0) + (decode or 0))
        rows.append((label, prompt, decode, arena))
    if all(p is None and d is None for _, p, d, _ in rows):
        return '<div class="why-note">The engine reported no timings of its own.</div>'
    bars = []
    for label, prompt, decode, arena in rows:
        segs = "".join(f'<span class="why-seg why-seg-{cls}" style="width:{100 * ms / longest:.1f}%" '
                       f'title="{esc(what)}: {ms:.0f} ms"></span>' for cls, what, ms in
                       (("draft", "reading the prompt", prompt), ("verify", "decoding", decode)) if ms)
        bars.append(f'<div class="why-fig-title">{esc(label)}: the engine {((prompt or 0) + (decode or 0)):.0f} ms, '
                    f'the arena\u2019s clock {arena:.0f} ms</div><div class="why-stack">{segs}</div>')
    keys = ('<div class="why-keys"><span><i class="why-key why-seg-draft"></i>reading the prompt</span>'
            '<span><i class="why-key why-seg-verify"></i>decoding</span></div>')
    return f'<div class="why-fig-title">The engine\u2019s own clock</div>{"".join(bars)}{keys}'


def engine_why_html(race: EngineRace) -> str:
    """The why panel of an engine race: the verdict in words, acceptance by draft position (from the engine's
    rounds), and where the time went on the engine's own clock; no draft/verify split, which the engine does not
    report."""
    r = race.result
    words, kind = speedup_words(r.speedup, r.verdict)
    return (f'<div class="why why-{kind}" role="region" aria-label="why this result">'
            f'<div class="why-head"><span class="why-speed speed-{kind}">{esc(words)}</span>'
            f'<span class="why-mode">{esc(race.engine.get("name", "engine"))} \u00b7 measured sequentially</span></div>'
            f'<div class="why-verdict">{esc(engine_verdict(race))}</div>'
            f'<div class="why-figs"><div class="why-fig">{positions_html(r, None)}</div>'
            f'<div class="why-fig">{engine_time_html(race)}</div></div></div>')
