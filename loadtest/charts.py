"""Inline SVG charts for the report: lines, markers, stacked bars, a marked x position.

Drawn here rather than by a library so the page needs no network and no script. Every
chart is a `Chart` (plain data) turned into one <svg> by `svg_chart`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from itertools import pairwise

from markupsafe import Markup

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#bcbd22", "#393b79", "#637939", "#843c39")
# a series that lies on an earlier one stays visible: each gets its own dash pattern
DASHES = ("", "7 4", "2 3", "10 3 2 3", "4 4", "1 5")
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 720, 300, 64, 16, 16, 40
LEGEND_ROW = 16
MIN_BAR = 6.0  # pixels


@dataclass
class Series:
    label: str
    points: list[tuple[float, float]]
    color: str
    dashed: bool = False
    markers: bool = False  # points only, no line
    dash: str = ""  # an explicit dash pattern (overrides dashed)
    dots: bool = False  # a line with a dot at every point


@dataclass
class Stack:
    """Stacked bars: at each x, the values of `layers` one on top of the other."""

    xs: list[float]
    layers: list[tuple[str, str, list[float]]]  # (label, color, one value per x)


@dataclass
class Mark:
    """A vertical line at x with a short label (the lossless point, a bound)."""

    x: float
    label: str
    color: str = "#2ca02c"


@dataclass
class Chart:
    series: list[Series]
    x_label: str
    y_label: str
    y_max: float | None = None
    marks: list[Mark] = field(default_factory=list)
    stack: Stack | None = None
    log_y: bool = False
    x_zero: bool = True  # start the x axis at 0 (rates), not at the lowest point


def nice_max(value: float) -> float:
    """The smallest 1/1.2/1.5/2/2.5/3/4/5/6/8 x 10^k at or above `value`."""
    if value <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(value))
    steps = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)
    return next(m * mag for m in steps if m * mag >= value * 0.999999)


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round-numbered ticks (steps of 1, 2, 2.5 or 5 x 10^k) inside [lo, hi]."""
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * 0.999999)
    first = math.ceil(lo / step - 1e-9) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def fmt(v: float) -> str:
    """Axis numbers: 0.25, 1.5, 20, 5000, 100k, 1M (short enough for the margin)."""
    for unit, scale in (("M", 1e6), ("k", 1e4)):
        if abs(v) >= scale and float(v).is_integer():
            scale = 1e6 if unit == "M" else 1e3
            return f"{v / scale:g}{unit}"
    return f"{v:.6g}"


@dataclass
class _Frame:
    """Maps data to pixels."""

    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float
    log_y: bool
    top: int  # pixels above the plot (legend rows)

    @property
    def height(self) -> float:
        return H - self.top - PAD_B

    def px(self, x: float) -> float:
        return PAD_L + (x - self.x_lo) / (self.x_hi - self.x_lo) * (W - PAD_L - PAD_R)

    def py(self, y: float) -> float:
        if self.log_y:
            y = math.log10(min(max(y, self.y_lo), self.y_hi))
            share = (y - math.log10(self.y_lo)) / (math.log10(self.y_hi) - math.log10(self.y_lo))
        else:
            share = (min(max(y, self.y_lo), self.y_hi) - self.y_lo) / (self.y_hi - self.y_lo)
        return self.top + self.height * (1 - share)


def _frame(chart: Chart, legend_rows: int) -> _Frame:
    xs = [x for s in chart.series for x, _ in s.points] + [m.x for m in chart.marks]
    ys = [y for s in chart.series for _, y in s.points]
    if chart.stack:
        xs += chart.stack.xs
        ys += [sum(vals) for vals in zip(*(v for _, _, v in chart.stack.layers), strict=True)]
    xs, ys = xs or [0.0, 1.0], ys or [0.0, 1.0]
    x_lo = 0.0 if chart.x_zero and min(xs) >= 0 else min(xs)
    x_hi = nice_max(max(xs)) if chart.x_zero and max(xs) > 0 else max(xs)
    if x_hi <= x_lo:
        x_hi = x_lo + 1
    top = PAD_T + legend_rows * LEGEND_ROW
    if chart.log_y:
        positive = [y for y in ys if y > 0] or [1.0]
        lo = 10 ** math.floor(math.log10(min(positive)))
        hi = 10 ** math.ceil(math.log10(max(positive)) + 1e-9)
        return _Frame(x_lo, x_hi, lo, max(hi, lo * 10), True, top)
    y_top = nice_max(chart.y_max if chart.y_max is not None else max(ys))
    return _Frame(x_lo, x_hi, 0.0, y_top, False, top)


def _axes(chart: Chart, f: _Frame) -> list[str]:
    out = []
    if f.log_y:
        ys = [10 ** e for e in range(round(math.log10(f.y_lo)), round(math.log10(f.y_hi)) + 1)]
    else:
        ys = [f.y_hi * i / 5 for i in range(6)]
    for y in ys:
        out.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{f.py(y):.1f}" '
                   f'y2="{f.py(y):.1f}" class="grid"/>')
        out.append(f'<text x="{PAD_L - 6}" y="{f.py(y) + 4:.1f}" text-anchor="end">'
                   f'{fmt(y)}</text>')
    for x in nice_ticks(f.x_lo, f.x_hi):
        out.append(f'<text x="{f.px(x):.1f}" y="{H - PAD_B + 16}" text-anchor="middle">'
                   f'{fmt(round(x, 6))}</text>')
    mid = f.top + f.height / 2
    out.append(f'<text x="{PAD_L + (W - PAD_L - PAD_R) / 2}" y="{H - 4}" text-anchor="middle" '
               f'class="axis">{escape(chart.x_label)}</text>')
    out.append(f'<text x="12" y="{mid}" text-anchor="middle" class="axis" '
               f'transform="rotate(-90 12 {mid})">{escape(chart.y_label)}</text>')
    out.append(f'<rect x="{PAD_L}" y="{f.top}" width="{W - PAD_L - PAD_R}" height="{f.height}" '
               'class="frame"/>')
    return out


def _bars(stack: Stack, f: _Frame) -> list[str]:
    """Stacked bars, as wide as the closest two x values allow."""
    xs = sorted(set(stack.xs))
    gaps = [b - a for a, b in pairwise(xs) if b > a]
    width_x = min(gaps, default=(f.x_hi - f.x_lo) / 20) * 0.8
    # steps at almost the same load may overlap rather than shrink to hairlines
    width = max(MIN_BAR, f.px(f.x_lo + width_x) - f.px(f.x_lo))
    out = []
    for i, x in enumerate(stack.xs):
        base = 0.0
        for _, color, values in stack.layers:
            value = values[i]
            if value <= 0:
                continue
            y0, y1 = f.py(base), f.py(base + value)
            out.append(f'<rect x="{f.px(x) - width / 2:.1f}" y="{y1:.1f}" width="{width:.1f}" '
                       f'height="{max(0.5, y0 - y1):.1f}" fill="{color}" fill-opacity="0.85"/>')
            base += value
    return out


def _series(s: Series, f: _Frame) -> list[str]:
    out = []
    if s.markers or s.dots:
        for x, y in s.points:
            out.append(f'<circle cx="{f.px(x):.1f}" cy="{f.py(y):.1f}" r="{3 if s.markers else 2}" '
                       f'fill="{s.color}"/>')
    if not s.markers and s.points:
        pts = " ".join(f"{f.px(x):.1f},{f.py(y):.1f}" for x, y in s.points)
        dash = s.dash or ("6 4" if s.dashed else "")
        attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{pts}" fill="none" stroke="{s.color}" '
                   f'stroke-width="1.8"{attr}/>')
    return out


def _legend_columns(entries: list[tuple[str, str]]) -> int:
    """As many legend entries a row as their longest label allows (about 7.5 px a letter)."""
    longest = max((len(label) for label, _ in entries), default=0)
    return 3 if longest <= 26 else 2 if longest <= 42 else 1


def _legend(entries: list[tuple[str, str]]) -> list[str]:
    """Above the plot, so it never covers a line."""
    cols = _legend_columns(entries)
    width = (W - PAD_L - PAD_R) // cols
    out = []
    for i, (label, color) in enumerate(entries):
        lx = PAD_L + (i % cols) * width
        ly = PAD_T - 10 + (i // cols) * LEGEND_ROW
        out.append(f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{color}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly + 9}">{escape(label[:90])}</text>')
    return out


def svg_chart(chart: Chart) -> Markup:
    """The chart as an inline <svg>: axes, grid, legend above the plot, marks."""
    entries = [(s.label, s.color) for s in chart.series]
    if chart.stack:
        entries += [(label, color) for label, color, _ in chart.stack.layers]
    f = _frame(chart, math.ceil(len(entries) / _legend_columns(entries)))
    label = f"{chart.y_label} against {chart.x_label}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" class="chart" '
           f'role="img" aria-label="{escape(label)}">']
    out += _axes(chart, f)
    if chart.stack:
        out += _bars(chart.stack, f)
    for s in chart.series:
        out += _series(s, f)
    for i, m in enumerate(chart.marks):
        x = f.px(m.x)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{f.top}" y2="{f.top + f.height}" '
                   f'stroke="{m.color}" stroke-width="1.2" stroke-dasharray="3 3"/>')
        anchor = "end" if x > W / 2 else "start"
        dx = -4 if anchor == "end" else 4
        out.append(f'<text x="{x + dx:.1f}" y="{f.top + 12 + 13 * i}" text-anchor="{anchor}" '
                   f'fill="{m.color}" class="mark">{escape(m.label)}</text>')
    out += _legend(entries)
    out.append("</svg>")
    return Markup("".join(out))
