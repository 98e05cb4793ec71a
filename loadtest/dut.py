"""The device under test's own counters: VPP's stats segment, beside T-Rex's.

`--dut-stats SOCKET` reads VPP's stats segment with vpp_papi's stats client
(`VPPStats`, shared memory: the data `vppctl show run/err/int` shows, read
without a CLI and without work for VPP) at the start of a run, at every
sample (ramp) or at the start and end of every trial (ndr), and at the end.
Everything stored is a delta between two reads, named as VPP names it.

Loss attribution joins both sides per direction (T-Rex port A -> VPP interface
I ... VPP interface E -> T-Rex port B), in this order, each cause taking at most
what is left of the direction's lost test packets:

    before-dut   port A sent - VPP counted in on I     (link, host ring, NIC: rx-miss)
    dut-drop     VPP's drop counters, by node and reason, up to what went into I
                 and did not leave on E; then what E's driver dropped after VPP
                 counted it out (its TX node's counters, e.g. af_packet's "tx ring
                 overrun", and E's tx-error beyond them: DPDK counts both)
    after-dut    VPP sent on E - those driver drops - port B received
    unaccounted  the rest (never hidden)

A failure to read (no socket, VPP gone or restarted, a segment this reader
does not know) never stops the traffic run: the run goes on without DUT
data, says so once on stderr, and the summary records why.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import struct
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from vppcfg.vpp.sockets import is_wrong_type, wrong_socket

SATURATION_VECTORS_PER_CALL = 240.0  # of VPP's 256-packet frames: the node's CPU is full
SATURATION_MIN_CALLS = 10  # a node called fewer times in a sample says nothing about load
TOP_ERRORS = 5  # per sample or trial
TOP_ERRORS_SUMMARY = 10
TOP_NODES = 5
READ_RETRIES = 50  # a read that overlaps VPP's own update of the segment is retried
RETRY_SLEEP = 0.001
IF_COUNTERS = ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "drops", "rx_miss",
               "rx_error", "punt", "tx_error")
# VPP files counters of packets a node passed on beside its drop reasons (`show err` lists
# both as errors). Two rules tell them apart, learnt on the real VPP (L2 cross-connect, ACL,
# the names it gives in /err/): their reasons say so ("L2 input packets", "checked packets",
# "ACL permit packets", "total received block", "ttl_expire_sent", "reass_success"), and they
# count more packets than stayed inside VPP (they count the forwarded ones too), which a drop
# counter cannot, beyond the slack of two reads that are not simultaneous. Names are either
# descriptions ("ip4 ttl <= 1") or symbols ("time_expired"): words end at a space or "_".
PASSING_REASON = re.compile(
    r"(?:^|[\s_])(permit|checked|received|rcvd|processed|valid|good|encapsulated|decapsulated|"
    r"sent|success|reassembled)(?:$|[\s_])|(?:input|output) packets$|timed out block$",
    re.IGNORECASE)
NEGATED = re.compile(r"(?:^|[\s_])(not|no|invalid|unknown|unsupported)(?:$|[\s_])",
                     re.IGNORECASE)
NO_ERROR = re.compile(r"^(no error|none)$", re.IGNORECASE)
DROP_SLACK_RATIO = 0.1  # a drop counter may exceed what stayed inside by 10 % ...
DROP_SLACK_PACKETS = 100  # ... plus this many packets
REQUIRED = ("/if/names", "/if/rx", "/if/tx")
NODES_OFF = "no per-node counters (a stock VPP: statseg { per-node-counters on } adds them)"
NODES_NOT_YET = ("VPP's stats collector did not refresh its per-node counters during this "
                 "sample (it runs every statseg update-interval, 10 s by default)")
NODES_STALE = ("VPP did not refresh its per-node counters during the run (its stats collector "
               "runs every statseg update-interval, 10 s by default)")


class DutUnavailable(Exception):
    """The DUT's counters cannot be read; the message says why, for the operator."""


@dataclass(frozen=True)
class Snapshot:
    """One read of VPP's counters, summed over its threads."""

    interfaces: dict[str, tuple[int, ...]]  # name -> IF_COUNTERS
    errors: dict[tuple[str, str], int]  # (node, reason) -> packets
    nodes: dict[str, tuple[int, int, int]] | None  # name -> (calls, vectors, clocks)
    vector_rate: float
    workers: int
    heartbeat: int = 0  # VPP's stats collector: per-node counters move only when it runs
    time: float = 0.0  # when read (monotonic)


@dataclass(frozen=True)
class NodeLoad:
    node: str
    calls: int
    vectors: int
    clocks: int

    @property
    def vectors_per_call(self) -> float:
        return self.vectors / self.calls if self.calls else 0.0

    @property
    def clocks_per_packet(self) -> float:
        return self.clocks / self.vectors if self.vectors else 0.0

    def to_json(self) -> dict:
        return {"node": self.node, "calls": self.calls, "vectors": self.vectors,
                "clocks": self.clocks, "vectors_per_call": round(self.vectors_per_call, 2),
                "clocks_per_packet": round(self.clocks_per_packet, 2)}


@dataclass(frozen=True)
class Delta:
    """What VPP counted between two reads."""

    interfaces: dict[str, dict[str, int]]
    errors: list[tuple[str, str, int]]  # (node, reason, packets) > 0, most first
    nodes: list[NodeLoad] | None  # None: no per-node counters, or none refreshed in between
    vector_rate: float
    workers: int
    nodes_seconds: float | None = None  # the span the node counters cover
    nodes_note: str | None = None  # why nodes is None

    def to_json(self, top_errors: int = TOP_ERRORS) -> dict:
        note = {"nodes_note": self.nodes_note} if self.nodes is None and self.nodes_note else {}
        return {**note,
            "interfaces": self.interfaces,
            "errors": [{"node": n, "reason": r, "packets": p}
                       for n, r, p in self.errors[:top_errors]],
            "nodes": None if self.nodes is None
            else [n.to_json() for n in busiest(self.nodes)[:TOP_NODES]],
            "nodes_seconds": None if self.nodes_seconds is None
            else round(self.nodes_seconds, 3),
            "vector_rate": self.vector_rate,
            "workers": self.workers,
        }


@dataclass(frozen=True)
class DirectionCounts:
    """One direction's figures over one sample, trial or run, for attribution."""

    label: str  # "0->1"
    lost: int  # T-Rex's test packets lost
    sent: int  # the TX port's packets (its own counter: all it sent)
    received: int  # the RX port's packets (its own counter)
    ingress: str  # VPP interface facing the TX port
    egress: str  # VPP interface facing the RX port
    ingress_rx: int
    egress_tx: int
    ingress_drops: int = 0
    ingress_rx_miss: int = 0
    egress_tx_error: int = 0  # the driver failed to send these, after /if/tx counted them

    @property
    def tx_node(self) -> str:
        """VPP's TX node of the egress interface's device (a sub-interface's parent's)."""
        return tx_node_of(self.egress)


def tx_node_of(interface: str) -> str:
    return interface.split(".", 1)[0] + "-tx"


def _counter(before: int, after: int) -> int:
    """A delta; a counter that went back was cleared in between: count from zero."""
    return after - before if after >= before else after


def diff(a: Snapshot, b: Snapshot) -> Delta:
    zero = (0,) * len(IF_COUNTERS)
    interfaces = {
        name: dict(zip(IF_COUNTERS, (_counter(x, y) for x, y in
                                     zip(a.interfaces.get(name, zero), now, strict=True)),
                       strict=True))
        for name, now in b.interfaces.items()
    }
    errors = [(node, reason, _counter(a.errors.get(key, 0), n))
              for key, n in b.errors.items() for node, reason in (key,)]
    errors = sorted((e for e in errors if e[2] > 0), key=lambda e: (-e[2], e[0], e[1]))
    return Delta(interfaces, errors, node_loads(a, b), b.vector_rate, b.workers,
                 b.time - a.time if b.nodes is not None else None,
                 NODES_OFF if b.nodes is None else None)


def node_loads(a: Snapshot, b: Snapshot) -> list[NodeLoad] | None:
    """Per-node work between two reads; None without per-node counters."""
    if b.nodes is None:
        return None
    old = a.nodes or {}
    out = []
    for name, now in b.nodes.items():
        was = old.get(name, (0, 0, 0))
        calls, vectors, clocks = (_counter(x, y) for x, y in zip(was, now, strict=True))
        if vectors or calls:
            out.append(NodeLoad(name, calls, vectors, clocks))
    return out


def busiest(nodes: Iterable[NodeLoad]) -> list[NodeLoad]:
    """Nodes that handled packets, most vectors per call first, then most clocks."""
    return sorted((n for n in nodes if n.vectors),
                  key=lambda n: (-n.vectors_per_call, -n.clocks, n.node))


def passing_reason(reason: str) -> bool:
    """A reason that names packets a node passed on; a negated one ("L2 Output interface
    not valid", "no buffers received") names a drop whatever its words."""
    if NO_ERROR.match(reason):
        return True
    return PASSING_REASON.search(reason) is not None and NEGATED.search(reason) is None


def drop_reasons(errors: Iterable[tuple[str, str, int]], inside: int
                 ) -> list[tuple[str, str, int]]:
    """The counters that can name drops, of `inside` packets that entered VPP and did not
    leave on the other side."""
    bound = inside * (1 + DROP_SLACK_RATIO) + DROP_SLACK_PACKETS
    return [e for e in errors if not passing_reason(e[1]) and e[2] <= bound]


# ---- attribution ------------------------------------------------------------------------------

def attribute(d: DirectionCounts, errors: list[tuple[str, str, int]],
              tx_errors: Sequence[tuple[str, str, int]] = ()) -> list[dict]:
    """Causes whose packets add up to `d.lost` exactly (nothing when nothing was lost).

    `errors`: VPP's drop counters that belong to this direction (see split_errors);
    `tx_errors`: those of the egress interface's TX node (see tx_drops)."""
    left = max(0, d.lost)
    out: list[dict] = []

    def take(cause: str, packets: int, evidence: str, **extra: str) -> None:
        nonlocal left
        n = min(left, max(0, packets))
        if n > 0:
            out.append({"cause": cause, "packets": n, "evidence": evidence, **extra})
            left -= n

    take("before-dut", d.sent - d.ingress_rx,
         f"T-Rex port {d.label.split('->')[0]} sent {d.sent}, VPP counted {d.ingress_rx} in on "
         f"{d.ingress} (rx-miss {d.ingress_rx_miss})")
    # the drop counters name at most what went in and did not come out
    inside = max(0, d.ingress_rx - d.egress_tx)
    unnamed = inside
    for node, reason, packets in errors:
        before = left
        take("dut-drop", min(packets, unnamed),
             f"VPP error counter {node}: {reason} +{packets}; {d.ingress} rx {d.ingress_rx} "
             f"- {d.egress} tx {d.egress_tx} = {inside} stayed inside VPP "
             f"(drops on {d.ingress}: {d.ingress_drops})", node=node, reason=reason)
        unnamed -= before - left
    gap = max(0, d.egress_tx - d.received)  # counted out on E, not received on port B
    for node, reason, packets in tx_errors:
        before = left
        take("dut-drop", min(packets, gap),
             f"VPP error counter {node}: {reason} +{packets}: {d.egress}'s driver did not send "
             f"these after VPP counted them out (tx {d.egress_tx})", node=node, reason=reason)
        gap -= before - left
    before = left
    named = sum(packets for _, _, packets in tx_errors)
    take("dut-drop", min(d.egress_tx_error - named, gap),
         f"VPP interface counter {d.egress} tx-error +{d.egress_tx_error}: its driver did not "
         f"send these after VPP counted them out (tx {d.egress_tx})",
         node=d.egress, reason="tx-error")
    gap -= before - left
    take("after-dut", gap,
         f"VPP sent {d.egress_tx} on {d.egress}, T-Rex port {d.label.split('->')[1]} "
         f"received {d.received}")
    take("unaccounted", left,
         "no counter explains these: in flight at the read, or lost where nothing counts")
    return out


def split_errors(errors: list[tuple[str, str, int]], inside: dict[str, int]
                 ) -> dict[str, list[tuple[str, str, int]]]:
    """VPP's drop counters are not per interface: give each direction a share in
    proportion to the packets that stayed inside VPP in that direction."""
    total = sum(max(0, v) for v in inside.values())
    out: dict[str, list[tuple[str, str, int]]] = {label: [] for label in inside}
    if not total:
        return out
    labels = sorted(inside, key=lambda k: -inside[k])
    for node, reason, packets in drop_reasons(errors, total):
        given = 0
        for label in labels[1:]:
            share = packets * max(0, inside[label]) // total
            if share:
                out[label].append((node, reason, share))
            given += share
        out[labels[0]].append((node, reason, packets - given))
    return out


def tx_drops(errors: list[tuple[str, str, int]], node: str) -> list[tuple[str, str, int]]:
    """The drop counters of one TX node: packets /if/tx counted before the driver failed."""
    return [e for e in errors if e[0] == node and not passing_reason(e[1])]


def attribute_all(delta: Delta, counts: list[DirectionCounts]) -> dict[str, list[dict]]:
    inside = {c.label: max(0, c.ingress_rx - c.egress_tx) for c in counts}
    tx_nodes = {c.tx_node for c in counts}
    shares = split_errors([e for e in delta.errors if e[0] not in tx_nodes], inside)
    return {c.label: attribute(c, shares[c.label], tx_drops(delta.errors, c.tx_node))
            for c in counts}


def merge_causes(lists: Iterable[list[dict]]) -> list[dict]:
    """Several attributions of one direction summed per cause (and node, reason)."""
    merged: dict[tuple, dict] = {}
    for causes in lists:
        for c in causes:
            key = (c["cause"], c.get("node"), c.get("reason"))
            if key in merged:
                merged[key]["packets"] += c["packets"]
            else:
                merged[key] = dict(c)  # the first one's evidence stands for them
    return sorted(merged.values(), key=lambda c: -c["packets"])


# ---- saturation and verdict -------------------------------------------------------------------

def saturated_node(nodes: list[NodeLoad] | None) -> NodeLoad | None:
    """The busiest node, if it runs full frames: at or above the threshold, called often."""
    for node in busiest(nodes or []):
        if node.calls >= SATURATION_MIN_CALLS:
            return node if node.vectors_per_call >= SATURATION_VECTORS_PER_CALL else None
    return None


def saturation(points: Iterable[tuple[float, str, list[NodeLoad] | None]]) -> dict | None:
    """The lowest offered rate (pps, direction, nodes over that sample) at which a node ran
    saturated, or None."""
    hits = [(pps, label, node) for pps, label, nodes in points
            if (node := saturated_node(nodes)) is not None]
    if not hits:
        return None
    pps, label, node = min(hits, key=lambda h: h[0])
    return {"node": node.node, "vectors_per_call": round(node.vectors_per_call, 1),
            "from_pps": round(pps, 1), "direction": label}


def _kpps(pps: float) -> str:
    return f"{pps / 1e6:.2f} Mpps" if pps >= 1e6 else f"{pps / 1e3:.0f} kpps"


CAUSE_WORDS = {
    "before-dut": "before VPP counted it (link, host ring or NIC)",
    "after-dut": "after VPP sent it",
    "unaccounted": "not explained by any counter",
}


def verdict(dut: dict) -> str:
    """One line an operator reads, from a summary's `dut` object."""
    if not dut.get("available"):
        return f"no DUT data: {dut.get('reason')}"
    sat = dut.get("saturation")
    if sat:
        cpu = (f"VPP's CPU saturated in {sat['node']} at {sat['vectors_per_call']:.0f} "
               f"vectors/call from {_kpps(sat['from_pps'])}")
    elif dut.get("nodes") is None:
        cpu = f"VPP's CPU load unknown ({dut.get('nodes_note') or NODES_OFF})"
    elif dut["nodes"]:
        top = dut["nodes"][0]
        cpu = (f"VPP's CPU not saturated (busiest {top['node']} at "
               f"{top['vectors_per_call']:.0f} vectors/call)")
    else:
        cpu = "VPP handled no packets"
    causes = [c for causes in (dut.get("loss_attribution") or {}).values() for c in causes]
    drops = sum(c["packets"] for c in causes if c["cause"] == "dut-drop")
    inside = f"{drops} drops inside VPP"
    named = merge_causes([[c for c in causes if c["cause"] == "dut-drop"]])
    if named:
        inside += f" (most: {named[0]['node']}: {named[0]['reason']})"
    lost = sum(c["packets"] for c in causes)
    if not lost:
        return f"{cpu}; {inside}; no loss"
    worst = merge_causes([causes])[0]
    where = (f"inside VPP, {worst['node']}: {worst['reason']}" if worst["cause"] == "dut-drop"
             else CAUSE_WORDS[worst["cause"]])
    share = 100.0 * worst["packets"] / lost
    return f"{cpu}; {inside}; loss is mostly {where} ({share:.0f}% of {lost} lost)"


# ---- reading the stats segment ----------------------------------------------------------------

def peer_pid(path: str, timeout: float = 1.0) -> int:
    """The pid of the process serving a stats socket (0 when it is not visible from here).

    VPP answers a connect by handing over the segment; closing at once costs it nothing."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return struct.unpack("3i", creds)[0]
    finally:
        sock.close()


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _sum_simple(rows: Any) -> list[int]:
    """A per-thread simple counter vector summed over threads."""
    return [sum(col) for col in zip(*rows, strict=True)] if rows else []


def _sum_combined(rows: Any) -> tuple[list[int], list[int]]:
    cols = list(zip(*rows, strict=True)) if rows else []
    return [sum(c[0] for c in col) for col in cols], [sum(c[1] for c in col) for col in cols]


class StatsReader:
    """VPP's stats segment through vpp_papi's VPPStats; every failure is DutUnavailable."""

    def __init__(self, path: str, stats_factory: Callable[..., Any] | None = None) -> None:
        self.path = path
        self._factory = stats_factory
        self.stats: Any = None
        self.pid = 0
        self.inode = 0
        self._errors_epoch: int | None = None
        self._error_names: dict[int, tuple[str, str]] = {}
        self._name_cache: dict[str, tuple[int, list[str]]] = {}
        self._nodes_cache: tuple[int, dict] | None = None

    def connect(self) -> None:
        try:
            self.inode = os.stat(self.path).st_ino
            self.pid = peer_pid(self.path)
            factory = self._factory
            if factory is None:
                from vpp_papi.vpp_stats import VPPStats as factory
            self.stats = factory(self.path, timeout=2)
            self.stats.connect()
        except Exception as err:  # vpp_papi raises a bare Exception for another segment version
            if is_wrong_type(err):  # pointed at the API socket: say which one to use
                raise DutUnavailable(wrong_socket(self.path, "stats")) from None
            raise DutUnavailable(f"cannot open VPP's stats segment at {self.path}: "
                                 f"{getattr(err, 'strerror', None) or err}") from None
        missing = [p for p in REQUIRED if p not in self.stats.directory]
        if missing:
            raise DutUnavailable(f"the stats segment at {self.path} has no {', '.join(missing)}"
                                 ": a VPP version this reader does not know")

    def close(self) -> None:
        if self.stats is not None:
            with contextlib.suppress(Exception):
                self.stats.disconnect()

    def _alive(self) -> None:
        """The mapped segment outlives VPP (it only stops moving). VPP removes its socket
        when it stops and makes a new one when it starts; a crash leaves the socket but
        not the process. (Connecting to ask would queue work on VPP's main thread.)"""
        try:
            inode = os.stat(self.path).st_ino
        except OSError as err:
            raise DutUnavailable(f"VPP went away ({self.path}: {err.strerror})") from None
        if inode != self.inode:
            raise DutUnavailable("VPP restarted (a new stats socket): its counters started "
                                 "again from zero")
        if self.pid > 0 and not _process_exists(self.pid):
            raise DutUnavailable(f"VPP went away (pid {self.pid} has ended)")

    def _get(self, name: str) -> Any:
        stats = self.stats
        for _ in range(READ_RETRIES):
            if stats.in_progress:  # vpp_papi would spin on this without end
                time.sleep(RETRY_SLEEP)
                continue
            try:
                return stats.__getitem__(name, blocking=False)
            except OSError:
                time.sleep(RETRY_SLEEP)
        raise DutUnavailable(f"the stats segment stayed locked for an update ({name})")

    def read(self) -> Snapshot:
        self._alive()
        try:
            heartbeat = int(self._get("/sys/heartbeat") or 0) \
                if "/sys/heartbeat" in self.stats.directory else 0
            nodes = self._nodes(heartbeat)
            return Snapshot(self._interfaces(), self._errors(), nodes,
                            float(self._get("/sys/vector_rate") or 0.0),
                            int(self._get("/sys/num_worker_threads") or 0), heartbeat,
                            time.monotonic())
        except DutUnavailable:
            raise
        except (KeyError, IndexError, ValueError, TypeError, struct.error) as err:
            raise DutUnavailable(f"the stats segment at {self.path} is not laid out as this "
                                 f"reader knows ({type(err).__name__}: {err})") from None

    def _names(self, path: str) -> list[str]:
        """A name vector, read again only when VPP changed its directory (epoch)."""
        epoch = self.stats.epoch
        cached = self._name_cache.get(path)
        if cached is None or cached[0] != epoch:
            cached = self._name_cache[path] = (epoch, self._get(path))
        return cached[1]

    def _interfaces(self) -> dict[str, tuple[int, ...]]:
        names = self._names("/if/names")
        rx_p, rx_b = _sum_combined(self._get("/if/rx"))
        tx_p, tx_b = _sum_combined(self._get("/if/tx"))
        simple = [_sum_simple(self._get(p)) if p in self.stats.directory else []
                  for p in ("/if/drops", "/if/rx-miss", "/if/rx-error", "/if/punt",
                            "/if/tx-error")]
        columns = [rx_p, rx_b, tx_p, tx_b, *simple]
        return {name: tuple(col[i] if i < len(col) else 0 for col in columns)
                for i, name in enumerate(names) if name}

    def _errors(self) -> dict[tuple[str, str], int]:
        directory = self.stats.directory
        if "/node/errors" not in directory:  # an older layout: one counter per error
            return {tuple(p[5:].split("/", 1)): int(self._get(p).sum())
                    for p in directory if p.startswith("/err/") and p.count("/") >= 3}
        counts = _sum_simple(self._get("/node/errors"))
        if self._errors_epoch != self.stats.last_epoch:
            self._error_names = self._error_index(directory)
            self._errors_epoch = self.stats.last_epoch
        names = self._error_names
        return {names[i]: n for i, n in enumerate(counts) if n and i in names}

    @staticmethod
    def _error_index(directory: dict) -> dict[int, tuple[str, str]]:
        """/err/<node>/<reason> entries link into /node/errors: their value packs
        (directory index, error index)."""
        target = directory["/node/errors"].index
        out = {}
        for path, entry in directory.items():
            if path.startswith("/err/") and entry.type == 6 and path.count("/") >= 3:
                index1, index2 = struct.unpack("II", struct.pack("Q", entry.value))
                if index1 == target:
                    node, reason = path[5:].split("/", 1)
                    out[index2] = (node, reason)
        return out

    def _nodes(self, heartbeat: int) -> dict[str, tuple[int, int, int]] | None:
        """Per-node counters; VPP's collector copies them into the segment (and counts
        its heartbeat) every statseg update-interval (10 s by default): read them again
        only after it ran."""
        if "/sys/node/names" not in self.stats.directory:
            return None  # per-node counters are off (a stock VPP)
        if self._nodes_cache is not None and self._nodes_cache[0] == heartbeat != 0:
            return self._nodes_cache[1]
        names = self._names("/sys/node/names")
        calls, vectors, clocks = (_sum_simple(self._get(f"/sys/node/{k}"))
                                  for k in ("calls", "vectors", "clocks"))
        nodes = {name: (calls[i], vectors[i], clocks[i])
                 for i, name in enumerate(names) if i < len(calls)}
        self._nodes_cache = (heartbeat, nodes)
        return nodes


# ---- one run's DUT side -----------------------------------------------------------------------

@dataclass
class DutMonitor:
    """The DUT side of one ramp or ndr run: reads, and the first failure, said once."""

    path: str
    ports: dict[int, str] | None = None  # T-Rex port -> VPP interface (None: VPP's first two)
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    reader_factory: Callable[[str], StatsReader] = StatsReader
    clock: Callable[[], float] = time.monotonic
    reason: str | None = None
    started: float | None = None
    reader: StatsReader | None = None
    read_seconds: list[float] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return self.reason is None

    def open(self, tx_rx_ports: list[int]) -> None:
        """Connect and map the ports; DutUnavailable when that cannot be done:
        asked-for DUT data is checked before any traffic, not found missing after."""
        self.started = self.clock()
        try:
            self.reader = self.reader_factory(self.path)
            self.reader.connect()
            first = self.reader.read()
            self.ports = self._resolve_ports(tx_rx_ports, first)
        except Exception as err:
            if self.reader is not None:
                self.reader.close()
            if isinstance(err, DutUnavailable):
                raise
            raise DutUnavailable(f"cannot read VPP's stats segment ({type(err).__name__}: "
                                 f"{err})") from None

    def _resolve_ports(self, ports: list[int], snap: Snapshot) -> dict[int, str]:
        # VPP keeps a deleted interface's column, named "deleted": never a port
        names = [n for n in snap.interfaces if n not in ("local0", "deleted")]
        chosen = self.ports or dict(zip(ports, names, strict=False))
        missing = [n for n in chosen.values() if n not in snap.interfaces]
        if missing or len(chosen) < len(set(ports)):
            raise DutUnavailable(f"VPP has no interface {', '.join(missing) or 'for every port'}"
                                 f" (--dut-ports); it has {', '.join(names) or 'none'}")
        return chosen

    def fail(self, why: str, at_start: bool = False) -> None:
        if self.reason is not None:
            return
        when = "" if at_start or self.started is None \
            else f" at {self.clock() - self.started:.1f} s"
        self.reason = f"{why}{when}"
        print(f"trex-loadtest: DUT stats: {self.reason}; the run is invalid from here",
              file=self.stream)
        if self.reader is not None:
            self.reader.close()

    def read(self) -> Snapshot | None:
        if self.reason is not None or self.reader is None:
            return None
        began = time.perf_counter()
        try:
            snap = self.reader.read()
        except DutUnavailable as err:
            self.fail(str(err))
            return None
        except Exception as err:  # a fault of this reader must not cost the traffic run
            self.fail(f"reading VPP's counters failed ({type(err).__name__}: {err})")
            return None
        self.read_seconds.append(time.perf_counter() - began)
        return snap

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()

    def counts(self, delta: Delta, label: str, tx: int, rx: int, lost: int,
               sent: int, received: int) -> DirectionCounts:
        ingress, egress = self.ports[tx], self.ports[rx]
        i, e = delta.interfaces.get(ingress, {}), delta.interfaces.get(egress, {})
        return DirectionCounts(label, lost, sent, received, ingress, egress,
                               i.get("rx_packets", 0), e.get("tx_packets", 0),
                               i.get("drops", 0), i.get("rx_miss", 0), e.get("tx_error", 0))

    def summary(self, total: Delta | None, attribution: dict[str, list[dict]],
                sat: dict | None) -> dict:
        if self.reason is not None or total is None:
            out: dict = {"available": False,
                         "reason": self.reason or "no complete read of VPP's counters"}
        else:
            out = {"available": True, "reason": None, **total.to_json(TOP_ERRORS_SUMMARY),
                   "loss_attribution": attribution, "saturation": sat}
            del out["vector_rate"], out["workers"]
            out["workers"] = total.workers
        out["verdict"] = verdict(out)
        if self.read_seconds:
            out["read_ms"] = {"mean": round(1e3 * sum(self.read_seconds)
                                            / len(self.read_seconds), 3),
                              "max": round(1e3 * max(self.read_seconds), 3)}
        return out


def parse_dut_ports(text: str | None, ports: list[int]) -> dict[int, str] | None:
    """`--dut-ports host-ge0,host-ge1`: the VPP interfaces facing the T-Rex ports, in the
    order of --ports. ValueError for a list of the wrong length."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if len(names) != len(ports) or not all(names) or len(set(names)) != len(names):
        raise ValueError(f"give {len(ports)} different VPP interface names, one per port of "
                         f"--ports {' '.join(map(str, ports))} (got {text!r})")
    return dict(zip(ports, names, strict=True))


# ---- what ramp and ndr call -------------------------------------------------------------------

def refreshed_delta(base: Snapshot | None, a: Snapshot, b: Snapshot) -> tuple[Delta, bool]:
    """The delta a -> b, its node counters taken from `base` (the read that saw VPP's
    collector last) when the collector ran since: None when it did not (the node counters
    did not move, which says nothing about the load). True when it ran."""
    delta = diff(a, b)
    if b.nodes is None:
        return delta, False
    if base is None or b.heartbeat == base.heartbeat:
        return replace(delta, nodes=None, nodes_seconds=None, nodes_note=NODES_NOT_YET), False
    return replace(delta, nodes=node_loads(base, b), nodes_seconds=b.time - base.time), True


@dataclass
class RunDut:
    """Reads at the points a ramp or ndr run gives it and fills the run's `dut` keys."""

    monitor: DutMonitor
    dirs: list[Any]  # loadtest.stats.Direction
    first: Snapshot | None = None
    last: Snapshot | None = None
    final: Snapshot | None = None
    node_base: Snapshot | None = None  # the last read after which VPP's collector had run
    deltas: list[Delta | None] = field(default_factory=list)
    points: list[tuple] = field(default_factory=list)  # ndr: (load, direction, nodes) per trial

    def _delta(self, a: Snapshot, b: Snapshot) -> Delta:
        delta, refreshed = refreshed_delta(self.node_base, a, b)
        if refreshed or self.node_base is None:
            self.node_base = b
        return delta

    def begin(self) -> None:
        self.first = self.last = self.node_base = self.monitor.read()

    def _safely(self, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a step of the DUT side; a fault in it ends the DUT side (said once), never
        the traffic run."""
        try:
            return fn(*args)
        except Exception as err:
            self.monitor.fail(f"{what} failed ({type(err).__name__}: {err})")
            return None

    def step(self) -> dict | None:
        """A ramp sample: the delta since the previous read (None without DUT data)."""
        count = len(self.deltas)
        out = self._safely("a ramp sample's DUT counters", self._step)
        if len(self.deltas) == count:  # one delta per sample, so that they pair up
            self.deltas.append(None)
        return out

    def _step(self) -> dict | None:
        snap = self.monitor.read()
        ok = snap is not None and self.last is not None
        delta = self._delta(self.last, snap) if ok else None
        self.last = snap
        self.deltas.append(delta)
        return delta.to_json() if delta is not None else None

    def end(self) -> None:
        self.final = self.monitor.read()

    def _counts(self, delta: Delta, rows: dict[str, dict], lost_key: str | None
                ) -> list[DirectionCounts]:
        out = []
        for d in self.dirs:
            row = rows.get(d.label)
            if row is None:
                continue
            lost = row[lost_key] if lost_key else row["tx_packets"] - row["rx_packets"]
            out.append(self.monitor.counts(delta, d.label, d.tx_port, d.rx_port, lost,
                                           row["port_tx_packets"], row["port_rx_packets"]))
        return out

    def finish_ramp(self, samples: list[dict], totals: dict[str, dict]) -> dict:
        """Attribution per sample (after the losses are settled) and the summary's `dut`."""
        out = self._safely("the DUT summary", self._finish_ramp, samples, totals)
        return out if out is not None else self.monitor.summary(None, {}, None)

    def _finish_ramp(self, samples: list[dict], totals: dict[str, dict]) -> dict:
        for sample, delta in zip(samples, self.deltas, strict=False):
            if delta is None or "dut" not in sample:
                continue
            sample["dut"]["loss_attribution"] = attribute_all(
                delta, self._counts(delta, sample["directions"], "lost_packets"))
            if delta.nodes is not None:
                label, row = max(sample["directions"].items(),
                                 key=lambda kv: kv[1]["offered_pps"])
                self.points.append((row["offered_pps"], label, delta.nodes))
        return self._summary(totals, "lost_packets")

    def _summary(self, rows: dict[str, dict], lost_key: str | None) -> dict:
        ok = self.monitor.available and self.first is not None and self.final is not None
        total = None
        if ok:
            total = diff(self.first, self.final)
            if self.final.nodes is not None and self.final.heartbeat == self.first.heartbeat:
                total = replace(total, nodes=None, nodes_seconds=None, nodes_note=NODES_STALE)
        attribution = attribute_all(total, self._counts(total, rows, lost_key)) if total else {}
        self.monitor.close()
        return self.monitor.summary(total, attribution, saturation(self.points))

    def trial_begin(self) -> Snapshot | None:
        snap = self.monitor.read()
        if self.first is None:
            self.first = self.node_base = snap
        return snap

    def trial_end(self, start: Snapshot | None, trial: dict) -> None:
        """An ndr trial: its delta and attribution under `trial["dut"]`."""
        self._safely("a trial's DUT counters", self._trial_end, start, trial)

    def _trial_end(self, start: Snapshot | None, trial: dict) -> None:
        snap = self.monitor.read()
        if snap is None or start is None:
            return
        self.final = snap
        delta = self._delta(start, snap)
        trial["dut"] = delta.to_json()
        trial["dut"]["loss_attribution"] = attribute_all(
            delta, self._counts(delta, trial["directions"], None))
        self.deltas.append(delta)
        if delta.nodes is not None:
            self.points.append((trial["load_pps"], self.dirs[0].label, delta.nodes))

    def finish_ndr(self, trials: list[dict]) -> dict:
        """The summary's `dut` of a search: the run's counters against its trials' losses
        (T-Rex is cleared per trial, VPP is not: the trials' packets are summed)."""
        out = self._safely("the DUT summary", self._finish_ndr, trials)
        return out if out is not None else self.monitor.summary(None, {}, None)

    def _finish_ndr(self, trials: list[dict]) -> dict:
        sums: dict[str, dict] = {}
        for trial in trials:
            for label, row in trial["directions"].items():
                acc = sums.setdefault(label, dict.fromkeys(
                    ("tx_packets", "rx_packets", "port_tx_packets", "port_rx_packets"), 0))
                for key in acc:
                    acc[key] += row[key]
        return self._summary(sums, None)
