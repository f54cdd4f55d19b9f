"""Command line: ``python -m app race|presets`` (DESIGN section 4).

With ``--json`` exactly one JSON object goes to stdout and logs go to stderr. A bad input
exits with status 2 and one clear line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any, Sequence

from .engine.errors import ArenaError
from .plan_cli import add_plan_parser, cmd_plan
from .engine.presets import DTYPES, KNOBS, QUANTIZATIONS, Preset, get_preset, load_presets

ANSI = {"accepted": "\033[38;5;33m", "resampled": "\033[38;5;208m", "bonus": "\033[38;5;141m",
        "target": "\033[0m", "reset": "\033[0m", "dim": "\033[2m", "bold": "\033[1m"}
#: Flags whose values are parsed by argparse types that raise clean messages.
KNOB_TYPES = {"num_assistant_tokens": int, "num_assistant_tokens_schedule": str,
              "assistant_confidence_threshold": float, "prompt_lookup_num_tokens": int,
              "max_matching_ngram_size": int, "assistant_early_exit": int, "assistant_ensemble_weight": float}


class CleanParser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArenaError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = CleanParser(prog="python -m app", description="Race plain and assisted generation.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CleanParser)
    race = sub.add_parser("race", help="race baseline and assisted generation of one preset")
    race.add_argument("--preset", required=True)
    race.add_argument("--prompt", action="append", help="the prompt (give it once: assisted generation is batch size 1)")
    race.add_argument("--prompt-file", type=Path)
    race.add_argument("--max-new-tokens", type=int)
    race.add_argument("--sample", action="store_true", help="sample instead of greedy decoding")
    race.add_argument("--temperature", type=float)
    race.add_argument("--top-p", type=float)
    race.add_argument("--seed", type=int)
    race.add_argument("--sequential", action="store_true", help="warm up, then time the sides one after the other")
    race.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    race.add_argument("--target")
    race.add_argument("--assistant")
    race.add_argument("--no-chat-template", action="store_true")
    race.add_argument("--dtype", choices=DTYPES)
    race.add_argument("--quantization", choices=QUANTIZATIONS)
    race.add_argument("--verbose", action="store_true", help="log loading progress and library warnings to stderr")
    for knob in KNOBS:
        race.add_argument(f"--{knob.replace('_', '-')}", type=KNOB_TYPES[knob], dest=knob)
    sub.add_parser("presets", help="list presets and where each can run").add_argument("--json", action="store_true")
    add_plan_parser(sub)
    return parser


def preset_from_args(args: argparse.Namespace) -> Preset:
    """The chosen preset with the command line's overrides applied (validated again)."""
    preset = get_preset(args.preset)
    changes: dict[str, Any] = {k: getattr(args, k) for k in KNOBS if getattr(args, k) is not None}
    for name in ("target", "assistant", "max_new_tokens", "temperature", "top_p", "dtype", "quantization"):
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    if args.sample:
        changes["do_sample"] = True
    if args.no_chat_template:
        changes["chat_template"] = False
    return preset.with_overrides(**changes) if changes else preset


def read_prompt(args: argparse.Namespace) -> str | list[str]:
    """The prompt text; a list when --prompt was given more than once (rejected by the engine)."""
    if args.prompt is not None and args.prompt_file is not None:
        raise ArenaError("Give either --prompt or --prompt-file, not both.")
    if args.prompt_file is not None:
        try:
            return args.prompt_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ArenaError(f"Cannot read prompt file {args.prompt_file}: {getattr(exc, 'strerror', None) or exc}") from None
    if args.prompt is None:
        raise ArenaError("Give a prompt with --prompt TEXT or --prompt-file FILE.")
    return args.prompt[0] if len(args.prompt) == 1 else args.prompt


def _stats_line(result: dict) -> str:
    a, b = result["assisted"], result["baseline"]
    alpha = a["acceptance_rate"]
    badge = "identical" if result["identical"] else f"diverged at token {result['first_divergence']}"
    return (f"{result['mode']} race on {result['device']}: baseline {b['tokens_per_second']:.1f} tok/s, "
            f"assisted {a['tokens_per_second']:.1f} tok/s, speedup {result['speedup']:.2f}x, "
            f"acceptance {'n/a' if alpha is None else f'{alpha:.0%}'}, "
            f"mean accepted length {a['mean_accepted_length']:.2f}, rounds {len(a['rounds'])}, {badge}")


def print_human(result: dict, out=None) -> None:
    """Both texts, the assisted one coloured per status when stdout is a terminal, and a stats line."""
    out = out or sys.stdout
    colour = out.isatty()
    paint = (lambda s, st: f"{ANSI[st]}{s}{ANSI['reset']}") if colour else (lambda s, st: s)
    out.write(f"{ANSI['bold'] if colour else ''}baseline{ANSI['reset'] if colour else ''}\n{result['baseline']['text']}\n\n")
    out.write(f"{ANSI['bold'] if colour else ''}assisted{ANSI['reset'] if colour else ''} "
              f"({', '.join(paint(s, s) for s in ('accepted', 'resampled', 'bonus', 'target'))})\n")
    out.write("".join(paint(t["text"], t["status"]) for t in result["assisted"]["tokens"]) + "\n\n")
    for side, err in result.get("errors", {}).items():
        out.write(f"{side} error: {err}\n")
    out.write(_stats_line(result) + "\n")


def cmd_race(args: argparse.Namespace) -> int:
    from .engine.runner import Race
    from .engine.setup import prepare

    preset = preset_from_args(args)
    prompt = read_prompt(args)
    setup = prepare(preset, prompt, progress=lambda msg: logging.getLogger("app").info(msg))
    result = Race(setup, sequential=args.sequential, seed=args.seed).run()
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        print_human(result)
    return 1 if result.get("errors") else 0


def cmd_presets(args: argparse.Namespace) -> int:
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


def configure_logging(verbose: bool) -> None:
    """Quiet by default: our progress and library warnings only with --verbose."""
    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s", force=True)
    if not verbose:
        import transformers

        transformers.utils.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()
        logging.getLogger("huggingface_hub").setLevel(logging.ERROR)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        configure_logging(getattr(args, "verbose", False))
        return {"race": cmd_race, "presets": cmd_presets, "plan": cmd_plan}[args.command](args)
    except ArenaError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
