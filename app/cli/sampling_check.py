"""``python -m app sampling-check``: is the preset's method lossless in distribution? (the method: docs/DESIGN.md
§5.15; flags and the JSON object: §4.2). A "different" verdict is a finding, not an error: exit status 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.errors import ArenaError
from ..core.knobs import FLAG, KNOBS
from ..core.presets import get_preset
from ..core.requests import Limits, RaceRequest, build_request, check_preset_id
from ..race.sampling_check_result import SAMPLES, TOKENS, TOP_K, CheckResult, CheckSettings
from .common import add_knob_flags, emit, given, progress_logger

#: Preset fields a flag of the same name overrides.
FIELD_FLAGS = ("target", "assistant")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("sampling-check", help="sample plain and assisted continuations and test whether their "
                                               "distributions differ (is the method lossless?)")
    p.add_argument("--preset", required=True)
    p.add_argument("--prompt", action="append", help="the prompt (default: the preset's first example prompt)")
    for knob in (SAMPLES, TOKENS):
        p.add_argument(knob.flag, dest=knob.name, type=knob.parse_flag, required=True, metavar="N",
                       help=f"{knob.help} ({knob.bounds_text()})")
    p.add_argument(TOP_K.flag, dest="top_k", type=TOP_K.parse_flag, metavar="K", help=f"{TOP_K.help} ({TOP_K.bounds_text()})")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--target")
    p.add_argument("--assistant")
    p.add_argument("--no-chat-template", action="store_true")
    p.add_argument("--verbose", action="store_true", help="log loading progress and library warnings to stderr")
    p.add_argument("--threads", type=int, help="torch CPU threads (default: one per core; 1 is fastest on a busy "
                                                  "machine)")
    add_knob_flags(p, ("temperature", "top_p", "seed", *KNOBS))
    return p


def request_from_args(args: argparse.Namespace) -> RaceRequest:
    """The preset with the flags' overrides, the prompt (default: the preset's first example) and the seed."""
    changes = given(args, (*KNOBS, *FIELD_FLAGS))
    if args.no_chat_template:
        changes["chat_template"] = False
    prompt: Any = args.prompt
    if prompt is None:
        examples = get_preset(check_preset_id(args.preset, FLAG)).example_prompts
        if not examples:
            raise ArenaError(f"Preset {args.preset} has no example prompt: give one with --prompt TEXT.")
        prompt = examples[0]
    elif len(prompt) == 1:
        prompt = prompt[0]
    return build_request(args.preset, prompt, changes, args.seed, FLAG, Limits.operator())


def settings_from_args(args: argparse.Namespace, request: RaceRequest) -> CheckSettings:
    """The check's settings: the flags, else the preset's temperature and top-p."""
    p = request.preset
    return CheckSettings(args.samples, args.tokens, p.temperature if args.temperature is None else args.temperature,
                         p.top_p if args.top_p is None else args.top_p, args.top_k, request.seed)


def print_human(result: CheckResult, out=None) -> None:
    """A table: per position (and the first two jointly) TV, p-value and the smallest detectable TV; the verdict."""
    out, d = out or sys.stdout, result.to_dict()
    out.write(f"sampling check: {d['preset']} ({d['method']}), {d['samples']} samples a side, first {d['tokens']} "
              f"tokens, temperature {d['temperature']:g}, top-p {d['top_p']:g}, top-k {d['top_k']}, seed {d['seed']}\n")
    out.write(f"{'compared':<12} {'TV':>7} {'p-value':>9} {'detectable TV':>14}  most frequent (plain / assisted)\n")
    for item in d["positions"] + ([d["joint"]] if d["joint"] else []):
        top = ", ".join(f"{t['text']!r} {t['plain']:.2f}/{t['assisted']:.2f}" for t in item["top"][:3])
        flag = "  <- differs" if item["different"] else ""
        out.write(f"{item['label']:<12} {item['tv_distance']:>7.3f} {item['p_value']:>9.4f} "
                  f"{item['min_detectable_tv']:>14.3f}  {top}{flag}\n")
    rate = "n/a" if d["acceptance_rate"] is None else f"{d['acceptance_rate']:.0%}"
    out.write(f"assisted: {d['assisted_rounds']} rounds, {d['assisted_drafted']} drafted, {d['assisted_accepted']} "
              f"accepted ({rate}); {d['seconds']:.1f} s\n")
    out.write(f"verdict: {d['verdict_text']} (each comparison at alpha {d['alpha']:g} / {len(result.comparisons)})\n")
    if d["warning"]:
        out.write(f"note: {d['warning']}\n")


def run(args: argparse.Namespace) -> int:
    from ..race.sampling_check import sampling_check

    if args.threads is not None and args.threads < 1:
        raise ArenaError(f"--threads must be at least 1; got {args.threads}.")
    request = request_from_args(args)
    settings = settings_from_args(args, request)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    result = sampling_check(request.preset, request.prompt, request.limits, settings, progress=progress_logger)
    return emit(args.json, result.to_dict(), lambda: print_human(result))
