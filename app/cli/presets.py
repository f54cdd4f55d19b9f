"""``python -m app presets [--json]``: every preset and where it can run."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.presets import load_presets


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("presets", help="list presets and where each can run")
    p.add_argument("--json", action="store_true")
    return p


def run(args: argparse.Namespace) -> int:
    presets = load_presets()
    if args.json:
        rows = [{"id": p.id, "method": p.method, "where": p.where, "title": p.title, "target": p.target,
                 "assistant": p.assistant} for p in presets.values()]
        sys.stdout.write(json.dumps(rows) + "\n")
        return 0
    width = max(len(p) for p in presets)
    for p in presets.values():
        sys.stdout.write(f"{p.id:<{width}}  {p.where:<15}  {p.method:<13}  {p.title}\n")
    return 0
