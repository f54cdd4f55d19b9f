"""The one chart module: every SVG figure (the benchmark's plots, the planner's curve, the race's round chart) is drawn
from these pieces, in one palette (Okabe-Ito, safe for colour-blind readers), and every series also differs by
marker or dash, so colour is not the only cue. Pure strings, no plotting library."""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from .html import esc

#: Okabe-Ito: blue, orange, bluish green, reddish purple, sky blue, vermillion, yellow, black.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
MARKERS = ("circle", "square", "diamond", "triangle")
FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"'


def svg(width: int, height: int, title: str, body: Iterable[str]) -> str:
    """A standalone SVG document of `width` x `height` px with an accessible title."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{esc(title)}" {FONT} font-size="12">'
            f'<title>{esc(title)}</title><rect width="{width}" height="{height}" fill="#ffffff"/>'
            + "".join(body) + "</svg>")


def text(x: float, y: float, value: str, anchor: str = "start", size: int = 12, weight: str = "normal",
         fill: str = "#222222", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" font-weight="{weight}" '
            f'fill="{fill}"{extra}>{esc(value)}</text>')


def marker(kind: str, x: float, y: float, colour: str, r: float = 4.0, tip: str = "") -> str:
    """A circle, square, diamond or triangle centred on (x, y); `tip` becomes its hover title."""
    if kind == "square":
        tag, attrs = "rect", f'x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}"'
    elif kind == "diamond":
        tag, attrs = "polygon", (f'points="{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y:.1f} {x:.1f},{y + r + 1:.1f} '
                                 f'{x - r - 1:.1f},{y:.1f}"')
    elif kind == "triangle":
        tag, attrs = "polygon", f'points="{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y + r:.1f} {x - r - 1:.1f},{y + r:.1f}"'
    else:
        tag, attrs = "circle", f'cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}"'
    if tip:
        return f'<{tag} {attrs} fill="{colour}" fill-opacity="0.8"><title>{esc(tip)}</title></{tag}>'
    return f'<{tag} {attrs} fill="{colour}"/>'


def axis_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About `count` round tick values covering lo..hi."""
    span = max(hi - lo, 1e-9)
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if step * m >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def frame(width: int, height: int, box: tuple[int, int, int, int], xs: Sequence[float], ys: Sequence[float],
          xlabel: str, ylabel: str, xfmt: str = "{:g}", yfmt: str = "{:g}") -> list[str]:
    """Axes with grid lines and tick labels inside box = (left, top, right, bottom)."""
    left, top, right, bottom = box
    out = [f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444444"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444444"/>']
    for x in xs:
        px = scale(x, xs[0], xs[-1], left, right)
        out.append(f'<line x1="{px:.1f}" y1="{bottom}" x2="{px:.1f}" y2="{bottom + 4}" stroke="#444444"/>')
        out.append(text(px, bottom + 16, xfmt.format(x), "middle", 11))
    for y in ys:
        py = scale(y, ys[0], ys[-1], bottom, top)
        out.append(f'<line x1="{left}" y1="{py:.1f}" x2="{right}" y2="{py:.1f}" stroke="#e5e5e5"/>')
        out.append(text(left - 6, py + 4, yfmt.format(y), "end", 11))
    out.append(text((left + right) / 2, height - 8, xlabel, "middle", 12))
    out.append(text(14, (top + bottom) / 2, ylabel, "middle", 12,
                    extra=f' transform="rotate(-90 14 {(top + bottom) / 2:.1f})"'))
    return out


def scale(value: float, lo: float, hi: float, a: float, b: float) -> float:
    """Map value in [lo, hi] linearly to [a, b]."""
    return a + (value - lo) / ((hi - lo) or 1.0) * (b - a)


def legend(keys: Sequence[str], x: float, y: float) -> list[str]:
    out = []
    for i, label in enumerate(keys):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)]
        yy = y + 16 * i
        out.append(f'<line x1="{x}" y1="{yy}" x2="{x + 22}" y2="{yy}" stroke="{colour}" stroke-width="2.5" '
                   f'stroke-dasharray="{dash}"/>')
        out.append(marker(MARKERS[i % len(MARKERS)], x + 11, yy, colour, 3.5))
        out.append(text(x + 28, yy + 4, label[:40], size=11))
    return out


def polyline(points: Sequence[tuple[float, float]], colour: str, width: float = 2.0, dash: str = "",
             tip: str = "") -> str:
    """One series as a line through `points` (px); `dash`: an SVG dash pattern ("" solid); `tip`: its hover title."""
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    head = f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="{width:g}"{dashed}'
    return f"{head}><title>{esc(tip)}</title></polyline>" if tip else head + "/>"


def swatch(colour: str, dash: str | None = "", kind: str | None = None) -> str:
    """A series' key as a small inline SVG for an HTML legend beside a chart: its line (`dash` as the series', None
    for no line) and its marker (`kind`, one of MARKERS, or None)."""
    body = []
    if dash is not None:
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        body.append(f'<line x1="1" y1="6" x2="21" y2="6" stroke="{colour}" stroke-width="2.5"{dashed}/>')
    if kind:
        body.append(marker(kind, 11, 6, colour, 3.5))
    return (f'<svg class="swatch" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 22 12" width="22" height="12" '
            f'aria-hidden="true">{"".join(body)}</svg>')
