"""``python -m app plan``: the draft planner on the command line (flags and the JSON object: docs/DESIGN.md §4.1;
the formulas: §5).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.knobs import FLAG
from ..core.presets import METHOD_IDS
from ..core.requests import PROMPT_SEPARATOR, Limits, read_text_file, split_prompts
from ..engine.request import DEFAULT_MAX_NEW_TOKENS
from ..engine.target import CLI_LABELS, ENGINE_NAMES, make_target
from ..planner.cost import DEFAULT_GPUS, HOURS_PER_MONTH
from ..planner.memory import DEFAULT_CONTEXT_TOKENS, DEFAULT_DTYPE, DEFAULT_GPU_MEMORY_GB, DTYPE_BYTES
from ..planner.request import PLAN_NUMBERS, calculator_numbers, engine_requests, plan_options, plan_preset, plan_prompts
from ..planner.report import (alpha_value_text, c_spread_text, check_runs, engine_text, memory_text,
                              predicted_text, saving_text)
from ..planner.types import Plan
from .common import add_knob_flags, emit, given, progress_logger


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `plan` subcommand to an argparse subparsers object; returns its parser."""
    p = subparsers.add_parser("plan", help="measure alpha and c, predict the best gamma, memory and cost")
    what = p.add_argument_group("what to plan (a preset, models, or alpha and c)")
    what.add_argument("--preset", help="preset id (see `python -m app presets`)")
    what.add_argument("--target", help="target model spec (overrides the preset's)")
    what.add_argument("--assistant", help="drafter model spec (overrides the preset's)")
    what.add_argument("--method", choices=METHOD_IDS, help="method when no preset is given (default: drafter, "
                      "or uad when the vocabularies differ)")
    add_knob_flags(what, ("assistant_early_exit", "prompt_lookup_num_tokens"),
                   assistant_early_exit="exit layer for --method layerskip",
                   prompt_lookup_num_tokens="draft length for --method prompt-lookup")
    what.add_argument("--alpha", type=float, help="acceptance rate in [0, 1]: skip measuring (calculator)")
    what.add_argument("--c", type=float, help="cost ratio >= 0, draft step / target step: skip measuring")
    what.add_argument("--speedup", type=float, help="calculator: also price this measured speedup")
    engine = p.add_argument_group("or a running serving engine (docs/DESIGN.md §4.7): race your prompts through it")
    engine.add_argument("--endpoint", metavar="URL", help="the server that drafts (llama.cpp, vLLM or SGLang)")
    engine.add_argument("--plain-endpoint", metavar="URL2", help="the same model served without speculation")
    engine.add_argument("--engine", choices=ENGINE_NAMES, help="the engine behind --endpoint (default llama.cpp)")
    engine.add_argument("--model", help="the served model's name (vLLM needs it; checked against the server's)")
    run = p.add_argument_group("measuring")
    run.add_argument("--prompts", type=Path,
                     help=f"prompts file: one per line, or blocks separated by '{PROMPT_SEPARATOR}' lines")
    run.add_argument("--prompt", action="append", help="a prompt (repeatable)")
    add_knob_flags(run, ("max_new_tokens",), max_new_tokens="tokens generated per prompt (default: the preset's; "
                   f"{DEFAULT_MAX_NEW_TOKENS} on an engine)")
    run.add_argument("--repeats", type=int, default=5, help="repetitions of the c timing (median, spread)")
    run.add_argument("--steps", type=int, default=8, help="one-token steps per repetition")
    run.add_argument("--no-check", action="store_true", help="skip racing the best gamma and the default")
    run.add_argument("--threads", type=int, help="torch CPU threads (1 is steadiest on a busy machine)")
    mem = p.add_argument_group("memory and cost")
    mem.add_argument("--dtype", default=DEFAULT_DTYPE, choices=tuple(DTYPE_BYTES), help="weight dtype for the memory maths")
    mem.add_argument("--context", type=int, default=DEFAULT_CONTEXT_TOKENS, help="cached tokens for the memory maths")
    mem.add_argument("--gpu-memory", type=float, default=DEFAULT_GPU_MEMORY_GB, help="GPU memory in GB for the fit check")
    mem.add_argument("--gpu-price", action="append", metavar="NAME=USD_PER_HOUR",
                     help=f"GPU price (repeatable; default {', '.join(f'{g.name}={g.dollars_per_hour}' for g in DEFAULT_GPUS)})")
    mem.add_argument("--hours-per-month", type=float, default=HOURS_PER_MONTH)
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    out.add_argument("--csv", type=Path, metavar="FILE", help="also write the plan as key,value CSV")
    out.add_argument("--verbose", action="store_true", help="log progress and library warnings to stderr")
    return p


def read_prompts(args: argparse.Namespace) -> list[str]:
    """Prompts from --prompt and --prompts FILE (blocks split by '---' lines, else one per line)."""
    prompts = [p for p in (args.prompt or []) if p.strip()]
    if args.prompts is not None:
        found = split_prompts(read_text_file(args.prompts, "prompts file"))
        if not found:
            raise ArenaError(f"The prompts file {args.prompts} has no prompts.")
        prompts += found
    return prompts


#: The flags that say what to measure on this machine, which an engine plan cannot take (the engine runs its own
#: configuration).
LOCAL_ONLY = ("preset", "target", "assistant", "method", "assistant_early_exit", "prompt_lookup_num_tokens", "alpha",
              "c", "speedup", "threads")


def engine_flags(args: argparse.Namespace) -> bool:
    """Whether the flags ask for a plan on a serving engine; ArenaError for engine flags without --endpoint or with
    flags only a local plan takes."""
    if args.endpoint is None:
        extra = [f for f in ("plain_endpoint", "engine", "model") if getattr(args, f) is not None]
        if extra:
            raise ArenaError(f"--{extra[0].replace('_', '-')} needs --endpoint URL (the server that drafts).")
        return False
    given_local = [f"--{name.replace('_', '-')}" for name in LOCAL_ONLY if getattr(args, name) is not None]
    if given_local or args.no_check:
        flags = ", ".join(given_local + (["--no-check"] if args.no_check else []))
        raise ArenaError(f"{flags} cannot be used with --endpoint: an engine plan measures the engine's own "
                         "configuration on your prompts.")
    return True


def build_plan(args: argparse.Namespace) -> Plan:
    """The plan for parsed arguments (calculator, measured, or measured on an engine), every input checked by the
    planner's request builder (app/planner/request.py). --alpha/--c: the calculator, plus memory from configs when
    models are named (nothing loaded)."""
    from ..planner.plan import calculator_plan, plan_for_preset

    on_engine = engine_flags(args)
    numbers = calculator_numbers(args.alpha, args.c, FLAG, needed=False)
    threads = PLAN_NUMBERS["threads"].check(args.threads, FLAG)
    options = plan_options(args.gpu_memory, args.context, args.dtype, args.gpu_price, args.hours_per_month,
                           args.max_new_tokens, Limits.operator(), FLAG, repeats=args.repeats, steps=args.steps,
                           check=not args.no_check)
    if on_engine:
        from ..planner.engine_plan import plan_on_engine

        target = make_target("endpoint", args.endpoint, args.plain_endpoint, args.engine, args.model, CLI_LABELS)
        requests = engine_requests(target, read_prompts(args), args.max_new_tokens, options.limits, FLAG)
        return plan_on_engine(requests, options, progress_logger)
    if numbers is not None:
        return calculator_plan(*numbers, options, PLAN_NUMBERS["speedup"].check(args.speedup, FLAG), args.preset,
                               args.target, args.assistant, args.method, allow_local=options.limits.allow_local)
    changes = given(args, ("target", "assistant", "method", "assistant_early_exit", "prompt_lookup_num_tokens",
                           "max_new_tokens"))
    preset = plan_preset(args.preset, changes, options.limits, FLAG)
    prompts = plan_prompts(read_prompts(args), preset, options.limits)
    if threads:
        import torch

        torch.set_num_threads(threads)
    return plan_for_preset(preset, prompts, options, progress=progress_logger)


def _measured_lines(plan: Plan, w: Any) -> None:
    """Who was measured, alpha both ways and c, when the plan measured them."""
    m = plan.measurement
    a, c = m.alpha_seed, m.c
    helper = f" + {plan.assistant}" if plan.assistant else ""
    w(f"{plan.method} on {plan.device}: {plan.target}{helper}\n")
    w(f"alpha by agreement {alpha_value_text(a.value)} ({a.space}; {a.how})\n")
    obs = m.alpha_observed
    if obs:
        w(f"alpha observed   {obs.value:.3f} per token, accepted/drafted {obs.acceptance_rate:.3f} "
          f"over {obs.drafting_rounds} drafting rounds\n")
    w(f"c {c_spread_text(c)}\n")


def _curve_and_table(plan: Plan, w: Any) -> None:
    """The predicted curve as bars and the best-gamma table around (alpha, c), measured cell starred."""
    top = max(p.speedup for p in plan.curve)
    for p in plan.curve:
        w(f"  gamma {p.gamma:>2}  {p.speedup:5.2f}x  {'#' * int(round(30 * p.speedup / top))}\n")
    t = plan.table
    w("\nalpha \\ c " + "".join(f"{c:>14g}" for c in t.cs) + "\n")
    for a, row in zip(t.alphas, t.cells):
        cells = [f"{'*' if x.measured else ''}g{x.best_gamma} {x.speedup:.2f}x" for x in row]
        w(f"{a:<10g}" + "".join(f"{cell:>14}" for cell in cells) + "\n")


def _human(plan: Plan, out: Any = None) -> None:
    w = (out or sys.stdout).write
    if plan.measurement:
        _measured_lines(plan, w)
    if plan.engine:
        w(engine_text(plan) + "\n")
    w(f"using alpha {plan.alpha:.3f}, c {plan.c:.4f}: best gamma {plan.best_gamma} -> "
      f"{plan.predicted_speedup:.2f}x predicted (Theorem 3.8)\n{plan.verdict.text}\n")
    hw = plan.hardware_adjusted
    if hw:
        v = hw.verify_slope
        w(f"this hardware: verifying costs {v.value:.3f} step per extra token ({v.low:.3f}..{v.high:.3f}), "
          f"effective c {hw.c_effective:.4f}: best gamma {hw.best_gamma} -> {hw.predicted_speedup:.2f}x\n")
    w("\n")
    _curve_and_table(plan, w)
    for run in check_runs(plan):
        measured = "measured" if run.measured else f"not a measurement ({run.verdict.reason})"
        w(f"\n{run.label}: {measured} {run.measured_speedup:.2f}x, predicted {predicted_text(run)}, cost model on "
          f"its rounds {run.modelled_speedup or 0:.2f}x, alpha observed {run.observed.value or 0:.3f}")
    if plan.final:
        w(f"\nverdict ({plan.final.source}): {plan.final.pays}: {plan.final.text}\n")
    if plan.memory:
        w(f"\n{memory_text(plan.memory)}\n")
    if plan.cost.projection:
        w(f"cost, {plan.cost.projection}:\n")
    for row in plan.cost.rows:
        w(f"{row.label} {row.speedup:.2f}x {saving_text(row.gpu_time_saved)}: "
          + ", ".join(f"{g.gpu} {'-' if g.monthly_savings < 0 else ''}${abs(g.monthly_savings):,.2f}/month"
                      for g in row.per_gpu) + "\n")
    for line in plan.advice:
        w(f"- {line}\n")


def run(args: argparse.Namespace) -> int:
    """Run `plan`: print the plan (human or --json), write --csv; ArenaError for bad input."""
    from ..planner.report import plan_to_csv

    plan = build_plan(args)
    if args.csv is not None:
        try:
            args.csv.write_text(plan_to_csv(plan), encoding="utf-8")
        except OSError as exc:
            raise ArenaError(f"Cannot write {args.csv}: {exc.strerror}") from None
    return emit(args.json, plan.to_dict(), lambda: _human(plan))
