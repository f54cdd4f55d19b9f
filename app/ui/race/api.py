"""Named API endpoints ``/race`` and ``/measure``: the ``race --json`` object (docs/DESIGN.md §4) through the CLI's
engine path, with parameters generated from the knob table (None keeps the preset's value, like an absent flag)."""

from __future__ import annotations

import inspect
import logging
from typing import Any, Callable, Iterator, Optional


from ...core.errors import ArenaError
from ...core.knobs import KNOB_TABLE, KNOBS, REQUEST
from ...core.requests import build_request
from ...race.lifecycle import RaceRun
from ..config import DEFAULT_PRESET, UIConfig
from .. import popups
from ..keepalive import in_background

log = logging.getLogger("app.ui")

#: Parameters before the knobs: (name, type, default). Knob parameters follow in the knob table's order.
LEADING = (("preset", str, DEFAULT_PRESET), ("prompt", str, ""), ("max_new_tokens", Optional[int], None),
           ("do_sample", Optional[bool], None), ("temperature", Optional[float], None),
           ("top_p", Optional[float], None), ("seed", Optional[int], None), ("target", Optional[str], None),
           ("assistant", Optional[str], None), ("chat_template", Optional[bool], None))


def parameters() -> list[inspect.Parameter]:
    """The endpoint's keyword parameters, with types for the API page and gradio_client."""
    params = [*LEADING, *((k, Optional[KNOB_TABLE[k].python_type], None) for k in KNOBS)]
    return [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d, annotation=t) for n, t, d in params]


def stream_api(config: UIConfig, sequential: bool, values: dict[str, Any]) -> Iterator[dict | None]:
    """Prepare and run one race, yielding None while it runs and then the result dict; a cancelled job or a lost
    client (the generator closed) stops the race in ``finally`` (docs/DESIGN.md §7)."""
    run = None
    try:
        changes = {k: v for k, v in values.items() if v is not None and k not in ("preset", "prompt", "seed")}
        request = build_request(values["preset"], values["prompt"], changes, values["seed"], REQUEST, config.limits)
        run = RaceRun(request, sequential, progress=lambda m: log.info("%s", m), reap_seconds=60, label="API race")
        yield from in_background(run.prepare, "api-prepare")
        result = yield from in_background(run.run, "api-race")
        yield result.raise_if_failed().to_dict()
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
    endpoint.__doc__ = (
        "Warm up, then run baseline and assisted generate() one after the other (fair timing); returns the "
        "CLI's JSON result." if sequential else
        "Race baseline and assisted generate() concurrently; returns the CLI's JSON result (speedup, identical, "
        "first_divergence, per-side tokens/s, TTFT, assisted tokens with status, rounds)."
    )
    return endpoint
