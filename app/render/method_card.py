"""The Race tab's card of the chosen preset: where it runs, whether its method is lossless, what the method does and
where it pays off (pure HTML, no gradio)."""

from __future__ import annotations

from typing import Any

from ..core.presets import Preset
from ..core.words import t
from .html import esc
from .preset_words import WHERE, examples_note, method_text, preset_text


def method_card_html(preset: Preset, method: Any) -> str:
    """Where the preset runs, the method's one-line summary (an app.race.methods Method), the description, and
    where the method pays off and where it does not (the preset's wins_on / loses_on)."""
    where = ("offline" if preset.where == "offline" else "hub", t(f"where.{WHERE[preset.where]}"))
    lossless = (f'<span class="pill pill-lossless">{esc(t("card.lossless"))}</span>' if method.lossless
                else f'<span class="pill pill-lossy">{esc(t("card.lossy"))}</span>')
    note = f'<div class="method-note">{esc(examples_note())}</div>' if preset.example_prompts and examples_note() else ""
    wins = "".join(f'<div class="method-{cls}"><b>{esc(t(key))}:</b> {esc(text)}</div>' for cls, key, text in
                   (("wins", "card.wins_on", preset_text(preset, "wins_on")),
                    ("loses", "card.loses_on", preset_text(preset, "loses_on"))) if text)
    return (f'<div class="method-card"><div class="method-head"><span class="pill where-{where[0]}">{esc(where[1])}</span>'
            f'{lossless}<span class="method-title">{esc(method_text(method, "title"))}</span></div>'
            f'<div class="method-summary">{esc(method_text(method, "summary"))}</div>'
            f'<div class="method-desc">{esc(preset_text(preset, "description"))}</div>{wins}{note}</div>')


def engine_card_html(target: Any) -> str:
    """The card of one of the operator's serving engines (an app.engine.target.EngineTarget): which engine, what it
    serves, and how it races (no URL: those are the operator's)."""
    summary = t("card.engine_summary_model" if target.model else "card.engine_summary", engine=target.engine,
                model=target.model or "")
    return (f'<div class="method-card"><div class="method-head"><span class="pill where-hub">'
            f'{esc(t("card.engine"))}</span><span class="pill pill-lossless">{esc(t("card.greedy"))}</span>'
            f'<span class="method-title">{esc(target.name)}</span></div>'
            f'<div class="method-summary">{esc(summary)}</div>'
            f'<div class="method-desc">{esc(t("card.engine_desc"))}</div></div>')
