"""``python -m app race --endpoint URL --plain-endpoint URL2``: race a running engine (docs/DESIGN.md §4.7).

Sequential and greedy: the plain request, then the assisted one. The JSON keeps every key of a transformers race
(docs/DESIGN.md §4.1) and adds ``engine`` and ``assisted.status_source``."""

from __future__ import annotations

import argparse

from ..core.errors import ArenaError
from ..core.knobs import FLAG
from ..core.requests import Limits
from ..engine.http import Timeouts
from ..engine.request import build_engine_request
from ..engine.result import EngineRace
from ..engine.run import run_engine
from ..engine.target import CLI_LABELS, make_target
from .common import emit, read_prompt
from .race_text import print_human

#: The flags of a preset race that mean nothing for an engine race.
PRESET_ONLY = ("preset", "sample", "tune", "target", "assistant", "dtype", "quantization", "seed", "temperature",
               "top_p")


def _check_flags(args: argparse.Namespace) -> None:
    if args.endpoint is None:
        raise ArenaError("--plain-endpoint needs --endpoint URL (the server that drafts).")
    if args.engine is not None and args.endpoint is None:
        raise ArenaError("--engine needs --endpoint URL.")
    given = [name for name in PRESET_ONLY if getattr(args, name, None) not in (None, False)]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ArenaError(f"{flags} cannot be used with --endpoint: an engine race is greedy and runs the engine's "
                         "own configuration.")


def engine_stats_line(race: EngineRace) -> str:
    """What the engine itself reported next to the arena's clock."""
    reported = race.engine["reported"]
    a, b = reported["assisted"], reported["baseline"]
    costs = race.engine.get("round_costs")
    return (f"engine ({race.engine['name']} {race.engine.get('speculative_type')}): drafted {a['draft_n']}, accepted "
            f"{a['draft_n_accepted']}; its own tokens/s: plain {b.get('predicted_per_second', 0):.1f}, assisted "
            f"{a.get('predicted_per_second', 0):.1f}; statuses: {race.status_source}"
            + (f"\nwhy (engine timings): {costs['sentence']}" if costs else ""))


def run_endpoint(args: argparse.Namespace) -> int:
    """Run the engine race the flags describe; exit status 0 (errors are ArenaError, one line)."""
    _check_flags(args)
    if args.save_trace is not None:
        from ..replay.tracefile import check_writable

        check_writable(args.save_trace, "trace")
    prompt = read_prompt(args)
    if not isinstance(prompt, str):
        raise ArenaError("Give the prompt once: an engine race runs one prompt at a time.")
    if args.timeout is not None and not 0 < args.timeout <= 3600:
        raise ArenaError(f"--timeout must be in (0, 3600] seconds; got {args.timeout:g}")
    target = make_target("endpoint", args.endpoint, args.plain_endpoint, args.engine, args.model, labels=CLI_LABELS)
    request = build_engine_request(target, prompt, args.max_new_tokens, not args.no_chat_template, Limits.operator(),
                                   Timeouts(read=args.timeout or 60.0), FLAG)
    race = run_engine(request)  # Ctrl-C: the lifecycle's finally closes the open connection
    if args.save_trace is not None:
        save_engine_trace(race, prompt, request.max_new_tokens, args.save_trace)
    return emit(args.json, race.to_dict(), lambda: (print_human(race.result), print(engine_stats_line(race))))


def save_engine_trace(race: EngineRace, prompt: str, max_new_tokens: int, path) -> None:
    """Save the engine race as a trace (docs/DESIGN.md §4.3) that `replay` renders like any other."""
    from ..replay.tracefile import engine_trace, save_trace

    save_trace(engine_trace(race, prompt, max_new_tokens), path)
