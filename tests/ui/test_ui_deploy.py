"""The Race tab's "Take it to production" panel: the same text as ``python -m app deploy``, following the preset
and engine, with a copy button (the browser check is in test_ui_deploy_browser.py)."""

from __future__ import annotations

from app.deploy import deploy
from app.ui.deploy import production_text
from tests.helpers import by_elem_id


def test_panel_text_is_the_cli_text_or_the_closest_labelled():
    assert production_text("offline-prompt-lookup", "sglang") == deploy("offline-prompt-lookup", "sglang").text()
    closest = production_text("layerskip", "vllm")
    assert closest.startswith("# vLLM has no layerskip; closest:") and '"method": "ngram"' in closest
    assert production_text("no-such-preset", "vllm").startswith("# error: Unknown preset")


def test_panel_is_built_with_a_copy_button_and_follows_preset_and_engine(built):
    code = by_elem_id(built, "production-command")
    engine = by_elem_id(built, "production-engine")
    assert code.language == "shell" and "copy" in (code.buttons or [])
    assert code.value == production_text(built.config.preset, "vllm").rstrip("\n")  # gr.Code drops the last newline
    triggers = {tuple(t) for d in built.demo.fns.values() if code in d.outputs for t in d.targets}
    assert {(built.race.ui.preset._id, "change"), (engine._id, "change")} <= triggers
