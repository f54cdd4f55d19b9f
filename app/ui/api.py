"""Named API endpoints ``/race`` and ``/measure`` for gradio_client (DESIGN section 4 result).

Each returns the same dict as ``python -m app race --json`` through the same engine path
(``prepare`` then ``Race(...).run()``). Parameters left as None keep the preset's value,
exactly like the CLI's flags. No ``from __future__ import annotations`` here: ``gr.api``
reads the annotations at runtime to describe the endpoint.
"""

import logging
from typing import Any, Callable

import gradio as gr

from ..engine.errors import ArenaError
from ..engine.runner import Race
from ..engine.setup import prepare
from .config import DEFAULT_PRESET, UIConfig
from .session import request_from_api

log = logging.getLogger("app.ui")


def run_api(config: UIConfig, sequential: bool, preset: str, prompt: str, seed: Any, overrides: dict) -> dict:
    """Prepare and run one race to the end; ArenaError becomes a clean gr.Error for the client."""
    try:
        request = request_from_api(preset, prompt, overrides, seed)
        setup = prepare(request.preset, request.prompt, limits=config.limits,
                        progress=lambda msg: log.info("%s", msg))
        race = Race(setup, sequential=sequential, seed=request.seed)
        try:
            return race.run()
        finally:
            race.stop()  # no-op after a normal end; ends the workers if run() was interrupted
    except ArenaError as exc:
        raise gr.Error(str(exc), print_exception=False) from None


def make_endpoint(config: UIConfig, sequential: bool) -> Callable[..., dict]:
    """A typed function for ``gr.api`` that races (sequential=False) or measures (True)."""

    def endpoint(
        preset: str = DEFAULT_PRESET,
        prompt: str = "",
        max_new_tokens: int | None = None,
        do_sample: bool | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        target: str | None = None,
        assistant: str | None = None,
        chat_template: bool | None = None,
        num_assistant_tokens: int | None = None,
        num_assistant_tokens_schedule: str | None = None,
        assistant_confidence_threshold: float | None = None,
        prompt_lookup_num_tokens: int | None = None,
        max_matching_ngram_size: int | None = None,
        assistant_early_exit: int | None = None,
        assistant_ensemble_weight: float | None = None,
    ) -> dict:
        overrides = dict(max_new_tokens=max_new_tokens, do_sample=do_sample, temperature=temperature, top_p=top_p,
                         target=target, assistant=assistant, chat_template=chat_template,
                         num_assistant_tokens=num_assistant_tokens,
                         num_assistant_tokens_schedule=num_assistant_tokens_schedule,
                         assistant_confidence_threshold=assistant_confidence_threshold,
                         prompt_lookup_num_tokens=prompt_lookup_num_tokens,
                         max_matching_ngram_size=max_matching_ngram_size,
                         assistant_early_exit=assistant_early_exit,
                         assistant_ensemble_weight=assistant_ensemble_weight)
        return run_api(config, sequential, preset, prompt, seed, overrides)

    endpoint.__name__ = "measure" if sequential else "race"
    endpoint.__doc__ = (
        "Warm up, then run baseline and assisted generate() one after the other (fair timing); returns the "
        "CLI's JSON result." if sequential else
        "Race baseline and assisted generate() concurrently; returns the CLI's JSON result (speedup, identical, "
        "first_divergence, per-side tokens/s, TTFT, assisted tokens with status, rounds)."
    )
    return endpoint
