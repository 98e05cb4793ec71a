"""`report`: one self-contained HTML page from ramp and ndr run JSON files.

The page answers, per run and direction: how much (the highest rate within the allowed
loss, or "at least" when the run never lost), where loss begins, how fast (latency per
step and at the highest lossless rate) and, with DUT counters, why. Charts are inline SVG
(loadtest.charts) plotted against the offered load, so the page needs no network and no
script.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from loadtest.charts import COLORS, DASHES, Chart, Mark, Series, svg_chart
from loadtest.client import UsageError
from loadtest.report_dut import DutStep, dut_status, dut_step, where_chart
from loadtest.stats import (
    LIMIT_WORDS,
    bucket_top_us,
    histogram_delta,
    is_lossless,
    latency_step,
    saturation_limit,
)

LOSSLESS_COLOR, LOSSY_COLOR = "#2ca02c", "#d62728"


@dataclass
class Row:
    """One result line: one meaning per column, whatever the mode."""

    what: str  # "0->1", or an ndr goal ("NDR", "PDR 0.5%")
    allowed: str  # the loss the rate may have: "≤ 0.1 %", "0"
    rate_pps: float | None  # highest rate with loss within `allowed`
    at_least: bool = False  # the run never lost more: rate_pps is a lower bound
    limit: str = ""  # why the run stopped there, when at_least
    pct_line: float | None = None
    lossy_from_pps: float | None = None  # lowest rate seen to lose more than allowed
    max_forwarded_pps: float | None = None  # ramp only: highest forwarded rate
    latency: str = ""  # latency at rate_pps (percentiles of that step's probes)
    note: str = ""


@dataclass
class DirView:
    """One direction of a run: its charts, VPP at the telling steps, latency."""

    label: str
    charts: list[tuple[str, Markup]] = field(default_factory=list)
    steps: list[DutStep] = field(default_factory=list)
    latency_words: str = ""
    histogram: list[tuple[str, str, str]] = field(default_factory=list)  # bucket, two steps
    lossy_from: float | None = None  # offered pps of the lowest step that lost too much


@dataclass
class Run:
    name: str
    path: str
    mode: str
    status: str
    vars: dict
    rows: list[Row] = field(default_factory=list)
    views: list[DirView] = field(default_factory=list)
    latency: list[dict] = field(default_factory=list)  # whole-run figures, per direction
    error: str | None = None
    forwarded: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    totals: list[dict] = field(default_factory=list)  # packets per direction, flow and port
    directions: list[dict] = field(default_factory=list)  # a ramp's summary per direction
    verdict: str = ""  # the DUT's one-line verdict (summary.dut.verdict)
    dut_line: str = ""  # whether DUT counters are in the file, and if not why
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
    def complete(self) -> bool:
        return self.status == "complete"

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


def fmt_rate(pps: float) -> str:
    """81.7k, 1.49M, 950: three significant digits and a unit letter. Rounded first, so
    999.6k reads 1M (not "1e+03k")."""
    rounded = float(f"{pps:.3g}")
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rounded >= scale:
            return f"{rounded / scale:.3g}{unit}"
    return f"{rounded:.3g}"


def fmt_pct(ratio: float) -> str:
    return f"{ratio * 100:g} %"


def _forwarded_pps(row: dict) -> float:
    """The forwarded rate the summary's max is taken from. A sample's own `rx_pps` is one
    counter delta over a jittery interval: with the real server's 0.5 s counter steps it
    swings between 1/2 and 3/2 of the true rate at some tick phases."""
    return row.get("forwarded_pps", row["rx_pps"])


def _offered(row: dict) -> float:
    return row.get("offered_pps", row.get("tx_pps", 0.0))


def latency_words(step: dict | None) -> str:
    """"p50 ≤ 20 µs, p90 ≤ 30 µs, p99 ≤ 40 µs (100 probes)" from latency_step()."""
    if not step or not step.get("packets"):
        return ""
    parts = [f"{name} ≤ {step[f'{name}_us']} µs" for name in ("p50", "p90", "p99")
             if step.get(f"{name}_us") is not None]
    return ", ".join(parts) + f" ({step['packets']} probes)"


# --- ramp runs ---


@dataclass
class _Point:
    """One sample of one direction, as the charts and the step views need it."""

    index: int
    offered: float  # pps
    forwarded: float
    loss: float
    sent: int
    dut: dict | None
    latency: dict | None  # latency_step() of this sample's own probes


def _points(samples: list[dict], label: str) -> list[_Point]:
    out, before = [], None
    for i, s in enumerate(samples):
        row = s.get("directions", {}).get(label)
        if row is None:
            continue
        lat = (s.get("latency") or {}).get(label) or {}
        hist = lat.get("histogram")
        step = latency_step(histogram_delta(hist, before)) if hist is not None else None
        before = hist if hist is not None else before
        out.append(_Point(i, _offered(row), _forwarded_pps(row), row.get("loss_ratio", 0.0),
                          int(row.get("tx_packets", 0)), s.get("dut"), step))
    return out


def _telling(points: list[_Point], threshold: float) -> tuple[_Point | None, _Point | None]:
    """The highest lossless step and the lowest lossy one (where loss began): the same
    rule as the summary's."""
    sent = [p for p in points if p.sent > 0]
    good = [p for p in sent if is_lossless(p.loss, threshold)]
    bad = [p for p in sent if not is_lossless(p.loss, threshold)]
    best = max(good, key=lambda p: p.offered, default=None)
    first = min(bad, key=lambda p: (p.offered, p.index), default=None)
    return best, first


def _marks(best: _Point | None, first: _Point | None) -> list[Mark]:
    marks = []
    if best:
        text = f"lossless {fmt_rate(best.offered)}" + ("" if first else ", never lost more")
        marks.append(Mark(best.offered / 1e6, text, LOSSLESS_COLOR))
    if first:
        marks.append(Mark(first.offered / 1e6, f"loss from {fmt_rate(first.offered)}",
                          LOSSY_COLOR))
    return marks


def _by_offered(points: list[_Point], value) -> list[tuple[float, float]]:
    return sorted((p.offered / 1e6, value(p)) for p in points if p.sent > 0)


def _direction_charts(view: DirView, points: list[_Point], marks: list[Mark]) -> None:
    label = view.label
    fwd = Chart([Series("offered = forwarded (no loss)", [(0.0, 0.0)], "#7f7f7f", dashed=True),
                 Series(f"forwarded {label}", _by_offered(points, lambda p: p.forwarded / 1e6),
                        COLORS[0], dots=True)],
                "offered Mpps", "forwarded Mpps", marks=marks)
    top = max((p.offered / 1e6 for p in points), default=1.0)
    fwd.series[0].points = [(0.0, 0.0), (top, top)]
    view.charts.append((f"Forwarded against offered, {label}", svg_chart(fwd)))
    loss = Chart([Series(f"loss {label}", _by_offered(points, lambda p: p.loss * 100),
                         LOSSY_COLOR, dots=True)], "offered Mpps", "loss %", marks=marks)
    view.charts.append((f"Loss against offered, {label}", svg_chart(loss)))
    where = where_chart([(p.offered / 1e6, p.sent, p.dut) for p in points if p.sent > 0], label)
    if where:
        where.marks = marks
        view.charts.append((f"Where the lost packets went, {label}", svg_chart(where)))


def _latency_chart(view: DirView, points: list[_Point], marks: list[Mark]) -> None:
    with_lat = [p for p in points if p.latency and p.latency.get("packets")]
    if not with_lat:
        return
    # percentiles often share a bucket: a dash each keeps every line visible
    series = [Series(name, sorted((p.offered / 1e6, p.latency[f"{name}_us"]) for p in with_lat),
                     color, dots=True, dash=dash)
              for name, color, dash in (("p50", "#1f77b4", ""), ("p90", "#ff7f0e", "7 4"),
                                        ("p99", "#d62728", "2 3"))]
    chart = Chart(series, "offered Mpps", "latency µs (log)", marks=marks, log_y=True)
    view.charts.append((f"Latency per step, {view.label}", svg_chart(chart)))


def _histogram_rows(best: _Point | None, first: _Point | None) -> list[tuple[str, str, str]]:
    hists = [(p.latency or {}).get("histogram", {}) if p else {} for p in (best, first)]
    keys = sorted({int(k) for h in hists for k in h})
    return [(_bucket_words(k), *(str(h.get(str(k), "")) for h in hists)) for k in keys]


def _bucket_words(key: int) -> str:
    """"10–20 µs", "2–3 ms": a histogram bucket, from its lower bound to the next one."""
    top = bucket_top_us(key)
    if not key:
        return "under 10 µs"
    if key >= 1000:
        return f"{key / 1000:g}–{top / 1000:g} ms"
    return f"{key}–{top} µs"


def _ramp_view(run: Run, samples: list[dict], label: str, threshold: float) -> DirView:
    view = DirView(label)
    points = _points(samples, label)
    best, first = _telling(points, threshold)
    view.lossy_from = first.offered if first else None
    marks = _marks(best, first)
    _direction_charts(view, points, marks)
    _latency_chart(view, points, marks)
    if run.vars.get("dut_stats"):
        for title, p in (("At the highest lossless step", best), ("Where loss began", first)):
            if p:
                loss = f", {p.loss * 100:.3g} % lost" if p.loss else ""
                view.steps.append(dut_step(f"{title} ({fmt_rate(p.offered)} offered{loss})",
                                           p.dut, label))
    if best and best.latency:
        view.latency_words = latency_words(best.latency)
    if best or first:
        view.histogram = _histogram_rows(best, first)
    return view


def _ramp_row(d: dict, view: DirView) -> Row:
    if "saturated" not in d:  # a file from before the rule: apply it to its samples
        d["limit"] = saturation_limit(view.lossy_from is not None, d.get("max_asked_pps", 0.0),
                                      d.get("max_offered_pps", 0.0), d.get("line_rate_pps", 0.0))
    limit = d.get("limit")
    return Row(
        what=d["direction"],
        allowed=f"≤ {fmt_pct(d.get('loss_threshold', 0.001))}",
        rate_pps=d["lossless_pps"],
        at_least=bool(limit),
        limit=LIMIT_WORDS.get(limit or "", ""),
        pct_line=d.get("lossless_pct_line"),
        lossy_from_pps=d.get("lossy_from_pps", view.lossy_from),
        max_forwarded_pps=d.get("max_forwarded_pps"),
        latency=view.latency_words,
        note="generator limited" if d.get("generator_limited") else "",
    )


def _ramp(run: Run, data: dict) -> None:
    samples = data.get("samples") or []
    summary = data.get("summary") or {}
    run.directions = list(summary.get("directions", []))
    labels = [d["direction"] for d in run.directions] or sorted(
        {k for s in samples for k in s.get("directions", {})})
    default = float(run.vars.get("loss_threshold", 0.1)) / 100.0
    for label in labels:
        d = next((x for x in run.directions if x["direction"] == label), {})
        view = _ramp_view(run, samples, label, d.get("loss_threshold", default))
        run.views.append(view)
        if d:
            run.rows.append(_ramp_row(d, view))
        run.forwarded[label] = sorted((_offered(r) / 1e6, _forwarded_pps(r) / 1e6)
                                      for s in samples
                                      if (r := s.get("directions", {}).get(label))
                                      and r.get("tx_packets", 1) > 0)
    for label, lat in (summary.get("latency") or {}).items():
        if lat:
            run.latency.append({"direction": label, **lat})
    for label, tot in (summary.get("totals") or {}).items():
        run.totals.append({"direction": label, **tot})


# --- ndr runs ---


def _trial_latency(trial: dict, label: str) -> dict | None:
    """A trial starts from cleared counters: its histogram is its own."""
    lat = (trial.get("directions", {}).get(label) or {}).get("latency") or {}
    hist = lat.get("histogram")
    return latency_step(histogram_delta(hist, None)) if hist is not None else None


def _ndr_rows(run: Run, data: dict) -> None:
    trials = data.get("trials", [])
    labels = sorted({k for t in trials for k in t.get("directions", {})}) or ["0->1"]
    for g in data.get("goals", []):
        lower, upper = g.get("lower_bound_pps"), g.get("upper_bound_pps")
        at = [t for t in trials if lower and t["load_pps"] == lower]
        lat = _trial_latency(at[-1], labels[0]) if at else None
        note = [f"{g.get('trials', len(trials))} trials"]
        if g.get("conditional_throughput_pps"):
            note.append(f"conditional throughput {fmt_rate(g['conditional_throughput_pps'])}")
        if lower is None:
            note.insert(0, "no lower bound")
        run.rows.append(Row(
            what=f"{g['name']} ({'both directions' if len(labels) > 1 else labels[0]})",
            allowed="0" if not g["loss_ratio"] else f"≤ {fmt_pct(g['loss_ratio'])}",
            rate_pps=lower,
            # no trial lost too much up to --max-rate: the bound is the search's, not the DUT's
            at_least=bool(lower) and upper is None,
            limit="the search's --max-rate was reached" if lower and upper is None else "",
            pct_line=g.get("lower_bound_pct_line"),
            lossy_from_pps=upper,
            latency=latency_words(lat),
            note=", ".join(note),
        ))


def _ndr_charts(run: Run, data: dict) -> None:
    trials = data.get("trials", [])
    if not trials:
        return
    goals = data.get("goals", [])
    marks = [Mark(g["lower_bound_pps"] / 1e6, f"{g['name']} {fmt_rate(g['lower_bound_pps'])}",
                  COLORS[(2 + i) % len(COLORS)])
             for i, g in enumerate(goals) if g.get("lower_bound_pps")]
    labels = sorted({k for t in trials for k in t.get("directions", {})})
    for label in labels:
        view = DirView(label)
        rows = [(t["load_pps"] / 1e6, t["directions"][label]) for t in trials
                if label in t.get("directions", {})]
        fwd = [(x, x * (1 - r["loss_ratio"])) for x, r in rows]
        top = max((x for x, _ in rows), default=1.0)
        view.charts.append((f"Forwarded against offered per trial, {label}", svg_chart(Chart(
            [Series("offered = forwarded", [(0.0, 0.0), (top, top)], "#7f7f7f", dashed=True),
             Series(f"forwarded {label}", fwd, COLORS[0], markers=True)],
            "offered Mpps", "forwarded Mpps", marks=marks))))
        good = [(x, r["loss_ratio"] * 100) for x, r in rows if r["loss_ratio"] == 0]
        bad = [(x, r["loss_ratio"] * 100) for x, r in rows if r["loss_ratio"] > 0]
        view.charts.append((f"Loss per trial against offered, {label}", svg_chart(Chart(
            [Series("no loss", good, LOSSLESS_COLOR, markers=True),
             Series("loss", bad, LOSSY_COLOR, markers=True)],
            "offered Mpps", "loss %", marks=marks))))
        where = where_chart([(t["load_pps"] / 1e6, t["directions"][label]["tx_packets"],
                              t.get("dut")) for t in trials if label in t.get("directions", {})],
                            label)
        if where:
            where.marks = marks
            view.charts.append((f"Where the lost packets went, {label}", svg_chart(where)))
        _ndr_latency(view, trials, marks)
        if run.vars.get("dut_stats"):
            _ndr_steps(view, trials, goals)
        run.views.append(view)


def _ndr_steps(view: DirView, trials: list[dict], goals: list[dict]) -> None:
    """VPP at the NDR's bounds: the last trial that met the goal, the one that did not."""
    ndr = next((g for g in goals if not g.get("loss_ratio")), None) or {}
    for title, load in (("At the NDR lower bound", ndr.get("lower_bound_pps")),
                        ("At the NDR upper bound", ndr.get("upper_bound_pps"))):
        at = [t for t in trials if load and t["load_pps"] == load
              and view.label in t.get("directions", {})]
        if at:
            loss = at[-1]["directions"][view.label]["loss_ratio"]
            lost = f", {loss * 100:.3g} % lost" if loss else ""
            view.steps.append(dut_step(f"{title} ({fmt_rate(load)} offered{lost})",
                                       at[-1].get("dut"), view.label))


def _ndr_latency(view: DirView, trials: list[dict], marks: list[Mark]) -> None:
    """Latency per trial against its load (each trial's own probes)."""
    points = [(t["load_pps"] / 1e6, lat) for t in trials
              if (lat := _trial_latency(t, view.label)) and lat.get("packets")]
    if not points:
        return
    series = [Series(name, sorted((x, lat[f"{name}_us"]) for x, lat in points), color,
                     markers=True)
              for name, color in (("p50", "#1f77b4"), ("p99", "#d62728"))]
    view.charts.append((f"Latency per trial, {view.label}", svg_chart(Chart(
        series, "offered Mpps", "latency µs (log)", marks=marks, log_y=True))))


def _ndr(run: Run, data: dict) -> None:
    # no whole-run latency: T-Rex's min/avg/max span every trial, overloaded ones too
    _ndr_rows(run, data)
    _ndr_charts(run, data)


# --- the page ---


def load_runs(paths: list[Path]) -> list[Run]:
    runs = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as err:
            raise UsageError(f"{path}: {err.strerror}") from None
        except json.JSONDecodeError as err:
            raise UsageError(f"{path}:{err.lineno}: not valid JSON ({err.msg})") from None
        except UnicodeDecodeError as err:  # a binary file: run files are UTF-8 JSON
            raise UsageError(f"{path}: not a trex-loadtest run (not UTF-8 text: byte "
                             f"0x{err.object[err.start]:02x} at offset {err.start})") from None
        if not isinstance(data, dict) or not isinstance(data.get("vars"), dict):
            raise UsageError(f"{path}: not a trex-loadtest run (no 'vars')")
        mode = data.get("mode") or data["vars"].get("mode") or "ramp"
        run = Run(Path(path).stem, str(path), mode, data.get("status", "complete"), data["vars"],
                  error=data.get("error"), index=len(runs))
        try:
            (_ndr if mode == "ndr" else _ramp)(run, data)
        except KeyError as err:  # a hand-edited or foreign file: name what is missing
            raise UsageError(f"{path}: not a complete {mode} run (no {err} where one is "
                             "needed)") from None
        except (TypeError, AttributeError, ValueError) as err:
            raise UsageError(f"{path}: not a {mode} run as trex-loadtest writes it ({err})"
                             ) from None
        summary_dut = (data.get("summary") or {}).get("dut")
        run.verdict = (summary_dut or {}).get("verdict") or ""
        run.dut_line = dut_status(run.vars, summary_dut)
        runs.append(run)
    return runs


def _alike(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    """Two lines a reader cannot tell apart on the chart (within 1 % everywhere)."""
    return len(a) == len(b) and all(
        abs(x1 - x2) <= 0.01 * max(abs(x1), 1e-9) and abs(y1 - y2) <= 0.01 * max(abs(y1), 1e-9)
        for (x1, y1), (x2, y2) in zip(a, b, strict=True))


def comparison_chart(runs: list[Run]) -> Markup | None:
    """Forwarded against offered, every ramp run and direction on one chart. A series that
    repeats an earlier one says so in its legend, and its own dash keeps both visible."""
    series: list[Series] = []
    for run in runs:
        if run.mode != "ramp":
            continue
        for label, points in run.forwarded.items():
            name = f"{run.name} {label}"
            same = next((s.label for s in series if _alike(s.points, points)), None)
            n = len(series)
            series.append(Series(f"{name} (≈ {same})" if same else name, points,
                                 COLORS[n % len(COLORS)], dash=DASHES[n % len(DASHES)],
                                 dots=True))
    if len(series) < 2:
        return None
    top = max((x for s in series for x, _ in s.points), default=1.0)
    ideal = Series("offered = forwarded", [(0.0, 0.0), (top, top)], "#7f7f7f", dashed=True)
    return svg_chart(Chart([ideal, *series], "offered Mpps (per direction)",
                           "forwarded Mpps (per direction)"))


@dataclass
class Cell:
    run: Run
    text: str  # "81.7k (100%)", or "≥ 407k (50%)" with note "not saturated: ..."
    generator_limited: bool = False  # the generator, not the device, set the figure
    note: str = ""


@dataclass
class SummaryTable:
    """The review's table: rows uni- and bidirectional, a column per frame size and flow
    pattern (1514b, imix, 64b many flows, 64b one flow), the lossless rate per direction."""

    columns: list[tuple[str, str]]  # (title, the flows walked)
    rows: list[tuple[str, list[Cell | None]]]


def _lossless(run: Run) -> Cell:
    """The direction that held the least: both directions held it."""
    if run.status == "invalid":  # what it measured is not a result
        return Cell(run, "invalid", False, run.error or "")
    worst = min(run.directions, key=lambda d: d["lossless_pps"])
    limits = [d.get("limit") for d in run.directions]
    text = f"{fmt_rate(worst['lossless_pps'])} ({worst['lossless_pct_line']:.3g}%)"
    notes = []
    if not worst["lossless_pps"]:  # lost from the first step: no rate to claim
        text = "none lossless"
        if worst.get("lossy_from_pps"):
            notes.append(f"loss from {fmt_rate(worst['lossy_from_pps'])}")
    elif worst.get("limit"):
        text = "≥ " + text
        notes.append(f"not saturated: {LIMIT_WORDS[worst['limit']]}")
    if not run.complete:
        notes.append(run.status)
    return Cell(run, text, any(d.get("generator_limited") for d in run.directions)
                and "generator" not in limits, "; ".join(notes))


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
    env.filters["mpps"] = lambda pps: "" if pps is None else f"{pps / 1e6:.4f}"
    template = env.get_template("report.html.j2")
    return template.render(title=title, runs=runs, comparison=comparison_chart(runs),
                           summary=summary_table(runs))
