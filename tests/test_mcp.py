"""The arena as MCP tools (``app.py --mcp``, docs/DESIGN.md §4.8): an MCP client lists race, measure and plan with a
description for every argument, calls them through the page's own queue and limits, and gets one-line errors."""

from __future__ import annotations

import asyncio

import pytest

from tests.app_server import launched

mcp = pytest.importorskip("mcp")
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


async def _progress(progress: float, total: float | None, message: str | None) -> None:
    """A progress callback: with one, the call asks for progress and gradio takes its other path."""


async def _session(url: str, calls: list[tuple]) -> tuple[list, list]:
    """(tools, results) of one MCP session making `calls` ((name, arguments) or (name, arguments, True) for a call that
    asks for progress)."""
    async with streamable_http_client(f"{url}/gradio_api/mcp/") as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, arguments, progress_callback=_progress if progress else None)
                       for name, arguments, *progress in calls]
            return tools, results


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
        ("race", {"prompt": "x", "max_new_tokens": 600}), ("race", {"prompt": "x", "max_new_tokens": 100000})]))
    preset, *capped = results
    assert preset.isError and "'<img src=x onerror=alert(1)>'" in text_of(preset) and "&lt;" not in text_of(preset)
    for result, tokens in zip(capped, (600, 100000)):
        assert result.isError and text_of(result) == f"request: max_new_tokens must be between 1 and 32; got {tokens}"


def test_mcp_is_off_unless_asked(monkeypatch):
    from app.ui.config import UIConfig, parse_args

    monkeypatch.delenv("GRADIO_MCP_SERVER", raising=False)
    assert not UIConfig().mcp_server and parse_args(["--mcp"]).mcp_server
    monkeypatch.setenv("GRADIO_MCP_SERVER", "true")
    assert UIConfig().mcp_server and not parse_args(["--no-mcp"]).mcp_server
