"""Hugging Face ZeroGPU: each race, check and planner measurement inside ``@spaces.GPU`` (docs/DESIGN.md §4.6);
anywhere else :func:`call` and :func:`stream` return the function itself."""

from __future__ import annotations

import inspect
import os
from typing import Any, Callable, Iterable, Iterator

_ZERO_GPU_ENV = ("1", "t", "true")  # how spaces.config reads SPACES_ZERO_GPU
#: Seconds a cold ZeroGPU worker may spend loading the models inside the call (hub download + placement).
LOAD_SECONDS = 60
#: Seconds per generated token and side: generate() at batch 1 on a ZeroGPU slice, small models (an estimate
#: with headroom; the real figure comes from gpu_check.sh on a lent GPU).
TOKEN_SECONDS = 0.05
#: Requests are clamped to this window; a free account's daily ZeroGPU quota is 3.5 minutes.
MIN_SECONDS, MAX_SECONDS = 30, 300


def zero_gpu() -> bool:
    """True on a ZeroGPU Space: SPACES_ZERO_GPU is true (as ``spaces.config`` reads it) and ``spaces`` imports."""
    if os.environ.get("SPACES_ZERO_GPU", "").lower() not in _ZERO_GPU_ENV:
        return False
    try:
        import spaces  # noqa: F401
    except ImportError:
        return False
    return True


zero_gpu()  # on ZeroGPU, import spaces as early as possible: it patches torch, and must precede any CUDA use


def work_seconds(tokens: int, method: str = "") -> int:
    """GPU seconds to ask for: a cold load plus `tokens` at the method's GPU rate, clamped to the window."""
    from ..race.methods import METHODS

    factor = METHODS[method].gpu_time_factor if method in METHODS else 1.0
    return int(min(MAX_SECONDS, max(MIN_SECONDS, round(LOAD_SECONDS + tokens * TOKEN_SECONDS * factor))))


def race_seconds(method: str, max_new_tokens: int, sequential: bool) -> int:
    """GPU seconds one race asks for: both sides' tokens (and the warm-up when sequential)."""
    from ..core.requests import race_tokens

    return work_seconds(race_tokens(max_new_tokens, sequential), method)


def plan_seconds(method: str, max_new_tokens: int, prompts: int, repeats: int = 5, steps: int = 8) -> int:
    """GPU seconds one planner measurement asks for: per prompt the target's text, an observed run and two
    sequential check races (about six passes of max_new_tokens), plus the step timing of c."""
    return work_seconds(prompts * 6 * max_new_tokens + 2 * repeats * (steps + 2), method)


def _preset_numbers(preset_id: Any, max_new_tokens: Any) -> tuple[str, int]:
    """(method, max new tokens) of a request: the given number, else the preset's (64 for an unknown preset,
    which the handler then rejects with one clear line)."""
    from ..core.errors import ArenaError
    from ..core.presets import get_preset

    try:
        preset = get_preset(str(preset_id))
        method, default = preset.method, preset.max_new_tokens
    except ArenaError:
        method, default = "", 64
    try:
        return method, int(max_new_tokens) if max_new_tokens else default
    except (TypeError, ValueError):
        return method, default


def race_stream_duration(sequential: bool) -> Callable[..., int]:
    """Duration of the Race tab's Tune event: its inputs after the session are the controls."""
    from .race.controls import CONTROL_NAMES

    def duration(*values: Any) -> int:
        v = dict(zip(CONTROL_NAMES, values))
        return race_seconds(*_preset_numbers(v.get("preset"), v.get("max_new_tokens")), sequential)

    return duration


def race_click_duration(mode: Any = None, *values: Any) -> int:
    """Duration of the Race button's event: its inputs after the session are (mode, *controls)."""
    from .race.controls import CONCURRENT

    return race_stream_duration(mode != CONCURRENT)(*values)


def endpoint_duration(fn: Callable, seconds: Callable[[str, int, dict], int]) -> Callable[..., int]:
    """Duration of a ``gr.api`` endpoint: its arguments bound to its signature, then ``seconds(method, n, all)``."""
    signature = inspect.signature(fn)

    def duration(*args: Any, **kwargs: Any) -> int:
        bound = signature.bind_partial(*args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        return seconds(*_preset_numbers(values.get("preset"), values.get("max_new_tokens")), values)

    return duration


def _prompt_count(text: Any) -> int:
    """Prompts a planner request measures (none given: the preset's examples, usually two)."""
    from ..core.requests import split_prompts

    return len(split_prompts(str(text or ""))) or 2


def plan_stream_duration(preset_id: Any = None, target: Any = None, assistant: Any = None, prompts: Any = None,
                         max_new_tokens: Any = None, *rest: Any) -> int:
    """Duration of the Planner tab's Measure event (its inputs after the state, in tab order)."""
    method, n = _preset_numbers(preset_id, max_new_tokens)
    return plan_seconds(method, n, _prompt_count(prompts))


def race_endpoint(fn: Callable, sequential: bool) -> Callable:
    """The ``/race`` or ``/measure`` endpoint through :func:`call`, its duration from the request."""
    return call(fn, endpoint_duration(fn, lambda method, n, values: race_seconds(method, n, sequential)))


def plan_endpoint(fn: Callable) -> Callable:
    """The ``/plan`` endpoint through :func:`call`: the calculator (alpha and c given) asks for the minimum."""
    def seconds(method: str, n: int, values: dict) -> int:
        if values.get("alpha") is not None and values.get("c") is not None:
            return MIN_SECONDS
        return plan_seconds(method, n, _prompt_count(values.get("prompts")))

    return call(fn, endpoint_duration(fn, seconds))


def call(fn: Callable, duration: Callable[..., int] | int) -> Callable:
    """`fn` inside ``@spaces.GPU(duration=...)`` on ZeroGPU (arguments and result must pickle); else `fn`."""
    if not zero_gpu():
        return fn
    import spaces

    return spaces.GPU(duration=duration)(fn)


def _set_busy(state: Any, busy: bool) -> None:
    """Mirror "a run is in progress" on the page's own state, so its Stop handler sets ``state.cancel``."""
    for name in ("active", "running"):  # Session.active (Race tab), PlanState.running (Planner tab)
        if hasattr(state, name):
            setattr(state, name, busy)


def stream(handler: Callable[..., Iterator[dict]], duration: Callable[..., int], outputs: Iterable[Any],
           stopped: Callable[[Any], dict] | None = None) -> Callable[..., Iterator[dict]]:
    """A streaming handler ``handler(state, *values)`` run inside ``@spaces.GPU`` on ZeroGPU; else `handler`.

    duration: called with the event's values after the state. outputs: the event's output components.
    stopped: the frame to show when the user pressed Stop (the page's state has ``cancel`` set): the worker's
    generator is closed, so its ``finally`` ends the run there.
    """
    if not zero_gpu():
        return handler
    import spaces

    def remote(state_type: type, *values: Any) -> Iterator[dict]:  # runs in the ZeroGPU worker
        frames = handler(state_type(), *values)  # a fresh state: the session holds events and threads
        try:
            for frame in frames:
                yield {c._id: v for c, v in frame.items()}  # component ids pickle, components do not
        finally:
            frames.close()  # spaces closes this generator on stop: the handler's finally ends the run

    remote_gpu = spaces.GPU(duration=lambda state_type, *values: duration(*values))(remote)
    by_key = {c._id: c for c in outputs}

    def local(state: Any, *values: Any) -> Iterator[dict]:
        state.cancel.clear()
        _set_busy(state, True)
        frames = remote_gpu(type(state), *values)
        try:
            for frame in frames:
                yield {by_key[k]: v for k, v in frame.items() if k in by_key}
                if state.cancel.is_set():
                    frames.close()
                    if stopped is not None:
                        yield stopped(state)
                    return
        finally:
            frames.close()
            _set_busy(state, False)

    return local
