"""``python -m app serve --preset P --page [APP_FLAGS]``: two llama-servers and the page against them, as one command
that a signal stops with nothing left behind (docs/DESIGN.md §4.7). Real processes: needs llama-server."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.app_server import ROOT, free_port, wait_until

pytestmark = pytest.mark.slow


def children(pid: int) -> list[int]:
    """The direct children of process `pid` (Linux /proc)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (not running, or only a zombie waiting for its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def serve(tmp_path: Path, *page_flags: str) -> tuple[subprocess.Popen, Path]:
    log = tmp_path / "serve.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1", GRADIO_ANALYTICS_ENABLED="False")
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--preset", "offline-prompt-lookup", "--threads",
                                 "1", "--page", *page_flags], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    return proc, log


def test_serve_page_starts_the_pair_and_the_page_and_a_signal_stops_all(llama_server, tmp_path):
    port = free_port()
    proc, log = serve(tmp_path, "--port", str(port))
    try:
        def page_up() -> bool:
            assert proc.poll() is None, log.read_text()
            try:
                return urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).status == 200
            except OSError:
                return False

        wait_until(page_up, 240, lambda: f"the page did not come up: {log.read_text()[-2000:]}", interval=0.5)
        kids = children(proc.pid)
        commands = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") for pid in kids}
        pages = [pid for pid, argv in commands.items() if any(a.endswith(b"app.py") for a in argv)]
        servers = [pid for pid, argv in commands.items() if argv[0].endswith(b"llama-server")]
        assert len(pages) == 1 and len(servers) == 2, commands
        endpoint = commands[pages[0]][commands[pages[0]].index(b"--endpoint") + 1].decode()
        assert endpoint.startswith("llama.cpp=http://127.0.0.1:") and ",plain=http://127.0.0.1:" in endpoint
        descendants = kids + [g for pid in kids for g in children(pid)]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, log.read_text()
        wait_until(lambda: all(gone(pid) for pid in descendants), 10,
                   lambda: f"left behind: {[pid for pid in descendants if not gone(pid)]}")
        assert "stopping the page and both servers" in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_page_that_exits_stops_the_servers_in_one_line(llama_server, tmp_path):
    proc, log = serve(tmp_path, "--no-such-flag")
    assert proc.wait(180) == 2
    lines = log.read_text().strip().splitlines()
    assert lines[-1].startswith("error: the page exited on its own (status 2)"), lines[-3:]
    text = log.read_text()
    assert "python app.py: error: unrecognized arguments: --no-such-flag" in text
    urls = re.findall(r"^(?:assisted \(drafting\)|plain): +(http://\S+)$", text, flags=re.M)
    assert len(urls) == 2, text
    for url in urls:  # both servers were stopped with the page
        with pytest.raises(OSError):
            urllib.request.urlopen(url + "/health", timeout=2)
