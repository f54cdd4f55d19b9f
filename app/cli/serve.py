"""``python -m app serve --preset P --engine llama.cpp [--page [APP_FLAGS...]]``: start two local llama-server
processes on the preset's packaged GGUF model, one drafting as the preset's method maps to llama.cpp and one plain,
print their URLs and the race command, and stop them on Ctrl-C or SIGTERM (docs/DESIGN.md §4.7). With ``--page``
it also runs the page against them, ``python app.py --endpoint llama.cpp=URL,plain=URL2 APP_FLAGS...``, as a child
process (this floor never imports the page's code), and stops the page and both servers together.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from ..core.errors import ArenaError
from ..core.presets import get_preset
from ..deploy.build import deploy
from ..engine import server

#: The page's launcher, at the repository root.
APP_PY = Path(__file__).resolve().parents[2] / "app.py"
#: The name the page offers the pair under.
PAGE_NAME = "llama.cpp"
#: What stops `serve`: Ctrl-C, a plain `kill`, a closed terminal.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    serve = sub.add_parser("serve", help="start llama-server twice (drafting and plain) on a preset's GGUF model")
    serve.add_argument("--preset", required=True)
    serve.add_argument("--engine", choices=("llama.cpp",), default="llama.cpp",
                       help="the engine to start (llama.cpp: the only one that runs on these machines)")
    serve.add_argument("--threads", type=int, metavar="N", help="CPU threads per server (llama-server's -t)")
    serve.add_argument("--closest", action="store_true",
                       help="serve the engine's closest method when it lacks the preset's own")
    serve.add_argument("--page", nargs=argparse.REMAINDER, metavar="APP_FLAGS",
                       help="also run the page against the two servers (python app.py --endpoint "
                            f"{PAGE_NAME}=URL,plain=URL2); every flag after --page goes to app.py (e.g. --port 7861)")
    return serve


def start_pair(preset_id: str, threads: int | None = None, closest: bool = False) -> tuple[server.LocalServer, ...]:
    """(assisted, plain) llama-server processes for the preset, both ready; the deploy command's flags (the one
    mapping of a preset to llama.cpp, app/deploy/llamacpp.py) with the packaged files' paths."""
    preset = get_preset(preset_id)
    deployment = deploy(preset, "llama.cpp", closest=closest)
    argv = server.local_argv(deployment.argv, preset.target, preset.assistant)
    plain = server.start("plain", argv[:3], threads=threads)
    try:
        assisted = server.start("assisted", argv, threads=threads)
    except BaseException:
        plain.stop()
        raise
    return assisted, plain


def page_argv(assisted_url: str, plain_url: str, flags: list[str]) -> list[str]:
    """The page's command line: this Python, app.py, the pair as one engine target, then `flags`."""
    return [sys.executable, str(APP_PY), "--endpoint", f"{PAGE_NAME}={assisted_url},plain={plain_url}", *flags]


def start_page(argv: list[str]) -> subprocess.Popen:
    """Start the page in its own process group (a terminal's Ctrl-C reaches this process, which stops the page:
    one order of shutdown); its output goes to this terminal."""
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True)


def stop_page(page: subprocess.Popen, timeout: float = 15.0) -> None:
    """SIGTERM the page and wait for it (SIGKILL after `timeout` seconds)."""
    if page.poll() is None:
        page.terminate()
        try:
            page.wait(timeout)
        except subprocess.TimeoutExpired:
            page.kill()
            page.wait(timeout)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _print_pair(assisted: server.LocalServer, plain: server.LocalServer, page: list[str] | None) -> None:
    print(f"assisted (drafting): {assisted.url}\nplain:               {plain.url}")
    print("race them with:\n  " + shlex.join([sys.executable, "-m", "app", "race", "--endpoint", assisted.url,
                                               "--plain-endpoint", plain.url, "--prompt", "..."]))
    if page is not None:
        print("page:\n  " + shlex.join(page))
    print(f"Ctrl-C stops {'the page and ' if page is not None else ''}both servers.", flush=True)


def _wait(processes: dict[str, subprocess.Popen], servers: tuple[server.LocalServer, ...]) -> NoReturn:
    """Until Ctrl-C or SIGTERM (KeyboardInterrupt); ArenaError when one of `processes` exits on its own."""
    while all(p.poll() is None for p in processes.values()):
        time.sleep(0.5)
    name = next(n for n, p in processes.items() if p.poll() is not None)
    last = " ".join(s.last_log_line() for s in servers if s.process.poll() is not None)
    raise ArenaError(f"the {name} exited on its own (status {processes[name].returncode})"
                     f"{': ' + last if last else ''}")


def run(args: argparse.Namespace) -> int:
    if args.threads is not None and not 1 <= args.threads <= 256:
        raise ArenaError(f"--threads must be between 1 and 256; got {args.threads}")
    # every one of SIGNALS stops everything (SIGINT may arrive ignored in a background job, so it is set here)
    previous = {signum: signal.signal(signum, _interrupt) for signum in SIGNALS}
    servers: tuple[server.LocalServer, ...] = ()
    page = None
    try:
        servers = assisted, plain = start_pair(args.preset, args.threads, args.closest)
        argv = page_argv(assisted.url, plain.url, args.page) if args.page is not None else None
        _print_pair(assisted, plain, argv)
        processes = {"assisted llama-server": assisted.process, "plain llama-server": plain.process}
        if argv is not None:
            page = processes["page"] = start_page(argv)
        _wait(processes, servers)
    except KeyboardInterrupt:
        print("stopping " + ("the page and " if page is not None else "") + "both servers", file=sys.stderr)
        return 0
    finally:
        for signum in SIGNALS:  # a second Ctrl-C must not cut the shutdown short and orphan a process
            signal.signal(signum, signal.SIG_IGN)
        if page is not None:
            stop_page(page)
        for one in servers:
            one.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
