"""Upload boxes that refuse a malformed payload with one line, and a safe reading of a clicked row's index. gradio's
pydantic check wraps every ValueError (gr.Error too) into its generic error, so the box's data model only marks a
malformed payload, and its preprocess step refuses the mark with a one-line ``gr.Error``."""

from __future__ import annotations

from typing import Any

import gradio as gr
from gradio.data_classes import FileData
from pydantic import model_validator

from . import popups

#: gradio labels an upload box for screen readers in English whatever the language ("Click to upload or drop
#: files"): the Replay and Benchmark tabs' boxes take their own visible words (gradio's, translated) instead.
UPLOAD_ARIA_JS = """() => { const boxes = '#replay-upload .upload-container, #bench-suite .upload-container';
  const fix = () => document.querySelectorAll(boxes).forEach(el => {
    const words = (el.innerText || '').replace(/\\s+/g, ' ').trim();
    if (words && el.getAttribute('aria-label') !== words) { el.setAttribute('aria-label', words); } });
  fix(); new MutationObserver(fix).observe(document.body, {childList: true, subtree: true}); }"""

NOT_A_FILE = "That upload is not a file: choose a file from your computer to upload."
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
            raise popups.error(NOT_A_FILE)
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
TOO_LARGE = "That upload is too large: one request may carry {} MB of files in all."


class _TooLarge(Exception):
    pass


class UploadCap:
    """ASGI middleware: an upload request (``POST .../upload``) whose files add up to more than `files_limit` bytes
    (its body over that plus :data:`MULTIPART_OVERHEAD`) is refused with 413, from its Content-Length or while it
    streams, whatever the number of files in it; gradio's ``max_file_size`` only caps each file (docs/DESIGN.md
    §4.5)."""

    def __init__(self, app: Any, files_limit: int):
        self.app, self.files_limit = app, files_limit
        self.limit = files_limit + MULTIPART_OVERHEAD  # the body: the files plus their multipart framing

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST" or \
                not str(scope.get("path", "")).rstrip("/").endswith("/upload"):
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length and (not length.isdigit() or int(length) > self.limit):
            return await self._refuse(send)
        seen, started = 0, False

        async def counted() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b"")) if message.get("type") == "http.request" else 0
            if seen > self.limit:
                raise _TooLarge
            return message

        async def sending(message: dict) -> None:
            nonlocal started
            started = started or message.get("type") == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except _TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Any) -> None:
        body = TOO_LARGE.format(round(self.files_limit / 1e6, 1)).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
