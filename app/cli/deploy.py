"""``python -m app deploy``: the serving command that reproduces a preset's method on a production engine (flags,
output and the JSON object: docs/DESIGN.md §4.2; where the engines' flags come from: §4.7).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..core.knobs import FLAG
from ..core.presets import get_preset
from ..core.requests import apply_overrides
from ..core.sources import resolve
from ..deploy import ENGINES, deploy, read_plan
from .common import given


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("deploy", help="print the vLLM / SGLang / llama.cpp command for a preset's method")
    p.add_argument("--preset", required=True, help="preset id (see `python -m app presets`)")
    p.add_argument("--engine", required=True, choices=tuple(ENGINES), help="serving engine")
    p.add_argument("--plan", type=Path, metavar="PLAN.json",
                   help="a plan from `python -m app plan --json` (or the Planner tab): use its best gamma")
    p.add_argument("--target", help="target model (overrides the preset's)")
    p.add_argument("--assistant", help="drafter model (overrides the preset's)")
    p.add_argument("--closest", action="store_true",
                   help="when the engine lacks the method, print its closest supported method instead")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    return p


def run(args: argparse.Namespace) -> int:
    """Print the command (or the JSON object); ArenaError (exit 2) for bad input or a missing method."""
    preset = get_preset(args.preset)
    changes = given(args, ("target", "assistant"))
    if changes:
        preset = apply_overrides(preset, changes, FLAG)
        for spec in changes.values():
            resolve(spec, allow_local=True)  # a malformed id or a missing local folder is one clear line
    plan = read_plan(args.plan) if args.plan is not None else None
    result = deploy(preset, args.engine, plan, closest=args.closest)
    sys.stdout.write(json.dumps(result.to_dict()) + "\n" if args.json else result.text())
    return 0
