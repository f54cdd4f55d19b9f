"""summary.md: the leaderboard (method x category speedup medians with spread, best marked, losses shown),
overall geometric mean, acceptance, identical outputs, the planner check and, after a regret sweep, the regret
tables (docs/DESIGN.md §4)."""

from __future__ import annotations

from typing import Any

from ..core.cells import md_cell
from .results import BenchResult
from .stats import left_out
from .suite import order_categories

BEST, LOSS = "\u2605", "\u25bc"


def speed(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}x"


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def row_label(preset: str, method: str, value: Any, knob: str | None) -> str:
    """A table row's label, escaped for a Markdown cell; in a regret sweep the value None is the cost-aware schedule."""
    variant = (f", {knob}={value}" if value is not None else ", cost-aware") if knob else ""
    return md_cell(f"{preset} ({method}){variant}")


def ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def _at(speedup: float | None, length: int | None) -> str:
    return "n/a" if speedup is None else f"{speed(speedup)} at {length}"


def regret_category_table(report: dict[str, list]) -> list[str]:
    """Per preset and category: prompts, shipped median, the best constant length's median, shipped as a share of
    it, transformers' default and shipped / default, the median (lowest) of the per-prompt shares."""
    order = order_categories(c["category"] for c in report["categories"])
    entries = sorted(report["categories"], key=lambda c: order.index(c["category"]))
    lines = ["| preset | category | prompts | shipped (cost-aware) | best constant (length) | share of best | "
             "transformers' default (length) | shipped / default | per-prompt share: median (lowest) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in sorted(entries, key=lambda c: c["preset"]):
        partial = f" (+{c['incomplete']} partial)" if c["incomplete"] else ""
        lines.append(f"| {md_cell(c['preset'])} | {md_cell(c['category'])} | {c['prompts']}{partial} | "
                     f"{speed(c['shipped'])} | {_at(c['best'], c['best_length'])} | {pct(c['share_of_best'])} | "
                     f"{_at(c['default'], c['default_length'])} | {ratio(c['vs_default'])} | "
                     f"{pct(c['share_median'])} ({pct(c['share_min'])}) |")
    return lines


def regret_prompt_table(report: dict[str, list]) -> list[str]:
    """Per prompt (median over its repeats): shipped, best constant length, share of best, default, ratio."""
    lines = ["| preset | category | prompt | shipped (cost-aware) | best constant (length) | share of best | "
             "transformers' default (length) | shipped / default |", "|---|---|---|---|---|---|---|---|"]
    for p in report["prompts"]:
        partial = "" if p["complete"] else " (partial)"
        lines.append(f"| {md_cell(p['preset'])} | {md_cell(p['category'])} | {md_cell(p['prompt_id'])}{partial} | "
                     f"{speed(p['shipped'])} | {_at(p['best'], p['best_length'])} | {pct(p['share_of_best'])} | "
                     f"{_at(p['default'], p['default_length'])} | {ratio(p['vs_default'])} |")
    return lines


def regret_section(result: BenchResult) -> list[str]:
    """The Regret section of a regret sweep's summary; [] for any other run."""
    report = result.regret
    if not report:
        return []
    return ["", "## Regret: the cost-aware schedule against constant draft lengths", "",
            "Shipped: the preset's cost-aware schedule (up to its length knob). Constant: transformers' fixed draft "
            "length; transformers' default is the constant schedule at the preset's own length. A prompt's speedup is "
            "the median over its repeats; a category's, the median over its prompts that raced every variant. Best "
            "constant: the length with the highest category median (a tie goes to the shorter). Share of best: "
            "shipped / best (100% = no regret).", "", *regret_category_table(report), "", "### Per prompt", "",
            *regret_prompt_table(report)]


def _header_row(first: str, cats: list[str], *last: str) -> str:
    """A table's header: `first`, each category escaped for a Markdown cell (suite files name them), then `last`."""
    return "| " + " | ".join([first, *(md_cell(c) for c in cats), *last]) + " |"


def _grid(result: BenchResult) -> tuple[list[str], list[tuple], dict[tuple, dict[str, Any]]]:
    """(categories, row keys (preset, method, value), cell by (preset, value, category))."""
    cell_map = {(c["preset"], c["sweep_value"], c["category"]): c for c in result.cells}
    keys = list(dict.fromkeys((c["preset"], c["method"], c["sweep_value"]) for c in result.cells))
    return order_categories(r["category"] for r in result.rows), keys, cell_map


def speed_cell(c: dict[str, Any] | None) -> str:
    """'**2.31x** ★ (1.90-2.80)' for the best, '0.85x ▼ loss (0.80-0.90)' for a loss."""
    if c is None:
        return "-"
    out = f" ({c['left_out']} left out)" if c.get("left_out") else ""
    if c["speedup_median"] is None:
        return "not a measurement" + out
    text = f"**{speed(c['speedup_median'])}** {BEST}" if c["best"] else speed(c["speedup_median"])
    if c["loss"]:
        text += f" {LOSS} loss"
    return f"{text} ({c['speedup_min']:.2f}-{c['speedup_max']:.2f}){out}"


def leaderboard(result: BenchResult) -> list[str]:
    cats, keys, cell_map = _grid(result)
    knob = result.settings.get("sweep_knob")
    geo = {(o["preset"], o["sweep_value"]): o["speedup_geomean"] for o in result.overall}
    lines = [_header_row("preset (method)", cats, "overall (geomean)"), "|---|" + "---|" * (len(cats) + 1)]
    for preset, method, value in keys:
        g = geo.get((preset, value))
        cols = [speed_cell(cell_map.get((preset, value, c))) for c in cats]
        lines.append(f"| {row_label(preset, method, value, knob)} | " + " | ".join(cols) +
                     f" | {speed(g)}{' ' + LOSS + ' loss' if g is not None and g < 1 else ''} |")
    return lines


def left_out_section(result: BenchResult) -> list[str]:
    """The races left out of every median and geomean because they were not a measurement (each race's one verdict,
    app/race/verdict.py), with their reasons; [] when none was."""
    rows = left_out(result.rows)
    if not rows:
        return []
    return ["", f"**Left out: {len(rows)} race(s) that were not a measurement** (re-race them on a quieter machine); "
                "they count in no median and no geomean:", "",
            *(f"- {md_cell(r['preset'])} / {md_cell(r['category'])} / {md_cell(r['prompt_id'])} (repeat {r['repeat']}): "
              f"{r['speedup']:.2f}x, {md_cell(r.get('verdict_reason') or '')}" for r in rows)]


def acceptance_table(result: BenchResult) -> list[str]:
    cats, keys, cell_map = _grid(result)
    knob = result.settings.get("sweep_knob")
    lines = [_header_row("preset (method)", cats), "|---|" + "---|" * len(cats)]
    for preset, method, value in keys:
        cols = [f"{pct(c['acceptance_median'])} \u00b7 {c['mean_accepted_length_median'] or 0:.2f}" if c else "-"
                for c in (cell_map.get((preset, value, cat)) for cat in cats)]
        lines.append(f"| {row_label(preset, method, value, knob)} | " + " | ".join(cols) + " |")
    return lines


def checks_table(result: BenchResult) -> list[str]:
    knob = result.settings.get("sweep_knob")
    lines = ["| preset (method) | identical runs | measured speedup (median) | Theorem 3.8 (median) | "
             "acceptance by draft position |", "|---|---|---|---|---|"]
    for o in result.overall:
        positions = " ".join(f"{x:.0%}" for x in o["acceptance_by_position"][:8]) or "nothing drafted"
        lines.append(f"| {row_label(o['preset'], o['method'], o['sweep_value'], knob)} | "
                     f"{o['identical_runs']}/{o['runs']} | {speed(o['speedup_median'])} | "
                     f"{speed(o['predicted_median'])} | {positions} |")
    return lines


def header(result: BenchResult) -> list[str]:
    env, s = result.environment, result.settings
    done = len(result.rows)
    stopped = f" **Stopped** after {done} of {s.get('planned_runs', '?')} races: partial results." if result.stopped else ""
    return ["# Benchmark results", "",
            f"Measured {env.get('date', '?')} on {env.get('device', '?')} ({env.get('device_name', '?')}), "
            f"{env.get('cpu_cores', '?')} CPU cores, {env.get('torch_threads', '?')} torch threads, dtype "
            f"{env.get('dtype') or '?'}; torch {env.get('torch', '?')}, transformers {env.get('transformers', '?')}, "
            f"Python {env.get('python', '?')}.", "",
            f"Suite {md_cell(s.get('suite', '?'))} (split {s.get('split', 'all')}, {s.get('prompts', '?')} prompts), "
            f"{s.get('repeats', '?')} repeat(s), max new tokens {s.get('max_new_tokens') or 'per preset'}, "
            f"{done} races: greedy, batch 1, each race sequential (plain, then assisted) after a warm-up.{stopped}"]


def summary_markdown(result: BenchResult) -> str:
    """The whole summary.md text."""
    if not result.rows:
        return "\n".join(header(result) + ["", "No race finished, so there is nothing to summarise."]) + "\n"
    parts = header(result) + [
        "", "## Speedup: plain decoding tokens/s vs assisted, per category", "",
        f"Median over the category's races (prompts x repeats), min-max in brackets. {BEST} the best preset in the "
        f"category; {LOSS} loss: slower than plain decoding. Overall: geometric mean of the category medians. A race "
        f"that is not a measurement (the machine too busy, or its two sides under different conditions) counts in "
        f"neither.", "",
        *leaderboard(result), *left_out_section(result), "", "## Acceptance", "",
        "Median acceptance rate (accepted / drafted) \u00b7 median mean accepted length (tokens kept per target pass).",
        "", *acceptance_table(result), "", "## Checks", "",
        "Identical: the assisted output equals plain greedy decoding token for token. Theorem 3.8: the planner's "
        "prediction at each race's measured per-token alpha and c + verify slope (docs/DESIGN.md §5). Acceptance by "
        "draft position is pooled over all races (accepted / drafted at positions 1, 2, ...).", "",
        *checks_table(result), *regret_section(result)]
    return "\n".join(parts) + "\n"
