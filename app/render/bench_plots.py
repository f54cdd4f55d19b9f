"""The benchmark's plots (docs/DESIGN.md §4.4) as self-contained SVG text, drawn with the one chart module
(app/render/charts.py), in the current language: the page's in the visitor's, the files' in English
(docs/DESIGN.md §4.10)."""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..bench.results import BenchResult
from ..bench.stats import cells, measured, overall
from ..bench.suite import order_categories
from .charts import DASHES, MARKERS, PALETTE, axis_ticks, frame, legend, marker, scale, svg, text
from ..core.words import t
from .html import esc

#: The heatmap's ends: the palette's blue (faster) and vermillion (slower), as RGB.
GAIN, LOSS = (0, 114, 178), (213, 94, 0)


def heat_colour(speedup: float) -> tuple[str, str]:
    """(fill, text colour) for a speedup: white at 1x, blue up to 4x and more, orange down to 0.25x and less."""
    t = max(-1.0, min(1.0, math.log2(max(speedup, 1e-6)) / 2))
    base = GAIN if t >= 0 else LOSS
    rgb = [round(255 + (c - 255) * abs(t)) for c in base]
    return "#%02x%02x%02x" % tuple(rgb), ("#ffffff" if abs(t) > 0.55 else "#1a1a1a")


def series_keys(rows: Sequence[dict[str, Any]]) -> list[tuple[str, Any]]:
    """(preset, sweep value) in first-seen order: one series per preset (per value in a sweep)."""
    return list(dict.fromkeys((r["preset"], r["sweep_value"]) for r in rows))


def series_label(key: tuple[str, Any], knob: str | None) -> str:
    """'preset', or 'preset [value]' in a sweep (the plots name the knob elsewhere); in a regret sweep the value
    None is the cost-aware schedule."""
    return key[0] + ((f" [{key[1]}]" if key[1] is not None else f" [{t('bench.plot.cost_aware')}]") if knob else "")


def heat_cell(x: float, y: float, cw: float, ch: float, c: dict[str, Any], name: str) -> list[str]:
    """One heatmap cell: the coloured box (its hover title gives spread and races) and the median speedup; a cell
    with no race that is a measurement is grey and says so."""
    if c["speedup_median"] is None:
        tip = t("bench.plot.heat_none_tip", name=name, runs=c["runs"])
        return [f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="#eeeeee" stroke="#cccccc">'
                f'<title>{esc(tip)}</title></rect>',
                text(x + cw / 2 - 1, y + ch / 2 + 4, t("bench.unmeasured_short"), "middle", 11, "normal", "#444444")]
    fill, ink = heat_colour(c["speedup_median"])
    mark = " \u2605" if c["best"] else (" \u25bc" if c["loss"] else "")
    tip = t("bench.plot.heat_tip", name=name, median=f"{c['speedup_median']:.2f}", low=f"{c['speedup_min']:.2f}",
            high=f"{c['speedup_max']:.2f}", runs=c["runs"])
    return [f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{fill}" stroke="#cccccc">'
            f'<title>{esc(tip)}</title></rect>',
            text(x + cw / 2 - 1, y + ch / 2 + 4, f"{c['speedup_median']:.2f}x{mark}", "middle", 12,
                 "bold" if c["best"] else "normal", ink)]


def heatmap_svg(result: BenchResult) -> str:
    """Preset (rows) x category (columns) median speedups."""
    rows, knob = result.rows, result.settings.get("sweep_knob")
    cats, keys = order_categories(r["category"] for r in rows), series_keys(rows)
    cell_map = {(c["preset"], c["sweep_value"], c["category"]): c for c in cells(rows)}
    left, top, cw, ch = 215, 74, 100, 34
    width, height = max(600, left + cw * max(1, len(cats)) + 20), top + ch * max(1, len(keys)) + 30
    body = [text(12, 22, t("bench.plot.heat_title"), size=14, weight="bold"),
            text(12, 40, t("bench.plot.heat_key"), size=11, fill="#555555")]
    body += [text(left + cw * j + cw / 2, top - 6, cat, "middle", 11, "bold") for j, cat in enumerate(cats)]
    for i, key in enumerate(keys):
        y = top + ch * i
        body.append(text(left - 8, y + ch / 2 + 4, series_label(key, knob)[:32], "end", 11))
        for j, cat in enumerate(cats):
            c = cell_map.get((key[0], key[1], cat))
            x = left + cw * j
            if c is None:
                body.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="#eeeeee"/>')
                continue
            body += heat_cell(x, y, cw, ch, c, f"{key[0]} / {cat}")
    sweep_note = f"; [n]: {knob} = n" if knob else ""
    body.append(text(12, height - 10, t("bench.plot.heat_foot", sweep=sweep_note), size=10, fill="#595959"))
    return svg(width, height, t("bench.plot.heat_title"), body)


def positions_svg(result: BenchResult, max_positions: int = 16) -> str:
    """Acceptance (accepted / drafted) at draft positions 1..K, pooled over each preset's races."""
    knob = result.settings.get("sweep_knob")
    series = [(series_label((o["preset"], o["sweep_value"]), knob), o["acceptance_by_position"][:max_positions])
              for o in overall(result.rows)]
    longest = max((len(s) for _, s in series), default=0)
    width, height = 700, 300 + 16 * max(0, len(series) - 4)
    box = (56, 44, 440, height - 46)
    xs = list(range(1, max(2, longest) + 1))
    body = [text(12, 22, t("bench.plot.positions_title"), size=14, weight="bold"),
            *frame(width, height, box, xs if len(xs) <= 12 else axis_ticks(1, xs[-1], 8), [0.0, 0.25, 0.5, 0.75, 1.0],
                   t("bench.plot.position"), t("bench.plot.accepted_drafted"), yfmt="{:.0%}")]
    for i, (label, values) in enumerate(series):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)]
        pts = [(scale(k + 1, 1, xs[-1], box[0], box[2]), scale(v, 0, 1, box[3], box[1])) for k, v in enumerate(values)]
        if len(pts) > 1:
            body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}" '
                        f'points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in pts)}"/>')
        body += [marker(MARKERS[i % len(MARKERS)], x, y, colour) for x, y in pts]
    if not longest:
        body.append(text((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, t("bench.plot.nothing_drafted"), "middle", 12))
    body += legend([label for label, _ in series], box[2] + 24, box[1] + 8)
    return svg(width, height, t("bench.plot.positions_title"), body)


def scatter_svg(result: BenchResult) -> str:
    """Speedup (y) against acceptance rate (x), one dot per race; the dashed line is 1x."""
    knob, rows = result.settings.get("sweep_knob"), [r for r in result.rows if measured(r)]  # measurements only
    keys = series_keys(rows)
    top_speed = max([1.5, *(r["speedup"] for r in rows)])
    ys = axis_ticks(0.0, top_speed * 1.05, 5)
    ys = ys if ys[-1] >= top_speed else ys + [ys[-1] + (ys[1] - ys[0])]
    width, height = 700, 320 + 16 * max(0, len(keys) - 4)
    box = (56, 44, 440, height - 46)
    body = [text(12, 22, t("bench.plot.scatter_title"), size=14, weight="bold"),
            *frame(width, height, box, [0.0, 0.25, 0.5, 0.75, 1.0], ys, t("bench.plot.acceptance_axis"),
                   t("bench.plot.speedup"), xfmt="{:.0%}", yfmt="{:g}x")]
    one = scale(1.0, ys[0], ys[-1], box[3], box[1])
    body.append(f'<line x1="{box[0]}" y1="{one:.1f}" x2="{box[2]}" y2="{one:.1f}" stroke="#D55E00" '
                f'stroke-dasharray="5 4"/>')
    body.append(text(box[2] - 4, one - 5, t("bench.plot.one_x"), "end", 10, fill="#D55E00"))
    for i, key in enumerate(keys):
        colour, kind = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
        for r in rows:
            if (r["preset"], r["sweep_value"]) == key and r["acceptance_rate"] is not None:
                body.append(marker(kind, scale(r["acceptance_rate"], 0, 1, box[0], box[2]),
                                   scale(r["speedup"], ys[0], ys[-1], box[3], box[1]), colour, 3.5,
                                   f"{r['preset']} / {r['prompt_id']}: {r['speedup']:.2f}x"))
    body += legend([series_label(k, knob) for k in keys], box[2] + 24, box[1] + 8)
    return svg(width, height, t("bench.plot.scatter_label"), body)


def sweep_svg(result: BenchResult) -> str | None:
    """Measured (solid) and Theorem 3.8 (dashed) median speedup per swept value and preset; None without a sweep."""
    knob = result.settings.get("sweep_knob")
    if not knob or not result.rows:
        return None
    points = [(o["preset"], o["sweep_value"], o["speedup_median"], o["predicted_median"]) for o in overall(result.rows)
              if o["sweep_value"] is not None and o["speedup_median"] is not None]  # a regret sweep's cost-aware
    # rows have no length; a value with no measured race has no speedup
    if not points:
        return None
    values = sorted({p[1] for p in points})
    top_speed = max([1.5, *(p[2] for p in points), *(p[3] or 0 for p in points)])
    ys = axis_ticks(0.0, top_speed * 1.05, 5)
    ys = ys if ys[-1] >= top_speed else ys + [ys[-1] + (ys[1] - ys[0])]
    presets = list(dict.fromkeys(p[0] for p in points))
    width, height = 700, 320 + 32 * max(0, len(presets) - 2)
    box = (56, 44, 440, height - 46)
    xs = values if len(values) > 1 else [values[0] - 1, values[0], values[0] + 1]
    body = [text(12, 22, t("bench.plot.sweep_title", knob=knob), size=14, weight="bold"),
            *frame(width, height, box, xs if len(xs) <= 12 else axis_ticks(xs[0], xs[-1], 8), ys, knob,
                   t("bench.plot.median_speedup"), yfmt="{:g}x")]
    labels = []
    for i, preset in enumerate(presets):
        colour = PALETTE[i % len(PALETTE)]
        for j, (name, idx) in enumerate(((t("bench.plot.measured"), 2), (t("bench.plot.theorem"), 3))):
            pts = [(scale(p[1], xs[0], xs[-1], box[0], box[2]), scale(p[idx], ys[0], ys[-1], box[3], box[1]))
                   for p in points if p[0] == preset and p[idx] is not None]
            dash = DASHES[1] if j else ""
            if len(pts) > 1:
                body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}" '
                            f'points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in pts)}"/>')
            body += [marker("square" if j else "circle", x, y, colour) for x, y in pts]
            labels.append((f"{preset}: {name}" if len(presets) > 1 else name, colour, dash, "square" if j else "circle"))
    for k, (label, colour, dash, kind) in enumerate(labels):
        yy = box[1] + 8 + 16 * k
        body.append(f'<line x1="{box[2] + 24}" y1="{yy}" x2="{box[2] + 46}" y2="{yy}" stroke="{colour}" '
                    f'stroke-width="2.5" stroke-dasharray="{dash}"/>')
        body += [marker(kind, box[2] + 35, yy, colour, 3.5), text(box[2] + 52, yy + 4, label[:34], size=11)]
    return svg(width, height, t("bench.plot.sweep_label", knob=knob), body)


#: The regret plot's bars: (key, its legend's words' key, marker).
REGRET_SERIES = (("shipped", "bench.plot.shipped", "circle"), ("best", "bench.plot.best_constant", "square"),
                 ("default", "bench.plot.default", "diamond"))


def regret_bars(entry: dict[str, Any], x: float, bar: float, ys: Sequence[float], box: tuple[int, int, int, int]) -> list[str]:
    """One category's three bars (shipped, best constant, default), each with its marker, value and length."""
    out = []
    for i, (key, name, kind) in enumerate(REGRET_SERIES):
        value = entry[key]
        if value is None:
            continue
        top, left = scale(value, ys[0], ys[-1], box[3], box[1]), x + bar * i
        length = {"best": entry["best_length"], "default": entry["default_length"]}.get(key)
        tip = f"{entry['preset']} / {entry['category']}: {t(name)} {value:.2f}x" + (
            t("bench.plot.at_length", length=length) if length else "")
        out += [f'<rect x="{left:.1f}" y="{top:.1f}" width="{bar - 3:.1f}" height="{box[3] - top:.1f}" '
                f'fill="{PALETTE[i]}" fill-opacity="0.85"><title>{esc(tip)}</title></rect>',
                marker(kind, left + (bar - 3) / 2, top, "#222222", 3.0),
                text(left + (bar - 3) / 2, top - 7, f"{value:.2f}", "middle", 9)]
        if length:
            out.append(text(left + (bar - 3) / 2, top - 17, f"@{length}", "middle", 9, fill="#555555"))
    return out


def regret_svg(result: BenchResult) -> str | None:
    """Per preset and category: the cost-aware schedule's median speedup next to the best constant length's and
    transformers' default's (app.bench.regret); None outside a regret sweep."""
    report = result.regret
    if not report or not report["categories"]:
        return None
    presets = list(dict.fromkeys(c["preset"] for c in report["categories"]))
    order = order_categories(c["category"] for c in report["categories"])
    entries = sorted(report["categories"], key=lambda c: (presets.index(c["preset"]), order.index(c["category"])))
    top_speed = max([1.5, *(c[k] or 0 for c in entries for k, _, _ in REGRET_SERIES)])
    ys = axis_ticks(0.0, top_speed * 1.15, 5)
    ys = ys if ys[-1] >= top_speed * 1.15 else ys + [ys[-1] + (ys[1] - ys[0])]
    bar, gap = 30, 22
    width = max(640, 70 + len(entries) * (3 * bar + gap) + 20)
    height = 360 + (14 if len(presets) > 1 else 0)
    box = (56, 70, width - 20, height - 62 - (14 if len(presets) > 1 else 0))
    body = [text(12, 22, t("bench.plot.regret_title"), size=14, weight="bold"),
            *frame(width, height, box, [], ys, "", t("bench.plot.median_speedup"), yfmt="{:g}x")]
    one = scale(1.0, ys[0], ys[-1], box[3], box[1])
    body.append(f'<line x1="{box[0]}" y1="{one:.1f}" x2="{box[2]}" y2="{one:.1f}" stroke="#D55E00" stroke-dasharray="5 4"/>')
    for i, (_, name, kind) in enumerate(REGRET_SERIES):
        x = 60 + 190 * i
        body += [f'<rect x="{x}" y="34" width="14" height="12" fill="{PALETTE[i]}"/>', marker(kind, x + 7, 40, "#222222", 3.0),
                 text(x + 20, 45, t(name), size=11)]
    for j, c in enumerate(entries):
        x = box[0] + gap / 2 + j * (3 * bar + gap)
        body += regret_bars(c, x, bar, ys, box)
        share = t("bench.plot.share", share=f"{c['share_of_best']:.0%}" if c["share_of_best"] is not None
                  else t("bench.na"))
        body += [text(x + 1.5 * bar, box[3] + 16, c["category"][:14], "middle", 11, "bold"),
                 text(x + 1.5 * bar, box[3] + 30, share, "middle", 10, fill="#555555")]
        if len(presets) > 1:
            body.append(text(x + 1.5 * bar, box[3] + 43, c["preset"][:20], "middle", 9, fill="#595959"))
    body.append(text(12, height - 6, t("bench.plot.regret_foot"), size=10, fill="#595959"))
    return svg(width, height, t("bench.plot.regret_title"), body)


def all_plots(result: BenchResult) -> dict[str, str]:
    """File name -> SVG text of every plot that applies."""
    plots = {"heatmap.svg": heatmap_svg(result), "acceptance_by_position.svg": positions_svg(result),
             "speedup_vs_acceptance.svg": scatter_svg(result), "sweep.svg": sweep_svg(result),
             "regret.svg": regret_svg(result)}
    return {name: figure for name, figure in plots.items() if figure}
