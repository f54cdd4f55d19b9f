"""The Planner tab's figure: predicted speedup against gamma (Theorem 3.8), drawn with the one chart module
(app/render/charts.py) in its palette: the prediction, the hardware-adjusted curve, plain generate() at 1x, the best
gamma and the measured points, each series also told apart by dash or marker. Pure strings, no gradio."""

from __future__ import annotations

import math

from ..core.words import t, translate
from ..planner.types import Plan
from .charts import DASHES, PALETTE, frame, marker, polyline, scale, svg, text

#: The series' looks, by name: (colour, dash, marker); the HTML key beside the chart (app/render/plan.py) uses the
#: same. Measured points take MEASURED in the plan's measured_points order.
PREDICTED = (PALETTE[0], DASHES[0], "circle")
ADJUSTED = (PALETTE[1], DASHES[1], None)
PLAIN = ("#595959", "4 3", None)
MEASURED = ((PALETTE[2], "square"), (PALETTE[3], "diamond"), (PALETTE[5], "triangle"))
MEASURED_COLOURS = tuple(colour for colour, _ in MEASURED)
GAMMA_TICKS = (1, 5, 10, 15)


def speedup_svg(plan: Plan, width: int = 560, height: int = 300) -> str:
    """Inline SVG (scales with its viewBox): predicted speedup against gamma, plain generate() at 1x, the
    hardware-adjusted curve, the best gamma and the measured points (colours: MEASURED_COLOURS)."""
    box = (56, 16, width - 16, height - 44)
    left, top, right, bottom = box
    points = plan.measured_points
    ymax = max([p.speedup for p in plan.curve] + [p.speedup for p in points] + [1.0]) * 1.15
    step = 0.5 if ymax <= 4 else 1.0
    ys = [i * step for i in range(int(math.ceil(ymax / step)) + 1)]
    gmax = max(p.gamma for p in plan.curve)
    xs = sorted({*GAMMA_TICKS, gmax})
    x = lambda g: scale(g, 1, gmax, left, right)  # noqa: E731
    y = lambda s: scale(s, 0, ys[-1], bottom, top)  # noqa: E731
    body = frame(width, height, box, xs, ys, t("plan.chart.x"), t("plan.chart.y"), yfmt="{:g}x")
    one = y(1.0)
    body.append(f'<line x1="{left}" x2="{right}" y1="{one:.1f}" y2="{one:.1f}" stroke="{PLAIN[0]}" '
                f'stroke-dasharray="{PLAIN[1]}"/>')
    body.append(text(right - 4, one - 5, t("plan.chart.plain"), "end", 11, fill=PLAIN[0]))
    if plan.hardware_adjusted:
        body.append(polyline([(x(p.gamma), y(p.speedup)) for p in plan.hardware_adjusted.curve], ADJUSTED[0], 2.0,
                             ADJUSTED[1], t("plan.chart.adjusted_tip")))
    body.append(polyline([(x(p.gamma), y(p.speedup)) for p in plan.curve], PREDICTED[0], 2.5, PREDICTED[1],
                         t("plan.key.predicted")))
    g, s = plan.best_gamma, plan.predicted_speedup
    best = t("plan.chart.best", gamma=g, speedup=f"{s:.2f}")
    anchor = "start" if g <= 3 else "end" if g >= 18 else "middle"  # the label stays inside at either end
    body.append(marker(PREDICTED[2], x(g), y(s), PREDICTED[0], 5.0, best))
    body.append(text(x(g), y(s) - 10, best, anchor, 11, "bold"))
    for p, (colour, kind) in zip(points, MEASURED):
        px, py = x(min(max(p.gamma, 1), gmax)), y(p.speedup)
        body.append(marker(kind, px, py, colour, 5.0, f"{translate(p.label)}: {p.speedup:.2f}x"))
        near_end = px + 48 > width  # a point at the last gamma: its figure goes left of it, inside the plot
        body.append(text(px - 8 if near_end else px + 8, py + 4, f"{p.speedup:.2f}x", "end" if near_end else "start",
                         size=11))
    return svg(width, height, t("plan.chart.title"), body)
