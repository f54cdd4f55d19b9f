"""The Race tab's card of the chosen preset: where it runs, whether its method is lossless, what the method does and
where it pays off (pure HTML, no gradio)."""

from __future__ import annotations

from typing import Any

from ..core.presets import Preset
from .html import esc


def method_card_html(preset: Preset, method: Any) -> str:
    """Where the preset runs, the method's one-line summary (an app.race.methods Method), the description, and
    where the method pays off and where it does not (the preset's wins_on / loses_on)."""
    where = ("offline", "runs offline") if preset.where == "offline" else ("hub", preset.where)
    lossless = ('<span class="pill pill-lossless">lossless</span>' if method.lossless
                else '<span class="pill pill-lossy">lossy by design</span>')
    wins = "".join(f'<div class="method-{cls}"><b>{label}:</b> {esc(text)}</div>' for cls, label, text in
                   (("wins", "Wins on", preset.wins_on), ("loses", "Loses on", preset.loses_on)) if text)
    return (f'<div class="method-card"><div class="method-head"><span class="pill where-{where[0]}">{esc(where[1])}</span>'
            f'{lossless}<span class="method-title">{esc(method.title)}</span></div>'
            f'<div class="method-summary">{esc(method.summary)}</div>'
            f'<div class="method-desc">{esc(preset.description)}</div>{wins}</div>')


def engine_card_html(target: Any) -> str:
    """The card of one of the operator's serving engines (an app.engine.target.EngineTarget): which engine, what it
    serves, and how it races (no URL: those are the operator's)."""
    model = f" serving {target.model}" if target.model else ""
    return (f'<div class="method-card"><div class="method-head"><span class="pill where-hub">serving engine</span>'
            f'<span class="pill pill-lossless">greedy</span><span class="method-title">{esc(target.name)}</span></div>'
            f'<div class="method-summary">{esc(target.engine)}{esc(model)}: the operator\u2019s running server, with its '
            'own model and speculative decoding, raced against the same model served without speculation.</div>'
            '<div class="method-desc">Plain runs first, then assisted, each with the engine to itself; every token '
            'streams from the engine, coloured from the engine\u2019s own per-step counts where it reports them. The '
            'engine\u2019s own tokens/s sit beside the arena\u2019s clock.</div></div>')
