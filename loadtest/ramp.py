"""`ramp` mode: warm-up, linear ramp to a peak rate, hold; one sample per interval.

Each sample interval runs at one asked rate (the ramp is a staircase with one
step per sample), so every sample pairs a known asked rate with the counter
deltas measured during it. Output keeps the trex-loadtest / graph.rb layout
(`vars`, `stats` keyed by second with per-port get_stats() dicts and `global`)
and adds `samples` (derived per-direction figures) and `summary`.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from loadtest.client import LoadtestError, RunInvalid, TrexSession, check_valid
from loadtest.dut import RunDut, verdict
from loadtest.graphrb import port_rates
from loadtest.profiles import TrafficSpec
from loadtest.profiles.streams import LATENCY_PG_BASE, build_streams, mult_arg
from loadtest.progress import Progress, fmt_pps
from loadtest.stats import (
    LIMIT_WORDS,
    Direction,
    DirSample,
    dir_sample,
    generator_short,
    is_lossless,
    jsonable,
    latency,
    loss_ratio,
    port_counter,
    saturation_limit,
    sent_received,
    write_json,
)

CHECKPOINT_SECONDS = 10.0
SENT_WINDOW_TICKS = 4  # the sent rate over at least this many stats ticks (1 sample when live)
RX_WINDOW_SECONDS = 1.0  # forwarded rate: RX counted over at least this long (and 2 ticks)


@dataclass(frozen=True)
class Step:
    phase: str  # "warmup", "ramp" or "hold"
    pps: float  # asked rate per direction


@dataclass(frozen=True)
class RampPlan:
    """Rates are per direction, in packets per second."""

    warmup_pps: float
    start_pps: float
    peak_pps: float
    warmup: float = 5.0
    duration: float = 30.0
    hold: float = 5.0
    sample_interval: float = 1.0
    drain: float = 1.0
    stats_tick: float = 0.01  # how long counters may trail a read (the real ones are current)

    def steps(self) -> list[Step]:
        si = self.sample_interval
        n_warm = math.ceil(self.warmup / si - 1e-9)
        n_ramp = max(1, math.ceil(self.duration / si - 1e-9))
        n_hold = math.ceil(self.hold / si - 1e-9)
        steps = [Step("warmup", self.warmup_pps)] * n_warm
        span = self.peak_pps - self.start_pps
        steps += [Step("ramp", self.start_pps + span * (k + 1) / n_ramp) for k in range(n_ramp)]
        return steps + [Step("hold", self.peak_pps)] * n_hold


def summarize(
    samples: list[dict], dirs: list[Direction], line_pps: float, threshold: float,
    status: str = "complete",
) -> list[dict]:
    """Per direction: highest offered rate with loss <= threshold, highest forwarded rate.

    Offered rates are what the counters show was sent (never above the asked rate), so
    the lossless rate is never above the highest rate measured. A run that did not
    complete (`status`) and never lost is limited by that, not by its peak rate."""
    out = []
    for d in dirs:
        rows = [s["directions"][d.label] for s in samples if d.label in s["directions"]]
        rows = [r for r in rows if r["tx_packets"] > 0]
        good = [r["offered_pps"] for r in rows if is_lossless(r["loss_ratio"], threshold)]
        lossy = [r["offered_pps"] for r in rows if not is_lossless(r["loss_ratio"], threshold)]
        lossless = max(good, default=0.0)
        forwarded = max((r["forwarded_pps"] for r in rows), default=0.0)
        asked = max((r["intended_pps"] for r in rows), default=0.0)
        offered = max((r["offered_pps"] for r in rows), default=0.0)
        out.append(
            {
                "direction": d.label,
                "tx_port": d.tx_port,
                "rx_port": d.rx_port,
                "line_rate_pps": line_pps,
                "loss_threshold": threshold,
                "lossless_pps": lossless,
                "lossless_pct_line": 100.0 * lossless / line_pps,
                "max_forwarded_pps": forwarded,
                "max_forwarded_pct_line": 100.0 * forwarded / line_pps,
                "max_asked_pps": asked,
                "max_offered_pps": offered,
                # the generator itself fell short of the asked rate (e.g. T-Rex in software mode)
                "generator_limited": generator_short(asked, offered),
                # never lost more than the threshold: lossless_pps is a lower bound, and why
                "saturated": bool(lossy),
                "limit": _limit(bool(lossy), asked, offered, line_pps, status),
                "lossy_from_pps": min(lossy, default=None),  # where loss began
            }
        )
    return out


def _limit(saturated: bool, asked: float, offered: float, line_pps: float,
           status: str) -> str | None:
    limit = saturation_limit(saturated, asked, offered, line_pps)
    return status if limit is not None and status in ("interrupted", "failed") else limit


def totals(first: dict, last: dict, dirs: list[Direction]) -> dict:
    """Test packets sent and received per direction (flow statistics), with the ports'
    own counters beside them (those also count what the device sends by itself)."""
    out = {}
    for d in dirs:
        (tx1, rx1), (tx0, rx0) = sent_received(last, d), sent_received(first, d)
        tx, rx = tx1 - tx0, rx1 - rx0
        ptx = port_counter(last, d.tx_port, "opackets") - port_counter(first, d.tx_port, "opackets")
        prx = port_counter(last, d.rx_port, "ipackets") - port_counter(first, d.rx_port, "ipackets")
        out[d.label] = {"tx_packets": tx, "rx_packets": rx, "loss_ratio": loss_ratio(tx, rx),
                        "lost_packets": tx - rx, "port_tx_packets": ptx,
                        "port_rx_packets": prx, "port_loss_ratio": loss_ratio(ptx, prx)}
    return out


def settle_losses(samples: list[dict], label: str, lost_at_end: int | None) -> None:
    """Do not count packets still on their way as lost.

    Packets in flight through the device (its queues, af_packet rings) when a sample
    is read were sent but not yet received: they look lost and arrive in a later
    sample (a real VPP holds thousands). What was lost by the end of a sample is at
    most the TX - RX deficit of every later read, the drained one included (that
    one is the loss): when that bound is 0, the sample and all before it lost
    nothing. Past that point in flight and lost cannot be told apart; a sample keeps
    the larger of its own deficit growth and its growth of the bound, so a loss is
    never hidden. `lost_at_end`: the drained deficit, None when there was no drain.
    """
    rows = [s["directions"][label] for s in samples if label in s["directions"]]
    bounds, deficit = [], 0
    for row in rows:
        row.setdefault("instant_loss_ratio", row["loss_ratio"])
        deficit += row["tx_packets"] - row["rx_packets"]
        bounds.append(deficit)
    bound = math.inf if lost_at_end is None else lost_at_end
    for i in reversed(range(len(bounds))):
        bound = bounds[i] = max(0, min(bound, bounds[i]))
    before = 0
    for row, lost_by_now in zip(rows, bounds, strict=True):
        growth, before = lost_by_now - before, lost_by_now
        own = row["tx_packets"] - row["rx_packets"]
        lost = max(growth, own) if lost_by_now > 0 else 0
        row["lost_packets"] = lost
        row["loss_ratio"] = min(1.0, lost / row["tx_packets"]) if row["tx_packets"] > 0 else 0.0
        rx = row["rx_window_pps"] if row.get("rx_window_pps") is not None else row["rx_pps"]
        row["forwarded_pps"] = min(row["offered_pps"] * (1.0 - row["loss_ratio"]), rx)


class RampRun:
    """One ramp through an open session; `result` is valid JSON at every moment."""

    def __init__(
        self,
        session: TrexSession,
        spec: TrafficSpec,
        plan: RampPlan,
        dirs: list[Direction],
        line_pps: float,
        threshold: float,
        run_vars: dict,
        output: Path | None = None,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        dut: RunDut | None = None,
    ) -> None:
        self.session = session
        self.dut = dut  # --dut-stats: VPP's counters read beside T-Rex's
        self.client = session.client
        self.spec = spec
        self.plan = plan
        self.dirs = dirs
        self.line_pps = line_pps
        self.threshold = threshold
        self.output = output
        self.progress = progress or Progress(1.0, quiet=True)
        self.clock = clock
        self.ports = sorted({p for d in dirs for p in (d.tx_port, d.rx_port)})
        self.tx_ports = [d.tx_port for d in dirs]
        self.result: dict = {
            "vars": run_vars,
            "stats": {},
            "samples": [],
            "summary": {},
            "status": "running",
        }
        self._last_raw: dict | None = None
        self.first: dict | None = None  # stats right after clearing
        self.final: dict | None = None  # stats after the stop and drain
        sent_window = max(1, math.ceil(SENT_WINDOW_TICKS * plan.stats_tick / plan.sample_interval
                                       - 1e-9))
        self._sent_window = {d.label: deque(maxlen=sent_window) for d in dirs}
        rx_seconds = max(RX_WINDOW_SECONDS, 2 * plan.stats_tick)
        rx_window = max(1, math.ceil(rx_seconds / plan.sample_interval - 1e-9))
        self._rx_window = {d.label: deque(maxlen=rx_window) for d in dirs}

    def run(self) -> dict:
        """Run, always finishing with traffic stopped and the JSON written."""
        try:
            self._traffic()
            self.result["status"] = "complete"
        except (KeyboardInterrupt, self.session.api.STLError) as err:
            self.result["status"], error = self.session.outcome(err)
            if error:
                self.result["error"] = error
        except RunInvalid as err:
            self.result["status"], self.result["error"] = "invalid", str(err)
        finally:
            with contextlib.suppress(BaseException):  # a second Ctrl-C must not lose the JSON
                self._stop()
            self._finish()
        return self.result

    def _traffic(self) -> None:
        api, spec = self.session.api, self.spec
        for d in self.dirs:
            self.client.add_streams(build_streams(api, spec, d.index), ports=[d.tx_port])
        self.client.clear_stats(ports=self.ports)
        self.first = prev = self.client.get_stats(ports=self.ports)
        if self.dut:
            self.dut.begin()
        steps = self.plan.steps()
        si = self.plan.sample_interval
        t0 = last_t = self.clock()
        last_checkpoint = t0
        current = None
        for i, step in enumerate(steps):
            if step.pps != current:
                mult = mult_arg(spec, step.pps)
                if current is None:
                    self.client.start(ports=self.tx_ports, mult=mult)
                else:
                    self.client.update(ports=self.tx_ports, mult=mult)
                current = step.pps
            _sleep_until(self.clock, t0 + (i + 1) * si)
            self.session.check_stop()
            before = self.clock()
            stats = self.client.get_stats(ports=self.ports)
            after = self.clock()
            dut = self.dut.step() if self.dut else None  # right after T-Rex's: same interval
            now = (before + after) / 2  # the server read its counters in between
            check_valid(self.session, self.ports, self.dut)  # before the sample is kept
            self._record(i, now - t0, now - last_t, step, prev, stats, dut)
            prev, last_t = stats, now
            self.session.check_stop()
            if self.output and now - last_checkpoint >= CHECKPOINT_SECONDS:
                self._write()
                last_checkpoint = now

    def _record(self, i: int, elapsed: float, dt: float, step: Step, prev: dict, cur: dict,
                dut: dict | None = None):
        second = f"{(i + 1) * self.plan.sample_interval:.6g}"
        self.result["stats"][second] = jsonable(
            {k: v for k, v in cur.items() if k in self.ports or k == "global"}
        )
        per_dir: dict[str, DirSample] = {}
        for d in self.dirs:
            raw = dir_sample(prev, cur, d, dt, step.pps)
            sent = self._sent_window[d.label]
            sent.append((raw.tx_packets, dt))
            # a rate counts as offered only as far as the counters show it was sent
            sent_pps = sum(w[0] for w in sent) / max(sum(w[1] for w in sent), 1e-9)
            rx_window = self._rx_window[d.label]
            rx_window.append((raw.rx_packets, dt))
            rx_pps = sum(w[0] for w in rx_window) / max(sum(w[1] for w in rx_window), 1e-9)
            per_dir[d.label] = replace(raw, rx_window_pps=rx_pps, sent_pps=sent_pps)
        port_rates(self.result["stats"][second], self.dirs, per_dir, self.line_pps)
        sample = {
            "second": second,
            "elapsed": round(elapsed, 6),
            "phase": step.phase,
            "intended_pps": step.pps,
            "directions": {k: v.to_json() for k, v in per_dir.items()},
        }
        if self.spec.latency:
            sample["latency"] = {
                d.label: latency(cur, LATENCY_PG_BASE + d.index) for d in self.dirs
            }
        if dut is not None:
            sample["dut"] = dut
        self.result["samples"].append(sample)
        self._last_raw = cur
        self.progress.update(elapsed, self._line(step, per_dir))

    def _line(self, step: Step, per_dir: dict[str, DirSample]) -> str:
        parts = [f"{step.phase:6s} asked {fmt_pps(step.pps)}"]
        for label, s in per_dir.items():
            parts.append(
                f"{label}: tx {fmt_pps(s.tx_pps)} rx {fmt_pps(s.rx_pps)} "
                f"loss {s.loss_ratio * 100:.2f}%"
            )
        return " | ".join(parts)

    def _stop(self) -> None:
        try:
            stopping = self.clock()
            # keep the RX filters through the drain: flow statistics count what is still in
            # the device only while they are set (the client waits that long, then removes
            # them; after that a late packet counts as an error, not as received)
            self.client.stop(ports=self.tx_ports, rx_delay_ms=round(self.plan.drain * 1000))
            time.sleep(max(0.0, self.plan.drain - (self.clock() - stopping)))
            self.final = self.session.settled_stats(self.ports, self.plan.stats_tick, 5)
        except Exception:  # server gone or interrupted again: keep what we have
            self.final = self._last_raw
        if self.dut:
            self.dut.end()

    def _finish(self) -> None:
        self.progress.close()
        ended = self.first is not None and self.final is not None
        sums = totals(self.first, self.final, self.dirs) if ended else {}
        for d in self.dirs:
            settle_losses(self.result["samples"], d.label,
                          sums[d.label]["lost_packets"] if ended else None)
        dirs = summarize(self.result["samples"], self.dirs, self.line_pps, self.threshold,
                         self.result["status"])
        summary: dict = {"directions": dirs}
        if self.dut:
            summary["dut"] = self.dut.finish_ramp(self.result["samples"], sums)
        if ended:
            summary["totals"] = sums
            if self.spec.latency:
                summary["latency"] = {
                    d.label: latency(self.final, LATENCY_PG_BASE + d.index) for d in self.dirs
                }
        self.result["summary"] = summary
        if self.output:
            self._write()

    def _write(self) -> None:
        try:
            write_json(self.output, self.result)
        except OSError as err:
            raise LoadtestError(f"cannot write {self.output}: {err.strerror}") from None


def _sleep_until(clock: Callable[[], float], deadline: float) -> None:
    remaining = deadline - clock()
    if remaining > 0:
        time.sleep(remaining)


def summary_lines(result: dict) -> list[str]:
    """Human-readable summary for the end of a run."""
    lines = []
    directions = result["summary"].get("directions", [])
    if result.get("status") == "invalid":  # first, and no rate from what it measured
        lines.append(f"INVALID run: {result.get('error')}; no rate is claimed from it")
        directions = []
    for d in directions:
        lossless = f"lossless {fmt_pps(d['lossless_pps'])}"
        if d.get("limit"):  # never lost: a lower bound, not the device's capacity
            lossless = (f"lossless >= {fmt_pps(d['lossless_pps'])}, not saturated "
                        f"({LIMIT_WORDS[d['limit']]})")
        lossless += f" ({d['lossless_pct_line']:.2f}% of line)"
        if not d["lossless_pps"]:  # lost from the first step: no rate to claim
            lossy = d.get("lossy_from_pps")
            lossless = "none lossless" + (f" (loss from {fmt_pps(lossy)})" if lossy else "")
        lines.append(
            f"{d['direction']}: {lossless}, max forwarded "
            f"{fmt_pps(d['max_forwarded_pps'])} ({d['max_forwarded_pct_line']:.2f}%)"
            + ("  [generator could not reach the asked rate]" if d["generator_limited"] else "")
        )
    for label, t in (result["summary"].get("totals") or {}).items():
        lines.append(  # the whole run, warm-up and overload included: a count, not a result
            f"{label}: whole run: {t['tx_packets']} test packets sent, {t['lost_packets']} lost "
            f"({t['loss_ratio'] * 100:.4f}%); port counters: {t['port_tx_packets']} sent, "
            f"{t['port_rx_packets']} received"
        )
    if "dut" in result["summary"]:
        lines.append(f"DUT: {verdict(result['summary']['dut'])}")
    return lines
