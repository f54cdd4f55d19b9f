"""Named API endpoints ``/race`` and ``/measure``: the ``race --json`` object (docs/DESIGN.md §4) through the same
race path as the CLI (a ``Run``: ``RaceRun``, or ``EngineRun`` for a serving engine), with parameters generated from the knob
table (None keeps the preset's value, like an absent flag)."""

from __future__ import annotations

import inspect
import logging
from typing import Any, Callable, Iterator, Optional


from ...core.errors import ArenaError
from ...core.knobs import KNOB_TABLE, KNOBS, REQUEST
from ...core.requests import build_request
from ...core.words import msg
from ...engine.request import build_engine_request
from ...engine.run import EngineRun
from ...race.lifecycle import RaceRun
from ...race.protocol import Run
from ...race.result import RaceResult
from ..config import DEFAULT_PRESET, UIConfig
from .. import popups
from ..engines import chosen_target
from ..keepalive import in_background

log = logging.getLogger("app.ui")

#: Parameters before the knobs: (name, type, default). Knob parameters follow in the knob table's order.
LEADING = (("preset", str, DEFAULT_PRESET), ("prompt", str, ""), ("max_new_tokens", Optional[int], None),
           ("do_sample", Optional[bool], None), ("temperature", Optional[float], None),
           ("top_p", Optional[float], None), ("seed", Optional[int], None), ("target", Optional[str], None),
           ("assistant", Optional[str], None), ("chat_template", Optional[bool], None))


#: The parameters an engine race takes (the rest are a transformers preset's).
ENGINE_PARAMETERS = ("preset", "prompt", "max_new_tokens", "chat_template")

#: What each leading parameter means, for the API page and an agent reading the MCP tool (knobs: the knob table's help).
DESCRIBED = {
    "preset": "preset id, e.g. offline-prompt-lookup (runs offline), drafter, prompt-lookup, layerskip, uad, ensemble; or "
              "engine:NAME for one of the serving engines this server's operator offers",
    "prompt": "the text to continue or the question to answer",
    "max_new_tokens": "tokens to generate a side (null: the preset's; the server caps it)",
    "do_sample": "sample instead of greedy decoding (null: the preset's; greedy assisted output equals plain)",
    "temperature": "sampling temperature (only with do_sample)",
    "top_p": "nucleus sampling mass (only with do_sample)",
    "seed": "random seed for sampling (makes a measured run reproducible)",
    "target": "the target model's hub id (null: the preset's)",
    "assistant": "the drafter model's hub id (null: the preset's)",
    "chat_template": "wrap the prompt in the target's chat template (null: the preset's)",
}


def described(summary: str) -> str:
    """`summary` with a Google-style ``Args:`` section for every parameter (gradio reads it for the API page and the
    MCP tool's parameter descriptions)."""
    lines = [f"    {p.name}: {DESCRIBED.get(p.name) or KNOB_TABLE[p.name].help}" for p in parameters()]
    return summary + "\n\nArgs:\n" + "\n".join(lines)


def parameters() -> list[inspect.Parameter]:
    """The endpoint's keyword parameters, with types for the API page and gradio_client."""
    params = [*LEADING, *((k, Optional[KNOB_TABLE[k].python_type], None) for k in KNOBS)]
    return [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d, annotation=t) for n, t, d in params]


def _run_for(config: UIConfig, sequential: bool, values: dict[str, Any]) -> Run[RaceResult]:
    """The run a call asks for: a preset's race (RaceRun) or one of the operator's engines (EngineRun, always
    sequential; the preset's other parameters are the engine's own and may not be given)."""
    target = chosen_target(values["preset"], config.endpoints)
    if target is None:
        changes = {k: v for k, v in values.items() if v is not None and k not in ("preset", "prompt", "seed")}
        request = build_request(values["preset"], values["prompt"], changes, values["seed"], REQUEST, config.limits)
        return RaceRun(request, sequential, progress=lambda m: log.info("%s", m), reap_seconds=60, label="API race")
    given = [k for k, v in values.items() if v is not None and k not in ENGINE_PARAMETERS]
    if given:
        raise ArenaError(msg("request: {given} cannot be given for the serving engine {name}: an engine race is greedy and "
                             "runs the engine's own model and speculation.", given=', '.join(given), name=target.name))
    chat = values["chat_template"] if values["chat_template"] is not None else True
    request = build_engine_request(target, values["prompt"], values["max_new_tokens"], chat, config.limits)
    return EngineRun(request, reap_seconds=60, label="API engine race")


def stream_api(config: UIConfig, sequential: bool, values: dict[str, Any]) -> Iterator[dict | None]:
    """Prepare and run one race, yielding None while it runs and then the result dict; a cancelled job or a lost
    client (the generator closed) stops the race in ``finally`` (docs/DESIGN.md §7)."""
    run = None
    try:
        run = _run_for(config, sequential, values)
        yield from in_background(run.prepare, "api-prepare")
        result = yield from in_background(run.run, "api-race")
        result.raise_if_failed()
        yield run.json()
    except ArenaError as exc:
        raise popups.error(exc) from None
    finally:
        if run is not None:  # cancelled or disconnected: both workers end after their current forward pass
            run.close("job cancelled or client gone")


def make_endpoint(config: UIConfig, sequential: bool) -> Callable[..., Iterator[dict | None]]:
    """A typed function for ``gr.api`` that races (sequential=False) or measures (True)."""
    signature = inspect.Signature(parameters(), return_annotation=dict)

    def endpoint(*args: Any, **kwargs: Any) -> Iterator[dict | None]:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:  # a raw HTTP client sent more or other parameters than the signature has
            raise popups.error(f"request: {exc}") from None
        bound.apply_defaults()
        yield from stream_api(config, sequential, dict(bound.arguments))

    endpoint.__signature__ = signature  # type: ignore[attr-defined]
    endpoint.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()} | {"return": dict}
    endpoint.__name__ = "measure" if sequential else "race"
    endpoint.__doc__ = described(
        "Measure whether assisted decoding pays on this prompt: warm up, then run plain and assisted generate() one "
        "after the other, each with the machine to itself; returns the race's JSON result (speedup, verdict, "
        "identical, acceptance_rate, mean_accepted_length, per-side tokens/s, every assisted token with its status, "
        "rounds). Use this for a measured answer." if sequential else
        "Race plain and assisted generate() at the same time (a show: the two share the machine, so the speedup is "
        "not a measurement; use measure for that); returns the race's JSON result (speedup, identical, "
        "first_divergence, per-side tokens/s, TTFT, assisted tokens with status, rounds)."
    )
    return endpoint
