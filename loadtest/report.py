"""`report`: one self-contained HTML page from ramp and ndr run JSON files.

Charts are inline SVG built here, so the page needs no network and no script.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from loadtest.client import UsageError

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#bcbd22", "#393b79", "#637939", "#843c39")
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 720, 260, 64, 16, 16, 40


@dataclass
class Series:
    label: str
    points: list[tuple[float, float]]
    color: str
    dashed: bool = False
    markers: bool = False


@dataclass
class Run:
    name: str
    path: str
    mode: str
    status: str
    vars: dict
    rows: list[dict] = field(default_factory=list)  # table rows
    charts: list[tuple[str, Markup]] = field(default_factory=list)
    latency: list[dict] = field(default_factory=list)
    error: str | None = None
    forwarded: list[tuple[float, float]] = field(default_factory=list)  # (s, Mpps) all dirs
    totals: list[dict] = field(default_factory=list)  # packets per direction, flow and port
    directions: list[dict] = field(default_factory=list)  # a ramp's summary per direction
    index: int = 0  # position in the report, for the anchor

    @property
    def anchor(self) -> str:
        return f"run-{self.index}-{self.name}"

    @property
    def traffic(self) -> dict:
        return self.vars.get("traffic", {})

    @property
    def bidirectional(self) -> bool:
        return bool(self.traffic.get("bidirectional"))

    @property
    def flows(self) -> str:
        """The ranges the flows walk ("253 src x 253 dst"), not their product."""
        ranges = self.traffic.get("flow_ranges")
        if ranges:
            return " x ".join(f"{count} {name}" for name, count in ranges)
        if ranges is not None or self.traffic.get("flows", 1) == 1:
            return "1 flow"
        return f"{self.traffic['flows']} flows"

    @property
    def many_flows(self) -> bool:
        return self.flows != "1 flow"

    @property
    def size_label(self) -> str:
        """"64b", "1514b", or "imix" for a mix of sizes."""
        sizes = self.traffic.get("sizes") or []
        if len(sizes) == 1:
            return f"{sizes[0][0]}b"
        return "imix" if sizes else str(self.traffic.get("profile", "?"))

    @property
    def average_frame(self) -> float:
        sizes = self.traffic.get("sizes") or [[0, 1]]
        weight = sum(w for _, w in sizes) or 1
        return sum(size * w for size, w in sizes) / weight

    @property
    def description(self) -> str:
        t = self.traffic
        profile = str(t.get("profile", "?"))
        if profile.endswith(".py"):
            profile = Path(profile).name  # the file's path is in the run's own section
        if t.get("tunables"):
            profile += f" -t {t['tunables']}"
        parts = [f"profile {profile}"]
        if "ip_version" in t:
            parts.append(f"IPv{t['ip_version']}")
        parts += [self.flows, "bidirectional" if self.bidirectional else "unidirectional"]
        if self.vars.get("speed_bps"):
            parts.append(f"{self.vars['speed_bps'] / 1e9:g} Gbit/s")
        return ", ".join(parts)


def _nice_max(value: float) -> float:
    """The smallest 1/1.2/1.5/2/2.5/3/4/5/6/8 x 10^k at or above `value`."""
    if value <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(value))
    steps = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)
    return next(m * mag for m in steps if m * mag >= value * 0.999999)


def _nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round-numbered ticks (steps of 1, 2, 2.5 or 5 x 10^k) inside [lo, hi]."""
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * 0.999999)
    first = math.ceil(lo / step - 1e-9) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def svg_chart(series: list[Series], x_label: str, y_label: str,
              y_max: float | None = None) -> Markup:
    """A line chart with axes, grid and legend as an inline <svg>."""
    xs = [x for s in series for x, _ in s.points] or [0.0, 1.0]
    ys = [y for s in series for _, y in s.points] or [0.0, 1.0]
    x_lo, x_hi = min(xs), max(xs)
    if x_hi <= x_lo:
        x_hi = x_lo + 1
    top = _nice_max(y_max if y_max is not None else max(ys))
    pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B

    def px(x: float) -> float:
        return PAD_L + (x - x_lo) / (x_hi - x_lo) * pw

    def py(y: float) -> float:
        return PAD_T + ph - min(max(y, 0.0), top) / top * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" class="chart" '
           f'role="img" aria-label="{escape(y_label)} over {escape(x_label)}">']
    for i in range(6):
        y = top * i / 5
        out.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{py(y):.1f}" y2="{py(y):.1f}" '
                   'class="grid"/>')
        out.append(f'<text x="{PAD_L - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{_fmt(y)}</text>')
    for x in _nice_ticks(x_lo, x_hi):
        out.append(f'<text x="{px(x):.1f}" y="{H - PAD_B + 16}" text-anchor="middle">'
                   f'{_fmt(round(x, 6))}</text>')
    out.append(f'<text x="{PAD_L + pw / 2}" y="{H - 4}" text-anchor="middle" class="axis">'
               f'{escape(x_label)}</text>')
    out.append(f'<text x="12" y="{PAD_T + ph / 2}" text-anchor="middle" class="axis" '
               f'transform="rotate(-90 12 {PAD_T + ph / 2})">{escape(y_label)}</text>')
    out.append(f'<rect x="{PAD_L}" y="{PAD_T}" width="{pw}" height="{ph}" class="frame"/>')
    for s in series:
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        if s.markers:
            for x, y in s.points:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{s.color}"/>')
        elif pts:
            out.append(f'<polyline points="{pts}" fill="none" stroke="{s.color}" '
                       f'stroke-width="1.6"{dash}/>')
    for i, s in enumerate(series):  # legend: four entries per row, inside the plot
        lx = PAD_L + 10 + (i % 4) * 155
        ly = PAD_T + 6 + (i // 4) * 14
        out.append(f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{s.color}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly + 9}">{escape(s.label)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def _forwarded_pps(row: dict) -> float:
    """The forwarded rate the summary's max is taken from. A sample's own `rx_pps` is one
    counter delta over a jittery interval: with the real server's 0.5 s counter steps it
    swings between 1/2 and 3/2 of the true rate at some tick phases."""
    return row.get("forwarded_pps", row["rx_pps"])


def _ramp(run: Run, data: dict) -> None:
    samples = data.get("samples") or []
    run.directions = list(data.get("summary", {}).get("directions", []))
    for d in run.directions:
        run.rows.append({
            "what": f"direction {d['direction']}",
            "lossless_mpps": d["lossless_pps"] / 1e6,
            "max_mpps": d["max_forwarded_pps"] / 1e6,
            "pct_line": d["lossless_pct_line"],
            "max_pct_line": d["max_forwarded_pct_line"],
            "note": "generator limited" if d.get("generator_limited") else "",
        })
    labels = sorted({k for s in samples for k in s.get("directions", {})})
    rate, loss = [], []
    ideal = Series("asked (ideal)", [(s["elapsed"], s["intended_pps"] / 1e6) for s in samples],
                   "#7f7f7f", dashed=True)
    for i, label in enumerate(labels):
        rows = [(s["elapsed"], s["directions"][label]) for s in samples
                if label in s["directions"]]
        rate.append(Series(f"forwarded {label}", [(t, _forwarded_pps(r) / 1e6) for t, r in rows],
                           COLORS[i % len(COLORS)]))
        loss.append(Series(f"loss {label}", [(t, r["loss_ratio"] * 100) for t, r in rows],
                           COLORS[i % len(COLORS)]))
    if samples:
        run.charts.append(("Forwarded rate against the asked rate",
                           svg_chart([ideal, *rate], "seconds", "Mpps")))
        run.charts.append(("Loss", svg_chart(loss, "seconds", "loss %")))
    run.forwarded = [(s["elapsed"], sum(map(_forwarded_pps, s["directions"].values())) / 1e6)
                     for s in samples]
    for label, lat in (data.get("summary", {}).get("latency") or {}).items():
        if lat:
            run.latency.append({"direction": label, **lat})
    for label, tot in (data.get("summary", {}).get("totals") or {}).items():
        run.totals.append({"direction": label, **tot})


def _ndr(run: Run, data: dict) -> None:
    line = data.get("vars", {}).get("line_rate_pps") or 0
    for g in data.get("goals", []):
        lower = g.get("lower_bound_pps")
        run.rows.append({
            "what": g["name"],
            "lossless_mpps": (g.get("conditional_throughput_pps") or 0) / 1e6,
            "max_mpps": (g.get("upper_bound_pps") or 0) / 1e6,
            "pct_line": 100.0 * lower / line if lower and line else None,
            "max_pct_line": None,
            "note": (f"bounds {lower / 1e6:.4f}..{(g.get('upper_bound_pps') or 0) / 1e6:.4f} Mpps, "
                     f"{g['trials']} trials" if lower else "no lower bound"),
        })
    trials = data.get("trials", [])
    if trials:
        good = [(t["trial"], t["load_pps"] / 1e6) for t in trials if t["loss_ratio"] == 0]
        bad = [(t["trial"], t["load_pps"] / 1e6) for t in trials if t["loss_ratio"] > 0]
        run.charts.append(("Trial loads (green: no loss, red: loss)", svg_chart(
            [Series("no loss", good, "#2ca02c", markers=True),
             Series("loss", bad, "#d62728", markers=True)], "trial", "Mpps")))
        run.charts.append(("Loss per trial", svg_chart(
            [Series("loss", [(t["trial"], t["loss_ratio"] * 100) for t in trials], "#d62728",
                    markers=True)], "trial", "loss %")))
    for t in trials[-1:]:
        for label, d in t.get("directions", {}).items():
            if d.get("latency"):
                run.latency.append({"direction": label, **d["latency"]})


def load_runs(paths: list[Path]) -> list[Run]:
    runs = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as err:
            raise UsageError(f"{path}: {err.strerror}") from None
        except json.JSONDecodeError as err:
            raise UsageError(f"{path}:{err.lineno}: not valid JSON ({err.msg})") from None
        if not isinstance(data, dict) or not isinstance(data.get("vars"), dict):
            raise UsageError(f"{path}: not a trex-loadtest run (no 'vars')")
        mode = data.get("mode") or data["vars"].get("mode") or "ramp"
        run = Run(Path(path).stem, str(path), mode, data.get("status", "complete"), data["vars"],
                  error=data.get("error"), index=len(runs))
        (_ndr if mode == "ndr" else _ramp)(run, data)
        runs.append(run)
    return runs


def comparison_chart(runs: list[Run]) -> Markup | None:
    """Forwarded rate of every ramp direction on one chart."""
    series = []
    for run in runs:
        if run.mode == "ramp":
            series.append(Series(run.name, run.forwarded, COLORS[len(series) % len(COLORS)]))
    if len(series) < 2:
        return None
    return svg_chart(series, "seconds", "Mpps (all directions)")


@dataclass
class Cell:
    run: Run
    text: str  # "81.7k (100%)"
    generator_limited: bool = False  # the generator, not the device, set the figure


@dataclass
class SummaryTable:
    """The review's table: rows uni- and bidirectional, a column per frame size and flow
    pattern (1514b, imix, 64b many flows, 64b one flow), the lossless rate per direction."""

    columns: list[tuple[str, str]]  # (title, the flows walked)
    rows: list[tuple[str, list[Cell | None]]]


def fmt_rate(pps: float) -> str:
    """81.7k, 1.49M, 950: three significant digits and a unit letter."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if pps >= scale:
            return f"{pps / scale:.3g}{unit}"
    return f"{pps:.3g}"


def _lossless(run: Run) -> Cell:
    worst = min(run.directions, key=lambda d: d["lossless_pps"])  # both directions held it
    return Cell(run, f"{fmt_rate(worst['lossless_pps'])} ({worst['lossless_pct_line']:.3g}%)",
                any(d.get("generator_limited") for d in run.directions))


def summary_table(runs: list[Run]) -> SummaryTable | None:
    ramps = [r for r in runs if r.mode == "ramp" and r.directions]
    if len(ramps) < 2:
        return None
    keys = sorted({(r.size_label, r.many_flows) for r in ramps},
                  key=lambda k: (-max(r.average_frame for r in ramps if r.size_label == k[0]),
                                 not k[1]))
    split = {label for label, _ in keys if sum(1 for k in keys if k[0] == label) > 1}
    columns, index = [], {}
    for label, many in keys:
        title = f"{label} {'many flows' if many else 'one flow'}" if label in split else label
        walked = next(r.flows for r in ramps if (r.size_label, r.many_flows) == (label, many))
        index[(label, many)] = len(columns)
        columns.append((title, walked))
    rows = []
    for name, bidir in (("unidirectional", False), ("bidirectional", True)):
        cells: list[Cell | None] = [None] * len(columns)
        for run in ramps:
            if run.bidirectional == bidir:
                cells[index[(run.size_label, run.many_flows)]] = _lossless(run)
        if any(cells):
            rows.append((name, cells))
    return SummaryTable(columns, rows)


def render(runs: list[Run], title: str = "T-Rex loadtest report") -> str:
    env = Environment(loader=PackageLoader("loadtest", "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    template = env.get_template("report.html.j2")
    table = summary_table(runs)
    return template.render(title=title, runs=runs, comparison=comparison_chart(runs),
                           summary=table)
