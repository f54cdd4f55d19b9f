"""HTML of the Benchmark tab (pure functions, no gradio): progress, the leaderboard (summary.md's cells,
docs/DESIGN.md §4.4), the plots (the run's SVG files, inline), every race."""

from __future__ import annotations

from typing import Any, Sequence

from .bench_plots import heatmap_svg, positions_svg, scatter_svg, sweep_svg
from ..bench.results import BenchResult
from ..bench.suite import order_categories
from .html import esc

EMPTY = ('<div class="bench-empty">No races yet. Pick presets and a suite, then press <b>Run benchmark</b>: the '
         'leaderboard and the plots fill in as races finish.</div>')


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(max(0, seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def progress_html(progress: Any, total: int, elapsed: float) -> str:
    """A bar with races done of planned, what runs now and the time left (progress: a BenchProgress or None)."""
    done = progress.done if progress is not None else 0
    share = done / total if total else 0.0
    if progress is None:
        what = "Loading the models\u2026"
    elif progress.phase == "warm-up":
        what = f"Warming up {progress.preset}"
    elif progress.phase == "run":
        value = f" [{progress.sweep_value}]" if progress.sweep_value is not None else ""
        what = f"{progress.preset}{value} \u00b7 {progress.category} / {progress.prompt_id} \u00b7 repeat {progress.repeat}"
    else:
        what = {"done": "Finished", "stopped": "Stopped"}.get(progress.phase, progress.phase)
    eta = f" \u00b7 about {_clock(progress.eta)} left" if progress is not None and progress.eta is not None else ""
    return (f'<div class="bench-progress" role="status"><span class="plan-spin"></span><b>{esc(what)}</b>'
            f'<div class="bench-bar" role="progressbar" aria-valuemin="0" aria-valuemax="{total}" '
            f'aria-valuenow="{done}"><span style="width:{share:.1%}"></span></div>'
            f'<div class="bench-progress-note">{done} of {total} races \u00b7 {_clock(elapsed)} elapsed{esc(eta)}</div></div>')


def _cell(c: dict[str, Any] | None) -> str:
    if c is None:
        return '<td class="bench-none">\u2013</td>'
    classes = ["num"] + (["bench-best"] if c["best"] else []) + (["bench-loss"] if c["loss"] else [])
    mark = ' <span class="bench-mark" title="best in this category">\u2605</span>' if c["best"] else ""
    loss = ' <span class="bench-mark" title="slower than plain decoding">\u25bc loss</span>' if c["loss"] else ""
    tip = (f"{c['runs']} races, {c['identical_runs']} identical; acceptance "
           f"{'n/a' if c['acceptance_median'] is None else format(c['acceptance_median'], '.0%')}")
    return (f'<td class="{" ".join(classes)}" title="{esc(tip)}"><b>{c["speedup_median"]:.2f}x</b>{mark}{loss}'
            f'<span class="bench-spread">{c["speedup_min"]:.2f}\u2013{c["speedup_max"]:.2f}</span></td>')


def leaderboard_html(result: BenchResult) -> str:
    """Preset x category median speedups (spread below), overall geometric mean, identical outputs."""
    if not result.rows:
        return EMPTY
    knob = result.settings.get("sweep_knob")
    cats = order_categories(r["category"] for r in result.rows)
    cell_map = {(c["preset"], c["sweep_value"], c["category"]): c for c in result.cells}
    head = "".join(f"<th>{esc(c)}</th>" for c in cats)
    body = []
    for o in result.overall:
        name = o["preset"] + (f" \u00b7 {knob}={o['sweep_value']}" if knob else "")
        cols = "".join(_cell(cell_map.get((o["preset"], o["sweep_value"], c))) for c in cats)
        geo = o["speedup_geomean"]
        geo_cls = " bench-loss" if geo is not None and geo < 1 else ""
        identical = f"{o['identical_runs']}/{o['runs']}"
        body.append(f'<tr><th scope="row">{esc(name)}<span>{esc(o["method"])}</span></th>{cols}'
                    f'<td class="num{geo_cls}"><b>{"n/a" if geo is None else f"{geo:.2f}x"}</b></td>'
                    f'<td class="num{"" if o["identical_runs"] == o["runs"] else " bench-loss"}">{identical}</td></tr>')
    return ('<div class="bench-card"><div class="bench-card-title">Leaderboard \u00b7 median speedup per category '
            '<span>min\u2013max below; \u2605 best in the category; \u25bc loss: slower than plain decoding</span></div>'
            '<div class="plan-scroll"><table class="bench-table"><thead><tr><th>preset</th>'
            f'{head}<th>overall<span>geomean</span></th><th>identical</th></tr></thead><tbody>{"".join(body)}</tbody>'
            '</table></div></div>')


def plots_html(result: BenchResult) -> tuple[str, str, str]:
    """(heatmap, acceptance by position, speedup vs acceptance; with a sweep the last is the sweep plot)."""
    if not result.rows:
        return "", "", ""
    last = sweep_svg(result) or scatter_svg(result)
    return tuple(f'<div class="bench-svg">{s}</div>' for s in (heatmap_svg(result), positions_svg(result), last))


def _fmt(value: Any, kind: str = "") -> str:
    if value is None:
        return "\u2013"
    if kind == "x":
        return f"{value:.2f}x"
    if kind == "%":
        return f"{value:.0%}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


RUN_COLUMNS: Sequence[tuple[str, str, str]] = (
    ("preset", "preset", ""), ("sweep_value", "value", ""), ("category", "category", ""), ("prompt_id", "prompt", ""),
    ("repeat", "rep", ""), ("baseline_tokens_per_second", "plain tok/s", ""),
    ("assisted_tokens_per_second", "assisted tok/s", ""), ("speedup", "speedup", "x"),
    ("acceptance_rate", "accepted", "%"), ("mean_accepted_length", "tokens / pass", ""),
    ("predicted_speedup", "Theorem 3.8", "x"), ("identical", "identical", ""))


def runs_html(result: BenchResult, newest: int = 300) -> str:
    """Every race (the newest `newest` first), one row each."""
    if not result.rows:
        return ""
    sweep = bool(result.settings.get("sweep_knob"))
    columns = [c for c in RUN_COLUMNS if sweep or c[0] != "sweep_value"]
    head = "".join(f"<th>{esc(label)}</th>" for _, label, _ in columns)
    rows = []
    for r in reversed(result.rows[-newest:]):
        cls = ' class="bench-loss"' if r["speedup"] < 1 else ""
        cells = "".join(f"<td{cls if key == 'speedup' else ''}>{esc(_fmt(r[key], kind))}</td>" for key, _, kind in columns)
        rows.append(f"<tr>{cells}</tr>")
    return (f'<div class="plan-scroll"><table class="bench-table bench-runs"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')
