"""``python -m app bench``: presets x a prompt suite, sequential races, a leaderboard and its files (flags, files,
Ctrl-C and exit codes: docs/DESIGN.md §4.4). A progress bar goes to stderr, the summary to stdout.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from ..bench.request import BENCH_NUMBERS, bench_plan
from ..core.errors import ArenaError
from ..core.knobs import FLAG
from ..core.requests import Limits
from ..engine.result import ENGINE_PRESET
from ..engine.target import ENGINE_NAMES
from .common import add_knob_flags, progress_logger

DEFAULT_PRESETS = "offline-prompt-lookup,offline-early-exit,offline-uad"
BAR_WIDTH = 24
LIMIT, REPEATS = BENCH_NUMBERS["limit"], BENCH_NUMBERS["repeats"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("bench", help="benchmark presets over a prompt suite by category (CSV, JSON, summary, plots)")
    p.add_argument("--presets", default=DEFAULT_PRESETS, help=f"comma-separated preset ids (default {DEFAULT_PRESETS})")
    p.add_argument("--suite", type=Path, help="JSONL (prompt, category, id, split) or CSV with a prompt column "
                   "(default: the built-in suite, assets/suites/builtin.jsonl)")
    p.add_argument("--categories", help="comma-separated categories to keep (default: all)")
    p.add_argument("--split", choices=("all", "tune", "test"), default="all", help="prompts of this split (default all)")
    p.add_argument("--limit", type=LIMIT.parse_flag, metavar="N", help=f"{LIMIT.help} ({LIMIT.bounds_text()})")
    p.add_argument("--repeats", type=REPEATS.parse_flag, metavar="N", default=1,
                   help=f"{REPEATS.help} ({REPEATS.bounds_text()}; default 1)")
    add_knob_flags(p, ("max_new_tokens",), max_new_tokens="tokens per race (default: each preset's)")
    p.add_argument("--sweep", metavar="KNOB=LO..HI", help="race every integer value of one method knob, e.g. "
                   "prompt_lookup_num_tokens=1..12, next to the planner's prediction")
    p.add_argument("--regret", nargs="?", const="", metavar="LENGTHS",
                   help="race each prompt with the cost-aware schedule and with the constant schedule at each draft "
                   "length (e.g. 1,2,4,8 or 1..10; default 1,2,3,4,6,8,10 up to the preset's length) and report the "
                   "regret: the schedule's speed as a share of the best constant length")
    p.add_argument("--seed", type=int, help="torch seed before each side (only matters for sampling presets)")
    p.add_argument("--no-warm-up", action="store_true", help="skip the short warm-up race of each preset")
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder (default bench-results)")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("A.json", "B.json"),
                   help="print what changed between two results.json files, run nothing")
    p.add_argument("--verbose", action="store_true", help="log loading progress and library warnings to stderr")
    p.add_argument("--endpoint", metavar="URL", help="benchmark a running engine that drafts instead of presets; "
                   "the first of --presets only lends its token budget and chat-template choice (docs/DESIGN.md §4.7)")
    p.add_argument("--plain-endpoint", metavar="URL2", help="with --endpoint: the same model without speculation")
    p.add_argument("--engine", choices=ENGINE_NAMES, help="with --endpoint (default llama.cpp)")
    p.add_argument("--model", help="with --endpoint: the served model's name (vLLM needs it)")
    return p


def plan_from_args(args: argparse.Namespace) -> Any:
    """The BenchPlan the flags ask for; ArenaError for a bad flag, an unknown preset or category, a bad suite."""
    from ..bench.suite import load_suite
    from ..bench.sweep import parse_regret, parse_sweep

    categories = [c for c in (args.categories or "").split(",") if c.strip()] or None
    return bench_plan((args.presets or "").split(","), load_suite(args.suite), categories, args.split, args.limit,
                      args.repeats, args.max_new_tokens, Limits.operator(), FLAG,
                      sweep=parse_sweep(args.sweep) if args.sweep else None,
                      regret=parse_regret(args.regret) if args.regret is not None else None, warm_up=not args.no_warm_up,
                      suite_name=args.suite.name if args.suite else "builtin")


def endpoint_racer(args: argparse.Namespace, plan: Any) -> tuple[Any, Any]:
    """(the engine's race function, the plan with its one preset relabelled "endpoint"): the engine races stand in
    for the preset's, which only lends its token budget and chat-template choice."""
    from dataclasses import replace

    from ..engine.race import EngineRacer

    if args.sweep or args.regret is not None:
        raise ArenaError("--sweep and --regret vary a preset's knobs; an engine runs its own configuration.")
    racer = EngineRacer(args.engine or "llama.cpp", args.endpoint, args.plain_endpoint, args.model)
    return racer, replace(plan, presets=[replace(plan.presets[0], id=ENGINE_PRESET, title=f"{racer.engine} endpoint")])


def endpoint_settings(racer: Any, preset: Any, runs: int) -> dict[str, Any]:
    """What results.json says an endpoint benchmark ran: the engine and its speculative type as its races name them
    (not the lending `preset`'s method), the only knob the arena set (the token budget), and ``engine``: its name
    and, per run in the order of ``runs``, what the engine itself reported (a race JSON's ``engine.reported``; the
    `runs` finished races are the racer's last ones, after the warm-up)."""
    reported = racer.reported[len(racer.reported) - runs:] if runs else []
    return {"methods": [racer.method], "knobs": {preset.id: {"max_new_tokens": preset.max_new_tokens}},
            "engine": {"name": racer.engine, "reported": reported}}


def command_text(args: argparse.Namespace) -> str:
    """The command line that reproduces this run (recorded in results.json)."""
    parts = ["python", "-m", "app", "bench", "--presets", args.presets]
    for flag, value in (("--suite", args.suite), ("--categories", args.categories), ("--limit", args.limit),
                        ("--max-new-tokens", args.max_new_tokens), ("--sweep", args.sweep), ("--seed", args.seed),
                        ("--out", args.out)):
        if value is not None:
            parts += [flag, str(value)]
    for flag, value in (("--endpoint", getattr(args, "endpoint", None)),
                        ("--plain-endpoint", getattr(args, "plain_endpoint", None)),
                        ("--engine", getattr(args, "engine", None)), ("--model", getattr(args, "model", None))):
        if value is not None:
            parts += [flag, str(value)]
    parts += ["--split", args.split, "--repeats", str(args.repeats)] + (["--no-warm-up"] if args.no_warm_up else [])
    if args.regret is not None:
        parts += ["--regret"] + ([args.regret] if args.regret.strip() else [])
    return shlex.join(parts)


def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"


def progress_bar(p: Any) -> str:
    """One line: bar, races done of planned, what runs now, elapsed and ETA."""
    filled = round(BAR_WIDTH * p.fraction)
    what = {"warm-up": f"warming up {p.preset}", "done": "done", "stopped": "stopped"}.get(
        p.phase, f"{p.preset}{f' [{p.sweep_value}]' if p.sweep_value is not None else ''} {p.category}/{p.prompt_id}"
                 f" r{p.repeat}")
    eta = f" \u00b7 ETA {_clock(p.eta)}" if p.eta is not None else ""
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {p.done}/{p.total} {what} \u00b7 {_clock(p.elapsed)}{eta}"


class TerminalBar:
    """Redraws one stderr line on a terminal; writes a line per update elsewhere (logs, CI)."""

    def __init__(self, stream: Any = None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()

    def __call__(self, p: Any) -> None:
        line = progress_bar(p)
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if p.phase in ("done", "stopped") else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    if args.compare:
        from ..bench.compare import compare_lines
        from ..bench.results import load_results

        a, b = (load_results(p) for p in args.compare)
        sys.stdout.write("\n".join(compare_lines(a, b, args.compare[0].name, args.compare[1].name)) + "\n")
        return 0
    from ..bench.report import bench_result, write_all
    from ..bench.runner import Bench, PresetRacer
    from ..bench.summary import regret_category_table, summary_markdown
    from ..render.bench_plots import all_plots

    if args.endpoint is not None:
        racer, plan = endpoint_racer(args, plan_from_args(args))
    else:
        if args.plain_endpoint or args.engine or args.model:
            raise ArenaError("--plain-endpoint, --engine and --model need --endpoint URL.")
        racer, plan = PresetRacer(Limits.operator(), args.seed, progress_logger), plan_from_args(args)
    bench = Bench(plan, racer, time.perf_counter, TerminalBar())
    status = 0
    try:
        bench.run()
    except KeyboardInterrupt:
        bench.stop()
        bench.stopped, status = True, 130
    result = bench_result(bench, command_text(args))
    if args.endpoint is not None:
        result.settings.update(endpoint_settings(racer, bench.checked[0][0], len(result.rows)))
    written = write_all(result, args.out, all_plots(result))
    sys.stdout.write(summary_markdown(result) + "\n")
    sys.stdout.write("wrote " + ", ".join(str(p) for p in written) + "\n")
    if result.regret:
        sys.stdout.write("\nRegret per category (shipped cost-aware schedule vs constant draft lengths):\n"
                         + "\n".join(regret_category_table(result.regret)) + "\n")
    if status:
        sys.stderr.write(f"stopped: kept {len(result.rows)} finished race(s) of {bench.total}\n")
    return status
