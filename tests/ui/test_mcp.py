"""The arena as MCP tools (``app.py --mcp``, docs/DESIGN.md §4.8): an MCP client lists race, measure and plan with a
description for every argument, calls them through the page's own queue and limits, and gets one-line errors; each
MCP caller is the visitor it is (its own address), with one job at a time across the page, the API and MCP."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from app.core.words import speaking, t
from app.ui.visitors import BUSY, _events, visitor_key
from tests import page_client
from tests.app_server import launched, wait_until

mcp = pytest.importorskip("mcp")
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


async def _progress(progress: float, total: float | None, message: str | None) -> None:
    """A progress callback: with one, the call asks for progress and gradio takes its other path."""


async def _session(url: str, calls: list[tuple], address: str | None = None,
                   headers: dict | None = None) -> tuple[list, list]:
    """(tools, results) of one MCP session making `calls` ((name, arguments) or (name, arguments, True) for a call that
    asks for progress); `address`: the loopback address its connections come from (127.0.0.2, 127.0.0.3, ...: another
    client each), `headers`: what it sends with every request."""
    transport = httpx.AsyncHTTPTransport(local_address=address) if address else None
    async with httpx.AsyncClient(transport=transport, headers=headers, timeout=httpx.Timeout(30, read=300),
                                 follow_redirects=True) as http:
        async with streamable_http_client(f"{url}/gradio_api/mcp/", http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                results = [await session.call_tool(name, arguments, progress_callback=_progress if progress else None)
                           for name, arguments, *progress in calls]
                return tools, results


async def _call(url: str, address: str, name: str, arguments: dict, headers: dict | None = None,
                progress: bool = False):
    return (await _session(url, [(name, arguments, progress)], address, headers))[1][0]


@pytest.fixture(scope="module")
def served():
    with launched(public=True, mcp=True, max_new_tokens_cap=32) as (url, app):
        yield url, app


def text_of(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_the_tools_an_agent_sees(served):
    url, _ = served
    tools, _ = asyncio.run(_session(url, []))
    by_name = {t.name: t for t in tools}
    assert set(by_name) == {"race", "measure", "plan"}
    assert "with the machine to itself" in by_name["measure"].description
    assert "not a measurement" in by_name["race"].description
    for tool in tools:
        props = tool.inputSchema["properties"]
        assert props and all(p.get("description") for p in props.values()), tool.name


@pytest.mark.slow
def test_an_agent_asks_whether_prompt_lookup_pays(served):
    url, _ = served
    prompt = "Copy this list: red, green, blue, red, green, blue, red, green, blue."
    _, (planned, measured, refused, capped) = asyncio.run(_session(url, [
        ("plan", {"alpha": 0.8, "c": 0.05}),
        ("measure", {"preset": "offline-prompt-lookup", "prompt": prompt, "max_new_tokens": 16}),
        ("measure", {"preset": "no-such-preset", "prompt": "x"}),
        ("race", {"preset": "offline-prompt-lookup", "prompt": "x", "max_new_tokens": 1000})]))
    assert not planned.isError and "'best_gamma': 8" in text_of(planned)
    assert not measured.isError and "'mode': 'sequential'" in text_of(measured) and "'verdict'" in text_of(measured)
    for result, needle in ((refused, "no-such-preset"), (capped, "must be between 1 and 32; got 1000")):
        assert result.isError and needle in text_of(result) and "Traceback" not in text_of(result)


def test_a_refusal_is_the_line_as_written(served):
    """An MCP reply is plain text: a refusal that echoes markup arrives as written, not HTML-escaped (the page's popup
    escapes it, and only there); the token cap is one wording however far above it a number is."""
    url, _ = served
    _, results = asyncio.run(_session(url, [
        ("measure", {"preset": "<img src=x onerror=alert(1)>", "prompt": "x"}),
        ("race", {"prompt": "x", "max_new_tokens": 600}), ("race", {"prompt": "x", "max_new_tokens": 100000}, True)]))
    preset, *capped = results
    assert preset.isError and "'<img src=x onerror=alert(1)>'" in text_of(preset) and "&lt;" not in text_of(preset)
    for result, tokens in zip(capped, (600, 100000)):
        assert result.isError and text_of(result) == f"request: max_new_tokens must be between 1 and 32; got {tokens}"


@pytest.fixture
def held(monkeypatch):
    """Every named-API race or measurement waits at its start until `release` is set (no model loads): (started,
    release), started counting the jobs that began."""
    from app.ui.race import api

    started, release = threading.Semaphore(0), threading.Event()

    def waiting(config, sequential, values):
        started.release()
        while not release.wait(0.05):
            yield None  # the keep-alive updates of a real race
        yield {"prompt": values["prompt"], "mode": "sequential" if sequential else "concurrent"}

    monkeypatch.setattr(api, "stream_api", waiting)
    yield started, release
    release.set()


def _visitors(app) -> list[str]:
    """The visitors of the generation jobs gradio's queue holds (waiting or running)."""
    return sorted(visitor_key(e.request) for e in _events(app.demo))


def test_each_mcp_caller_is_its_own_visitor(held):
    """The probe: gradio runs a queued tool by calling the page back from the server itself, so every MCP caller was
    one loopback visitor, and a second caller was refused as "a second job from one visitor". Two callers from two
    addresses each get their own slot; a second job of one of them, by MCP or from the page at the same address, gets
    the page's one line (in the caller's language), not gradio_client's HTTP error."""
    started, release = held
    with launched(public=True, mcp=True, forwarded_allow_ips="") as (url, app):
        race = page_client.event_named(app.demo.get_config_file(), "race")
        data = [p["props"].get("value") for p in race["inputs"]]

        def page_job(address: str, headers: dict | None = None) -> tuple[str, str]:
            with httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=60, headers=headers) as http:
                return page_client.send(http, url, race["fn_index"], data, 60)

        async def scenario():
            first = asyncio.create_task(_call(url, "127.0.0.2", "measure", {"prompt": "first"}))
            assert await asyncio.to_thread(started.acquire, True, 120), "the first job did not start"
            other = asyncio.create_task(_call(url, "127.0.0.3", "measure", {"prompt": "other"}))
            await asyncio.to_thread(wait_until, lambda: _visitors(app) == ["127.0.0.2", "127.0.0.3"], 60,
                                    lambda: f"the other caller has no slot of its own: {_visitors(app)}")
            again = await _call(url, "127.0.0.2", "race", {"prompt": "again"})
            korean = await _call(url, "127.0.0.2", "race", {"prompt": "again"}, {"Accept-Language": "ko"}, True)
            page = await asyncio.to_thread(page_job, "127.0.0.2")
            forged = await asyncio.to_thread(page_job, "127.0.0.2", {"X-Arena-MCP-Caller": "9.9.9.9 " + "0" * 64})
            release.set()
            return await first, await other, again, korean, page, forged

        first, other, again, korean, page, forged = asyncio.run(scenario())
    assert not first.isError and "'prompt': 'first'" in text_of(first), text_of(first)
    assert not other.isError and "'prompt': 'other'" in text_of(other), text_of(other)
    assert again.isError and text_of(again) == t(BUSY), text_of(again)
    with speaking("ko"):
        assert korean.isError and text_of(korean) == t(BUSY), text_of(korean)
    for answer in (page, forged):  # a caller's stamp a client wrote itself names no one
        assert answer[0] == "clean_errors" and answer[1].endswith(f"HTTP 400: {t(BUSY)}"), answer


def test_mcp_is_off_unless_asked(monkeypatch):
    from app.ui.config import UIConfig, parse_args

    monkeypatch.delenv("GRADIO_MCP_SERVER", raising=False)
    assert not UIConfig().mcp_server and parse_args(["--mcp"]).mcp_server
    monkeypatch.setenv("GRADIO_MCP_SERVER", "true")
    assert UIConfig().mcp_server and not parse_args(["--no-mcp"]).mcp_server
