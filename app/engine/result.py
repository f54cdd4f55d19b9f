"""An engine race's result (docs/DESIGN.md §4.7): two streams read into the same :class:`~app.race.result.RaceResult`
a transformers race gives, with the statuses from the engine's own figures (:mod:`app.engine.rounds`) and the
``engine`` object (name, version, speculative type, what the engine reported per side)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ArenaError
from ..core.words import msg
from ..race.protocol import Mode
from ..race.result import AssistedResult, RaceResult, SideResult
from . import rounds
from .adapters import SpecReport
from .costs import round_costs
from .llamacpp import EngineSide, flatten

NOT_A_RACE = "a race of plain against plain is not a race"
#: The ``preset`` of an engine race's result (its JSON, its trace and the page read it).
ENGINE_PRESET = "endpoint"


@dataclass
class EngineRace:
    """A finished (or stopped) engine race: the contract result, where its statuses came from
    (:mod:`app.engine.rounds`) and the ``engine`` object (name, version where reported, the engine's own figures per
    side)."""

    result: RaceResult
    status_source: str
    engine: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The race JSON of docs/DESIGN.md §4.1 (every key of a transformers race) plus ``engine`` and
        ``assisted.status_source``."""
        out = self.result.to_dict()
        out["assisted"]["status_source"] = self.status_source
        out["engine"] = dict(self.engine)
        return out


def check_plain(plain: EngineSide) -> None:
    """ArenaError when the plain side drafted (its endpoint speculates)."""
    if plain.drafted:
        raise ArenaError(msg("The plain endpoint drafted {drafted} tokens: it speculates; start it without speculative "
                             "decoding.", drafted=plain.drafted))


def side_fields(side: EngineSide) -> dict[str, Any]:
    """The SideResult fields of one stream: text, ids, the arena's own clock (seconds, first token, token times)."""
    flat = flatten(side.chunks)
    return {"text": "".join(c.text for c in side.chunks), "token_ids": flat.ids, "seconds": side.seconds,
            "ttft_seconds": flat.times[0] if flat.times else None, "token_times": flat.times,
            "token_texts": flat.texts}


def _reported(side: EngineSide, arena_tps: float) -> dict[str, Any]:
    timings = dict(side.timings)
    timings.setdefault("draft_n", 0)
    timings.setdefault("draft_n_accepted", 0)
    return {**timings, "arena_tokens_per_second": arena_tps}


def build_result(plain: EngineSide, assisted: EngineSide, model: str, max_new_tokens: int, engine: dict[str, Any],
                 report: SpecReport | None = None, stopped: bool = False, conditions: Any = None) -> EngineRace:
    """The contract result of two streams. engine: ``name``, ``version`` and ``speculative_type`` (the method label);
    report: a vLLM or SGLang speculative report (per-step arrays, histogram); stopped: the race was stopped (the
    streams hold what arrived); conditions: plain's step during the race against a plain probe after the assisted side
    (app/race/trust.py ``Conditions``), which the race's one verdict reads (app/race/verdict.py). The plain side is
    checked by :func:`check_plain` as soon as it ends."""
    a = side_fields(assisted)
    steps, source = rounds.choose(flatten(assisted.chunks).counters, assisted.drafted, assisted.accepted,
                                  report.detailed if report else None, report.histogram if report else None)
    tokens, round_list = rounds.build(a["token_ids"], a["token_texts"], steps)
    result = RaceResult(preset=ENGINE_PRESET, method=f"{engine['name']} {engine['speculative_type']}", target=model,
                        assistant=None, mode=Mode.FAIR, do_sample=False, device=f"{engine['name']} server",
                        baseline=SideResult(**side_fields(plain)), assisted=AssistedResult(**a, tokens=tokens,
                                                                                           rounds=round_list),
                        knobs={"max_new_tokens": max_new_tokens}, stopped=stopped, conditions=conditions)
    engine = {**engine, "reported": {"baseline": _reported(plain, result.baseline.tokens_per_second),
                                     "assisted": _reported(assisted, result.assisted.tokens_per_second)}}
    engine["round_costs"] = round_costs(engine["reported"])
    return EngineRace(result, source, engine)
