"""HTML of the Benchmark tab (pure functions, no gradio): progress, the leaderboard (summary.md's cells,
docs/DESIGN.md §4.4), the plots (the run's SVG files, inline), every race; in the current language (docs/DESIGN.md
§4.10)."""

from __future__ import annotations

from typing import Any, Sequence

from .bench_plots import heatmap_svg, positions_svg, scatter_svg, sweep_svg
from ..bench.results import BenchResult
from ..bench.stats import left_out
from ..bench.suite import order_categories
from ..core.words import t, translate
from .html import esc



def html_t(key: str, **html: str) -> str:
    """`key`'s text escaped, with `html` (already HTML) put in its placeholders."""
    return esc(t(key)).format(**html)


def empty_html() -> str:
    """The leaderboard before any race."""
    return f'<div class="bench-empty">{html_t("bench.empty", run="<b>" + esc(t("bench.run_button")) + "</b>")}</div>'


#: The same in English (as the page is built).
EMPTY = empty_html()


def intro_html() -> str:
    """What the tab does."""
    title = "<b>" + esc(t("bench.intro_title")) + "</b>"
    return f'<div class="plan-intro">{html_t("bench.intro", title=title, generate="<code>generate()</code>")}</div>'


def hint_html() -> str:
    """The formats a suite file may have."""
    code = {name: f"<code>{esc(text)}</code>" for name, text in (
        ("record", '{"prompt": ..., "category": ...}'), ("id", "id"), ("split", "split"), ("prompt", "prompt"),
        ("category", "category"))}
    return f'<div class="bench-hint">{html_t("bench.hint", **code)}</div>'


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
        what = t("bench.loading")
    elif progress.phase == "warm-up":
        what = t("bench.warming_up", preset=progress.preset)
    elif progress.phase == "run":
        value = f" [{progress.sweep_value}]" if progress.sweep_value is not None else ""
        what = t("bench.running", preset=f"{progress.preset}{value}", category=progress.category,
                 prompt=progress.prompt_id, repeat=progress.repeat)
    else:
        what = t(f"bench.phase.{progress.phase}") if progress.phase in ("done", "stopped") else progress.phase
    eta = t("bench.eta", left=_clock(progress.eta)) if progress is not None and progress.eta is not None else ""
    return (f'<div class="bench-progress" role="status"><span class="plan-spin"></span><b>{esc(what)}</b>'
            f'<div class="bench-bar" role="progressbar" aria-valuemin="0" aria-valuemax="{total}" '
            f'aria-valuenow="{done}"><span style="width:{share:.1%}"></span></div>'
            f'<div class="bench-progress-note">{esc(t("bench.progress", done=done, total=total, elapsed=_clock(elapsed)))}'
            f'{esc(eta)}</div></div>')


def _left_out(n: int) -> str:
    """The mark of races left out of a figure because they were not a measurement (app/race/verdict.py)."""
    return (f' <span class="bench-left-out" title="{esc(t("bench.left_out_tip"))}">'
            f'{esc(t("bench.left_out", n=n))}</span>') if n else ""


def _cell(c: dict[str, Any] | None) -> str:
    if c is None:
        return '<td class="bench-none">\u2013</td>'
    if c["speedup_median"] is None:  # no race of this cell was a measurement
        return (f'<td class="bench-none" title="{esc(t("bench.left_out_tip"))}">{esc(t("bench.unmeasured_short"))}'
                f'{_left_out(c["left_out"])}</td>')
    classes = ["num"] + (["bench-best"] if c["best"] else []) + (["bench-loss"] if c["loss"] else [])
    mark = f' <span class="bench-mark" title="{esc(t("bench.best_tip"))}">\u2605</span>' if c["best"] else ""
    loss = (f' <span class="bench-mark" title="{esc(t("bench.loss_tip"))}">\u25bc {esc(t("bench.loss"))}</span>'
            if c["loss"] else "")
    acceptance = t("bench.na") if c["acceptance_median"] is None else format(c["acceptance_median"], ".0%")
    tip = t("bench.cell_tip", runs=c["runs"], identical=c["identical_runs"], acceptance=acceptance)
    return (f'<td class="{" ".join(classes)}" title="{esc(tip)}"><b>{c["speedup_median"]:.2f}x</b>{mark}{loss}'
            f'<span class="bench-spread">{c["speedup_min"]:.2f}\u2013{c["speedup_max"]:.2f}</span>'
            f'{_left_out(c["left_out"])}</td>')


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
                    f'<td class="num{geo_cls}"><b>{esc(t("bench.na")) if geo is None else f"{geo:.2f}x"}</b>'
                    f'{_left_out(o["left_out"])}</td>'
                    f'<td class="num{"" if o["identical_runs"] == o["runs"] else " bench-loss"}">{identical}</td></tr>')
    return (f'<div class="bench-card"><div class="bench-card-title">{esc(t("bench.board_title"))} '
            f'<span>{esc(t("bench.board_key"))}</span></div>'
            f'<div class="plan-scroll"><table class="bench-table"><thead><tr><th>{esc(t("bench.col.preset"))}</th>'
            f'{head}<th>{esc(t("bench.col.overall"))}<span>{esc(t("bench.col.geomean"))}</span></th>'
            f'<th>{esc(t("bench.col.identical"))}</th></tr></thead><tbody>{"".join(body)}</tbody></table></div>'
            f'{left_out_html(result)}</div>')


def left_out_html(result: BenchResult) -> str:
    """Which races the leaderboard left out because they were not a measurement, and why (each race's one verdict's
    reason, app/race/verdict.py); empty when none was."""
    rows = left_out(result.rows)
    if not rows:
        return ""
    items = "".join(f"<li>{esc(r['preset'])} \u00b7 {esc(r['category'])} \u00b7 {esc(r['prompt_id'])}: "
                    f"{esc(translate(r.get('verdict_reason') or ''))}</li>" for r in rows[:8])
    more = f"<li>{esc(t('bench.left_out_more', n=len(rows) - 8))}</li>" if len(rows) > 8 else ""
    return (f'<div class="bench-note bench-left-out-note"><b>{esc(t("bench.left_out_note", n=len(rows)))}</b>'
            f'<ul>{items}{more}</ul></div>')


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


def _cell_text(value: Any, kind: str, key: str) -> str:
    if key == "identical" and isinstance(value, bool):
        return t("bench.yes") if value else t("bench.no")
    if key == "verdict":
        return t(f"bench.verdict.{value}") if value else "\u2013"
    return _fmt(value, kind)


#: Every race's columns: (row key, English header: the header is ``bench.run_col.<key>``, format).
RUN_COLUMNS: Sequence[tuple[str, str, str]] = (
    ("preset", "preset", ""), ("sweep_value", "value", ""), ("category", "category", ""), ("prompt_id", "prompt", ""),
    ("repeat", "rep", ""), ("baseline_tokens_per_second", "plain tok/s", ""),
    ("assisted_tokens_per_second", "assisted tok/s", ""), ("speedup", "speedup", "x"),
    ("acceptance_rate", "accepted", "%"), ("mean_accepted_length", "tokens / pass", ""),
    ("predicted_speedup", "Theorem 3.8", "x"), ("identical", "identical", ""), ("verdict", "verdict", ""))


def runs_html(result: BenchResult, newest: int = 300) -> str:
    """Every race (the newest `newest` first), one row each."""
    if not result.rows:
        return ""
    sweep = bool(result.settings.get("sweep_knob"))
    columns = [c for c in RUN_COLUMNS if sweep or c[0] != "sweep_value"]
    head = "".join(f"<th>{esc(t('bench.run_col.' + key))}</th>" for key, _, _ in columns)
    rows = []
    for r in reversed(result.rows[-newest:]):
        kind_of = r.get("verdict")  # the race's one verdict (app/race/verdict.py); None in an older file
        cls = (' class="bench-unmeasured"' if kind_of == "unmeasured" else
               ' class="bench-loss"' if (kind_of == "loss" or kind_of is None and r["speedup"] < 1) else "")
        tip = f' title="{esc(translate(r.get("verdict_reason") or ""))}"' if r.get("verdict_reason") else ""
        cells = "".join(f"<td{cls + tip if key in ('speedup', 'verdict') else ''}>"
                        f"{esc(_cell_text(r.get(key), kind, key))}</td>" for key, _, kind in columns)
        rows.append(f"<tr>{cells}</tr>")
    return (f'<div class="plan-scroll"><table class="bench-table bench-runs"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')
