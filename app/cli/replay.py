"""``python -m app replay FILE --html OUT``: render a saved trace as one self-contained page; without ``--html``, print
what the trace holds (docs/DESIGN.md §4.3). A bad trace is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..replay.tracefile import Trace, check_writable, load_trace


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ArenaError(f"--speed must be a number from 0.25 to 8, got {text!r}") from None
    if not 0.25 <= value <= 8:
        raise ArenaError(f"--speed must be from 0.25 to 8, got {value:g}")
    return value


def add_parser(sub: Any) -> argparse.ArgumentParser:
    replay = sub.add_parser("replay", help="render a saved race trace as a self-contained HTML replay page")
    replay.add_argument("trace", type=Path, help="a trace written by `race --save-trace FILE` (or the page's Download)")
    replay.add_argument("--html", type=Path, metavar="OUT", help="write the replay page to OUT")
    replay.add_argument("--speed", type=_speed, default=1.0, help="starting speed, 0.25 to 8 (default 1: recorded speed)")
    return replay


def summary(trace: Trace) -> str:
    """A few lines about the trace: the race, where and when, the figures, the verdict."""
    from ..render.figures import MODE_LABELS
    from ..render.hardware import machine_text, versions_text, when_text
    from .race_text import stats_line

    r = trace.result
    lines = [f"{r.preset} ({r.method}): {r.target}" + (f" + {r.assistant}" if r.assistant else ""),
             f"recorded {when_text(trace.recorded_at)} on {machine_text(trace.environment)}",
             versions_text(trace.environment), stats_line(r) + f" ({MODE_LABELS[r.mode][0]})"]
    if trace.verdict:
        lines.append(f"why: {trace.verdict}")
    return "\n".join(line for line in lines if line) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..render.replay_page import replay_html

    trace = load_trace(args.trace)
    if args.html is None:
        sys.stdout.write(summary(trace))
        return 0
    check_writable(args.html, "replay page")
    try:
        args.html.write_text(replay_html(trace, args.speed), encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"Cannot write the replay page to {args.html}: {exc.strerror or exc}") from None
    sys.stderr.write(f"wrote {args.html}\n")
    return 0
