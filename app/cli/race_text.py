"""A race as a person reads it on the terminal: the stats line and both texts, the assisted one coloured per
status. Shared by ``race`` (a preset or an engine) and ``replay``."""

from __future__ import annotations

import sys

from ..race.protocol import Status
from ..race.result import RaceResult
from ..render.statuses import ANSI


def verdict_note(result: RaceResult) -> str:
    """' (slower)', ' (level: <why>)', ' (not a measurement: <why>)' or '' for the speedup: the race's one verdict
    (app/race/verdict.py), as every other surface says it."""
    verdict = result.verdict
    if verdict.kind == "loss":
        return " (slower)"
    if verdict.kind == "level":
        return f" (level: {verdict.reason})"
    return f" (not a measurement: {verdict.reason})" if verdict.kind == "unmeasured" else ""


#: The JSON's mode values in the words the page uses (docs/DESIGN.md §1.1).
MODE_WORDS = {"sequential": "fair race", "concurrent": "both at once"}


def stats_line(result: RaceResult) -> str:
    a, b = result.assisted, result.baseline
    alpha = a.acceptance_rate
    badge = "identical" if result.identical else f"diverged at token {result.first_divergence}"
    if result.divergence:
        badge += f" ({result.divergence['explanation']})"
    return (f"{MODE_WORDS.get(result.mode, result.mode)} on {result.device}: plain {b.tokens_per_second:.1f} tok/s, "
            f"assisted {a.tokens_per_second:.1f} tok/s, speedup {result.speedup:.2f}x"
            f"{verdict_note(result)}, "
            f"acceptance {'n/a' if alpha is None else f'{alpha:.0%}'}, "
            f"mean accepted length {a.mean_accepted_length:.2f}, rounds {len(a.rounds)}, {badge}")


def print_human(result: RaceResult, out=None) -> None:
    """Both texts, the assisted one coloured per status when stdout is a terminal, and a stats line."""
    out = out or sys.stdout
    colour = out.isatty()
    paint = (lambda s, st: f"{ANSI[st]}{s}{ANSI['reset']}") if colour else (lambda s, st: s)
    out.write(f"{paint('plain', 'bold')}\n{result.baseline.text}\n\n")
    out.write(f"{paint('assisted', 'bold')} ({', '.join(paint(s, s) for s in Status)})\n")
    out.write("".join(paint(t.text, t.status) for t in result.assisted.tokens) + "\n\n")
    out.write(stats_line(result) + "\n")
    if result.why is not None:
        out.write(f"why: {result.why.verdict}\n")
