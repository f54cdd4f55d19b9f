"""Does streaming through the UI slow generation down? UI path vs CLI path, sequential mode.

UI path: the generator the "Measure fairly" button calls (``Handlers.measure_stream``), every
yielded frame consumed (the panes are rendered as HTML every TICK seconds, as in the browser).
CLI path: ``prepare(...)`` then ``Race(setup, sequential=True).run()``, as ``python -m app race
--sequential`` does. Same preset, prompt and token budget; the repetitions alternate between
the two paths and the medians of the assisted tokens/s are compared (target ratio >= 0.95).

    python -m benchmarks.ui_overhead [--preset offline-prompt-lookup] [--reps 5] [--max-new-tokens 64]
"""

from __future__ import annotations

import argparse
import statistics
import time


from app.core.requests import Limits
from app.core.presets import KNOBS, get_preset
from app.race.runner import Race
from app.race.prepare import prepare
from app.ui.config import UIConfig
from app.ui.controls import preset_state
from app.ui.handlers import Handlers
from app.ui.session import CONTROL_NAMES, Session, request_from_controls


def ui_controls(preset_id: str, prompt: str, max_new_tokens: int) -> dict:
    """The control values the page sends for `preset_id` untouched except prompt and token budget."""
    state = preset_state(preset_id, None, 4096)
    values = {"preset": preset_id, "prompt": prompt, "target": state["target"], "assistant": state["assistant"],
              "chat_template": state["chat_template"], "max_new_tokens": max_new_tokens,
              "decoding": state["decoding"], "temperature": state["temperature"], "top_p": state["top_p"], "seed": None}
    values.update({k: state["knobs"][k]["value"] for k in KNOBS})
    return values


def run_ui(handlers: Handlers, values: dict) -> tuple[float, list[float]]:
    """(assisted tokens/s, gaps in seconds between frames while tokens streamed) through the UI's generator."""
    session = Session()
    stamps = []
    for _ in handlers.measure_stream(session, False, *[values[n] for n in CONTROL_NAMES]):
        race = session.race
        if race is not None and any(r.tokens for r in race.records.values()) and not all(
                r.done for r in race.records.values()):
            stamps.append(time.perf_counter())
    result = session.latest
    assert result is not None and not result.get("errors"), result and result.get("errors")
    return result["assisted"]["tokens_per_second"], [b - a for a, b in zip(stamps, stamps[1:])]


def run_cli(preset, prompt: str) -> float:
    """Assisted tokens/s through the CLI's path."""
    setup = prepare(preset, prompt, Limits.operator())
    return Race(setup, sequential=True).run().to_dict()["assisted"]["tokens_per_second"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--prompt", default=None, help="default: the preset's first example prompt")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args()

    prompt = args.prompt or get_preset(args.preset).example_prompts[0]
    values = ui_controls(args.preset, prompt, args.max_new_tokens)
    preset = get_preset(args.preset).with_overrides(dict(max_new_tokens=args.max_new_tokens))
    assert request_from_controls(values, Limits.operator()).preset == preset, "UI and CLI would not run the same settings"
    handlers = Handlers(UIConfig(max_new_tokens_cap=4096))
    run_cli(preset, prompt)  # load (and convert on first use) outside the timing

    ui, cli, gaps = [], [], []
    for rep in range(args.reps):
        order = ("ui", "cli") if rep % 2 == 0 else ("cli", "ui")
        for path in order:
            if path == "ui":
                tps, frame_gaps = run_ui(handlers, values)
                ui.append(tps)
                gaps.extend(frame_gaps)
            else:
                cli.append(run_cli(preset, prompt))
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
