"""Turning T-Rex `get_stats()` snapshots into per-direction rates and loss.

The real server's `tx_pps`/`rx_pps` are EWMA-smoothed and keep decaying after a
stop, so every rate here comes from counter deltas between two snapshots.
Counters move in 0.5 s steps and the sampling clock jitters, so one sample's
TX delta over its own interval is a noisy rate. Loss is taken from TX and RX
deltas of the same snapshots (both ports step together, so it is exact), and
the offered rate is the asked rate unless the counters over a window of
several seconds show the generator falling short of it (T-Rex in software
mode, for example, sends far less than asked without any error).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path


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


@dataclass(frozen=True)
class DirSample:
    """One direction over one sample interval."""

    tx_packets: int  # delta of the TX port's opackets
    rx_packets: int  # delta of the RX port's ipackets
    tx_pps: float  # measured from the counter delta
    rx_pps: float
    intended_pps: float  # what the generator was asked to send
    loss_ratio: float  # (tx - rx) / tx of this interval, clamped to [0, 1]
    rx_errors: int  # delta of the RX port's ierrors
    generator_share: float = 1.0  # share of the asked rate the generator really sent
    rx_window_pps: float | None = None  # RX rate over the last second or so (less jitter)

    @property
    def offered_pps(self) -> float:
        """The asked rate while the generator keeps up; else what it sent."""
        if not self.intended_pps:
            return self.tx_pps
        if self.generator_share < 1.0:
            return min(self.intended_pps * self.generator_share, self.tx_pps)
        return self.intended_pps

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


SHORTFALL_TOLERANCE = 0.03  # clock jitter and rounding stay below this over a window


def generator_share(window: list[tuple[int, float, float]], lag: float) -> float:
    """Share of the asked rate the generator sent over a window of samples.

    `window` holds (sent packets, asked pps, seconds) per sample, oldest first.
    The counters may trail the sample times by up to `lag` seconds (one stats
    tick, plus the uncertainty of when the server read them), so the
    generator is taken to keep up unless it sent fewer packets than asked even
    allowing for the full lag at the window's end; only then is the share
    estimated (with half the lag, the average).
    """
    sent = sum(w[0] for w in window)
    asked = sum(w[1] * w[2] for w in window)
    lag_packets = window[-1][1] * min(lag, window_seconds(window)) if window else 0.0
    if asked <= 0 or sent >= (1.0 - SHORTFALL_TOLERANCE) * (asked - lag_packets):
        return 1.0
    return min(1.0, sent / max(asked - lag_packets / 2, 1e-9))


def window_seconds(window: list[tuple[int, float, float]]) -> float:
    return sum(w[2] for w in window)


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
    share: float = 1.0,
    rx_window_pps: float | None = None,
) -> DirSample:
    tx = port_counter(cur, direction.tx_port, "opackets") - port_counter(
        prev, direction.tx_port, "opackets"
    )
    rx = port_counter(cur, direction.rx_port, "ipackets") - port_counter(
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
        generator_share=share,
        rx_window_pps=rx_window_pps,
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
    return result


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
    """Write atomically, so a reader (or a crash) never sees half a file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
