"""``python -m app serve --preset P --engine llama.cpp``: start two local llama-server processes on the preset's
packaged GGUF model, one drafting as the preset's method maps to llama.cpp and one plain, print their URLs and the
race command, and stop them on Ctrl-C (docs/DESIGN.md §4.7)."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import time
from typing import Any

from ..core.errors import ArenaError
from ..core.presets import get_preset
from ..deploy.build import deploy
from ..engine import server


def add_parser(sub: Any) -> argparse.ArgumentParser:
    serve = sub.add_parser("serve", help="start llama-server twice (drafting and plain) on a preset's GGUF model")
    serve.add_argument("--preset", required=True)
    serve.add_argument("--engine", choices=("llama.cpp",), default="llama.cpp",
                       help="the engine to start (llama.cpp: the only one that runs on these machines)")
    serve.add_argument("--threads", type=int, metavar="N", help="CPU threads per server (llama-server's -t)")
    serve.add_argument("--closest", action="store_true",
                       help="serve the engine's closest method when it lacks the preset's own")
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


def run(args: argparse.Namespace) -> int:
    if args.threads is not None and not 1 <= args.threads <= 256:
        raise ArenaError(f"--threads must be between 1 and 256; got {args.threads}")
    # Ctrl-C and a plain `kill` both stop the servers (SIGINT may arrive ignored in a background job)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    assisted, plain = start_pair(args.preset, args.threads, args.closest)
    try:
        print(f"assisted (drafting): {assisted.url}\nplain:               {plain.url}")
        print("race them with:\n  " + shlex.join([sys.executable, "-m", "app", "race", "--endpoint", assisted.url,
                                                   "--plain-endpoint", plain.url, "--prompt", "..."]))
        print("Ctrl-C stops both servers.", flush=True)
        while assisted.process.poll() is None and plain.process.poll() is None:
            time.sleep(0.5)
        raise ArenaError("a llama-server exited on its own: "
                         f"{assisted.last_log_line() or plain.last_log_line() or 'no message'}")
    except KeyboardInterrupt:
        print("stopping both servers", file=sys.stderr)
        return 0
    finally:
        assisted.stop()
        plain.stop()
