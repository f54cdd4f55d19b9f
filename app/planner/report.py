"""Plain-text pieces of a plan, shared by ``python -m app plan`` and the Planner tab, and its CSV export.

Every function takes parts of a :class:`~app.planner.types.Plan` and gives back short strings or lists (no gradio,
no HTML): the CLI prints them, the web tab escapes them into its tables.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from ..core.cells import csv_cell
from .check import CheckRun
from .memory import MemoryUnavailable, PairMemory
from .timing import StepRatio
from .types import Plan


def alpha_value_text(value: float | None) -> str:
    """An alpha to three decimals, or 'n/a' when nothing could be counted."""
    return "n/a" if value is None else f"{value:.3f}"


def c_spread_text(c: StepRatio) -> str:
    """'0.0512 (spread 0.0490..0.0530 over 5 x 8 steps; what; 1.20 ms vs 23.40 ms)' for a measurement's c."""
    return (f"{c.value:.4f} (spread {c.low:.4f}..{c.high:.4f} over {c.repeats} x {c.steps} steps; "
            f"{c.what}; {c.draft_step_ms:.2f} ms vs {c.target_step_ms:.2f} ms)")


def check_runs(plan: Plan) -> list[CheckRun]:
    """The measured check runs of a plan (constant best gamma, the default, the hardware-adjusted gamma)."""
    return plan.check.runs if plan.check else []


def predicted_text(run: CheckRun) -> str:
    """A check run's prediction: '2.31x (adjusted 1.80x)', or 'n/a (no fixed gamma)' for a dynamic schedule."""
    if run.predicted_speedup is None:
        return "n/a (no fixed gamma)"
    return f"{run.predicted_speedup:.2f}x (adjusted {run.predicted_adjusted:.2f}x)"


def memory_text(mem: PairMemory | MemoryUnavailable | None) -> str:
    """One line on the memory of the pair at its context, or the reason there is none."""
    if not isinstance(mem, PairMemory):
        return f"memory: {mem.error if mem else 'not computed'}"
    d = mem.drafter
    return (f"memory at {mem.dtype}: target {mem.target.weight_gb:.3f} GB + "
            f"{mem.target.kv_kib_per_token:g} KiB/token"
            + (f"; drafter {d.weight_gb:.3f} GB + {d.kv_kib_per_token:g} KiB/token "
               f"(shares {mem.drafter_weight_share:.0%} weights, {mem.drafter_kv_share:.0%} KV)" if d
               else "; no drafter model")
            + f"; {mem.context_tokens} tokens: {mem.total_gb:.2f} GB, "
            f"{'fits' if mem.fits else 'does NOT fit'} {mem.gpu_memory_gb:g} GB" + measured_memory_text(mem))


def measured_memory_text(mem: PairMemory) -> str:
    """'; measured as loaded (bfloat16): target 3.554 GB, drafter 1.260 GB, peak of the process 6.10 GB' or ''."""
    got = mem.measured
    if got is None:
        return ""
    drafter = "" if got.drafter_weight_gb is None else f", drafter {got.drafter_weight_gb:.3f} GB"
    peak = "" if not got.peak_gb else f", peak of the process {got.peak_gb:.2f} GB"
    return f"; measured as loaded ({got.dtype}): target {got.target_weight_gb:.3f} GB{drafter}{peak}"


def engine_text(plan: Plan) -> str:
    """What an engine plan measured, in three lines: who, alpha and c from the engine, the measured speedups."""
    e, c, a = plan.engine, plan.engine.c, plan.engine.alpha_observed
    return (f"{plan.method} on {plan.device} ({e.version or 'version not reported'}): {plan.target}, {e.prompts} "
            f"prompts x {e.max_new_tokens} tokens, greedy; rounds: {e.status_source}\n"
            f"alpha observed {alpha_value_text(a.value)} per token, accepted/drafted {alpha_value_text(a.acceptance_rate)} "
            f"over {a.drafting_rounds} drafting rounds\n"
            f"c {c.value:.4f} measured from the engine (spread {c.low:.4f}..{c.high:.4f} over the prompts; a plain step "
            f"{c.plain_ms_per_token:.2f} ms, a verify step {c.verify_ms_per_step:.2f} ms for {c.mean_drafted:.2f} drafted)\n"
            f"measured: {e.speedup.decode:.2f}x decode (the engine's clock), {e.speedup.end_to_end:.2f}x end to end "
            f"(the arena's clock); output {'identical to' if e.identical else 'DIFFERS from'} plain")


def saving_text(saved: float) -> str:
    """'saves 35.0% GPU time' or 'COSTS 12.0% more GPU time' for a cost row's gpu_time_saved."""
    return f"saves {saved:.1%} GPU time" if saved >= 0 else f"COSTS {-saved:.1%} more GPU time"


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """[(dotted.key, scalar)] for nested dicts/lists (list items indexed from 0)."""
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in flatten(v, f"{prefix}.{k}" if prefix else str(k))]
    if isinstance(value, (list, tuple)):
        return [kv for i, v in enumerate(value) for kv in flatten(v, f"{prefix}.{i}")]
    return [(prefix, value)]


def plan_to_csv(plan: Plan) -> str:
    """The whole plan as CSV rows `key,value` (dotted keys of its JSON object; e.g. speedup_by_gamma.8)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["key", "value"])
    writer.writerows([key, csv_cell(value)] for key, value in flatten(plan.to_dict()))
    return buf.getvalue()
