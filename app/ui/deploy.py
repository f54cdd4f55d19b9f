"""The Race tab's "Take it to production" panel: what ``python -m app deploy --closest`` prints for the preset."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from ..core.errors import ArenaError
from ..deploy import ENGINES, deploy
from ..core.words import t
from .engines import engine_name
from .language import label

def production_text(preset_id: str | None, engine: str | None) -> str:
    """The panel's shell text: the command with its comment lines, or one ``# error:`` line."""
    if engine_name(preset_id) is not None:
        return t("deploy.engine", name=engine_name(preset_id))
    try:
        return deploy(preset_id or "", engine or "vllm", closest=True).text()
    except ArenaError as exc:
        return f"# error: {exc}\n"


def production_panel(preset: gr.Dropdown, initial_preset: str, light: dict) -> SimpleNamespace:
    """Build the accordion inside an open layout; it follows `preset` and its own engine choice.

    light: the queue settings of instant events. Returns the namespace (engine, code).
    """
    with gr.Accordion(label("ui.deploy.title"), open=False, elem_id="production-box"):
        intro = gr.Markdown(t("deploy.intro"), elem_id="production-intro")
        engine = gr.Radio([(m.TITLE, e) for e, m in ENGINES.items()], value="vllm", label=label("ui.deploy.engine"),
                          elem_id="production-engine")
        code = gr.Code(production_text(initial_preset, "vllm"), language="shell", buttons=["copy"], wrap_lines=True,
                       interactive=False, show_line_numbers=False, label=label("ui.deploy.command"),
                       elem_id="production-command")
    for trigger in (preset.change, engine.change):
        trigger(production_text, [preset, engine], [code], show_progress="hidden", **light)
    return SimpleNamespace(engine=engine, code=code, intro=intro)
