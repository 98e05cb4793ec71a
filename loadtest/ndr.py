"""`ndr` mode: the highest rate whose loss is at or below each goal, via MLRsearch.

MLRsearch (FD.io CSIT's Multiple Loss Ratio search, PyPI `MLRsearch`) chooses
every trial; this module only measures. A trial is one T-Rex run: stats
cleared, traffic started with a fixed duration, waited for, a drain wait, then
counters read until two reads agree (they move in steps of the server's stats
tick and can lag behind the end of traffic).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from MLRsearch import (
    AbstractMeasurer,
    Config,
    MeasurementResult,
    MultipleLossRatioSearch,
    SearchGoal,
)

from loadtest.client import LoadtestError, RunInvalid, TrexSession, check_valid
from loadtest.dut import RunDut, verdict
from loadtest.profiles import TrafficSpec
from loadtest.profiles.streams import LATENCY_PG_BASE, LATENCY_PPS, build_streams, mult_arg
from loadtest.progress import Progress, fmt_pps
from loadtest.stats import (
    Direction,
    jsonable,
    latency,
    loss_ratio,
    port_counter,
    sent_received,
    write_json,
)

MAX_SETTLE_READS = 20
STRETCH_FACTOR = 1.02  # traffic running this much longer than asked, beyond the fixed
STRETCH_MARGIN = 0.05  # per-trial allowance (see stretch_allowance), means the generator fell short
WAIT_POLL = 0.02  # seconds between checks of the client's (event-driven) port state
PROBES = (0.1, 0.9)  # counter reads this far into a trial: the rate it really sent
KEPT_UP = 0.97  # share of the load a trial must provably send to count as keeping up
NO_LOWER_BOUND = "no lower bound"


@dataclass(frozen=True)
class NdrPlan:
    """Search settings. Rates are per direction in pps; durations in server seconds."""

    min_pps: float
    max_pps: float
    goals: tuple[float, ...] = (0.0, 0.005)  # loss ratios: 0 is NDR, 0.005 a PDR
    precision: float = 0.005  # relative width of the final interval
    trial_duration: float = 10.0  # final trial duration
    initial_duration: float = 1.0  # first, coarse trials
    duration_sum: float | None = None  # seconds of trials needed per bound (default: one trial)
    exceed_ratio: float = 0.0  # share of bad trial seconds a lower bound may have
    drain: float = 1.0  # wall seconds to wait after traffic ends
    stats_tick: float = 0.01  # how long counters may trail a read (wall s; real: current)
    max_search_time: float = 3600.0
    warmup: float = 0.0  # one untracked trial at max rate of this many seconds

    def config(self) -> Config:
        cfg = Config()
        cfg.goals = [
            SearchGoal(
                loss_ratio=ratio,
                exceed_ratio=self.exceed_ratio,
                relative_width=self.precision,
                initial_trial_duration=min(self.initial_duration, self.trial_duration),
                final_trial_duration=self.trial_duration,
                duration_sum=self.duration_sum or self.trial_duration,
                preceding_targets=2,
                expansion_coefficient=2,
                fail_fast=False,
            )
            for ratio in self.goals
        ]
        cfg.min_load = self.min_pps
        cfg.max_load = self.max_pps
        cfg.search_duration_max = self.max_search_time
        cfg.warmup_duration = self.warmup or None
        return cfg


class TrexMeasurer(AbstractMeasurer):
    """Runs MLRsearch trials on T-Rex; keeps a log of every trial."""

    def __init__(
        self,
        session: TrexSession,
        spec: TrafficSpec,
        dirs: list[Direction],
        plan: NdrPlan,
        on_trial: Callable[[dict], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        dut: RunDut | None = None,
    ) -> None:
        self.session = session
        self.dut = dut  # --dut-stats: VPP's counters at the start and end of every trial
        self.client = session.client
        self.spec = spec
        self.dirs = dirs
        self.plan = plan
        self.on_trial = on_trial or (lambda trial: None)
        self.clock = clock
        self.ports = sorted({p for d in dirs for p in (d.tx_port, d.rx_port)})
        self.tx_ports = [d.tx_port for d in dirs]
        self.trials: list[dict] = []
        # wall seconds of the slowest start RPC so far (the first trial seeds it)
        self.rpc_seconds = 0.0
        # fixed excess of a trial beyond its duration, learnt from unstretched trials
        self.overhead: float | None = None
        # an upper bound of the rate per direction the generator can send, learnt from
        # clearly stretched trials: a higher load cannot keep up, however short the trial
        self.ceiling = math.inf
        for d in dirs:
            self.client.add_streams(build_streams(session.api, spec, d.index), ports=[d.tx_port])

    def measure(self, intended_duration: float, intended_load: float) -> MeasurementResult:
        self.session.check_stop()
        started = self.clock()
        self.client.clear_stats(ports=self.ports)
        dut_start = self.dut.trial_begin() if self.dut else None
        mult = mult_arg(self.spec, intended_load)
        starting = self.clock()
        self.client.start(ports=self.tx_ports, mult=mult, duration=intended_duration)
        sending = self.clock()
        self.rpc_seconds = max(self.rpc_seconds, sending - starting)
        stopped_early, probes = self._wait(intended_duration, sending)
        traffic_seconds = self.clock() - sending
        time.sleep(self.plan.drain)
        # the real server counts flow statistics (the loss) of the next run only once the RX
        # filters of this one are gone; stop() removes them (after the drain: a packet that
        # arrives later counts as an error, not as received)
        self.client.stop(ports=self.tx_ports, rx_delay_ms=0)
        stats = self.session.settled_stats(self.ports, self.plan.stats_tick, MAX_SETTLE_READS)
        trial = self._trial(intended_duration, intended_load, stats, started, stopped_early)
        if self.dut:
            self.dut.trial_end(dut_start, trial)
        check_valid(self.session, self.ports, self.dut)  # an invalid trial is not recorded
        trial["traffic_seconds"] = round(traffic_seconds, 6)
        scale = self._share(intended_duration, intended_load, traffic_seconds, probes, trial)
        trial["stretched"] = scale < 1.0
        self.trials.append(trial)
        self.on_trial(trial)
        return MeasurementResult(
            intended_duration=intended_duration,
            intended_load=intended_load,
            offered_count=round(trial["tx_packets"] * scale),
            forwarding_count=round(trial["rx_packets"] * scale),
            # unsent packets (stretched or stopped) count as loss; T-Rex's +1 packet does not
            intended_count=max(trial["intended_packets"], trial["tx_packets"]),
        )

    def _share(self, duration: float, load: float, traffic_seconds: float,
               probes: list[tuple], trial: dict) -> float:
        """Share of the trial's packets sent in time: from the counters if they decide,
        else from how long the trial took."""
        sent = sum(d["port_tx_packets"] for d in trial["directions"].values())
        # the port counters also hold the latency probes, which run outside the multiplier
        probe_pps = LATENCY_PPS if self.spec.latency else 0.0
        rates = sent_rate_bounds(probes, sent, self.plan.stats_tick)
        share = self._counted_share((load + probe_pps) * len(self.dirs), rates, trial)
        if share is None:
            share = self._in_time_share(duration, load, traffic_seconds, trial)
        return share

    def _counted_share(self, load: float, rates: tuple[float, float] | None,
                       trial: dict) -> float | None:
        """The in-time share from the counters read mid-trial, when they settle it.

        The end of a trial is seen through the client's events, which a loaded machine
        delivers late; the counters show the rate itself. `rates` bounds the rate sent
        between the probes (when each read happened is known within its round trip);
        None when they do not decide (no two reads while sending, or too wide bounds).
        """
        if rates is None:
            return None
        low, high = rates
        trial["sent_pps_bounds"] = [round(low, 1), round(high, 1)]
        if low >= KEPT_UP * load:
            return 1.0
        if high < KEPT_UP * load:
            self.ceiling = min(self.ceiling, high / len(self.dirs))
            return min(1.0, low / load)
        return None

    def _in_time_share(self, duration: float, load: float, traffic_seconds: float,
                       trial: dict) -> float:
        """Share of the trial's packets that went out within its intended duration.

        A generator that cannot reach the rate sends the same packets over a longer
        time (the real T-Rex counts a duration in packets); only the share sent in
        time counts. Fixed per-trial overhead (RPCs, event delivery, a server that
        reports the end at its stats tick) is allowed for and is not a shortfall.
        """
        allowance = stretch_allowance(self.plan.stats_tick, self.rpc_seconds)
        trial["stretch_allowance"] = round(allowance, 6)
        excess = max(0.0, traffic_seconds - duration)
        if stretched(duration, traffic_seconds, allowance):
            # the packets took at least traffic_seconds - allowance to send
            self.ceiling = min(self.ceiling, load * duration / (traffic_seconds - allowance))
            fixed = 2 * self.rpc_seconds if self.overhead is None else self.overhead
            return min(1.0, duration / max(duration, traffic_seconds - fixed))
        if load > self.ceiling * STRETCH_FACTOR:
            # within the allowance, but above what the generator has been seen to manage
            return self.ceiling / load
        self.overhead = excess if self.overhead is None else min(self.overhead, excess)
        return 1.0

    def _wait(self, duration: float, sending: float) -> tuple[bool, list[tuple]]:
        """Wait for the duration to run out; True if it had to be cut short, and the
        probes: (read started, read done, packets sent) at PROBES of the duration.

        Under overload the real server stretches the duration (it counts
        packets, not seconds), so give it twice the time plus a margin.
        """
        deadline = self.clock() + duration * 2 + 10
        due = [sending + share * duration for share in PROBES]
        probes: list[tuple] = []
        while self.client.is_traffic_active(ports=self.tx_ports):
            self.session.check_stop()
            if self.clock() > deadline:
                self.client.stop(ports=self.tx_ports)
                return True, probes
            if due and self.clock() >= due[0]:
                due.pop(0)
                before = self.clock()
                stats = self.client.get_stats(ports=self.tx_ports)
                probes.append((before, self.clock(), sum(port_counter(stats, p, "opackets")
                                                         for p in self.tx_ports)))
            time.sleep(WAIT_POLL)
        self.session.check_stop()
        return False, probes

    def _trial(self, duration, load, stats, started, stopped_early) -> dict:
        per_dir = {}
        for d in self.dirs:
            tx, rx = sent_received(stats, d)
            rx = min(rx, tx)
            ptx = port_counter(stats, d.tx_port, "opackets")
            prx = port_counter(stats, d.rx_port, "ipackets")
            per_dir[d.label] = {
                "tx_packets": tx, "rx_packets": rx, "loss_ratio": loss_ratio(tx, rx),
                "port_tx_packets": ptx, "port_rx_packets": prx,
            }
            if self.spec.latency:
                per_dir[d.label]["latency"] = latency(stats, LATENCY_PG_BASE + d.index)
        tx = sum(v["tx_packets"] for v in per_dir.values())
        rx = sum(v["rx_packets"] for v in per_dir.values())
        return {
            "trial": len(self.trials) + 1,
            "load_pps": load,
            "duration": duration,
            "intended_packets": round(load * duration) * len(self.dirs),
            "tx_packets": tx,
            "rx_packets": rx,
            "loss_ratio": loss_ratio(tx, rx),
            "stopped_early": stopped_early,
            "wall_seconds": round(self.clock() - started, 6),
            "directions": per_dir,
            "stats": jsonable({k: v for k, v in stats.items() if k in self.ports}),
        }


def sent_rate_bounds(probes: list[tuple], total: int, lag: float
                     ) -> tuple[float, float] | None:
    """(lowest, highest) rate consistent with two mid-trial counter reads, if both were
    taken while the trial was still sending (fewer packets than it sent in all). The
    server read its counters within each round trip, and they trail by up to `lag`."""
    if len(probes) < 2 or probes[-1][2] >= total:
        return None
    (start1, done1, count1), (start2, done2, count2) = probes[0], probes[-1]
    shortest = start2 - done1 - lag
    if shortest <= 0:
        return None
    sent = count2 - count1
    return sent / (done2 - start1 + lag), sent / shortest


def stretch_allowance(stats_tick: float, rpc_seconds: float) -> float:
    """Seconds a trial may run beyond its duration without any shortfall of the generator:
    one stats tick (a server may report the end only at its next tick), the start RPC and
    the end event's delivery (about one round trip each), the wait's poll, a margin."""
    return stats_tick + 2 * rpc_seconds + WAIT_POLL + STRETCH_MARGIN


def stretched(duration: float, traffic_seconds: float, allowance: float) -> bool:
    """The real T-Rex counts a duration in packets: under overload it runs longer."""
    return traffic_seconds > duration * STRETCH_FACTOR + allowance


def goal_results(search: MultipleLossRatioSearch, plan: NdrPlan, trials: list[dict],
                 line_pps: float) -> list[dict]:
    """Bounds per goal from the search's database (works on a partial search too)."""
    out = []
    database = getattr(search, "database", None)
    for goal in search.config.goals:
        lower = upper = throughput = None
        if database is not None:
            target = search.scaling.goal_to_final_target[goal]
            bounds = database.get_relevant_bounds(target=target)
            lower = float(bounds.clo) if bounds.clo else None
            upper = float(bounds.chi) if bounds.chi else None
            if bounds.clo:
                stat = bounds.clo.target_to_stat[target]
                throughput = float(bounds.clo) * (1.0 - stat.pessimistic_loss_ratio)
        at_bounds = [t for t in trials if t["load_pps"] in (lower, upper)]
        out.append(
            {
                "loss_ratio": goal.loss_ratio,
                "name": "NDR" if goal.loss_ratio == 0 else f"PDR {goal.loss_ratio * 100:g}%",
                "lower_bound_pps": lower,
                "upper_bound_pps": upper,
                "conditional_throughput_pps": throughput,
                "lower_bound_pct_line": 100.0 * lower / line_pps if lower else None,
                "relative_width": (upper - lower) / upper if lower and upper else None,
                "trials": len(trials),
                "trials_at_bounds": len(at_bounds),
                "traffic_seconds": sum(t["duration"] for t in trials),
            }
        )
    return out


def run_ndr(
    session: TrexSession,
    spec: TrafficSpec,
    dirs: list[Direction],
    plan: NdrPlan,
    line_pps: float,
    run_vars: dict,
    output: Path | None = None,
    progress: Progress | None = None,
    dut: RunDut | None = None,
) -> dict:
    """Search; always stops traffic and writes the (possibly partial) JSON."""
    progress = progress or Progress(1.0, quiet=True)
    started = time.monotonic()
    result: dict = {"vars": run_vars, "mode": "ndr", "trials": [], "goals": [], "status": "running"}

    def on_trial(trial: dict) -> None:
        result["trials"].append(trial)
        progress.update(
            time.monotonic() - started,
            f"trial {trial['trial']}: {fmt_pps(trial['load_pps'])} x {trial['duration']:g}s"
            f" -> loss {trial['loss_ratio'] * 100:.4f}%",
        )
        if output:
            _write(output, result)

    search = MultipleLossRatioSearch(config=plan.config())
    try:
        measurer = TrexMeasurer(session, spec, dirs, plan, on_trial, dut=dut)
        search.search(measurer=measurer, debug=lambda text: None)
        result["status"] = "complete"
    except (KeyboardInterrupt, session.api.STLError) as err:
        result["status"], error = session.outcome(err)
        if error:
            result["error"] = error
    except RunInvalid as err:
        result["status"], result["error"] = "invalid", str(err)
    except RuntimeError as err:  # MLRsearch: search took too long
        result["status"] = "failed"
        result["error"] = str(err)
    finally:
        with contextlib.suppress(BaseException):  # server gone, or a second Ctrl-C
            session.client.stop(ports=[d.tx_port for d in dirs])
        progress.close()
        result["goals"] = goal_results(search, plan, result["trials"], line_pps)
        _fail_without_lower_bound(result, plan)
        result["summary"] = {
            "trials": len(result["trials"]),
            "traffic_seconds": sum(t["duration"] for t in result["trials"]),
            "wall_seconds": round(time.monotonic() - started, 3),
        }
        if dut:
            result["summary"]["dut"] = dut.finish_ndr(result["trials"])
        if output:
            _write(output, result)
    return result


def _fail_without_lower_bound(result: dict, plan: NdrPlan) -> None:
    """A finished search that has no lower bound for a goal found no answer: a failure."""
    missing = [g["name"] for g in result["goals"] if g["lower_bound_pps"] is None]
    if result["status"] != "complete" or not missing:
        return
    text = f"{NO_LOWER_BOUND} for {', '.join(missing)} down to --min-rate {fmt_pps(plan.min_pps)}"
    if result["trials"]:
        low = min(result["trials"], key=lambda t: t["load_pps"])
        text += (f": the lowest trial, {fmt_pps(low['load_pps'])}, lost "
                 f"{low['loss_ratio'] * 100:.4f}%")
        if low["stretched"]:
            text += " and ran too long (the generator could not keep up)"
    result["status"], result["error"] = "failed", text


def _write(output: Path, result: dict) -> None:
    try:
        write_json(output, result)
    except OSError as err:
        raise LoadtestError(f"cannot write {output}: {err.strerror}") from None


def summary_lines(result: dict) -> list[str]:
    if result.get("status") == "invalid":  # no bound from a search that lost its device
        return [f"INVALID search: {result.get('error')}; no rate is claimed from it"]
    lines = []
    for g in result["goals"]:
        if g["lower_bound_pps"] is None:
            searched = str(result.get("error", "")).startswith(NO_LOWER_BOUND)
            why = ("no rate down to the minimum met the goal" if searched
                   else f"search {result['status']}")
            lines.append(f"{g['name']}: no lower bound ({why})")
            continue
        # no upper bound: no trial up to --max-rate lost too much, the rate is a lower bound
        upper = (fmt_pps(g["upper_bound_pps"]) if g["upper_bound_pps"]
                 else "none (not saturated up to --max-rate)")
        lines.append(
            f"{g['name']}: {fmt_pps(g['conditional_throughput_pps'])} conditional throughput, "
            f"bounds {fmt_pps(g['lower_bound_pps'])} .. {upper} "
            f"({g['lower_bound_pct_line']:.2f}% of line), {g['trials']} trials"
        )
    if "dut" in result.get("summary", {}):
        lines.append(f"DUT: {verdict(result['summary']['dut'])}")
    return lines
