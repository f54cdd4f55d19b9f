"""The page's boundary with a raw client (docs/DESIGN.md §4.5): every value a client sends is cleaned of lone
surrogates and converted before an event function sees it, and a refusal is one line."""

from __future__ import annotations

import copy
import functools
import inspect
import logging
import re
from typing import Any

import gradio as gr
from gradio.i18n import I18nData

from ..core.errors import ArenaError
from ..core.knobs import shown
from ..core.words import DEFAULT, msg, speaking, t, table
from . import popups
from .language import request_language

log = logging.getLogger("app.ui")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: How much of gradio's refusal (which may echo the refused value) a popup keeps (characters).
POPUP_ECHO_CHARS = 120


def unexpected_error_text(exc: BaseException) -> str:
    """The one line a user sees for a bug (the traceback goes to the server log)."""
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return msg("Unexpected error ({type}: {first}); see the server log.", type=type(exc).__name__, first=first)


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


def control_name(component: Any) -> str:
    """A control's name as the visitor reads it: its label in the current language (a translation key of the tables
    for most labels: app/ui/language.py ``label``), else its element id or its kind; never the key itself."""
    name = getattr(component, "label", None)
    if isinstance(name, I18nData):
        name = t(name.key) if name.key in table(DEFAULT) else None
    name = name or getattr(component, "elem_id", None) or type(component).__name__
    return clean(" ".join(str(name).split()))


def refusal_line(component: Any, payload: Any, error: BaseException) -> str:
    """The unescaped sentence, in the current language, for a value `payload` that `component` cannot take: a line of
    ours (an upload box's) as it is, else ours for gradio's checks (a choice, a bound, a type), whose own messages are
    English and may name the control by its translation key. The value is echoed short; :mod:`popups` escapes it."""
    label = control_name(component)
    if isinstance(error, popups.Refusal):  # a line of ours (its text before any escaping)
        return f"{label}: {clean(error.line)[:POPUP_ECHO_CHARS]}"
    value = shown(clean(payload), POPUP_ECHO_CHARS // 2)
    low, high = getattr(component, "minimum", None), getattr(component, "maximum", None)
    if getattr(component, "choices", None) is not None:
        return t("limits.not_a_choice", label=label, value=value)
    if isinstance(component, (gr.Slider, gr.Number)):
        number = isinstance(payload, (int, float)) and not isinstance(payload, bool) and payload == payload
        if not number:
            return t("limits.not_a_number", label=label, value=value)
        if low is not None and high is not None and not low <= payload <= high:
            return t("limits.out_of_range", label=label, low=_bound(low), high=_bound(high), value=_bound(payload))
    return t("limits.bad_value", label=label, value=value)


def _bound(x: float) -> str:
    """A bound or value in a refusal: whole numbers exactly, others as %g."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 2 ** 63 else f"{x:g}"


def guard_preprocessing(blocks: gr.Blocks) -> int:
    """Make every input component's conversion refuse a bad value with one ``gr.Error`` line; returns how many."""
    inputs = {id(c): c for fn in blocks.fns.values() for c in fn.inputs if not getattr(c, "stateful", False)}
    for component in inputs.values():
        convert = component.preprocess

        def checked(payload: Any, convert: Any = convert, component: Any = component) -> Any:
            try:
                return convert(payload)
            except Exception as exc:  # gradio's own checks (a choice, a bound, a type) or its conversion failing
                raise popups.error(refusal_line(component, payload, exc)) from None

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
    fresh event. The whole call (conversions, validator, function) runs in the request's language, so a refusal
    before the function starts is in the visitor's language too (docs/DESIGN.md §4.10), and its refusals are escaped
    only when the page draws them: not for a named API endpoint, which no control of the page triggers
    (app/ui/popups.py)."""
    process = blocks.process_api

    async def checked(block_fn: Any, inputs: list, state: Any = None, *args: Any, **kwargs: Any) -> Any:
        request = kwargs.get("request")
        fn = blocks.fns[block_fn] if isinstance(block_fn, int) else block_fn
        with speaking(request_language(request[0] if isinstance(request, list) and request else request)), \
                popups.drawn_as_html(drawn_on_the_page(fn)):
            if kwargs.get("iterator") is not None:  # a streaming event's next frame: no input is converted or stored
                return await process(block_fn, inputs, state, *args, **kwargs)
            saved = _stored_inputs(fn, state)
            try:
                return await process(block_fn, inputs, state, *args, **kwargs)
            except BaseException:
                _restore_inputs(state, saved)
                raise

    blocks.process_api = checked  # gradio calls blocks.process_api(...) on the instance (queue, validator, MCP)


def drawn_on_the_page(fn: Any) -> bool:
    """Whether the page draws `fn`'s refusals (as HTML): an event a control or the page's load triggers, or a join-time
    validator (gradio gives it no triggers of its own; the page shows what it refuses), but not a named API endpoint
    (``gr.api``: no control triggers it; its caller reads text)."""
    return bool(getattr(fn, "targets", None)) or bool(getattr(fn, "is_validator_function", False))


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
