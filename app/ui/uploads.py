"""Uploads on a page anyone may reach: upload boxes that refuse a malformed payload with one line, a safe reading of a
clicked row's index, and the upload route's caps (:class:`UploadCap`: one request's size, each visitor's budget and
the upload cache's total, docs/DESIGN.md §4.5). gradio's pydantic check wraps every ValueError (gr.Error too) into its
generic error, so the box's data model only marks a malformed payload, and its preprocess step refuses the mark with a
one-line ``gr.Error``."""

from __future__ import annotations

import json
from typing import Any

import gradio as gr
from gradio.data_classes import FileData
from pydantic import model_validator
from starlette.formparsers import MultiPartException
from starlette.requests import Request

from ..core.words import speaking, t
from . import popups
from .language import scope_language
from .upload_budget import OVER_BUDGET, UploadLedger, UploadLimits
from .visitors import visitor_key

#: gradio labels an upload box for screen readers in English whatever the language ("Click to upload or drop
#: files"): the Replay and Benchmark tabs' boxes take their own visible words (gradio's, translated) instead.
UPLOAD_ARIA_JS = """() => { const boxes = '#replay-upload .upload-container, #bench-suite .upload-container';
  const fix = () => document.querySelectorAll(boxes).forEach(el => {
    const words = (el.innerText || '').replace(/\\s+/g, ' ').trim();
    if (words && el.getAttribute('aria-label') !== words) { el.setAttribute('aria-label', words); } });
  fix(); new MutationObserver(fix).observe(document.body, {childList: true, subtree: true}); }"""

NOT_A_FILE = "limits.not_a_file"
#: The original name a malformed payload is marked with (no real upload can carry a NUL character in its name).
MALFORMED = "\x00malformed upload"


class UploadedFile(FileData):
    """gradio's FileData; anything but one file object (a dict with a text path and FileData's marker) becomes a
    file marked :data:`MALFORMED`, for the box's preprocess step to refuse."""

    @model_validator(mode="before")
    @classmethod
    def one_file(cls, value: Any) -> Any:
        if isinstance(value, cls) or (isinstance(value, dict) and isinstance(value.get("path"), str)
                                      and value.get("meta") == {"_type": "gradio.FileData"}):
            return value
        return {"path": "", "orig_name": MALFORMED, "meta": {"_type": "gradio.FileData"}}


def upload_box(*args: Any, **kwargs: Any) -> gr.File:
    """A single-file ``gr.File`` (same arguments) that answers a malformed payload with :data:`NOT_A_FILE`."""
    box = gr.File(*args, **kwargs)
    box.data_model = UploadedFile
    preprocess = box.preprocess

    def checked(payload: Any) -> Any:
        if isinstance(payload, FileData) and payload.orig_name == MALFORMED:
            raise popups.error(t(NOT_A_FILE))
        return preprocess(payload)

    box.preprocess = checked  # gradio calls block.preprocess(...) on the instance
    return box


def whole_index(value: Any) -> int | None:
    """A clicked row's index as sent by a ``gr.Dataset(type="index")``: a whole number, else None (a raw client can
    send anything there)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) > 2 ** 31:
        return None
    return int(value) if value == int(value) else None


#: Room in an upload request's body beyond its files' bytes: multipart boundaries and part headers.
MULTIPART_OVERHEAD = 64 * 1024
#: The refusals' keys in the tables of words (app/core/words/*/limits.json).
TOO_LARGE = "limits.upload_too_large"


class _Refused(MultiPartException):
    """Raised from the body's stream when it passes the request's cap: a MultiPartException, so gradio's parser
    deletes the partial files it wrote before it answers (any other exception leaves them in its upload folder)."""


class UploadCap:
    """ASGI middleware for upload requests (``POST .../upload``, docs/DESIGN.md §4.5):

    - an upload whose files add up to more than `files_limit` bytes (its body over that plus
      :data:`MULTIPART_OVERHEAD`) is refused with 413, from its Content-Length or while it streams, whatever the number
      of files in it (gradio's ``max_file_size`` only caps each file);
    - an upload over its visitor's budget or the upload cache's total (`ledger`, app/ui/upload_budget.py) is refused
      with 429 before a byte of it is read; what it stores is recorded there, and every request gives the ledger a
      chance to remove the uploads no event used.

    A refused upload leaves nothing in gradio's upload folder (a client that hangs up mid-upload neither)."""

    def __init__(self, app: Any, files_limit: int, ledger: UploadLedger | None = None):
        self.app, self.files_limit, self.ledger = app, files_limit, ledger
        self.limit = files_limit + MULTIPART_OVERHEAD  # the body: the files plus their multipart framing

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        if self.ledger is not None:
            self.ledger.sweep()
        if scope.get("method") != "POST" or not str(scope.get("path", "")).rstrip("/").endswith("/upload"):
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length and (not length.isdigit() or int(length) > self.limit):
            return await self._refuse(send, scope, 413, TOO_LARGE)
        ticket = None
        if self.ledger is not None:
            ticket = self.ledger.admit(visitor_key(Request(scope)), int(length) if length else self.limit)
            if isinstance(ticket, str):
                return await self._refuse(send, scope, 429, ticket)
        seen, over, status, body = 0, False, None, b""

        async def counted() -> dict:
            nonlocal seen, over
            message = await receive()
            if message.get("type") == "http.disconnect":  # hung up mid-upload: gradio deletes its partial files
                raise _Refused("the client went away")
            seen += len(message.get("body", b"")) if message.get("type") == "http.request" else 0
            if seen > self.limit:
                over = True
                raise _Refused(TOO_LARGE)
            return message

        async def sending(message: dict) -> None:
            nonlocal status, body
            if over:  # gradio answers the refusal with its own words: ours go instead
                if message.get("type") == "http.response.start":
                    status = 413
                    await self._refuse(send, scope, 413, TOO_LARGE)
                return
            if message.get("type") == "http.response.start":
                status = message.get("status")
            elif status == 200:
                body += message.get("body", b"")
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except MultiPartException:
            if status is None:
                await self._refuse(send, scope, 413, TOO_LARGE)
        finally:
            if ticket is not None:
                self.ledger.settle(ticket, seen, _stored_paths(body) if status == 200 else [])

    async def _refuse(self, send: Any, scope: dict, code: int, key: str) -> None:
        """Answer with `code` and the refusal `key`'s one line in the visitor's language."""
        limits = self.ledger.limits if self.ledger is not None else UploadLimits()
        with speaking(scope_language(scope)):
            line = t(key, mb=_mb(self.files_limit if key == TOO_LARGE else limits.per_visitor if key == OVER_BUDGET
                                 else limits.cache), minutes=_number(limits.window / 60))
        data = line.encode()
        await send({"type": "http.response.start", "status": code,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})


def _mb(size: int | None) -> str:
    return _number(round((size or 0) / 1e6, 1))


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _stored_paths(body: bytes) -> list[str]:
    """The files gradio stored for an upload: its answer, a JSON list of their paths on this machine."""
    try:
        paths = json.loads(body or b"null")
    except ValueError:
        return []
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def note_used_uploads(blocks: gr.Blocks, ledger: UploadLedger) -> None:
    """Tell `ledger` which uploads an event received (a file value as the page sends it: ``{"path": ..., "meta":
    {"_type": "gradio.FileData"}}``, alone or in a list), so that it keeps them past its early removal."""
    process = blocks.process_api

    async def noted(block_fn: Any, inputs: list, *args: Any, **kwargs: Any) -> Any:
        for value in inputs if isinstance(inputs, list) else []:
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict) and isinstance(item.get("path"), str):
                    ledger.used(item["path"])
        return await process(block_fn, inputs, *args, **kwargs)

    blocks.process_api = noted  # gradio calls blocks.process_api(...) on the instance (queue, validator, MCP)
