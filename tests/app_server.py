"""The app as a server, for the tests and the benchmarks that talk to one: a free port, the page launched
in-process, ``python app.py`` started as a subprocess and waited for until it serves, the one wait-until loop (what
waits for a server polls with it, never sleeps a guessed time), and races held at their start. No pytest imports,
so the benchmarks use it too."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition: Callable[[], Any], timeout: float, message: str | Callable[[], str],
               interval: float = 0.1) -> None:
    """Call `condition` every `interval` seconds until it returns something true; an AssertionError with `message`
    (or what it returns, read at the time) when `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, message() if callable(message) else message
        time.sleep(interval)


@contextlib.contextmanager
def held_races(monkeypatch: Any, timeout: float = 120.0) -> Iterator[Callable[[], None]]:
    """Every race the page starts in this block waits at its start until the block ends (then runs), so a test can
    act while a visitor's race is surely running. Yields ``wait_started()``: returns once a race has started, an
    AssertionError after `timeout` seconds. `monkeypatch`: pytest's fixture (it patches ``RaceRun.run``)."""
    from app.race.lifecycle import RaceRun

    started, release, run = threading.Event(), threading.Event(), RaceRun.run

    def held(self):
        started.set()
        release.wait(timeout)
        return run(self)

    def wait_started() -> None:
        assert started.wait(timeout), f"no race started within {timeout:g} s"

    monkeypatch.setattr(RaceRun, "run", held)
    try:
        yield wait_started
    finally:
        release.set()


@contextlib.contextmanager
def launched(**config: Any) -> Iterator[tuple[str, Any]]:
    """(url, app) of the page built with these UIConfig fields and launched in this process on a free port; closed
    afterwards."""
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    app = build_app(UIConfig(port=free_port(), **config))
    _, url, _ = app.launch(prevent_thread_lock=True, quiet=True)
    try:
        yield url.rstrip("/"), app
    finally:
        app.demo.close()


@contextlib.contextmanager
def running_app(log_path: Path, env: Callable[[int], dict] | None = None, startup: float = 90.0) -> Iterator[str]:
    """``python app.py --port N`` logging to `log_path`; yields its URL once it answers.

    env: the process environment for port N (default: this one, unbuffered, without gradio analytics).
    """
    port = free_port()
    environ = env(port) if env else dict(os.environ, PYTHONUNBUFFERED="1", GRADIO_ANALYTICS_ENABLED="False")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT, env=environ)
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert proc.poll() is None, f"app.py exited:\n{log_path.read_text()}"
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except OSError:
            return False

    try:
        wait_until(answers, startup, lambda: f"app.py did not start:\n{log_path.read_text()}", interval=0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
