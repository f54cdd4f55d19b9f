"""Command line: ``python -m app race|presets|plan|bench|replay|deploy|sampling-check|serve`` (docs/DESIGN.md §4).

One entry (:func:`main`) with a module per sub-command; each module has ``add_parser(sub)`` and
``run(args) -> exit status``. With ``--json`` exactly one JSON object goes to stdout and logs go to
stderr. A bad input exits with status 2 and one clear line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..core.errors import ArenaError
from . import bench, deploy, plan, presets, race, replay, sampling_check, serve
from .common import CleanParser, configure_logging

COMMANDS = {"race": race, "presets": presets, "plan": plan, "bench": bench, "replay": replay, "deploy": deploy,
            "sampling-check": sampling_check, "serve": serve}


def build_parser() -> argparse.ArgumentParser:
    parser = CleanParser(prog="python -m app", description="Race plain and assisted generation.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CleanParser)
    for module in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        configure_logging(getattr(args, "verbose", False))
        return COMMANDS[args.command].run(args)
    except ArenaError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
