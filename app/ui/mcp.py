"""MCP tool calls as the visitors who make them, refused with the page's one line (docs/DESIGN.md §4.8).

gradio runs a queued tool by calling the page back over HTTP from the server itself (``gradio/mcp.py``: a
gradio_client ``submit`` to the page's own address, with the MCP request's headers), so the job it queues comes from
this machine, whoever the caller is: every MCP caller would be one visitor, and the page's one job per visitor would
be one job for all of them. And a join the queue refuses reaches the caller as gradio_client's HTTP error (the
server's internal address, no reason), not as the line the page shows.

- :class:`McpCallers` (ASGI middleware) stamps each request to ``/gradio_api/mcp`` with its caller's address, the one
  :func:`~app.ui.visitors.visitor_key` reads (the connection's, or what a trusted proxy says), signed with a key of
  this process; gradio copies the header into its call back, where the middleware checks the signature and makes the
  stamped address the request's client. A stamp a client wrote itself is dropped.
- :func:`plain_refusals` (wired by :func:`mcp_lifespan` as the server starts, once gradio has built its MCP server)
  turns whatever a tool call raised into that one line, as plain text.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
from typing import Any, AsyncIterator

import httpx

from ..core.words import speaking, t
from .language import request_language
from .visitors import FULL

#: The header that carries a tool call's caller into gradio's call back (``address signature``).
CALLER = b"x-arena-mcp-caller"
#: Where gradio serves MCP (streamable HTTP, and the SSE transport's stream and messages).
MCP_PATH = "/gradio_api/mcp"
#: The line for a call that failed without one of ours (gradio_client's own errors name the server's address).
CALL_FAILED = "limits.call_failed"
_KEY = secrets.token_bytes(32)


def _signature(address: str) -> str:
    return hmac.new(_KEY, address.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def _is_mcp(path: str) -> bool:
    return (path.rstrip("/") + "/").find(MCP_PATH + "/") >= 0


class McpCallers:
    """ASGI middleware: the caller of an MCP request is the visitor of the job gradio queues for it (module
    docstring). Put it first, so every other part of the page sees the caller as the request's client."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        headers = list(scope.get("headers") or [])
        stamp = next((v for k, v in headers if k.lower() == CALLER), None)
        kept = [(k, v) for k, v in headers if k.lower() != CALLER]
        if _is_mcp(str(scope.get("path", ""))):
            address = str((scope.get("client") or ("unknown",))[0])
            scope = {**scope, "headers": [*kept, (CALLER, f"{address} {_signature(address)}".encode("latin-1"))]}
        elif stamp is not None:
            address, _, signature = stamp.decode("latin-1").rpartition(" ")
            scope = {**scope, "headers": kept}
            if address and hmac.compare_digest(signature, _signature(address)):  # gradio's call back for a caller
                scope["client"] = (address, 0)
        return await self.app(scope, receive, send)


class McpRefusal(Exception):
    """A tool call's refusal: its text is the one line the caller gets (the MCP layer answers ``str(error)``)."""


def refusal_line(error: BaseException, queue_size: int | None = None) -> str:
    """The one line for what a queued tool call raised, in the current language: the page's own refusal where there is
    one (a join the queue refused answers 400 with it; a job that failed carries its gr.Error's line), else a line of
    ours; gradio_client's own errors (which name the server's internal address) never reach the caller."""
    from gradio_client.exceptions import AppError
    from gradio_client.utils import QueueError

    if isinstance(error, httpx.HTTPStatusError):
        text = _detail(error.response) or t(CALL_FAILED)
    elif isinstance(error, QueueError):  # gradio's own check of the queue's size, before our validator runs
        text = t(FULL, size=queue_size) if queue_size else t(CALL_FAILED)
    elif isinstance(error, AppError):
        text = str(error.message)
    elif isinstance(error, RuntimeError) and str(error).startswith("Error: "):  # gradio's "title: message" (progress)
        text = str(error)[len("Error: "):]
    elif isinstance(error, httpx.HTTPError):
        text = t(CALL_FAILED)
    else:
        text = str(error)
    return " ".join(text.split()) or t(CALL_FAILED)


def _detail(response: httpx.Response) -> str | None:
    """The line in a refused join's answer (``{"detail": "..."}``), if there is one."""
    try:
        detail = json.loads(response.content).get("detail")
    except (ValueError, AttributeError):
        return None
    return detail if isinstance(detail, str) else None


def plain_refusals(server: Any, queue_size: int | None = None) -> None:
    """Make every failed tool call of gradio's MCP server (``GradioMCPServer``) end in :class:`McpRefusal` with the
    one line of :func:`refusal_line`, in the caller's language."""
    for name in ("_execute_tool_without_progress", "_execute_tool_with_progress"):
        run = getattr(server, name)

        async def refused(job: Any, *args: Any, run: Any = run) -> Any:
            try:
                return await run(job, *args)
            except Exception as exc:  # any failure of the call back: the one line, never gradio_client's words
                with speaking(request_language(_caller_request(server))):
                    raise McpRefusal(refusal_line(exc, queue_size)) from None

        setattr(server, name, refused)  # gradio calls self._execute_tool_...(job, ...) on the instance


def _caller_request(server: Any) -> Any:
    """The MCP request being answered (its headers give the caller's language), or None outside one."""
    try:
        return server.mcp_server.request_context.request
    except (LookupError, AttributeError):
        return None


def mcp_lifespan(blocks: Any) -> Any:
    """A lifespan for ``launch(app_kwargs=...)`` that applies :func:`plain_refusals` to gradio's MCP server as the page
    starts, before it serves a request (gradio builds that server just before it enters the app's lifespan)."""
    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        server = getattr(blocks, "mcp_server_obj", None)
        if server is not None and not getattr(server, "_arena_refusals", False):
            plain_refusals(server, getattr(blocks._queue, "max_size", None))
            server._arena_refusals = True
        yield

    return lifespan
