"""End-to-end helpers shared by the tests that talk to a real server: a free port, and ``python app.py`` started
on one, waited for until it serves, and stopped afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    try:
        deadline = time.monotonic() + startup
        while True:
            assert proc.poll() is None, f"app.py exited:\n{log_path.read_text()}"
            try:
                with urllib.request.urlopen(url, timeout=2):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"app.py did not start:\n{log_path.read_text()}"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
