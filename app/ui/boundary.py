"""The page's boundary with a raw client (docs/DESIGN.md §4.5): every value a client sends is cleaned of lone
surrogates and converted before an event function sees it, and a refusal is one line."""

from __future__ import annotations

import copy
import functools
import html
import inspect
import logging
import re
from typing import Any

import gradio as gr

from ..core.errors import ArenaError
from ..core.words import speaking
from . import popups
from .language import request_language

log = logging.getLogger("app.ui")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: How much of gradio's refusal (which may echo the refused value) a popup keeps (characters).
POPUP_ECHO_CHARS = 120


def unexpected_error_text(exc: BaseException) -> str:
    """The one line a user sees for a bug (the traceback goes to the server log)."""
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"Unexpected error ({type(exc).__name__}: {first}); see the server log."


def clean(value: Any) -> Any:
    """`value` with lone surrogates in every string (inside lists, tuples and dicts too) replaced by U+FFFD."""
    if isinstance(value, str):
        return value if value.isascii() else _SURROGATE.sub("\ufffd", value)
    if isinstance(value, (list, tuple)):
        return type(value)(clean(v) for v in value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    return value


def _language() -> str:
    """The language of the event being run: its request's (app/ui/language.py), from gradio's context."""
    from gradio.context import LocalContext

    return request_language(LocalContext.request.get(None))


def _wrap(fn: Any) -> Any:
    """`fn` with cleaned arguments, run in the visitor's language (docs/DESIGN.md §4.10); an ArenaError escaping it
    (a bad value no handler expected) becomes one line."""
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def stream(*args: Any, **kwargs: Any) -> Any:
            lang = _language()  # gradio sets the request around every step of a stream
            frames = fn(*clean(args), **clean(kwargs))
            try:
                while True:
                    with speaking(lang):
                        frame = next(frames)
                    yield frame
            except StopIteration as stop:
                return stop.value
            except ArenaError as exc:
                with speaking(lang):
                    raise popups.error(exc) from None
            finally:
                with speaking(lang):
                    frames.close()
        return stream

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with speaking(_language()):
            try:
                return fn(*clean(args), **clean(kwargs))
            except ArenaError as exc:
                raise popups.error(exc) from None
    return call


def failure_text(error: BaseException, what: str = "run") -> str:
    """The one line a user sees for a failed run: an ArenaError's own (also shown as a warning), else a bug's (its
    traceback goes to the server log as "`what` failed")."""
    if isinstance(error, ArenaError):
        popups.warning(error)
        return str(error)
    log.error("%s failed", what, exc_info=error)
    return unexpected_error_text(error)


def _one_line(component: Any, error: BaseException) -> str:
    """The unescaped line for a value `component` cannot take; gradio's own message may echo the value, which
    :mod:`popups` cuts short and escapes (a message of ours arrives escaped once already: unescaped here first)."""
    label = getattr(component, "label", None) or getattr(component, "elem_id", None) or type(component).__name__
    message = error.message if isinstance(error, gr.Error) else f"this {type(component).__name__.lower()} cannot take that value"
    text = " ".join(clean(html.unescape(str(message))).split())
    return f"{clean(str(label))}: {text[:POPUP_ECHO_CHARS]}"


def guard_preprocessing(blocks: gr.Blocks) -> int:
    """Make every input component's conversion refuse a bad value with one ``gr.Error`` line; returns how many."""
    inputs = {id(c): c for fn in blocks.fns.values() for c in fn.inputs if not getattr(c, "stateful", False)}
    for component in inputs.values():
        convert = component.preprocess

        def checked(payload: Any, convert: Any = convert, component: Any = component) -> Any:
            try:
                return convert(payload)
            except Exception as exc:  # gradio's own checks (a choice, a bound, a type) or its conversion failing
                raise popups.error(_one_line(component, exc)) from None

        component.preprocess = checked  # gradio calls block.preprocess(...) on the instance
    return len(inputs)


def clean_inputs(blocks: gr.Blocks) -> int:
    """Wrap every (synchronous) event function of `blocks` with :func:`clean`; returns how many were wrapped."""
    sync = [b for b in blocks.fns.values()
            if b.fn is not None and not (inspect.iscoroutinefunction(b.fn) or inspect.isasyncgenfunction(b.fn))]
    for block_fn in sync:
        block_fn.fn = _wrap(block_fn.fn)
    return len(sync)


def forget_refused_inputs(blocks: gr.Blocks) -> None:
    """Keep a refused event's inputs out of the visitor's session: gradio stores each input value in the session
    before converting it, and ``/gradio_api/deep_link`` hands that session to whoever opens the link, whose page-load
    event then replays it (docs/DESIGN.md §4.5). So when an event (or its join-time validator) fails, the values it
    stored are put back as they were, and a deep link only ever carries values that passed the same checks as a
    fresh event."""
    process = blocks.process_api

    async def checked(block_fn: Any, inputs: list, state: Any = None, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("iterator") is not None:  # a streaming event's next frame: no input is converted or stored
            return await process(block_fn, inputs, state, *args, **kwargs)
        fn = blocks.fns[block_fn] if isinstance(block_fn, int) else block_fn
        saved = _stored_inputs(fn, state)
        try:
            return await process(block_fn, inputs, state, *args, **kwargs)
        except BaseException:
            _restore_inputs(state, saved)
            raise

    blocks.process_api = checked  # gradio calls blocks.process_api(...) on the instance (queue, validator, MCP)


def _stored_inputs(fn: Any, state: Any) -> dict[int, Any]:
    """{component id: its stored config (a copy), or None when the session holds none} for `fn`'s value inputs."""
    values = getattr(state, "config_values", None)
    if values is None:
        return {}
    ids = [c._id for c in fn.inputs if not getattr(c, "stateful", False)]
    return {i: copy.deepcopy(values[i]) if i in values else None for i in ids}


def _restore_inputs(state: Any, saved: dict[int, Any]) -> None:
    values = getattr(state, "config_values", None)
    for key, config in saved.items():
        if config is None:
            values.pop(key, None)
        else:
            values[key] = config
