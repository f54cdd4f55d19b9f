"""The hub path against the local hub (tests/local_hub.py, docs/DESIGN.md §6): reachability from huggingface_hub's
own endpoint, the size cap before any weights move, downloads with progress and Stop, revision pins, and one line
for each way the hub fails. Nothing here reaches a real host."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
import torch

from app.core import download, hub
from app.core.errors import ArenaError
from app.core.loader import LoadOptions, ModelCache
from app.core.presets import parse_preset

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"


def weights_of(folder: str) -> torch.Tensor:
    from safetensors.torch import load_file

    return load_file(str(Path(folder) / "model.safetensors"))["model.embed_tokens.weight"]


def cdn_gets(local_hub) -> list[tuple[str, str, str]]:
    """The weight downloads the hub answered (LFS files redirect to /cdn)."""
    return [r for r in local_hub.requests if r[1].startswith("/cdn/") and r[0] == "GET"]


def test_the_probe_uses_the_endpoints_scheme_and_port(on_hub):
    assert hub.endpoint_address("http://127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert hub.endpoint_address("http://mirror.example") == ("mirror.example", 80)
    assert hub.endpoint_address("https://huggingface.co") == ("huggingface.co", 443)
    assert hub.endpoint() == on_hub.url and on_hub.port != 443
    assert hub.hub_reachable()  # a hub on another port than 443 answers


def test_a_hub_model_downloads_with_progress_then_loads_from_the_cache(on_hub, monkeypatch):
    monkeypatch.setattr(download, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr("huggingface_hub.constants.DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    messages: list[str] = []
    first = ModelCache().get_model(SMOL, LoadOptions(max_model_bytes=10**9), messages.append)
    assert torch.equal(first.model.model.embed_tokens.weight, weights_of(on_hub.models["llama_target"]))
    lines = [m for m in messages if m.startswith(f"Downloading {SMOL}/model.safetensors (1 of 1): ")]
    assert len(lines) >= 2 and " of " in lines[0] and "/s" in lines[0] and "left" in lines[0], messages
    done, total = re.search(r"\): (.+?) of (.+?), ", lines[-1]).groups()
    assert done == total, lines[-1]  # the last line of a file says all of it arrived
    gets = len(cdn_gets(on_hub))
    ModelCache().get_model(SMOL, LoadOptions(max_model_bytes=10**9))  # a new process's cache: no weights move
    assert len(cdn_gets(on_hub)) == gets == 1


def test_the_size_cap_refuses_before_a_byte_of_weights_moves(on_hub):
    with pytest.raises(ArenaError, match="has 0.0 GB of weights; this server loads models of at most 0.0 GB"):
        ModelCache().get_model(SMOL, LoadOptions(max_model_bytes=1000))
    assert not [r for r in on_hub.requests if "model.safetensors" in r[1]]


def test_stop_ends_a_download_and_the_next_load_fetches_it(on_hub, monkeypatch):
    monkeypatch.setattr(download, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr("huggingface_hub.constants.DOWNLOAD_CHUNK_SIZE", 16 * 1024)
    stop = threading.Event()
    seen: list[str] = []

    def progress(message: str) -> None:
        seen.append(message)
        if message.startswith("Downloading"):
            stop.set()  # Stop pressed while the first chunks arrive

    with pytest.raises(download.DownloadStopped, match=f"Stopped while downloading {SMOL}/model.safetensors"):
        ModelCache().get_model(SMOL, LoadOptions(), progress, stop)
    from huggingface_hub import constants

    assert not [p for p in Path(constants.HF_HUB_CACHE).rglob("*") if p.name.endswith(".incomplete")]
    assert ModelCache().get_model(SMOL, LoadOptions()).model is not None


def test_a_dropped_connection_resumes_with_a_range_request(on_hub, monkeypatch):
    """huggingface_hub resumes from the last whole chunk it received (10 MB by default; 64 kB here)."""
    monkeypatch.setattr("huggingface_hub.constants.DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    on_hub.faults.drops["model.safetensors"] = 1
    ModelCache().get_model(SMOL, LoadOptions())
    ranges = [r[2] for r in cdn_gets(on_hub)]
    assert len(ranges) == 2 and ranges[0] == "" and ranges[1].startswith("bytes="), ranges


def test_a_revision_pin_loads_that_commit(on_hub):
    old = on_hub.add_folder("arena-tests/pinned", on_hub.models["llama_drafter"], tag="v1")
    on_hub.add_folder("arena-tests/pinned", on_hub.models["llama_target"])
    cache = ModelCache()
    pinned = cache.get_model("arena-tests/pinned", LoadOptions(revision="v1"))
    by_sha = cache.get_model("arena-tests/pinned", LoadOptions(revision=old))
    latest = cache.get_model("arena-tests/pinned", LoadOptions())
    assert len(pinned.model.model.layers) == len(by_sha.model.model.layers) == 2
    assert len(latest.model.model.layers) == 4
    assert cache.get_tokenizer("arena-tests/pinned", revision="v1") is not None
    assert any(r[1] == "/api/models/arena-tests/pinned/revision/v1" for r in on_hub.requests)


def test_a_preset_names_a_revision():
    text = "id: p\nmethod: drafter\ntitle: t\ndescription: d\ntarget: a/b\nassistant: c/d\n"
    preset = parse_preset(text + "revision: v1.0\nassistant_revision: main\n", "p.yaml")
    assert (preset.revision, preset.assistant_revision) == ("v1.0", "main")
    assert preset.with_overrides({"target": "e/f"}).revision is None  # a pin belongs to the preset's own model
    with pytest.raises(ArenaError, match="p.yaml: field 'revision' must name a branch, a tag or a commit sha"):
        parse_preset(text + "revision: ../x\n", "p.yaml")


def failure(spec: str, **options) -> str:
    with pytest.raises(ArenaError) as caught:
        ModelCache().get_model(spec, LoadOptions(**options))
    return str(caught.value)


def test_each_hub_failure_is_one_line_that_says_what_to_do(on_hub, monkeypatch):
    from app.core.hub import unknown_model

    answers = {"unknown repository": failure("nobody/nothing-here")}
    assert answers["unknown repository"] == str(unknown_model("nobody/nothing-here"))
    answers["unknown revision"] = failure(SMOL, revision="no-such-tag")
    assert "has no revision 'no-such-tag'" in answers["unknown revision"]
    on_hub.faults.gated.add(SMOL)
    answers["gated, no token"] = failure(SMOL)
    assert "gated model" in answers["gated, no token"] and "HF_TOKEN" in answers["gated, no token"]
    with pytest.raises(ArenaError) as tokenizer:
        ModelCache().get_tokenizer(SMOL)
    assert str(tokenizer.value) == answers["gated, no token"]
    assert "`hf auth login`" in answers["gated, no token"]
    monkeypatch.setenv("HF_TOKEN", "hf_wrong")
    answers["gated, a token without access"] = failure(SMOL)
    assert "has no access" in answers["gated, a token without access"]
    monkeypatch.setenv("HF_TOKEN", on_hub.token)
    assert ModelCache().get_model(SMOL, LoadOptions()).model is not None  # the right token opens it
    on_hub.reset()
    on_hub.faults.broken.add("HuggingFaceTB/SmolLM-135M")
    answers["server error"] = failure("HuggingFaceTB/SmolLM-135M")
    assert "answered 500 (a server error)" in answers["server error"]
    on_hub.reset()
    monkeypatch.setattr(hub, "HUB_TIMEOUT_S", 0.3)
    on_hub.faults.slow["HuggingFaceTB/SmolLM-135M"] = 1.5
    answers["slow server"] = failure("HuggingFaceTB/SmolLM-135M")
    assert "did not answer in time" in answers["slow server"]
    for what, line in answers.items():
        assert "\n" not in line, what
        print(f"{what}: {line}")


def test_a_dropped_download_leaves_the_cache_usable(on_hub, monkeypatch):
    """huggingface_hub resumes a cut download 5 times; past that the load fails in one line, and the next try
    downloads what is missing."""
    monkeypatch.setattr("time.sleep", lambda s: None)  # http_get waits 1 s between its resumes
    on_hub.faults.drops["model.safetensors"] = 100
    line = failure("HuggingFaceTB/SmolLM-135M")
    assert "was cut off (the connection dropped)" in line and "run again" in line, line
    print(f"dropped connection: {line}")
    on_hub.reset()
    assert ModelCache().get_model("HuggingFaceTB/SmolLM-135M", LoadOptions()).model is not None


def test_a_cached_model_still_loads_while_the_hub_fails(on_hub):
    ModelCache().get_model("HuggingFaceTB/SmolLM-135M", LoadOptions())
    ModelCache().get_tokenizer("HuggingFaceTB/SmolLM-135M")
    on_hub.faults.broken.add("HuggingFaceTB/SmolLM-135M")
    assert ModelCache().get_model("HuggingFaceTB/SmolLM-135M", LoadOptions()).model is not None
    assert ModelCache().get_tokenizer("HuggingFaceTB/SmolLM-135M") is not None
    assert ("GET", "/api/models/HuggingFaceTB/SmolLM-135M", "") in on_hub.requests  # it asked, got 500, used the cache


def test_a_terminal_shows_download_progress_without_verbose(monkeypatch):
    import io
    import logging
    import sys

    from app.cli.common import progress_logger

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(logging.getLogger("app"), "isEnabledFor", lambda level: False)  # no --verbose
    for message in ("Downloading a/b/model.safetensors (1 of 1): 1.0 MB of 2.0 MB, 1.0 MB/s, about 1 s left",
                    "Downloading a/b/model.safetensors (1 of 1): 2.0 MB of 2.0 MB, 1.0 MB/s", "Loading a/b"):
        progress_logger(message)
    assert err.getvalue().count("\r") == 2 and err.getvalue().endswith("2.0 MB of 2.0 MB, 1.0 MB/s\x1b[K\n")
