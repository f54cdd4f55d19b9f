"""What one press of Race races (docs/DESIGN.md §1, §4.7): a transformers preset through the race lifecycle
(:class:`~app.race.lifecycle.RaceRun`) or one of the operator's serving engines (:class:`~app.engine.run.EngineRun`),
both built from the controls through the one request builder with the server's limits, both drawn the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.words import t
from ...engine.result import EngineRace
from ...engine.run import EngineRun
from ...engine.target import EngineTarget
from ...race.ghosts import GHOSTS
from ...race.lifecycle import RaceRun
from ...race.methods import get_method
from ...race.result import RaceResult
from ...render.engine_panel import engine_cards_html, engine_why_html
from ...render.panes import subtitles
from ...render.preset_words import method_text
from ...render.why_panel import why_panel_html
from ...replay.tracefile import build_trace, engine_trace
from ..config import UIConfig
from ..engines import chosen_target
from .controls import request_from_controls
from .engine import engine_request


@dataclass
class Entry:
    """One race to run. run: its RaceRun or EngineRun; titles: the panes' subtitles; max_tokens: its token cap;
    lossless: whether a divergence is unexpected; signature: what pairs its results (same settings, other mode);
    engine: the operator's engine it races (None: a transformers preset); request: what built it."""

    run: Any
    titles: tuple[str, str]
    max_tokens: int
    lossless: bool
    signature: Any
    request: Any
    engine: EngineTarget | None = None

    @property
    def sequential(self) -> bool:
        return self.run.sequential

    def titles_after(self, setup: Any) -> tuple[str, str]:
        """The panes' subtitles once the run is prepared: an engine's name the model it turned out to serve."""
        return engine_titles(self.engine, setup.model) if self.engine is not None else self.titles


def engine_titles(target: EngineTarget, model: str | None) -> tuple[str, str]:
    """The panes' subtitles of an engine race: which engine and which model on each side."""
    model = model or target.model or target.name
    return t("engine.plain_title", engine=target.engine, model=model), t("engine.spec_title", engine=target.engine,
                                                                         model=model)


def entry_from_controls(values: dict[str, Any], config: UIConfig, sequential: bool) -> Entry:
    """The race the controls ask for; ArenaError (one line) for a bad value. An engine race is always sequential
    (plain, then assisted), whatever the mode control says: two requests at once on one engine compete."""
    target = chosen_target(values.get("preset"), config.endpoints)
    if target is not None:
        request = engine_request(target, values, config.limits)
        return Entry(EngineRun(request), engine_titles(target, None), request.max_new_tokens, True, ("engine", request),
                     request, target)
    request = request_from_controls(values, config.limits)
    p = request.preset
    run = RaceRun(request, sequential, ghosts=GHOSTS if sequential else None)
    return Entry(run, subtitles(method_text(get_method(p.method), "title"), p.target, p.assistant), p.max_new_tokens,
                 get_method(p.method).lossless, request.signature, request)


def race_result(outcome: RaceResult | EngineRace) -> RaceResult:
    """The contract result of what a run returned (an engine race wraps it with the engine's own figures)."""
    return outcome.result if isinstance(outcome, EngineRace) else outcome


def panels(outcome: RaceResult | EngineRace) -> tuple[str | None, str]:
    """(the engine's own figures for the stats, or None; the why panel) of a finished race."""
    if isinstance(outcome, EngineRace):
        return engine_cards_html(outcome), engine_why_html(outcome)
    return None, why_panel_html(outcome)


def trace_of(entry: Entry, outcome: RaceResult | EngineRace) -> dict[str, Any]:
    """The finished race's trace (docs/DESIGN.md §4.3): an engine race's names the engine."""
    if isinstance(outcome, EngineRace):
        return engine_trace(outcome, entry.request.prompt, entry.max_tokens)
    return build_trace(entry.request, outcome)
