"""Every queued event of the page, fuzzed the way a visitor with the share link can send them: raw HTTP to gradio's
queue (``/gradio_api/queue/join`` with an ``fn_index``, then the event stream), not only the named API.

The events come from gradio's own config of the built page (``demo.get_config_file()["dependencies"]``), so an
event added later is fuzzed without anyone listing it. Each input component gets a value drawn per its type: the
component's own default, a plausible value, or a hostile one (tests/fuzzing.py). Outcomes are counted as in
tests/fuzzing.py: ``clean_errors`` (a one-line refusal at the queue, or a failed event with a one-line message),
``results`` (the event completed), ``tracebacks`` (gradio's generic error, a traceback, an "Unexpected error" shown
on the page, or a traceback the app logged) and ``hangs`` (no completion within the timeout).
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import httpx
from hypothesis import strategies as st

import fuzzing
from app_server import free_port

#: What the page shows for a bug (app/ui/html.py unexpected_error_text) and the runner's message for one.
BUG_MARKERS = ("Unexpected error (", fuzzing.UNEXPECTED, "Traceback (most recent call last)")
FILE_VALUES = st.sampled_from([
    None, {"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}},
    {"path": "../../../etc/hostname", "orig_name": "x.jsonl", "meta": {"_type": "gradio.FileData"}},
    {"path": "http://127.0.0.1:1/x.json", "meta": {"_type": "gradio.FileData"}}, "/etc/passwd", {"url": None}, [], 7])


def _typed(component: dict) -> st.SearchStrategy:
    """Plausible values for one input component, from its type and props (choices, bounds)."""
    kind, props = component["type"], component.get("props", {})
    choices = [c[1] if isinstance(c, (list, tuple)) else c for c in props.get("choices") or []]
    if kind in ("dropdown", "radio") and choices:
        return st.sampled_from(choices)
    if kind == "checkboxgroup":
        return st.lists(st.sampled_from(choices or ["x"]), max_size=4)
    if kind == "checkbox":
        return st.booleans()
    if kind in ("number", "slider"):
        low, high = props.get("minimum"), props.get("maximum")
        return st.integers(int(low) if low is not None else -5, int(high) if high is not None else 100)
    if kind == "file":
        return FILE_VALUES
    if kind == "dataset":
        return st.integers(-2, 8)
    return fuzzing.HOSTILE_TEXT


def _value(component: dict) -> st.SearchStrategy:
    default = component.get("props", {}).get("value")
    return st.one_of(st.just(default), st.just(default), _typed(component), fuzzing.ANY_VALUE)


def queued_events(demo: Any) -> list[dict]:
    """The page's events that run a Python function (gradio queues them all), from gradio's own config."""
    config = demo.get_config_file()
    components = {c["id"]: c for c in config["components"]}
    return [{"fn_index": d["id"], "name": d.get("api_name") or str(d["id"]), "inputs": [components[i] for i in d["inputs"]]}
            for d in config["dependencies"] if d.get("backend_fn")]


def event_inputs(event: dict, examples: int) -> list[list]:
    """`examples` derandomised input lists for one event."""
    return fuzzing.draw(st.tuples(*[_value(c) for c in event["inputs"]]).map(list), examples)


@contextlib.contextmanager
def public_page(**config: Any) -> Iterator[tuple[str, Any]]:
    """(url, app) of the page launched in-process as a public share link would be (hub ids only, the public budgets,
    one job per visitor), with `config` overriding UIConfig fields."""
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    app = build_app(UIConfig(port=free_port(), public=True, **config))
    _, url, _ = app.launch(prevent_thread_lock=True, quiet=True)
    try:
        yield url.rstrip("/"), app
    finally:
        app.demo.close()


def _clean(message: Any) -> bool:
    text = str(message or "").strip()
    return bool(text) and "\n" not in text and fuzzing.GENERIC not in text and not any(m in text for m in BUG_MARKERS)


def send(http: httpx.Client, url: str, fn_index: int, data: list, timeout: float) -> tuple[str, str]:
    """(outcome, detail) of one event sent as the page sends it: join the queue, then read its event stream."""
    session = uuid.uuid4().hex
    body = json.dumps({"data": data, "fn_index": fn_index, "session_hash": session, "event_data": None,
                       "trigger_id": None}, allow_nan=True)
    detail = f"fn {fn_index} {fuzzing._short(data)}"
    joined = http.post(f"{url}/gradio_api/queue/join", content=body, headers={"Content-Type": "application/json"})
    if joined.status_code != 200:
        message = joined.json().get("detail") if "json" in joined.headers.get("content-type", "") else joined.text
        clean = joined.status_code < 500 or "Queue is full" in str(message)
        return ("clean_errors" if clean and _clean(message if isinstance(message, str) else "refused") else
                "tracebacks"), f"{detail} -> HTTP {joined.status_code}: {str(message)[:200]}"
    return _completion(http, url, session, timeout, detail)


def _completion(http: httpx.Client, url: str, session: str, timeout: float, detail: str) -> tuple[str, str]:
    deadline = time.monotonic() + timeout
    try:
        with http.stream("GET", f"{url}/gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in _sse_lines(stream):
                if time.monotonic() > deadline:
                    return "hangs", detail
                if not line.startswith(b"data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("msg") == "process_completed":
                    return _judge(message, detail)
    except httpx.TimeoutException:
        return "hangs", detail
    return "hangs", f"{detail} (stream ended without a result)"


def _sse_lines(stream: Any) -> Iterator[bytes]:
    """The stream's lines split on LF only (httpx's iter_lines also splits on the Unicode line breaks that echoed
    hostile text carries inside a JSON string)."""
    buffer = b""
    for chunk in stream.iter_bytes():
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        yield from lines


def _judge(message: dict, detail: str) -> tuple[str, str]:
    output = message.get("output") or {}
    if not message.get("success"):
        error = output.get("error")
        return ("clean_errors" if _clean(error) else "tracebacks"), f"{detail} -> error: {str(error)[:300]}"
    shown = json.dumps(output.get("data"), ensure_ascii=False)
    if any(marker in shown for marker in BUG_MARKERS):
        return "tracebacks", f"{detail} -> shown: {shown[:300]}"
    return "results", detail


def fuzz_page(url: str, demo: Any, per_event: int, counts: fuzzing.Counts, handler: fuzzing.LoggedTracebacks,
              timeout: float = 90.0, clients: int = 4) -> dict[str, int]:
    """`per_event` inputs to every queued event of `demo`, sent by `clients` concurrent visitors (each its own address
    in X-Forwarded-For, as a proxy would send it); returns inputs sent per event name."""
    work = [(event, data) for event in queued_events(demo) for data in event_inputs(event, per_event)]
    sent: dict[str, int] = {}

    def visitor(index: int) -> None:
        headers = {"X-Forwarded-For": f"100.64.0.{index + 1}"}
        with httpx.Client(timeout=httpx.Timeout(30.0, read=timeout), headers=headers) as http:
            for event, data in work[index::clients]:
                fuzzing.classify_with_logs(handler, counts, lambda: send(http, url, event["fn_index"], data, timeout))
                sent[event["name"]] = sent.get(event["name"], 0) + 1

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(visitor, range(clients)))
    return sent
