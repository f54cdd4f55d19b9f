"""The page's boundary with a raw client (docs/DESIGN.md §4.5): every value a client sends is cleaned of lone
surrogates and converted before an event function sees it, and a refusal is one line."""

from __future__ import annotations

import functools
import inspect
import logging
import re
from typing import Any

import gradio as gr

from ..core.errors import ArenaError
from .html import unexpected_error_text

log = logging.getLogger("app.ui")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(value: Any) -> Any:
    """`value` with lone surrogates in every string (inside lists, tuples and dicts too) replaced by U+FFFD."""
    if isinstance(value, str):
        return value if value.isascii() else _SURROGATE.sub("\ufffd", value)
    if isinstance(value, (list, tuple)):
        return type(value)(clean(v) for v in value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    return value


def _wrap(fn: Any) -> Any:
    """`fn` with cleaned arguments; an ArenaError escaping it (a bad value no handler expected) becomes one line."""
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def stream(*args: Any, **kwargs: Any) -> Any:
            try:
                return (yield from fn(*clean(args), **clean(kwargs)))
            except ArenaError as exc:
                raise gr.Error(str(exc), print_exception=False) from None
        return stream

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*clean(args), **clean(kwargs))
        except ArenaError as exc:
            raise gr.Error(str(exc), print_exception=False) from None
    return call


def failure_text(error: BaseException, what: str = "run") -> str:
    """The one line a user sees for a failed run: an ArenaError's own (also shown as a warning), else a bug's (its
    traceback goes to the server log as "`what` failed")."""
    if isinstance(error, ArenaError):
        gr.Warning(str(error))
        return str(error)
    log.error("%s failed", what, exc_info=error)
    return unexpected_error_text(error)


def _one_line(component: Any, error: BaseException) -> str:
    label = getattr(component, "label", None) or getattr(component, "elem_id", None) or type(component).__name__
    message = error.message if isinstance(error, gr.Error) else f"this {type(component).__name__.lower()} cannot take that value"
    text = " ".join(clean(str(message)).split())
    return f"{clean(str(label))}: {text[:300]}"


def guard_preprocessing(blocks: gr.Blocks) -> int:
    """Make every input component's conversion refuse a bad value with one ``gr.Error`` line; returns how many."""
    inputs = {id(c): c for fn in blocks.fns.values() for c in fn.inputs if not getattr(c, "stateful", False)}
    for component in inputs.values():
        convert = component.preprocess

        def checked(payload: Any, convert: Any = convert, component: Any = component) -> Any:
            try:
                return convert(payload)
            except Exception as exc:  # gradio's own checks (a choice, a bound, a type) or its conversion failing
                raise gr.Error(_one_line(component, exc), print_exception=False) from None

        component.preprocess = checked  # gradio calls block.preprocess(...) on the instance
    return len(inputs)


def clean_inputs(blocks: gr.Blocks) -> int:
    """Wrap every (synchronous) event function of `blocks` with :func:`clean`; returns how many were wrapped."""
    sync = [b for b in blocks.fns.values()
            if b.fn is not None and not (inspect.iscoroutinefunction(b.fn) or inspect.isasyncgenfunction(b.fn))]
    for block_fn in sync:
        block_fn.fn = _wrap(block_fn.fn)
    return len(sync)
