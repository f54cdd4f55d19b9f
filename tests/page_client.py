"""A raw client of the page's queue: it sends an event the way the page's JavaScript does (``/gradio_api/queue/join``
with an ``fn_index``, then the event stream) and judges the outcome. A visitor with the share link can send any
queued event like this, not only the named API. Used by tests/page_events.py (the page-wide fuzz) and
benchmarks/share_probe.py; no pytest imports.

Outcomes: ``clean_errors`` (a one-line refusal at the queue, or a failed event with a one-line message), ``results``
(the event completed and shows no bug), ``tracebacks`` (gradio's generic error, a multi-line message, an
"Unexpected error" shown on the page) and ``hangs`` (no completion within the timeout, or a dropped event stream).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any, Iterator

import httpx

#: gradio's message for an exception that is not a gr.Error (gradio_client's wording; the stream carries None).
GENERIC = "verbose error reporting"
#: What the page shows for a bug (app/ui/boundary.py unexpected_error_text) and the runner's message for one.
BUG_MARKERS = ("Unexpected error (", "Generation failed (", "Traceback (most recent call last)")
#: A tag as a browser would parse it.
LIVE_MARKUP = re.compile(r"<[A-Za-z/!]")
#: gradio's translation key of a control where a sentence should name it (its label in the visitor's language).
INTERNAL_KEYS = ("__i18n__", "translation_metadata")


def short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _clean(message: Any, drawn: bool = True) -> bool:
    """A message that is one plain line: no traceback, no bug marker, no internal key, and, for an event the page
    draws (`drawn`), no markup (a popup draws its text as HTML, so a tag here would be live on the page; a named API
    endpoint's caller reads its line as text, the value as it was sent)."""
    text = str(message or "").strip()
    return bool(text) and "\n" not in text and GENERIC not in text and not any(m in text for m in BUG_MARKERS) \
        and not any(k in text for k in INTERNAL_KEYS) and not (drawn and LIVE_MARKUP.search(text))


def queued_events(config: dict) -> list[dict]:
    """The page's events that run a Python function (gradio queues them all), from gradio's config of the page
    (``demo.get_config_file()`` in-process, or ``GET /config``): fn_index, name, input components and whether the
    page draws its refusals (``drawn``: a control or the page's load triggers it; a named API endpoint has no
    trigger)."""
    components = {c["id"]: c for c in config["components"]}
    return [{"fn_index": d["id"], "name": d.get("api_name") or str(d["id"]), "inputs": [components[i] for i in d["inputs"]],
             "drawn": bool(d.get("targets"))}
            for d in config["dependencies"] if d.get("backend_fn")]


def event_named(config: dict, name: str) -> dict:
    return next(e for e in queued_events(config) if e["name"] == name)


def inputs_for(event: dict, **by_elem_id: Any) -> list:
    """The event's inputs as the page would send them untouched (each component's value), with the components whose
    elem_id (or label) is a keyword set to that value."""
    data = []
    for component in event["inputs"]:
        props = component.get("props", {})
        key = next((k for k in (props.get("elem_id"), props.get("label")) if k in by_elem_id), None)
        data.append(by_elem_id[key] if key is not None else props.get("value"))
    return data


def call(http: httpx.Client, url: str, fn_index: int, data: list, timeout: float,
         session: str | None = None) -> tuple[str, Any]:
    """("refused", detail) when the queue refused the event, ("completed", gradio's final message with "frames": the
    outputs of every frame a streaming event sent), ("dropped", error text) when the event stream broke, or
    ("timeout", None). session: the page session to send it in (its component state); default a new one."""
    session = session or uuid.uuid4().hex
    body = json.dumps({"data": data, "fn_index": fn_index, "session_hash": session, "event_data": None,
                       "trigger_id": None}, allow_nan=True)
    joined = http.post(f"{url}/gradio_api/queue/join", content=body, headers={"Content-Type": "application/json"})
    if joined.status_code != 200:
        message = joined.json().get("detail") if "json" in joined.headers.get("content-type", "") else joined.text
        return "refused", f"HTTP {joined.status_code}: {message if isinstance(message, str) else short(message)}"
    deadline, frames = time.monotonic() + timeout, []
    try:
        with http.stream("GET", f"{url}/gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in _sse_lines(stream):
                if time.monotonic() > deadline:
                    return "timeout", None
                if not line.startswith(b"data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("msg") == "process_generating":
                    frames.append((message.get("output") or {}).get("data"))
                if message.get("msg") == "process_completed":
                    return "completed", {**message, "frames": frames}
    except httpx.TimeoutException:
        return "timeout", None
    except httpx.RemoteProtocolError as exc:  # the server dropped the event stream: the visitor sees a hang
        return "dropped", str(exc)
    return "dropped", "the stream ended without a result"


def send(http: httpx.Client, url: str, fn_index: int, data: list, timeout: float,
         drawn: bool = True) -> tuple[str, str]:
    """(outcome, detail) of one event sent as the page sends it (see the module docstring for the outcomes); `drawn`:
    the page draws the event's refusals (:func:`queued_events`)."""
    detail = f"fn {fn_index} {short(data)}"
    kind, answer = call(http, url, fn_index, data, timeout)
    if kind == "refused":
        message = answer.split(": ", 1)[-1]
        clean = (not answer.startswith("HTTP 5") or "Queue is full" in answer) and _clean(message)
        return ("clean_errors" if clean else "tracebacks"), f"{detail} -> {answer[:300]}"
    if kind != "completed":
        return "hangs", f"{detail} ({kind}: {answer})"
    return _judge(answer, detail, drawn)


def shown_text(message: dict) -> str:
    """Everything a completed event put on the page, every frame of a streaming one included (or its error), as one
    string."""
    output = message.get("output") or {}
    shown = [*message.get("frames", []), output.get("data")] if message.get("success") else output.get("error")
    return json.dumps(shown, ensure_ascii=False)


def _sse_lines(stream: Any) -> Iterator[bytes]:
    """The stream's lines split on LF only (httpx's iter_lines also splits on the Unicode line breaks that echoed
    hostile text carries inside a JSON string)."""
    buffer = b""
    for chunk in stream.iter_bytes():
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        yield from lines


def _judge(message: dict, detail: str, drawn: bool = True) -> tuple[str, str]:
    output = message.get("output") or {}
    if not message.get("success"):
        error = output.get("error")
        return ("clean_errors" if _clean(error, drawn) else "tracebacks"), f"{detail} -> error: {str(error)[:300]}"
    shown = json.dumps(output.get("data"), ensure_ascii=False)
    if any(marker in shown for marker in BUG_MARKERS):
        return "tracebacks", f"{detail} -> shown: {shown[:300]}"
    return "results", detail


