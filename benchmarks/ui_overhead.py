"""Does streaming through the page slow generation down? The page's fair race vs the CLI's sequential race, and the
server's work per frame.

UI path: the Race tab's fair race (the Race button's event in its fair mode), every yielded frame consumed as gradio's
server consumes it: each output postprocessed by its component, diffed against the last frame's value
(``gradio.utils.diff``, what a streaming event sends) and serialised with orjson. Kept plain runs are cleared before
each, so plain runs too. CLI path: ``run_race(request, sequential=True)``, as ``python -m app race --sequential`` does.
Same preset, prompt and token budget; the repetitions alternate between the two paths and the medians of the assisted
tokens/s are compared (target ratio >= 0.98). The server's work per frame is the consuming thread's CPU time (building
the frame from the race's snapshot, postprocess, diff, serialise) over the frames, and the bytes it sends.

Run it on a quiet machine (nothing else running):

    python -m benchmarks.ui_overhead [--preset offline-prompt-lookup] [--reps 5] [--max-new-tokens 96]
"""

from __future__ import annotations

import argparse
import statistics
import time

import orjson
from gradio.utils import diff

from app.core.presets import get_preset
from app.core.requests import Limits, build_request
from app.race.kept import KEPT_RUNS
from app.race.lifecycle import run_race
from benchmarks.fair_race import page_controls


def _sent(component, value, previous: dict) -> bytes:
    """What gradio's server sends for one output of one frame: the diff from its last value, serialised."""
    if not (isinstance(value, dict) and value.get("__type__") == "update"):
        value = component.postprocess(value)
    last = previous.get(component._id)
    previous[component._id] = value
    return orjson.dumps(value if last is None else diff(last, value), option=orjson.OPT_PASSTHROUGH_DATACLASS,
                        default=str)


def fair_race_events(handlers, session, controls: list):
    """The Race button's fair race (this version's handler, or the one before the browser player)."""
    if hasattr(handlers, "measure_stream"):
        return handlers.measure_stream(session, False, *controls)
    from app.ui.race.controls import FAIR

    return handlers.race_click(session, FAIR, *controls)


def run_ui(handlers, controls: list) -> dict:
    """One fair race through the page's event, consumed as gradio's server does: assisted tokens/s, frames, the
    consuming thread's CPU seconds per frame and bytes sent per frame."""
    from app.ui.race.session import Session

    session, previous, cpu, sizes = Session(), {}, [], []
    events = fair_race_events(handlers, session, controls)
    while True:
        start = time.thread_time()
        try:
            frame = next(events)
        except StopIteration:
            break
        sizes.append(sum(len(_sent(c, v, previous)) for c, v in frame.items()))
        cpu.append(time.thread_time() - start)
    result = session.latest
    assert result is not None and not result.errors, result and result.errors
    return {"tps": result.assisted.tokens_per_second, "frames": len(cpu), "cpu_ms": 1000 * statistics.median(cpu),
            "cpu_total_ms": 1000 * sum(cpu), "bytes": statistics.median(sizes), "bytes_total": sum(sizes)}


def main() -> None:
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--prompt", default=None, help="default: the preset's first example prompt")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-new-tokens", type=int, default=96)
    args = ap.parse_args()

    prompt = args.prompt or get_preset(args.preset).example_prompts[0]
    controls = page_controls(args.preset, prompt, args.max_new_tokens)
    request = build_request(args.preset, prompt, {"max_new_tokens": args.max_new_tokens}, limits=Limits.operator())
    handlers = build_app(UIConfig(max_new_tokens_cap=max(512, args.max_new_tokens))).race.handlers
    run_race(request, sequential=True)  # load (and convert on first use) outside the timing

    ui, cli = [], []
    for rep in range(args.reps):
        for path in (("ui", "cli") if rep % 2 == 0 else ("cli", "ui")):
            if path == "ui":
                KEPT_RUNS.clear()
                ui.append(run_ui(handlers, controls))
            else:
                cli.append(run_race(request, sequential=True).assisted.tokens_per_second)
        u = ui[-1]
        print(f"rep {rep + 1}: ui {u['tps']:.2f} tok/s, cli {cli[-1]:.2f} tok/s; {u['frames']} frames, "
              f"{u['cpu_ms']:.2f} ms CPU and {u['bytes']:.0f} B a frame (median)", flush=True)
    ui_med, cli_med = statistics.median(u["tps"] for u in ui), statistics.median(cli)
    print(f"\npreset {args.preset}, {args.max_new_tokens} new tokens, {args.reps} interleaved reps (fair race)")
    print(f"assisted tokens/s  page's fair race: median {ui_med:.2f}   CLI --sequential: median {cli_med:.2f}")
    print(f"ratio page/CLI: {ui_med / cli_med:.3f} (target >= 0.98)")
    print(f"server work per frame (build, postprocess, diff, serialise): median "
          f"{statistics.median(u['cpu_ms'] for u in ui):.2f} ms CPU, "
          f"{statistics.median(u['bytes'] for u in ui):.0f} bytes; per race "
          f"{statistics.median(u['cpu_total_ms'] for u in ui):.0f} ms CPU and "
          f"{statistics.median(u['bytes_total'] for u in ui) / 1000:.1f} kB over "
          f"{statistics.median(u['frames'] for u in ui):.0f} frames")


if __name__ == "__main__":
    main()
