"""The report's DUT view: where the lost packets went, and VPP's state at a step, in words.

Reads the `dut` objects of the run JSON (see docs/loadtest.md, "DUT counters"): each
sample's or trial's counter deltas, and the summary's verdict. Nothing here talks to VPP.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from loadtest.charts import Chart, Series, Stack
from loadtest.dut import SATURATION_MIN_CALLS
from loadtest.dut import SATURATION_VECTORS_PER_CALL as SATURATED_VPC

# the busiest node at or above SATURATED_VPC vectors per call (and called at least
# SATURATION_MIN_CALLS times) runs full vectors: VPP's CPU cannot keep up. The verdict's own
# thresholds (loadtest.dut), so the words at a step agree with the one-line verdict.

# the legend of the "where the lost packets went" chart (the verdict's own wording is
# loadtest.dut.CHART_LABELS); drops inside VPP are labelled by node and reason
CHART_LABELS = {
    "before-dut": "lost before VPP counted it",
    "after-dut": "lost after VPP sent it",
    "unaccounted": "unaccounted (no counter explains it)",
}
CAUSE_COLORS = {"before-dut": "#ff7f0e", "after-dut": "#1f77b4", "unaccounted": "#7f7f7f"}
DROP_COLORS = ("#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")


@dataclass
class DutStep:
    """VPP at one step of a run, for the page: words first, the counters beside them."""

    title: str  # "highest lossless step (1.22 Mpps)"
    words: list[str] = field(default_factory=list)
    nodes: list[dict] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    interfaces: list[dict] = field(default_factory=list)  # {"name": ..., counters}


def cause_key(cause: dict) -> str:
    """One key per cause; a drop inside VPP is told apart by node and reason."""
    if cause.get("cause") == "dut-drop":
        return f"dropped in VPP: {cause.get('node', '?')}: {cause.get('reason', '?')}"
    return CHART_LABELS.get(cause.get("cause", ""), str(cause.get("cause")))


def _cause_color(key: str, drops: list[str]) -> str:
    for cause, words in CHART_LABELS.items():
        if key == words:
            return CAUSE_COLORS[cause]
    return DROP_COLORS[drops.index(key) % len(DROP_COLORS)]


def _ordered_keys(totals: dict[str, int]) -> list[str]:
    """Before VPP, the drops inside it (most first), after VPP, the unexplained rest."""
    drops = sorted((k for k in totals if k not in CHART_LABELS.values()), key=lambda k: -totals[k])
    ends = [CHART_LABELS[c] for c in ("before-dut",) if CHART_LABELS[c] in totals]
    tail = [CHART_LABELS[c] for c in ("after-dut", "unaccounted") if CHART_LABELS[c] in totals]
    return ends + drops + tail


def where_chart(points: list[tuple[float, int, dict]], label: str) -> Chart | None:
    """Stacked bars per step: the share of the sent packets each cause lost.

    `points`: (offered Mpps, test packets sent, the step's `dut`) in run order. None when
    no step carries an attribution for this direction."""
    rows = []
    for x, sent, dut in points:
        causes = ((dut or {}).get("loss_attribution") or {}).get(label)
        if causes is None or sent <= 0:
            continue
        per: dict[str, int] = {}
        for cause in causes:
            key = cause_key(cause)
            per[key] = per.get(key, 0) + int(cause.get("packets", 0))
        rows.append((x, sent, per))
    if not rows:
        return None
    totals: dict[str, int] = {}
    for _, _, per in rows:
        for key, packets in per.items():
            totals[key] = totals.get(key, 0) + packets
    keys = [k for k in _ordered_keys(totals) if totals[k] > 0]
    drops = [k for k in keys if k not in CHART_LABELS.values()]
    layers = [(k, _cause_color(k, drops), [100.0 * per.get(k, 0) / sent for _, sent, per in rows])
              for k in keys]
    loss = Series("loss (T-Rex)", [(x, 100.0 * sum(per.values()) / sent) for x, sent, per in rows],
                  "#222222", markers=True)
    return Chart([loss], "offered Mpps", "% of sent packets lost",
                 stack=Stack([x for x, _, _ in rows], layers))


def _node_words(nodes: list[dict] | None, note: str | None = None) -> str:
    if nodes is None:  # the JSON says why: counters off, or VPP's collector did not run
        why = note or ("no per-node counters (VPP's statseg per-node-counters is off)")
        return f"VPP's CPU load is unknown: {why}."
    if not nodes:
        return "VPP handled no packets."
    top = nodes[0]
    vpc = float(top.get("vectors_per_call") or 0.0)
    text = (f"VPP's busiest node is {top.get('node')} at {vpc:.1f} vectors/call, "
            f"{float(top.get('clocks_per_packet') or 0):.0f} clocks/packet")
    if int(top.get("calls") or 0) < SATURATION_MIN_CALLS:
        return text + f" over only {int(top.get('calls') or 0)} calls: too few to judge."
    if vpc >= SATURATED_VPC:
        return text + ": saturated (its vectors are full; VPP's CPU cannot keep up)."
    return text + ": not saturated (VPP had time to spare)."


def _drop_words(causes: list[dict]) -> str:
    drops = [c for c in causes if c.get("cause") == "dut-drop" and c.get("packets")]
    if not drops:
        return "No test packet was dropped inside VPP."
    parts = [f"{c.get('node')}: {c.get('reason')} ({int(c['packets']):,})" for c in drops]
    return "Dropped inside VPP: " + "; ".join(parts) + "."


def _loss_words(causes: list[dict]) -> str | None:
    lost = sum(int(c.get("packets", 0)) for c in causes)
    if lost <= 0:
        return None
    parts = [f"{100.0 * int(c['packets']) / lost:.0f} % {cause_key(c)}"
             for c in sorted(causes, key=lambda c: -int(c.get("packets", 0)))
             if c.get("packets")]
    return f"{lost:,} test packets lost: " + ", ".join(parts) + "."


def _miss_words(interfaces: dict) -> str | None:
    missed = [(name, int(c.get("rx_miss", 0))) for name, c in interfaces.items()
              if int(c.get("rx_miss", 0) or 0) > 0]
    if not missed:
        return None
    parts = [f"{name} {count:,}" for name, count in missed]
    return ("rx-miss (the receive ring overflowed before VPP read it): "
            + ", ".join(parts) + ".")


def dut_step(title: str, dut: dict | None, label: str) -> DutStep:
    """VPP's counters at one step in a router operator's words."""
    step = DutStep(title)
    if not dut:
        step.words.append("No DUT counters for this step.")
        return step
    causes = (dut.get("loss_attribution") or {}).get(label) or []
    interfaces = dut.get("interfaces") or {}
    step.nodes = list(dut.get("nodes") or [])
    step.errors = list(dut.get("errors") or [])
    # interfaces that counted nothing (local0, idle ports) only lengthen the table
    step.interfaces = [{"name": name, **counters} for name, counters in interfaces.items()
                       if any(counters.values())]
    # nodes None: no node figures for this step, nodes_note says why (not "no packets")
    words = [_node_words(dut.get("nodes"), dut.get("nodes_note")), _drop_words(causes),
             _loss_words(causes), _miss_words(interfaces)]
    step.words = [w for w in words if w]
    return step


def dut_status(run_vars: dict, summary_dut: dict | None) -> str:
    """One line on whether the run has DUT counters, and if not why."""
    if not run_vars.get("dut_stats"):
        return ("DUT counters not read: run with --dut-stats SOCKET (VPP's stats socket) to see "
                "why packets were lost.")
    if not summary_dut:
        return f"DUT counters from {run_vars['dut_stats']}: none in this file."
    if not summary_dut.get("available"):
        return f"DUT counters missing: {summary_dut.get('reason') or 'no reason given'}."
    return f"DUT counters read from {run_vars['dut_stats']}."
