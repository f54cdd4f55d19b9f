"""gradio_client against the named endpoints of the real app, launched in-process on a free port.

Runs the offline default preset (SmolLM2 135M packaged on PyPI; the first load on a fresh
machine converts the GGUF once, about 15 s) with 16 new tokens.
"""

from __future__ import annotations

import gradio_client
import pytest

from tests.app_server import launched

pytestmark = pytest.mark.slow

PROMPT = "Repeat this list and add one more fruit at the end: apple, banana, cherry, date, elderberry, fig."
CONTRACT = {"preset", "method", "target", "assistant", "mode", "do_sample", "device", "baseline", "assisted",
            "speedup", "identical", "first_divergence"}
SIDE_KEYS = {"text", "token_ids", "new_tokens", "seconds", "tokens_per_second", "ttft_seconds"}


@pytest.fixture(scope="module")
def client():
    with launched(max_new_tokens_cap=64) as (url, _):
        yield gradio_client.Client(url, verbose=False)


def test_race_endpoint_returns_the_cli_contract(client):
    result = client.predict(preset="offline-prompt-lookup", prompt=PROMPT, max_new_tokens=16, api_name="/race")
    assert isinstance(result, dict)
    assert CONTRACT <= set(result), CONTRACT - set(result)
    assert SIDE_KEYS <= set(result["baseline"])
    assert SIDE_KEYS | {"tokens", "rounds", "acceptance_rate", "mean_accepted_length"} <= set(result["assisted"])
    assert result["mode"] == "concurrent" and result["preset"] == "offline-prompt-lookup"
    assert result["identical"] is True and result["first_divergence"] is None  # greedy prompt lookup is lossless
    assert 0 < result["assisted"]["new_tokens"] <= 16
    statuses = {t["status"] for t in result["assisted"]["tokens"]}
    assert statuses <= {"accepted", "resampled", "bonus", "target"} and result["assisted"]["rounds"]


def test_measure_endpoint_runs_sequentially(client):
    result = client.predict(preset="offline-prompt-lookup", prompt=PROMPT, max_new_tokens=12,
                            prompt_lookup_num_tokens=4, api_name="/measure")
    assert result["mode"] == "sequential" and result["identical"] is True
    assert result["speedup"] > 0


def test_bad_input_is_a_clear_error_and_the_server_keeps_serving(client):
    with pytest.raises(Exception) as info:
        client.predict(preset="offline-prompt-lookup", prompt=PROMPT, max_new_tokens=16, assistant_early_exit=3,
                       api_name="/race")
    assert "does not apply" in str(info.value)
    with pytest.raises(Exception, match="max_new_tokens must be between 1 and 64; got 65"):
        client.predict(preset="offline-prompt-lookup", prompt=PROMPT, max_new_tokens=65, api_name="/race")
    again = client.predict(preset="offline-prompt-lookup", prompt="Say hi.", max_new_tokens=4, api_name="/race")
    assert again["assisted"]["new_tokens"] <= 4
