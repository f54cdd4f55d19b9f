"""Shared fixtures: tiny random models (built once per session), the built page, a model cache, the running app
and headless Chromium. Plain helpers (make_preset, by_elem_id, ROOT, ...) are in tests/helpers.py."""

from __future__ import annotations

import os

# OpenMP's idle torch threads sleep instead of spinning, in this process and in the apps it starts (set before torch
# loads its OpenMP runtime, which reads it once). On a shared CPU a spinning thread takes the core its partner needs:
# a sequential race on all the cores ran a 1-token race in about 20 s instead of 4 s under other load. The thread
# counts, and so every code path, stay as they are; a value set outside wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest  # noqa: E402

from tests import tiny_models  # noqa: E402


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> dict[str, str]:
    """Folders of every tiny model (see tests/tiny_models.py), built once per session."""
    return tiny_models.build_all(tmp_path_factory.mktemp("tiny_models"))


@pytest.fixture(scope="session")
def small(tmp_path_factory) -> dict[str, str]:
    """Folders of the 16-word-vocabulary models (see tests/tiny_vocab.py), built once per session."""
    from tests import tiny_vocab

    return tiny_vocab.build_small_vocab(tmp_path_factory.mktemp("small_vocab"))


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models and timing are steadier on one intra-op thread when another process shares the CPU."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="module")
def cache():
    """A model cache of the module's own. Not shared across modules: loaded models and tokenizers keep state
    between races (transformers caches UAD's vocabulary translator per tokenizer pair, built in whatever vocabulary
    order the module had set), so a module that pins that order would see another module's."""
    from app.core.loader import ModelCache

    return ModelCache()


@pytest.fixture(scope="session")
def built():
    """The whole page (an App) built once with default settings; building must not load a model."""
    from app.core.loader import MODEL_CACHE
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    loads_before = MODEL_CACHE.load_count
    app = build_app(UIConfig())
    assert MODEL_CACHE.load_count == loads_before, "building the page loaded a model"
    return app


@pytest.fixture(scope="session")
def local_built():
    """The whole page built once as with --allow-local-models (the tiny models are local folders). The handlers keep
    no state of their own (a visitor's is in gr.State), so the tests share it."""
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    return build_app(UIConfig(allow_local_models=True))


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """``python app.py --port N`` as a subprocess, started once for every browser test; yields (url, log path)."""
    from tests.app_server import running_app

    log_path = tmp_path_factory.mktemp("app") / "server.log"
    with running_app(log_path) as url:
        yield url, log_path


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (tests/chromium.py). Per module, not per session: sync Playwright leaves its event loop
    marked running in the main thread while it is open, so asyncio.run() in any test in between would fail. A
    launch takes under a second."""
    from playwright.sync_api import sync_playwright

    from tests.chromium import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def page(server, browser):
    """One page of the running app (1600 x 1000 px, the controls set), shared by a module's tests; closed after."""
    from tests.chromium import open_page

    url, _ = server
    page = open_page(browser, url)
    yield page
    page.close()


@pytest.fixture
def engine_pair():
    """(assisted, plain) fake engines answering in llama.cpp's format (tests/engine_fake.py); tests change their
    modes (faults, formats)."""
    from tests.engine_fake import Fake

    fakes = Fake(spec=True), Fake(spec=False)
    yield fakes
    for fake in fakes:
        fake.close()


@pytest.fixture(scope="session")
def llama_server() -> str:
    """The llama-server binary. Skipped when it is not built, except in CI (CI=true), where scripts/setup.sh --dev
    builds it and its absence is a failure."""
    import os

    from app.engine.server import find_llama_server

    binary = find_llama_server()
    if binary is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("llama-server is missing: scripts/setup.sh --dev builds it (scripts/build_llama_server.sh)")
        pytest.skip("llama-server is not built here: run scripts/build_llama_server.sh")
    return binary


@pytest.fixture(scope="session")
def llama_pair(llama_server):
    """Two real llama-server processes on the offline SmolLM2 GGUF (offline-prompt-lookup): (assisted, plain), the
    assisted one with --spec-type ngram-simple (skipped as `llama_server` is)."""
    from app.cli.serve import start_pair

    assisted, plain = start_pair("offline-prompt-lookup", threads=1)
    yield assisted, plain
    assisted.stop()
    plain.stop()


@pytest.fixture(scope="session")
def local_hub(tiny, tmp_path_factory):
    """A local stand-in for the Hugging Face hub (tests/local_hub.py) serving a tiny checkpoint under the real id of
    every hub model the presets name (tests/hub_models.py), started once per session; each test that points the app
    at it uses `on_hub`. ``hub.models``: the tiny folders by name."""
    from tests.hub_models import HUB_MODELS, build_hub_models
    from tests.local_hub import LocalHub

    models = build_hub_models(tmp_path_factory.mktemp("hub_models"), tiny)
    with LocalHub() as hub:
        for repo_id, name in HUB_MODELS.items():
            hub.add_folder(repo_id, models[name])
        hub.models = models
        yield hub


@pytest.fixture
def on_hub(local_hub, tmp_path, monkeypatch):
    """This process's huggingface_hub pointed at the local hub with a fresh, empty HF_HOME and no token; no faults."""
    from huggingface_hub import constants, hf_api
    from transformers.utils import hub as transformers_hub

    from app.core.hub import hub_reachable
    from tests.local_hub import hub_constants, hub_environment

    home = tmp_path / "hf_home"
    for key, value in hub_environment(local_hub.url, home).items():
        monkeypatch.setenv(key, value)
    for key, value in hub_constants(local_hub.url, home).items():
        monkeypatch.setattr(constants, key, value)
    # The shared HfApi objects took their endpoint when first made: huggingface_hub's module-level one (behind
    # huggingface_hub.list_repo_files) and transformers' cached one (chat templates). Point both at the local hub, or
    # a tokenizer load asks the real hub (and, with no network, backs off for minutes).
    monkeypatch.setattr(hf_api.api, "endpoint", local_hub.url)
    monkeypatch.setattr(transformers_hub, "_hf_api", None)
    for key in ("HF_TOKEN", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(key, raising=False)
    local_hub.reset()
    hub_reachable.cache_clear()
    yield local_hub
    local_hub.reset()
    hub_reachable.cache_clear()


@pytest.fixture
def any_load(monkeypatch):
    """For a test of something other than the measurement check: every race counts as a measurement whatever the
    machine's load, so a busy test machine cannot turn a figure the test reads into "not a measurement" (the check
    itself is tested in tests/race/test_trust.py and tests/race/test_verdict.py, with this limit in place)."""
    import app.race.trust as trust
    import app.race.verdict as verdict

    for module in (trust, verdict):
        monkeypatch.setattr(module, "MEASURE_LIMIT", 1e9)
