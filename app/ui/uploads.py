"""Upload boxes that refuse a malformed payload with one line, and a safe reading of a clicked row's index. gradio's
pydantic check wraps every ValueError (gr.Error too) into its generic error, so the box's data model only marks a
malformed payload, and its preprocess step refuses the mark with a one-line ``gr.Error``."""

from __future__ import annotations

from typing import Any

import gradio as gr
from gradio.data_classes import FileData
from pydantic import model_validator

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
            raise gr.Error(NOT_A_FILE, print_exception=False)
        return preprocess(payload)

    box.preprocess = checked  # gradio calls block.preprocess(...) on the instance
    return box


def whole_index(value: Any) -> int | None:
    """A clicked row's index as sent by a ``gr.Dataset(type="index")``: a whole number, else None (a raw client can
    send anything there)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) > 2 ** 31:
        return None
    return int(value) if value == int(value) else None
