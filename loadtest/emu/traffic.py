"""Traffic and device-under-test model: counters as a function of emulated time.

Nothing here moves packets. A port's traffic is a list of segments, each with constant
per-stream rates; counters at time t are read off the segment covering t. This keeps the
CPU cost independent of the packet rate (14.88 Mpps costs the same as 10 pps).
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .config import EmuConfig

L1_OVERHEAD = 20  # preamble + inter-frame gap, bytes
FCS = 4


def f32(value: float) -> float:
    """Round to single precision: the real server keeps its rates as C floats."""
    return struct.unpack("f", struct.pack("f", value))[0]


@dataclass
class Stream:
    """One stream as added by add_stream, with what the model needs pre-computed."""

    stream_id: int
    key: int  # unique per server: counters outlive the stream id, which gets reused
    json: dict
    frame_len: int  # bytes on the wire including FCS, excluding preamble/IFG
    base_pps: float  # the stream's own rate before the start multiplier
    enabled: bool
    self_start: bool
    limit: int | None  # packets per run for burst modes, None = continuous
    pg_id: int | None
    latency: bool

    @classmethod
    def from_json(cls, stream_id: int, key: int, js: dict, speed_bps: float) -> Stream:
        packet = base64.b64decode(js.get("packet", {}).get("binary", "") or b"")
        frame_len = max(len(packet), 60) + FCS
        mode = js.get("mode", {})
        rate = mode.get("rate", {})
        base_pps = _rate_to_pps(rate.get("type", "pps"), float(rate.get("value", 1.0)),
                                frame_len, speed_bps)
        limit = None
        if mode.get("type") == "single_burst":
            limit = int(mode.get("total_pkts", 0))
        elif mode.get("type") == "multi_burst":
            limit = int(mode.get("pkts_per_burst", 0)) * int(mode.get("count", 1))
        fs = js.get("flow_stats") or {}
        pg_id = int(fs["stream_id"]) if fs.get("enabled") and "stream_id" in fs else None
        return cls(stream_id, key, js, frame_len, base_pps, bool(js.get("enabled", True)),
                   bool(js.get("self_start", True)), limit, pg_id,
                   fs.get("rule_type") == "latency")


def _rate_to_pps(kind: str, value: float, frame_len: int, speed_bps: float) -> float:
    if kind == "bps_L1":
        return value / ((frame_len + L1_OVERHEAD) * 8)
    if kind == "bps_L2":
        return value / (frame_len * 8)
    if kind == "percentage":
        return speed_bps * value / 100.0 / ((frame_len + L1_OVERHEAD) * 8)
    return value


def multiplier_for(mul: dict, streams: list[Stream], speed_bps: float) -> float:
    """Turn a start/update `mul` object into the factor applied to every stream's rate."""
    kind, value = mul.get("type", "raw"), float(mul.get("value", 1.0))
    pps = sum(s.base_pps for s in streams)
    if kind == "raw" or pps <= 0:
        return value
    if kind == "pps":
        return value / pps
    if kind == "bps":
        return value / sum(s.base_pps * s.frame_len * 8 for s in streams)
    l1_bps = sum(s.base_pps * (s.frame_len + L1_OVERHEAD) * 8 for s in streams)
    if kind == "bpsl1":
        return value / l1_bps
    return speed_bps * value / 100.0 / l1_bps  # percentage


@dataclass
class Counts:
    """Per-stream packet counts at one instant."""

    tx: dict[int, int] = field(default_factory=dict)
    rx: dict[int, int] = field(default_factory=dict)
    # received but not counted by flow statistics (a run started over stale RX filters)
    unseen: dict[int, int] = field(default_factory=dict)

    def copy(self) -> Counts:
        return Counts(dict(self.tx), dict(self.rx), dict(self.unseen))

    def flow_rx(self, key: int) -> int:
        return self.rx.get(key, 0) - self.unseen.get(key, 0)


@dataclass
class Segment:
    """Constant-rate interval of one port's transmission."""

    t0: float
    t_end: float  # when transmission stops by itself (duration/burst), or inf
    streams: list[Stream]
    tx_pps: dict[int, float]  # actual per-stream transmit rate
    fwd: float  # fraction the device forwards
    start: Counts  # counters at t0
    caps: dict[int, int]  # per-stream packet count at which the stream stops (absolute)
    latency_us: float
    scale: float  # actual / asked rate: how fast the scheduler's virtual time runs
    extra: int  # 1 when the first packet goes out at t0 itself (the 30001 effect)
    t1: float = math.inf  # closed by update/stop
    flow_rx: bool = True  # flow statistics count what arrives (False: stale RX filters)
    # per-stream forwarded fractions where streams fare differently (the VPP simulator
    # drops a TTL-1 stream and forwards the rest); None: `fwd` for every stream
    stream_fwd: dict[int, float] | None = None

    def fwd_of(self, key: int) -> float:
        if self.stream_fwd is not None and key in self.stream_fwd:
            return self.stream_fwd[key]
        return self.fwd

    def virtual_elapsed(self, t: float) -> float:
        return max(0.0, min(t, self.t1, self.t_end) - self.t0) * self.scale

    def counts(self, t: float) -> Counts:
        dt = min(t, self.t1, self.t_end) - self.t0
        out = self.start.copy()
        if dt < 0:
            return out
        done = t >= self.t_end and self.t1 >= self.t_end  # ran out: every cap reached
        for s in self.streams:
            sid = s.key
            cap = self.caps[sid] - self.start.tx[sid]
            sent = cap if done else min(math.floor(self.tx_pps[sid] * dt + 1e-9) + self.extra, cap)
            out.tx[sid] = self.start.tx[sid] + sent
            out.rx[sid] = self.start.rx[sid] + math.floor(sent * self.fwd_of(sid) + 1e-9)
            if not self.flow_rx:
                out.unseen[sid] = self.start.unseen.get(sid, 0) + out.rx[sid] - self.start.rx[sid]
        return out


class Ewma:
    """The real server's smoothed rate: once per second new = 0.5*old + 0.5*last second."""

    def __init__(self) -> None:
        self.value = 0.0

    def step(self, last_second: float) -> None:
        self.value = 0.5 * self.value + 0.5 * last_second


@dataclass
class LatencyAcc:
    """Latency accumulators of one latency pg_id."""

    counted: int = 0
    total: float = 0.0
    t_min: float = 0.0
    t_max: float = 0.0
    last_max: float = 0.0
    jitter: float = 0.0
    hist: dict[int, int] = field(default_factory=dict)

    def add(self, packets: int, avg_us: float) -> None:
        """Account `packets` new packets whose mean latency is `avg_us`."""
        if packets <= 0:
            return
        lo, hi = avg_us * 0.7, avg_us * 1.9
        self.t_min = lo if self.counted == 0 else min(self.t_min, lo)
        self.t_max = max(self.t_max, hi)
        self.last_max = hi
        self.jitter = avg_us * 0.15
        self.counted += packets
        self.total += packets * avg_us
        # spread over three histogram buckets around the mean: 20 % / 60 % / 20 %
        low, mid = packets // 5, packets * 3 // 5
        for value, n in ((lo, low), (avg_us, mid), (hi, packets - low - mid)):
            if n:
                bucket = _bucket(value)
                self.hist[bucket] = self.hist.get(bucket, 0) + n

    def to_json(self) -> dict:
        avg = self.total / self.counted if self.counted else 0.0
        return {"lat": {"average": float(round(avg)),
                        "histogram": {str(k): v for k, v in sorted(self.hist.items())},
                        "jit": int(self.jitter), "last_max": int(self.last_max),
                        "total_max": int(self.t_max), "total_min": int(self.t_min)}}


def _bucket(us: float) -> int:
    """Histogram key: lower bound with one significant digit (10, 20, …, 90, 100, 200, …)."""
    if us < 10:
        return 0
    mag = 10 ** math.floor(math.log10(us))
    return int(us // mag) * mag


class PortTraffic:
    """Counters, smoothed rates and flow stats of one transmitting port."""

    def __init__(self, port_id: int, cfg: EmuConfig) -> None:
        self.port_id = port_id
        self.cfg = cfg
        self.segments: list[Segment] = []
        self.settled = Counts()  # counts before the oldest kept segment
        self.frame_len: dict[int, int] = {}
        self.tx_pps, self.tx_bps = Ewma(), Ewma()
        self.rx_pps, self.rx_bps = Ewma(), Ewma()  # of the traffic this port sends (seen at peer)
        self.cpu = Ewma()
        self.rate_second = 0  # last whole emulated second folded into the EWMAs
        # the device when it is the VPP simulator (vppsim.VppSimLink.offer): asked at each
        # segment for (forwarded fraction, load); None, or an answer of None: our own model
        self.link: Callable[..., tuple[float, float] | None] | None = None

    # -- running -------------------------------------------------------------------------
    def start(self, t: float, streams: list[Stream], mult: float, duration: float,
              first: bool = True, flow_rx: bool = True) -> float:
        """Open a segment at time t; returns when the transmission ends by itself.

        `duration` is in the scheduler's virtual time (<= 0: none); `first` is False when
        an update or resume continues a run; `flow_rx` False when flow statistics do not
        count what this run's streams deliver.
        """
        extra = 1 if (first and self.cfg.off_by_one and duration > 0) else 0
        now = self._model(t)
        for s in streams:
            self.frame_len[s.key] = s.frame_len
            now.tx.setdefault(s.key, 0)
            now.rx.setdefault(s.key, 0)
        self._close(t)
        # the real server sends a latency stream at its own rate: the multiplier skips it
        asked = {s.key: s.base_pps * (1.0 if s.latency else mult) for s in streams}
        total = sum(asked.values())
        scale = min(1.0, self.cfg.max_tx_pps / total) if total > 0 else 1.0
        tx_pps = {sid: r * scale for sid, r in asked.items()}
        caps, t_end = {}, math.inf
        for s in streams:
            limit = s.limit
            if duration > 0:
                # the duration runs in the scheduler's virtual time: rate×duration packets
                by_time = math.floor(asked[s.key] * duration + 1e-9)
                limit = by_time if limit is None else min(limit, by_time)
            if limit is None:
                caps[s.key] = 2**62
                continue
            limit += extra
            caps[s.key] = now.tx[s.key] + limit
            rate = tx_pps[s.key]
            t_stream = t + (limit / rate if rate > 0 else 0.0)
            t_end = t_stream if t_end == math.inf else max(t_end, t_stream)
        if any(c == 2**62 for c in caps.values()):
            t_end = math.inf
        offered = sum(tx_pps.values())
        fwd, lat = self._device(offered)
        stream_fwd = None
        if self.link is not None:
            # the simulator counts up to t under the old offer, then takes the new one
            answer = self.link(self.port_id, t, self.totals(self.counts_at(t)), streams, tx_pps)
            if answer is not None:
                fwd, lat = answer[0], self._latency(answer[1])
                stream_fwd = {s.key: f for s, f in zip(streams, answer[2], strict=True)}
        self.segments.append(Segment(t, t_end, list(streams), tx_pps, fwd, now, caps, lat,
                                     scale, extra, flow_rx=flow_rx, stream_fwd=stream_fwd))
        return t_end

    def stop(self, t: float) -> None:
        self._close(t)

    def reoffer(self, t: float) -> None:
        """The device changed under a running transmission (the simulator went away):
        from t on, what is sent is forwarded as the device now says (then: nothing)."""
        if self.link is None or not self.segments or self.segments[-1].t1 != math.inf:
            return
        seg = self.segments[-1]
        now = self._model(t)
        self._close(t)
        answer = self.link(self.port_id, t, self.totals(self.counts_at(t)), seg.streams,
                           seg.tx_pps)
        fwd, per_stream = seg.fwd, seg.stream_fwd
        if answer is not None:
            fwd = answer[0]
            per_stream = {s.key: f for s, f in zip(seg.streams, answer[2], strict=True)}
        self.segments.append(replace(seg, t0=t, start=now, fwd=fwd, stream_fwd=per_stream,
                                     t1=math.inf, extra=0))

    def _close(self, t: float) -> None:
        if self.segments and self.segments[-1].t1 == math.inf:
            self.segments[-1].t1 = t

    def _device(self, offered: float) -> tuple[float, float]:
        """Forwarded fraction and mean latency for `offered` pps through this direction."""
        cap = self.cfg.capacity(self.port_id)
        base = self.cfg.latency_us
        if cap is None:
            return 1.0, base
        if offered <= 0:
            return 1.0, base
        load = offered / cap if cap > 0 else math.inf
        fwd = min(1.0, cap / offered)
        width = self.cfg.loss_ramp_width
        if width > 0 and load > 1.0 - width:
            fwd *= 1.0 - self.cfg.loss_ramp_max * min(1.0, (load - (1.0 - width)) / width)
        return fwd, self._latency(load)

    def _latency(self, load: float) -> float:
        """Mean latency at `load` (offered / capacity): queues fill as it nears 1."""
        base = self.cfg.latency_us
        if load > 1.0:
            return base + self.cfg.overload_latency_us
        return base + self.cfg.latency_load_us * load**8

    # -- reading -------------------------------------------------------------------------
    def counts_at(self, t: float) -> Counts:
        """Counters at time t: what arrives has spent the device's delay in it."""
        out = self._model(t)
        delay = self.cfg.dut_delay_ms / 1000.0
        if delay > 0:
            late = self._model(t - delay)
            out.rx = {k: late.rx.get(k, 0) for k in out.rx.keys() | late.rx.keys()}
            out.unseen = dict(late.unseen)
        return out

    def _model(self, t: float) -> Counts:
        """Counters at time t as if the device delivered at once."""
        for seg in reversed(self.segments):
            if seg.t0 <= t:
                return seg.counts(t)
        return self.settled.copy()

    def visible(self, t: float) -> Counts:
        """Counters as the server shows them: current (the real server's are), or with a
        stats tick frozen at the last tick while sending, but complete as soon as a run
        has ended (finished, stopped or paused)."""
        return self.counts_at(max(self.tick_floor(t), self.last_end(t)))

    def last_end(self, t: float) -> float:
        """When the latest run that ended by time t ended (-inf if none)."""
        next_start = math.inf
        for seg in reversed(self.segments):
            end = min(seg.t1, seg.t_end)
            if end <= t and end < next_start:  # an update continues the run: no end
                return end
            next_start = seg.t0
        return -math.inf

    def tick_floor(self, t: float) -> float:
        tick = self.cfg.stats_tick
        if tick <= 0:
            return t
        return math.floor(t / tick + 1e-9) * tick

    def totals(self, counts: Counts) -> tuple[int, int, int, int]:
        """(opackets, obytes, rx packets at the peer, rx bytes at the peer)."""
        op = sum(counts.tx.values())
        ob = sum(n * self.frame_len[sid] for sid, n in counts.tx.items())
        ip = sum(counts.rx.values())
        ib = sum(n * self.frame_len[sid] for sid, n in counts.rx.items())
        return op, ob, ip, ib

    def advance_rates(self, t: float) -> None:
        """Fold every whole emulated second up to t into the smoothed rates."""
        second = math.floor(t + 1e-9)
        if second <= self.rate_second:
            return
        if second - self.rate_second > 64:  # long idle: older seconds no longer matter
            self.rate_second = second - 64
        for s in range(self.rate_second + 1, second + 1):
            a = self.totals(self.counts_at(s - 1))
            b = self.totals(self.counts_at(s))
            op, ob, ip, ib = (y - x for x, y in zip(a, b, strict=True))
            self.tx_pps.step(op)
            self.tx_bps.step(ob * 8)
            self.rx_pps.step(ip)
            self.rx_bps.step(ib * 8)
            self.cpu.step(min(100.0, 100.0 * op / self.cfg.max_tx_pps))
        self.rate_second = second
        self._prune(t)

    def _prune(self, t: float) -> None:
        """Drop segments that ended long ago; their end counts become the baseline."""
        while len(self.segments) > 1 and self.segments[1].t0 < t - 3.0:
            first = self.segments.pop(0)
            self.settled = first.counts(math.inf)

    def current_segment(self, t: float) -> Segment | None:
        if self.segments and self.segments[-1].t0 <= t < min(self.segments[-1].t1,
                                                               self.segments[-1].t_end):
            return self.segments[-1]
        return None

