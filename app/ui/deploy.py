"""The Race tab's "Take it to production" panel: what ``python -m app deploy --closest`` prints for the preset."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from ..core.errors import ArenaError
from ..deploy import ENGINES, deploy
from .engines import engine_name

INTRO = ("The same method on a serving engine, for production traffic: the command starts an OpenAI-compatible "
         "server. Draft length: the preset's (plan one with `python -m app plan --json`, then "
         "`python -m app deploy --plan PLAN.json`). Flag names were checked against each engine's source.")


def production_text(preset_id: str | None, engine: str | None) -> str:
    """The panel's shell text: the command with its comment lines, or one ``# error:`` line."""
    if engine_name(preset_id) is not None:
        return (f"# {engine_name(preset_id)} is already a serving engine, started by this page's operator.\n"
                "# For the offline presets, `python -m app serve --preset offline-prompt-lookup --engine llama.cpp` "
                "starts one.\n")
    try:
        return deploy(preset_id or "", engine or "vllm", closest=True).text()
    except ArenaError as exc:
        return f"# error: {exc}\n"


def production_panel(preset: gr.Dropdown, initial_preset: str, light: dict) -> SimpleNamespace:
    """Build the accordion inside an open layout; it follows `preset` and its own engine choice.

    light: the queue settings of instant events. Returns the namespace (engine, code).
    """
    with gr.Accordion("Take it to production", open=False, elem_id="production-box"):
        gr.Markdown(INTRO, elem_id="production-intro")
        engine = gr.Radio([(m.TITLE, e) for e, m in ENGINES.items()], value="vllm", label="Serving engine",
                          elem_id="production-engine")
        code = gr.Code(production_text(initial_preset, "vllm"), language="shell", buttons=["copy"], wrap_lines=True,
                       interactive=False, show_line_numbers=False, label="Command", elem_id="production-command")
    for trigger in (preset.change, engine.change):
        trigger(production_text, [preset, engine], [code], show_progress="hidden", **light)
    return SimpleNamespace(engine=engine, code=code)
