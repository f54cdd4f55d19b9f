"""From a (finished or stopped) Bench to a BenchResult and the files of a run: one path for the CLI and the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.machine import bench_environment
from .results import BenchResult, write_results
from .runner import Bench
from .summary import summary_markdown
from .suite import categories_of
from .sweep import regret_layout


def settings_of(bench: Bench, command: str | None = None) -> dict[str, Any]:
    """What was asked for: presets, suite, split, categories, repeats, tokens, sweep, planned races, the command."""
    plan = bench.plan
    return {"presets": [p.id for p, _ in bench.checked], "methods": [p.method for p, _ in bench.checked],
            "knobs": {p.id: p.knobs() for p, _ in bench.checked}, "suite": plan.suite_name, "split": plan.split,
            "categories": categories_of(plan.prompts), "prompts": len(plan.prompts),
            "prompt_ids": [p.id for p in plan.prompts], "repeats": plan.repeats,
            "max_new_tokens": plan.max_new_tokens, **sweep_settings(bench), "warm_up": plan.warm_up,
            "planned_runs": bench.total, "command": command, **plan.extra}


def sweep_settings(bench: Bench) -> dict[str, Any]:
    """sweep_knob and sweep_values (a regret sweep: the presets' draft-length knob, or "draft length" when they
    differ, and every constant length), and regret: per preset what the regret sweep races (else None)."""
    plan = bench.plan
    if plan.regret is None:
        return {"sweep_knob": plan.sweep.knob if plan.sweep else None,
                "sweep_values": list(plan.sweep.values) if plan.sweep else None, "regret": None}
    layouts = {p.id: regret_layout(p, plan.regret) for p, _ in bench.checked}
    knobs = {layout["knob"] for layout in layouts.values()}
    return {"sweep_knob": knobs.pop() if len(knobs) == 1 else "draft length",
            "sweep_values": sorted({v for layout in layouts.values() for v in layout["lengths"]}),
            "regret": {"lengths": list(plan.regret.lengths) if plan.regret.lengths else None, "presets": layouts}}


def bench_result(bench: Bench, command: str | None = None) -> BenchResult:
    """The rows so far with their settings and environment (dtypes from the default racer when it ran)."""
    return BenchResult(list(bench.rows), settings_of(bench, command), bench_environment(getattr(bench.race_fn, "dtypes", None)),
                       bench.stopped)


def write_all(result: BenchResult, out_dir: Path | str, plots: dict[str, str]) -> list[Path]:
    """results.csv, results.json, summary.md and `plots` (file name -> SVG text, drawn by
    app/render/bench_plots.py) in `out_dir`; returns the paths written."""
    return write_results(result, out_dir, plots, summary_markdown(result))
