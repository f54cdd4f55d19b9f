"""Every queued event of the page, fuzzed the way a visitor with the share link can send them: raw HTTP to gradio's
queue (``/gradio_api/queue/join`` with an ``fn_index``, then the event stream), not only the named API.

The raw client and its outcome rules are tests/page_client.py. The events come from gradio's own config of
the built page (``demo.get_config_file()["dependencies"]``), so an event added later is fuzzed without anyone
listing it. Each input component gets a value drawn per its type: the component's own default, a plausible value,
or a hostile one (tests/fuzzing.py).
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import httpx
from hypothesis import strategies as st

from tests import fuzzing, page_client
from tests.app_server import launched
from tests.page_client import send

#: Upload payloads a raw client can send: files outside gradio's upload folder, traversal, not a file at all. (A URL
#: as the path is left out: gradio itself fetches it, through its SSRF guard, before any app code runs, and a fuzz
#: may not make the server reach out; the guard refuses private addresses with gradio's generic error.)
FILE_VALUES = st.sampled_from([
    None, {"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}},
    {"path": "../../../etc/hostname", "orig_name": "x.jsonl", "meta": {"_type": "gradio.FileData"}},
    "/etc/passwd", {"url": None}, [], 7])


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
    """The page's queued events, from gradio's own config of the built page."""
    return page_client.queued_events(demo.get_config_file())


def event_inputs(event: dict, examples: int) -> list[list]:
    """`examples` derandomised input lists for one event."""
    return fuzzing.draw(st.tuples(*[_value(c) for c in event["inputs"]]).map(list), examples)


@contextlib.contextmanager
def public_page(**config: Any) -> Iterator[tuple[str, Any]]:
    """(url, app) of the page launched in-process as a public share link would be (hub ids only, the public budgets,
    one job per visitor) behind a proxy on this machine (it trusts X-Forwarded-For from loopback, as a Space trusts
    its own proxy), with `config` overriding UIConfig fields."""
    config.setdefault("forwarded_allow_ips", "127.0.0.1")
    with launched(public=True, **config) as (url, app):
        yield url, app


def fuzz_page(url: str, demo: Any, per_event: int, counts: fuzzing.Counts, handler: fuzzing.LoggedTracebacks,
              timeout: float = 300.0, clients: int = 4) -> dict[str, int]:
    """`per_event` inputs to every queued event of `demo`, sent by `clients` concurrent visitors (each its own address
    in X-Forwarded-For, as a proxy would send it); returns inputs sent per event name."""
    work = [(event, data) for event in queued_events(demo) for data in event_inputs(event, per_event)]
    sent: dict[str, int] = {}

    def visitor(index: int) -> None:
        headers = {"X-Forwarded-For": f"100.64.0.{index + 1}"}
        with httpx.Client(timeout=httpx.Timeout(30.0, read=timeout), headers=headers) as http:
            for event, data in work[index::clients]:
                fuzzing.classify_with_logs(handler, counts,
                                           lambda: send(http, url, event["fn_index"], data, timeout, event["drawn"]))
                sent[event["name"]] = sent.get(event["name"], 0) + 1

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(visitor, range(clients)))
    return sent
