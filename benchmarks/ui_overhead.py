"""Does streaming through the UI slow generation down? The page's fair race vs the CLI's sequential race.

UI path: the Race tab's fair race (``RaceHandlers.measure_stream``, what the Race button runs in its fair mode), every
yielded frame consumed (the panes are rendered as HTML every TICK seconds, as in the browser); kept plain runs are
cleared before each, so plain runs too. CLI path: ``run_race(request, sequential=True)``, as ``python -m app race
--sequential`` does. Same preset, prompt and token budget; the repetitions alternate between the two paths and the
medians of the assisted tokens/s are compared (target ratio >= 0.95).

    python -m benchmarks.ui_overhead [--preset offline-prompt-lookup] [--reps 5] [--max-new-tokens 64]
"""

from __future__ import annotations

import argparse
import statistics
import time

from app.core.presets import get_preset
from app.core.requests import Limits, build_request
from app.race.ghosts import GHOSTS
from app.race.lifecycle import run_race
from benchmarks.fair_race import page_controls


def run_ui(handlers, controls: list) -> tuple[float, list[float]]:
    """(assisted tokens/s, gaps in seconds between frames while assisted tokens streamed) through the UI's generator."""
    from app.ui.race.session import Session

    session, stamps = Session(), []
    for _ in handlers.measure_stream(session, False, *controls):
        snap = session.run.snapshot() if session.run is not None else None
        if snap is not None and snap.sides["assisted"].tokens and not snap.sides["assisted"].done:
            stamps.append(time.perf_counter())
    result = session.latest
    assert result is not None and not result.errors, result and result.errors
    return result.assisted.tokens_per_second, [b - a for a, b in zip(stamps, stamps[1:])]


def main() -> None:
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--prompt", default=None, help="default: the preset's first example prompt")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args()

    prompt = args.prompt or get_preset(args.preset).example_prompts[0]
    controls = page_controls(args.preset, prompt, args.max_new_tokens)
    request = build_request(args.preset, prompt, {"max_new_tokens": args.max_new_tokens}, limits=Limits.operator())
    handlers = build_app(UIConfig(max_new_tokens_cap=max(512, args.max_new_tokens))).race.handlers
    run_race(request, sequential=True)  # load (and convert on first use) outside the timing

    ui, cli, gaps = [], [], []
    for rep in range(args.reps):
        for path in (("ui", "cli") if rep % 2 == 0 else ("cli", "ui")):
            if path == "ui":
                GHOSTS.clear()
                tps, frame_gaps = run_ui(handlers, controls)
                ui.append(tps)
                gaps.extend(frame_gaps)
            else:
                cli.append(run_race(request, sequential=True).assisted.tokens_per_second)
        print(f"rep {rep + 1}: ui {ui[-1]:.2f} tok/s, cli {cli[-1]:.2f} tok/s", flush=True)
    ui_med, cli_med = statistics.median(ui), statistics.median(cli)
    print(f"\npreset {args.preset}, {args.max_new_tokens} new tokens, {args.reps} interleaved reps (sequential mode)")
    print(f"assisted tokens/s  UI streaming path: median {ui_med:.2f}   CLI path: median {cli_med:.2f}")
    print(f"ratio UI/CLI: {ui_med / cli_med:.3f} (target >= 0.95)")
    if gaps:
        print(f"UI frames while tokens stream: median gap {1000 * statistics.median(gaps):.0f} ms, "
              f"90th percentile {1000 * sorted(gaps)[int(0.9 * (len(gaps) - 1))]:.0f} ms "
              f"({1 / statistics.median(gaps):.1f} updates/s)")


if __name__ == "__main__":
    main()
