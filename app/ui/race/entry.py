"""What one press of Race races (docs/DESIGN.md §1, §4.7): a transformers preset (:class:`~app.race.lifecycle.RaceRun`)
or one of the operator's serving engines (:class:`~app.engine.run.EngineRun`), both a
:class:`~app.race.protocol.Run` built from the controls through the one request builder with the server's limits, both
drawn the same way. Which kind it is is decided here, once: the entry carries the finished race's trace and panels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ...core.errors import ArenaError
from ...core.knobs import KNOBS, REQUEST, blank
from ...core.presets import get_preset
from ...core.requests import Limits, RaceRequest, build_request
from ...core.words import t
from ...engine.run import EngineRun
from ...engine.target import EngineTarget
from ...race.kept import KEPT_RUNS
from ...race.lifecycle import RaceRun
from ...race.methods import get_method
from ...race.protocol import Run
from ...race.result import RaceResult
from ...render.engine_panel import engine_cards_html, engine_why_html
from ...render.live import subtitles
from ...render.preset_words import method_text
from ...render.why_panel import why_panel_html
from ...replay.tracefile import build_trace, engine_trace
from ..config import UIConfig
from ..engines import chosen_target, engine_name
from .controls import DEFAULT_SCHEDULE, SAMPLING
from .engine import engine_request


@dataclass
class Entry:
    """One race to run. run: it; titles: the panes' subtitles; max_tokens: its token cap; lossless: whether a
    divergence is unexpected; signature: what pairs its results (same settings, other mode); request: what built it;
    trace: the finished race's trace (docs/DESIGN.md §4.3) from its result; panels: (the engine's own figures for the
    stats, or None; the why panel) from its result; engine: the operator's engine it races (None: a preset)."""

    run: Run[RaceResult]
    titles: tuple[str, str]
    max_tokens: int
    lossless: bool
    signature: Any
    request: Any
    trace: Callable[[RaceResult], dict[str, Any]]
    panels: Callable[[RaceResult], tuple[str | None, str]]
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


def request_from_controls(values: dict[str, Any], limits: Limits) -> RaceRequest:
    """A request from the controls (CONTROL_NAMES) under the server's `limits`; ArenaError for invalid values.

    The active method's knobs come from their controls (blank: transformers' default), the others are cleared (a
    method rejects knobs it does not take); an empty target/assistant box keeps the preset's model.
    """
    engine = engine_name(values.get("preset"))
    if engine is not None:
        raise ArenaError(t("engine.race_only", engine=engine))
    method = get_method(get_preset(values["preset"]).method)
    knobs = {name: values.get(name) if name in method.knobs else None for name in KNOBS}
    changes = {name: None if blank(v) or v == DEFAULT_SCHEDULE else v for name, v in knobs.items()}
    changes["target"] = values.get("target")
    if method.needs_assistant:
        changes["assistant"] = values.get("assistant")
    changes.update({n: values[n] for n in ("chat_template", "max_new_tokens") if values.get(n) is not None})
    changes["do_sample"] = values.get("decoding") == SAMPLING
    if changes["do_sample"]:
        changes.update({n: values[n] for n in ("temperature", "top_p") if values.get(n) is not None})
    return build_request(values["preset"], values.get("prompt") or "", changes, values.get("seed"), REQUEST, limits)


def entry_from_controls(values: dict[str, Any], config: UIConfig, sequential: bool) -> Entry:
    """The race the controls ask for; ArenaError (one line) for a bad value. An engine race is always sequential
    (plain, then assisted), whatever the mode control says: two requests at once on one engine compete."""
    target = chosen_target(values.get("preset"), config.endpoints)
    if target is not None:
        request = engine_request(target, values, config.limits)
        engine_run = EngineRun(request)
        return Entry(engine_run, engine_titles(target, None), request.max_new_tokens, True, ("engine", request), request,
                     lambda _: engine_trace(engine_run.race, request.prompt, request.max_new_tokens),
                     lambda _: (engine_cards_html(engine_run.race), engine_why_html(engine_run.race)), target)
    request = request_from_controls(values, config.limits)
    p = request.preset
    method = get_method(p.method)
    return Entry(RaceRun(request, sequential, kept_runs=KEPT_RUNS if sequential else None),
                 subtitles(method_text(method, "title"), p.target, p.assistant), p.max_new_tokens, method.lossless,
                 request.signature, request, lambda result: build_trace(request, result),
                 lambda result: (None, why_panel_html(result)))
