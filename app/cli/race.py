"""``python -m app race``: race plain and assisted generation of one preset (docs/DESIGN.md §4)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.knobs import FLAG, KNOBS
from ..core.presets import DTYPES, QUANTIZATIONS
from ..core.requests import Limits, RaceRequest, apply_overrides, build_request, read_text_file
from ..engine.target import ENGINE_NAMES
from ..race.result import STATUSES, RaceResult
from ..render.statuses import ANSI
from .common import add_knob_flags, emit, given, progress_logger

#: Preset fields a flag of the same name overrides.
FIELD_FLAGS = ("target", "assistant", "revision", "assistant_revision", "dtype", "quantization")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    race = sub.add_parser("race", help="race baseline and assisted generation of one preset")
    race.add_argument("--preset", help="the preset to race (or race a running engine with --endpoint)")
    race.add_argument("--endpoint", metavar="URL",
                      help="race a running llama-server that drafts (docs/DESIGN.md §4.7) instead of a preset")
    race.add_argument("--plain-endpoint", metavar="URL2", help="the same model served without speculation")
    race.add_argument("--engine", choices=ENGINE_NAMES, default=None,
                      help="with --endpoint: the engine behind it (default llama.cpp)")
    race.add_argument("--model", help="with --endpoint: the model name the endpoints must serve")
    race.add_argument("--timeout", type=float, metavar="SECONDS",
                      help="with --endpoint: the longest silence from the engine before it counts as too slow (60)")
    race.add_argument("--prompt", action="append", help="the prompt (give it once: assisted generation is batch size 1)")
    race.add_argument("--prompt-file", type=Path)
    race.add_argument("--sample", action="store_true", help="sample instead of greedy decoding")
    race.add_argument("--sequential", action="store_true", help="warm up, then time the sides one after the other")
    race.add_argument("--tune", action="store_true",
                      help="first measure this preset on this prompt with the planner and race with its best draft settings")
    race.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    race.add_argument("--target")
    race.add_argument("--assistant")
    race.add_argument("--revision", help="the target's hub revision: a branch, a tag or a commit sha (default: the "
                                         "preset's pin, else main)")
    race.add_argument("--assistant-revision", help="the assistant's hub revision (default: the preset's pin, else main)")
    race.add_argument("--no-chat-template", action="store_true")
    race.add_argument("--dtype", choices=DTYPES)
    race.add_argument("--quantization", choices=QUANTIZATIONS)
    race.add_argument("--verbose", action="store_true", help="log loading progress and library warnings to stderr")
    race.add_argument("--save-trace", type=Path, metavar="FILE",
                      help="also save the race as a trace (replay it with `python -m app replay FILE --html OUT`)")
    add_knob_flags(race, ("max_new_tokens", "temperature", "top_p", "seed", *KNOBS))
    return race


def read_prompt(args: argparse.Namespace) -> str | list[str]:
    """The prompt text; a list when --prompt was given more than once (rejected by the engine)."""
    if args.prompt is not None and args.prompt_file is not None:
        raise ArenaError("Give either --prompt or --prompt-file, not both.")
    if args.prompt_file is not None:
        return read_text_file(args.prompt_file, "prompt file")
    if args.prompt is None:
        raise ArenaError("Give a prompt with --prompt TEXT or --prompt-file FILE.")
    return args.prompt[0] if len(args.prompt) == 1 else args.prompt


def request_from_args(args: argparse.Namespace) -> RaceRequest:
    """The chosen preset with the command line's overrides applied, the prompt and the seed."""
    changes = given(args, (*KNOBS, *FIELD_FLAGS, "max_new_tokens", "temperature", "top_p"))
    if args.sample:
        changes["do_sample"] = True
    if args.no_chat_template:
        changes["chat_template"] = False
    return build_request(args.preset, read_prompt(args), changes, args.seed, FLAG, Limits.operator())


def verdict_note(result: RaceResult) -> str:
    """' (slower)', ' (level: <why>)', ' (not a measurement: <why>)' or '' for the speedup: the race's one verdict
    (app/race/verdict.py), as every other surface says it."""
    verdict = result.verdict
    if verdict.kind == "loss":
        return " (slower)"
    if verdict.kind == "level":
        return f" (level: {verdict.reason})"
    return f" (not a measurement: {verdict.reason})" if verdict.kind == "unmeasured" else ""


def stats_line(result: RaceResult) -> str:
    a, b = result.assisted, result.baseline
    alpha = a.acceptance_rate
    badge = "identical" if result.identical else f"diverged at token {result.first_divergence}"
    return (f"{result.mode} race on {result.device}: baseline {b.tokens_per_second:.1f} tok/s, "
            f"assisted {a.tokens_per_second:.1f} tok/s, speedup {result.speedup:.2f}x"
            f"{verdict_note(result)}, "
            f"acceptance {'n/a' if alpha is None else f'{alpha:.0%}'}, "
            f"mean accepted length {a.mean_accepted_length:.2f}, rounds {len(a.rounds)}, {badge}")


def print_human(result: RaceResult, out=None) -> None:
    """Both texts, the assisted one coloured per status when stdout is a terminal, and a stats line."""
    out = out or sys.stdout
    colour = out.isatty()
    paint = (lambda s, st: f"{ANSI[st]}{s}{ANSI['reset']}") if colour else (lambda s, st: s)
    out.write(f"{paint('baseline', 'bold')}\n{result.baseline.text}\n\n")
    out.write(f"{paint('assisted', 'bold')} ({', '.join(paint(s, s) for s in STATUSES)})\n")
    out.write("".join(paint(t.text, t.status) for t in result.assisted.tokens) + "\n\n")
    out.write(stats_line(result) + "\n")
    if result.why is not None:
        out.write(f"why: {result.why.verdict}\n")


def tuned(request: RaceRequest) -> tuple[RaceRequest, dict]:
    """--tune: the request with the planner's draft settings for this prompt (the reason goes to stderr)."""
    from ..planner.tune import tune

    if not isinstance(request.prompt, str):
        raise ArenaError("Give the prompt once: assisted generation runs one prompt at a time (batch size 1).")
    tuning = tune(request, progress_logger)
    sys.stderr.write(f"tuned: {', '.join(f'{k}={v}' for k, v in tuning.knobs.items())} ({tuning.reason})\n")
    preset = apply_overrides(request.preset, tuning.knobs, FLAG)
    return replace(request, preset=preset), tuning.to_dict()


def run(args: argparse.Namespace) -> int:
    if args.endpoint is not None or args.plain_endpoint is not None:
        from .engine_race import run_endpoint

        return run_endpoint(args)
    if args.preset is None:
        raise ArenaError("Give --preset ID, or --endpoint URL to race a running engine.")
    engine_only = [f for f in ("engine", "model", "timeout") if getattr(args, f) is not None]
    if engine_only:
        raise ArenaError(f"--{engine_only[0]} needs --endpoint URL (it describes an engine race).")
    from ..race.lifecycle import run_race

    request, tuning = request_from_args(args), None
    if args.save_trace is not None:
        from ..replay.tracefile import check_writable

        check_writable(args.save_trace, "trace")
    if args.tune:
        request, tuning = tuned(request)
    # a failed side makes the whole race an error: exit 2, one line, nothing on stdout (docs/DESIGN.md §4);
    # Ctrl-C stops both workers after their current forward pass (the lifecycle's finally)
    result = run_race(request, args.sequential, progress=progress_logger).raise_if_failed()
    if args.save_trace is not None:
        from ..replay.tracefile import build_trace, save_trace

        save_trace(build_trace(request, result), args.save_trace)
    return emit(args.json, result.to_dict() | ({"tuned": tuning} if tuning else {}), lambda: print_human(result))
