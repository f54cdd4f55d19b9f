"""The Planner tab's figure: predicted speedup against gamma as an inline SVG (pure, no gradio)."""

from __future__ import annotations

from ...planner.types import Plan
from ...render.html import esc

#: Colours of the measured points, in the plan's measured_points order (the legend uses the same).
MEASURED_COLOURS = ("#d62728", "#2ca02c", "#9467bd")


def speedup_svg(plan: Plan, width: int = 560, height: int = 300) -> str:
    """Inline SVG (scales with its viewBox): predicted speedup against gamma, plain generate() at 1x, the
    hardware-adjusted curve, the best gamma and the measured points (colours: MEASURED_COLOURS)."""
    left, right, top, bottom = 48, 16, 16, 40
    pw, ph = width - left - right, height - top - bottom
    points = plan.measured_points
    ymax = max([p.speedup for p in plan.curve] + [p.speedup for p in points] + [1.0]) * 1.15
    gmax = max(p.gamma for p in plan.curve)
    x = lambda g: left + (g - 1) / max(gmax - 1, 1) * pw  # noqa: E731
    y = lambda s: top + ph - s / ymax * ph  # noqa: E731
    step = 0.5 if ymax <= 4 else 1.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11" role="img" aria-label="predicted speedup against gamma">',
             f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>']
    for i in range(int(ymax / step) + 1):
        v = i * step
        parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>'
                     f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}x</text>')
    for g in sorted({1, 5, 10, 15, gmax}):
        parts.append(f'<text x="{x(g):.1f}" y="{top + ph + 16}" text-anchor="middle">{g}</text>')
    parts.append(f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle">gamma (draft tokens per round)</text>')
    parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(1):.1f}" y2="{y(1):.1f}" stroke="#888" stroke-dasharray="4 3"/>'
                 f'<text x="{left + pw - 4}" y="{y(1) - 4:.1f}" text-anchor="end" fill="#666">plain generate()</text>')
    adjusted = plan.hardware_adjusted.curve if plan.hardware_adjusted else None
    if adjusted:
        line = " ".join(f"{x(p.gamma):.1f},{y(p.speedup):.1f}" for p in adjusted)
        parts.append(f'<polyline points="{line}" fill="none" stroke="#ff7f0e" stroke-width="1.5" stroke-dasharray="6 3">'
                     '<title>adjusted for this hardware (c + verification slope)</title></polyline>')
    line = " ".join(f"{x(p.gamma):.1f},{y(p.speedup):.1f}" for p in plan.curve)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    g, s = plan.best_gamma, plan.predicted_speedup
    # keep the label inside the plot at either end of the gamma axis
    anchor = "start" if g <= 3 else "end" if g >= 18 else "middle"
    parts.append(f'<circle cx="{x(g):.1f}" cy="{y(s):.1f}" r="5" fill="#1f77b4"><title>best gamma {g}: {s:.2f}x '
                 f'predicted</title></circle><text x="{x(g):.1f}" y="{y(s) - 9:.1f}" text-anchor="{anchor}">'
                 f'best gamma {g}: {s:.2f}x</text>')
    for p, colour in zip(points, MEASURED_COLOURS):
        px, py = x(min(max(p.gamma, 1), gmax)), y(p.speedup)
        parts.append(f'<rect x="{px - 5:.1f}" y="{py - 5:.1f}" width="10" height="10" fill="{colour}"><title>'
                     f'{esc(p.label)}: {p.speedup:.2f}x</title></rect>'
                     f'<text x="{px + 8:.1f}" y="{py + 4:.1f}" fill="{colour}">{p.speedup:.2f}x</text>')
    parts.append("</svg>")
    return "".join(parts)
