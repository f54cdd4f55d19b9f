"""Named API endpoints ``/race`` and ``/measure`` for gradio_client (the docs/DESIGN.md §4 result).

Each returns the same dict as ``python -m app race --json`` through the same engine path
(``prepare`` then ``Race(...).run()``). The parameters are generated from the knob table, so the
API takes exactly the knobs (and bounds) the CLI and the page take; a parameter left as None keeps
the preset's value, like an absent CLI flag.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, Callable, Optional

import gradio as gr

from ...core.errors import ArenaError
from ...core.knobs import KNOB_TABLE, KNOBS, REQUEST
from ...core.requests import build_request
from ...race.prepare import prepare
from ...race.runner import Race
from ..config import DEFAULT_PRESET, UIConfig

log = logging.getLogger("app.ui")

#: Parameters before the knobs: (name, type, default). Knob parameters follow in the knob table's order.
LEADING = (("preset", str, DEFAULT_PRESET), ("prompt", str, ""), ("max_new_tokens", Optional[int], None),
           ("do_sample", Optional[bool], None), ("temperature", Optional[float], None),
           ("top_p", Optional[float], None), ("seed", Optional[int], None), ("target", Optional[str], None),
           ("assistant", Optional[str], None), ("chat_template", Optional[bool], None))


def parameters() -> list[inspect.Parameter]:
    """The endpoint's keyword parameters, with types for the API page and gradio_client."""
    params = [(n, t, d) for n, t, d in LEADING]
    params += [(k, Optional[KNOB_TABLE[k].python_type], None) for k in KNOBS]
    return [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d, annotation=t) for n, t, d in params]


def run_api(config: UIConfig, sequential: bool, values: dict[str, Any]) -> dict:
    """Prepare and run one race to the end; ArenaError becomes a clean gr.Error for the client."""
    try:
        changes = {k: v for k, v in values.items() if v is not None and k not in ("preset", "prompt", "seed")}
        request = build_request(values["preset"], values["prompt"], changes, values["seed"], REQUEST)
        setup = prepare(request.preset, request.prompt, limits=config.limits, progress=lambda m: log.info("%s", m))
        race = Race(setup, sequential=sequential, seed=request.seed)
        try:
            return race.run().to_dict()
        finally:
            race.stop()  # no-op after a normal end; ends the workers if run() was interrupted
    except ArenaError as exc:
        raise gr.Error(str(exc), print_exception=False) from None


def make_endpoint(config: UIConfig, sequential: bool) -> Callable[..., dict]:
    """A typed function for ``gr.api`` that races (sequential=False) or measures (True)."""
    signature = inspect.Signature(parameters(), return_annotation=dict)

    def endpoint(*args: Any, **kwargs: Any) -> dict:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return run_api(config, sequential, dict(bound.arguments))

    endpoint.__signature__ = signature  # type: ignore[attr-defined]
    endpoint.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()} | {"return": dict}
    endpoint.__name__ = "measure" if sequential else "race"
    endpoint.__doc__ = (
        "Warm up, then run baseline and assisted generate() one after the other (fair timing); returns the "
        "CLI's JSON result." if sequential else
        "Race baseline and assisted generate() concurrently; returns the CLI's JSON result (speedup, identical, "
        "first_divergence, per-side tokens/s, TTFT, assisted tokens with status, rounds)."
    )
    return endpoint
