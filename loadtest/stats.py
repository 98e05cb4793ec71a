"""Turning T-Rex `get_stats()` snapshots into per-direction rates and loss.

The real server's `tx_pps`/`rx_pps` are EWMA-smoothed and keep decaying after a
stop, so every rate here comes from counter deltas between two snapshots; the
real server's `opackets`/`ipackets` are exact and current at every read. Loss
is taken from TX and RX deltas of the same snapshots. The offered rate is the
asked rate, but never more than the counters show was sent: a generator can
fall far short of the asked rate without any error (T-Rex in software mode
sends everything late instead), and a rate claimed as lossless must have been
sent.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from vppcfg.safefile import write_atomic


@dataclass(frozen=True)
class Direction:
    """Traffic sent on `tx_port` and expected back on `rx_port`."""

    index: int
    tx_port: int
    rx_port: int

    @property
    def label(self) -> str:
        return f"{self.tx_port}->{self.rx_port}"


def directions(ports: tuple[int, int], bidirectional: bool) -> list[Direction]:
    first = Direction(0, ports[0], ports[1])
    return [first, Direction(1, ports[1], ports[0])] if bidirectional else [first]


def port_counter(stats: dict, port: int, name: str) -> int:
    """A port counter from a get_stats() dict (keys are ints, or strings once in JSON)."""
    block = stats.get(port, stats.get(str(port), {}))
    return int(block.get(name, 0))


def _per_port(block: dict, port: int) -> int:
    return int(block.get(port, block.get(str(port), 0)) or 0)


def flow_counter(stats: dict, port: int, name: str) -> int | None:
    """Test packets of every flow-statistics group (pg_id) on a port: `name` is "tx_pkts"
    or "rx_pkts". None when the snapshot has no flow statistics (then only port counters
    are known, and they also count what the device under test sends by itself)."""
    groups = stats.get("flow_stats") or {}
    blocks = [v for k, v in groups.items() if str(k) != "global" and isinstance(v, dict)]
    if not blocks:
        return None
    return sum(_per_port(block.get(name) or {}, port) for block in blocks)


def sent_received(stats: dict, direction: Direction) -> tuple[int, int]:
    """(sent, received) of a direction: flow statistics when present, else port counters."""
    tx = flow_counter(stats, direction.tx_port, "tx_pkts")
    rx = flow_counter(stats, direction.rx_port, "rx_pkts")
    if tx is None or rx is None:
        return (port_counter(stats, direction.tx_port, "opackets"),
                port_counter(stats, direction.rx_port, "ipackets"))
    return tx, rx


@dataclass(frozen=True)
class DirSample:
    """One direction over one sample interval."""

    tx_packets: int  # test packets sent (flow statistics; port opackets without them)
    rx_packets: int  # test packets received (flow statistics; port ipackets without them)
    tx_pps: float  # measured from the counter delta
    rx_pps: float
    intended_pps: float  # what the generator was asked to send
    loss_ratio: float  # (tx - rx) / tx of this interval, clamped to [0, 1]
    rx_errors: int  # delta of the RX port's ierrors
    rx_window_pps: float | None = None  # RX rate over the last second or so (less jitter)
    port_tx_packets: int | None = None  # delta of the TX port's opackets
    port_rx_packets: int | None = None  # delta of the RX port's ipackets (with the DUT's own)
    sent_pps: float | None = None  # sent rate over a few stats ticks (tx_pps when live)

    @property
    def offered_pps(self) -> float:
        """The asked rate, but never above what the counters show was sent."""
        sent = self.tx_pps if self.sent_pps is None else self.sent_pps
        return min(self.intended_pps, sent) if self.intended_pps else sent

    @property
    def forwarded_pps(self) -> float:
        """Offered minus loss, but never above the measured RX rate.

        Right after a rate step the counters (up to a tick late) still hold
        some of the previous, lower rate, which dilutes the loss of the new
        one; the measured RX rate (over a window, to damp clock jitter and
        counter steps) bounds that error.
        """
        rx = self.rx_pps if self.rx_window_pps is None else self.rx_window_pps
        return min(self.offered_pps * (1.0 - self.loss_ratio), rx)

    def to_json(self) -> dict:
        data = asdict(self)
        data["offered_pps"] = self.offered_pps
        data["forwarded_pps"] = self.forwarded_pps
        return data


def loss_ratio(tx: int, rx: int) -> float:
    if tx <= 0:
        return 0.0
    return min(1.0, max(0.0, (tx - rx) / tx))


def dir_sample(
    prev: dict,
    cur: dict,
    direction: Direction,
    seconds: float,
    intended_pps: float,
    rx_window_pps: float | None = None,
    sent_pps: float | None = None,
) -> DirSample:
    tx_now, rx_now = sent_received(cur, direction)
    tx_before, rx_before = sent_received(prev, direction)
    tx, rx = tx_now - tx_before, rx_now - rx_before
    port_tx = port_counter(cur, direction.tx_port, "opackets") - port_counter(
        prev, direction.tx_port, "opackets"
    )
    port_rx = port_counter(cur, direction.rx_port, "ipackets") - port_counter(
        prev, direction.rx_port, "ipackets"
    )
    errors = port_counter(cur, direction.rx_port, "ierrors") - port_counter(
        prev, direction.rx_port, "ierrors"
    )
    seconds = max(seconds, 1e-9)
    return DirSample(
        tx_packets=tx,
        rx_packets=rx,
        tx_pps=tx / seconds,
        rx_pps=rx / seconds,
        intended_pps=intended_pps,
        loss_ratio=loss_ratio(tx, rx),
        rx_errors=errors,
        rx_window_pps=rx_window_pps,
        sent_pps=sent_pps,
        port_tx_packets=port_tx,
        port_rx_packets=port_rx,
    )


def latency(stats: dict, pg_id: int) -> dict | None:
    """min/avg/max/jitter (µs) of a latency stream from get_stats(), if present."""
    groups = stats.get("latency") or {}
    block = groups.get(pg_id, groups.get(str(pg_id)))
    if not isinstance(block, dict) or not isinstance(block.get("latency"), dict):
        return None
    lat = block["latency"]
    result = {
        "min_us": lat.get("total_min"),
        "avg_us": lat.get("average"),
        "max_us": lat.get("total_max"),
        "jitter_us": lat.get("jitter"),
    }
    errors = block.get("err_cntrs") or {}
    if errors:
        result["errors"] = {k: v for k, v in errors.items() if isinstance(v, int)}
    hist = lat.get("histogram")
    if isinstance(hist, dict):
        # cumulative since the stats were cleared: a step's own is the difference of two reads
        result["histogram"] = {str(k): int(v) for k, v in sorted(hist.items(), key=_key_us)}
    return result


def _key_us(item: tuple) -> int:
    return int(item[0])


def jsonable(value):
    """get_stats() dicts have int keys and the odd non-JSON value; make them JSON."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float | int | str | bool) or value is None:
        if isinstance(value, float) and value != value:  # NaN is not JSON
            return None
        return value
    return str(value)


def write_json(path: Path | str, data: dict) -> None:
    """Write atomically and durably, so a reader (or a crash, or a full disk)
    never sees half a file. The run's output was checked at its start
    (check_replaceable): the file is then ours, rewritten as the run goes."""
    text = json.dumps(data, indent=1) + "\n"
    write_atomic(path, [text], force=True)


# --- the summary's rules: each a boundary the tests pin (just under, at, just over) ---

GENERATOR_SHORT = 0.95  # sent less than this share of the asked rate: the generator fell short
LINE_SHARE = 0.99  # asked at least this share of line rate: the line, not the device, was the top


def is_lossless(loss: float, threshold: float) -> bool:
    """A step counts as lossless when its loss ratio is at or below the threshold."""
    return loss <= threshold


def generator_short(asked_pps: float, offered_pps: float) -> bool:
    """The generator sent visibly less than it was asked (T-Rex in software mode does so
    without any error: it sends late instead)."""
    return bool(asked_pps) and offered_pps < GENERATOR_SHORT * asked_pps


def saturation_limit(saturated: bool, asked_pps: float, offered_pps: float,
                     line_pps: float) -> str | None:
    """Why a run that never lost more than its threshold stopped where it did: the figure
    is then a lower bound of the device's capacity, not its capacity. None when saturated.

    "generator": the generator could not send the asked rate; "line": the run asked line
    rate (nothing more fits on the wire); "asked": the run's own peak was below the device's
    capacity (ask for more to find it)."""
    if saturated:
        return None
    if generator_short(asked_pps, offered_pps):
        return "generator"
    if line_pps and asked_pps >= LINE_SHARE * line_pps:
        return "line"
    return "asked"


LIMIT_WORDS = {  # "not saturated: ..."
    "generator": "the generator's limit",
    "line": "line rate",
    "asked": "the run's peak rate",
    # the run ended before its peak: the figure says nothing of the device's limit
    "interrupted": "the run was interrupted before its peak rate",
    "failed": "the run failed before its peak rate",
}


# --- latency per step, from T-Rex's histogram ---

PERCENTILES = (50.0, 90.0, 99.0, 99.9)


def bucket_top_us(key: int) -> int:
    """Upper end of a T-Rex latency histogram bucket. Keys are lower bounds with one
    significant digit (10, 20, ... 90, 100, 200, ...): bucket 300 holds 300-399 µs; bucket
    0 holds what was under 10 µs."""
    if key < 10:
        return 10
    return key + 10 ** (len(str(key)) - 1)


def histogram_delta(now: dict | None, before: dict | None) -> dict[int, int]:
    """Packets per bucket between two cumulative histograms (buckets with none left out)."""
    now, before = now or {}, before or {}
    out = {}
    for key, count in now.items():
        diff = int(count) - int(before.get(key, before.get(str(key), 0)))
        if diff > 0:
            out[int(key)] = diff
    return dict(sorted(out.items()))


def percentile_us(hist: dict[int, int], pct: float) -> int | None:
    """The top of the bucket that holds the pct-th percentile: pct % of the packets took at
    most this long. None for an empty histogram."""
    total = sum(hist.values())
    if total <= 0:
        return None
    need = total * pct / 100.0
    seen = 0
    for key in sorted(hist):
        seen += hist[key]
        if seen >= need:
            return bucket_top_us(key)
    return bucket_top_us(max(hist))


def latency_step(hist: dict[int, int]) -> dict:
    """A step's latency figures from its own histogram."""
    out: dict = {"packets": sum(hist.values()), "histogram": {str(k): v for k, v in hist.items()}}
    for pct in PERCENTILES:
        out[f"p{pct:g}_us"] = percentile_us(hist, pct)
    return out
