"""What a race on a serving engine adds to the page (docs/DESIGN.md §4.7): the engine's own figures beside the arena's
clock (its tokens/s, which leave out the prompt's processing, and its draft counts), and the why panel of an engine
race, whose rounds come from the engine's counters and whose round costs from its own timings (app/engine/costs.py
``round_costs``: the figures the command line prints, rounded as it rounds them; the engine times drafting and
verifying a round together, never apart)."""

from __future__ import annotations

from typing import Any

from ..engine.result import EngineRace
from ..engine.rounds import COUNTS, PER_STEP, TOTALS
from .figures import card_html
from ..core.words import t, translate
from .html import esc
from .why_panel import mode_label, positions_html, speedup_words

#: The words' key of each source of the statuses (app/engine/rounds.py).
SOURCES = {PER_STEP: "engine.source.per_step", COUNTS: "engine.source.counts", TOTALS: "engine.source.totals"}


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
    cards = [card_html("\u2013" if ratio is None else f"{ratio:.2f}\u00d7", t("engine.decode_speedup", name=name),
                       t("engine.decode_speedup_note"), "stat-engine"),
             card_html(f"{fmt(_rate(b))} / {fmt(_rate(a))}", t("engine.own_rates", name=name), t("engine.own_rates_note")),
             card_html(t("figures.rounds_of_drafts", accepted=a.get("draft_n_accepted", 0), drafted=a.get("draft_n", 0)),
                       t("engine.accepted"), t("engine.accepted_note"))]
    source = t(SOURCES[race.status_source]) if race.status_source in SOURCES else race.status_source
    reported = t("engine.reported_by", name=name, version=race.engine.get("version") or "",
                 spec=race.engine.get("speculative_type") or "", source=source)
    return (f'<div class="stats-engine"><div class="stats-foot">{esc(reported)}</div>'
            f'<div class="stats-grid">{"".join(cards)}</div></div>')


def engine_verdict(race: EngineRace) -> str:
    """The engine race's why sentence: how many drafts it accepted, its own decode speedup and the arena's, and when
    the race's one verdict (app/race/verdict.py) reads it as level or as no measurement, why."""
    r = race.result
    drafted = sum(x.drafted for x in r.assisted.rounds)
    accepted = sum(x.accepted for x in r.assisted.rounds)
    ratio = decode_speedup(race)
    head = (t("engine.verdict_accepted", accepted=accepted, drafted=drafted, share=f"{accepted / drafted:.0%}")
            if drafted else t("engine.verdict_none"))
    own = t("engine.verdict_own", ratio=f"{ratio:.2f}") if ratio is not None else ""
    verdict = r.verdict
    said = {"level": "engine.verdict_level", "unmeasured": "engine.verdict_unmeasured"}.get(verdict.kind)
    tail = " " + t(said, reason=translate(verdict.reason)) if said else ""
    return t("engine.verdict", head=head, own=own, speedup=f"{verdict.speedup:.2f}") + tail


def _ms(side: dict[str, Any], key: str) -> float | None:
    value = side.get(key)
    return float(value) if isinstance(value, (int, float)) and value >= 0 else None


def engine_time_html(race: EngineRace) -> str:
    """Where each side's time went on the engine's own clock (reading the prompt, then decoding) next to the arena's
    clock (request sent to last token), so the gap between the engine's speedup and the arena's is visible."""
    reported = race.engine.get("reported", {})
    rows, longest = [], 1e-9
    for name, label in (("baseline", "engine.side.plain"), ("assisted", "engine.side.assisted")):
        side = reported.get(name, {})
        prompt, decode = _ms(side, "prompt_ms"), _ms(side, "predicted_ms")
        arena = getattr(race.result, name).seconds * 1000
        longest = max(longest, arena, (prompt or 0) + (decode or 0))
        rows.append((label, prompt, decode, arena))
    if all(p is None and d is None for _, p, d, _ in rows):
        return f'<div class="why-note">{esc(t("engine.no_timings"))}</div>'
    bars = []
    for label, prompt, decode, arena in rows:
        segs = "".join(f'<span class="why-seg why-seg-{cls}" style="width:{100 * ms / longest:.1f}%" '
                       f'title="{esc(t(key))}: {ms:.0f} ms"></span>' for cls, key, ms in
                       (("draft", "engine.prompt_time", prompt), ("verify", "engine.decode_time", decode)) if ms)
        title = t("engine.time_row", side=t(label), engine=f"{(prompt or 0) + (decode or 0):.0f}", arena=f"{arena:.0f}")
        bars.append(f'<div class="why-fig-title">{esc(title)}</div><div class="why-stack">{segs}</div>')
    keys = (f'<div class="why-keys"><span><i class="why-key why-seg-draft"></i>{esc(t("engine.prompt_time"))}</span>'
            f'<span><i class="why-key why-seg-verify"></i>{esc(t("engine.decode_time"))}</span></div>')
    return f'<div class="why-fig-title">{esc(t("engine.own_clock"))}</div>{"".join(bars)}{keys}'


def round_costs_html(race: EngineRace) -> str:
    """What one round of drafting and verifying cost on the engine's own timings against the tokens it kept, and
    whether drafting pays, from the race's ``engine.round_costs`` (app/engine/costs.py); one line where the engine
    drafted but reported no decode timings, nothing where it drafted nothing (the verdict says so)."""
    costs = race.engine.get("round_costs")
    if not costs:
        drafted = sum(x.drafted for x in race.result.assisted.rounds)
        return f'<div class="why-note">{esc(t("engine.round_untimed"))}</div>' if drafted else ""
    values = {"ms": f"{costs['round_ms']:.0f}", "cost": f"{costs['round_in_plain_steps']:.1f}",
              "step": f"{costs['plain_step_ms']:.0f}", "drafted": f"{costs['drafted_per_round']:.1f}",
              "kept": f"{costs['tokens_per_round']:.1f}"}
    items = [(f"{values['ms']} ms", "engine.round_ms", "engine.round_ms_tip"),
             (values["cost"], "engine.round_steps", "engine.round_steps_tip"),
             (values["drafted"], "engine.round_drafted", "engine.round_drafted_tip"),
             (values["kept"], "engine.round_kept", "engine.round_kept_tip")]
    nums = "".join(f'<div class="why-num" title="{esc(t(tip, **values))}"><b>{esc(value)}</b>'
                   f'<span>{esc(t(key))}</span></div>' for value, key, tip in items)
    sentence = t("engine.round_pays" if costs["pays"] else "engine.round_loses", **values)
    return (f'<div class="why-fig-title">{esc(t("engine.round_title", rounds=costs["rounds"]))}</div>'
            f'<div class="why-nums">{nums}</div><div class="why-note why-copy">{esc(sentence)}</div>')


def engine_why_html(race: EngineRace) -> str:
    """The why panel of an engine race: the verdict in words, acceptance by draft position (from the engine's
    rounds), where the time went on the engine's own clock, and what a round of drafting and verifying cost there
    against the tokens it kept (:func:`round_costs_html`)."""
    r = race.result
    words, kind = speedup_words(r.verdict)
    how = f'{esc(race.engine.get("name", "engine"))} \u00b7 {esc(mode_label("sequential", r.verdict.measured))}'
    return (f'<div class="why why-{kind}" role="region" aria-label="{esc(t("why.aria"))}">'
            f'<div class="why-head"><span class="why-speed speed-{kind}">{esc(words)}</span>'
            f'<span class="why-mode">{how}</span></div>'
            f'<div class="why-verdict">{esc(engine_verdict(race))}</div>'
            f'<div class="why-figs"><div class="why-fig">{positions_html(r, None)}</div>'
            f'<div class="why-fig">{engine_time_html(race)}{round_costs_html(race)}</div></div></div>')
