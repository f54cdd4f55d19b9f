"""The race you watch is the race that was measured: the page's fair race against ``race --sequential``.

    python -m benchmarks.fair_race [--preset offline-prompt-lookup] [--repeats 5] [--rounds 3] [--max-new-tokens N]
    python -m benchmarks.fair_race modes [--preset P] [--repeats 3] [--prompts 4]   # concurrent vs fair

Default: on the preset's first example prompt, interleaved, `--repeats` fair races through the Race tab's own
handler (the page's code path, kept plain runs cleared before each so every race runs plain too) and as many
``python -m app race --sequential --json`` runs (in-process); prints each race's speedup with its verdict, and both
medians over the races that are a measurement (docs/DESIGN.md §5.16: the others are named and left out) and their
ratio; `--rounds` repeats the whole comparison (run after run). Then one more fair race on the same prompt and
settings, which races the kept plain run: the seconds from the click to the first frame of its assisted phase and to
its first assisted token (nothing plain runs before it: the kept run is checked after the race), and its speedup.

``modes``: for prompts of the built-in suite's test split (not tuned on), the median speedup of the concurrent
race (both sides at once) and of the fair race, side by side: how far the concurrent picture is from the
measurement on this machine. ``scripts/gpu_check.sh`` runs it on a GPU.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import time
from typing import Any

from app.bench.suite import BUILTIN_SUITE, load_suite, select
from app.core.presets import get_preset
from app.core.requests import Limits, build_request
from app.race.kept import KEPT_RUNS
from app.race.lifecycle import run_race


def page_controls(preset_id: str, prompt: str, max_new_tokens: int) -> list:
    """The Race tab's control values for `preset_id` untouched, except the prompt and the token budget."""
    from app.ui.race.controls import CONTROL_NAMES, preset_state

    state = preset_state(preset_id, prompt, 4096)
    values = {"preset": preset_id, "prompt": prompt, "target": state["target"], "assistant": state["assistant"],
              "chat_template": state["chat_template"], "max_new_tokens": max_new_tokens, "decoding": state["decoding"],
              "temperature": state["temperature"], "top_p": state["top_p"], "seed": None,
              **{k: v["value"] for k, v in state["knobs"].items()}}
    return [values[n] for n in CONTROL_NAMES]


def page_fair_race(handlers: Any, controls: list) -> tuple[Any, float | None, float | None]:
    """(result, seconds to the first frame of the assisted phase, seconds to the first assisted token) of one fair
    race through the page's handler."""
    from app.ui.race.controls import FAIR
    from app.ui.race.session import Session

    session, start, phase_at, token_at = Session(), time.perf_counter(), None, None
    for frame in handlers.race_click(session, FAIR, *controls):
        snap = session.run.snapshot() if session.run is not None else None
        now = time.perf_counter() - start
        if snap is not None and snap.sides["assisted"].started and phase_at is None:
            phase_at = now
        if snap is not None and snap.sides["assisted"].tokens and token_at is None:
            token_at = now
    return session.latest, phase_at, token_at


def cli_sequential(preset_id: str, prompt: str, max_new_tokens: int) -> dict:
    """``python -m app race --sequential --json`` in-process: the result object."""
    from app.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["race", "--preset", preset_id, "--prompt", prompt, "--sequential", "--json",
                     "--max-new-tokens", str(max_new_tokens)])
    if code != 0:
        raise SystemExit(f"race --sequential failed with exit {code}")
    return json.loads(out.getvalue())


def median_of_measured(figures: list[tuple[float, str]]) -> tuple[float | None, int]:
    """(median speedup of the races that are a measurement, how many were not)."""
    good = [x for x, kind in figures if kind != "unmeasured"]
    return (statistics.median(good) if good else None), len(figures) - len(good)


def one_round(handlers: Any, controls: list, preset_id: str, prompt: str, tokens: int, repeats: int) -> None:
    """`repeats` page fair races and `race --sequential` runs, interleaved; prints each and both medians."""
    page, cli = [], []
    for i in range(repeats):
        KEPT_RUNS.clear()
        result, _, _ = page_fair_race(handlers, controls)
        page.append((result.speedup, result.verdict.kind))
        data = cli_sequential(preset_id, prompt, tokens)
        cli.append((data["speedup"], data["verdict"]["kind"]))
        print(f"  {i + 1}/{repeats}: page fair race {page[-1][0]:.2f}x ({page[-1][1]}), race --sequential "
              f"{cli[-1][0]:.2f}x ({cli[-1][1]})", flush=True)
    (p, p_out), (c, c_out) = median_of_measured(page), median_of_measured(cli)
    show = lambda x: "n/a" if x is None else f"{x:.2f}x"  # noqa: E731
    ratio = f"{p / c:.2f}" if p and c else "n/a"
    print(f"{preset_id}, first example, {tokens} tokens, median of {repeats} (not a measurement, left out: page "
          f"{p_out}, cli {c_out}): page fair race {show(p)}, race --sequential {show(c)}, ratio {ratio}")


def page_vs_cli(preset_id: str, repeats: int, max_new_tokens: int | None, rounds: int = 1) -> None:
    from app.ui.config import UIConfig
    from app.ui.page import build_app

    preset = get_preset(preset_id)
    prompt, tokens = preset.example_prompts[0], max_new_tokens or preset.max_new_tokens
    handlers = build_app(UIConfig(max_new_tokens_cap=max(512, tokens))).race.handlers
    controls = page_controls(preset_id, prompt, tokens)
    cli_sequential(preset_id, prompt, tokens)  # load (and convert on first use) outside the figures
    for n in range(rounds):
        if rounds > 1:
            print(f"round {n + 1}/{rounds}", flush=True)
        one_round(handlers, controls, preset_id, prompt, tokens, repeats)
    result, phase_at, token_at = page_fair_race(handlers, controls)
    print(f"again on the same prompt (kept plain run: {result.baseline_kept_at is not None}): assisted phase after "
          f"{phase_at:.2f} s, first assisted token after {token_at:.2f} s, speedup {result.speedup:.2f}x "
          f"({result.verdict.kind}{': ' + result.verdict.reason if result.verdict.reason else ''})")


def held_out_prompts(count: int) -> list[str]:
    """The first prompt of each category of the built-in suite's test split, up to `count`."""
    suite = load_suite(BUILTIN_SUITE)
    firsts: dict[str, str] = {}
    for p in select(suite, sorted({p.category for p in suite}), "test", 1):
        firsts.setdefault(p.category, p.prompt)
    return list(firsts.values())[:count]


def modes(preset_id: str, repeats: int, prompts: int, max_new_tokens: int | None) -> list[tuple[str, float, float]]:
    """Rows (prompt, concurrent median speedup, fair median speedup); prints a table."""
    changes = {"max_new_tokens": max_new_tokens} if max_new_tokens else {}
    rows = []
    print(f"{'prompt':<44} {'both at once':>12} {'fair race':>10} {'ratio':>6}")
    for prompt in held_out_prompts(prompts):
        request = build_request(preset_id, prompt, changes, limits=Limits.operator())
        run_race(request, sequential=True)  # warm the models for this prompt
        speed = {mode: [] for mode in (False, True)}
        for _ in range(repeats):
            for sequential in (False, True):  # interleaved
                speed[sequential].append(run_race(request, sequential=sequential).speedup)
        concurrent, fair = statistics.median(speed[False]), statistics.median(speed[True])
        rows.append((prompt, concurrent, fair))
        label = " ".join(prompt.split())[:42]
        print(f"{label:<44} {concurrent:>11.2f}x {fair:>9.2f}x {concurrent / fair:>6.2f}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=["page", "modes"], default="page")
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--repeats", type=int, default=None, help="races per figure (5 for page, 3 for modes)")
    ap.add_argument("--prompts", type=int, default=4, help="held-out prompts for modes")
    ap.add_argument("--rounds", type=int, default=1, help="page: repeat the whole comparison this many times")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="default: the preset's")
    args = ap.parse_args()
    if args.what == "modes":
        modes(args.preset, args.repeats or 3, args.prompts, args.max_new_tokens)
    else:
        page_vs_cli(args.preset, args.repeats or 5, args.max_new_tokens, args.rounds)


if __name__ == "__main__":
    main()
