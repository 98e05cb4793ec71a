"""The simulator's traffic model: what packets arriving on an interface do to the counters.

The T-Rex emulator (loadtest/emu, `--vpp-sim`) tells us, per T-Rex port, what
it offers (rates, frame sizes, the first bytes of each stream's packet) and,
as it goes, how many packets it has sent into the port's interface and how
many it has received back from the peer port's. Nothing here moves packets:
counters follow from the rates and the simulator's configuration.

- The path: an interface that is down, or whose hardware link is down, is not
  read at all (nothing counted). L2 cross-connect: ethernet-input, l2-input,
  l2-output, then the peer's <hw>-output / <hw>-tx. A bridge with the peer in it:
  l2-learn and l2-fwd too (without the peer: l2-flood, and nothing reaches
  T-Rex). An interface with an IPv4 address (or unnumbered): ip4-input,
  ip4-lookup, ip4-rewrite, out of the peer when it has an IPv4 address in the
  same VRF (routes towards T-Rex's networks are assumed), else dropped as
  ip4-input `dst_lookup_miss`; a TTL of 0 or 1 is dropped as ip4-input
  `time_expired` (and ip4-icmp-error counts `ttl_expire_sent`). Otherwise
  ip4-not-enabled drops them, counted only in the interface's drops.
- The capacity: each ingress interface is served up to `capacity_pps`. Above
  it the input node runs full (256 vectors per call) and the excess is lost
  before VPP counts it: as rx-miss on a DPDK-like PHY, uncounted on af_packet
  (a real af_packet VPP does not read the kernel's ring drops either).
  Below it the vectors per call follow rho/(1-rho), rho = offered/capacity, at
  least 1: a polling loop that finds more packets per poll as its CPU fills up.
- Drops are charged to the ingress interface's `drops`, as VPP's error-drop does.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.state import SimInterface, SimState
from vppcfg.sim.stats_model import INPUT_NODES, StatsModel

FULL_FRAME = 256  # VLIB_FRAME_SIZE: the most vectors one call handles
CALL_CLOCKS = 300  # fixed clocks of one node call, whatever its vector
# Clocks per packet in each node: a plausible small-CPU profile where reading packets in
# costs most (af_packet copies each one out of the kernel's ring), so at saturation the
# input node is the busiest, as on the real af_packet VPP.
NODE_CLOCKS = {
    "af-packet-input": 160, "dpdk-input": 110, "ethernet-input": 30, "l2-input": 20,
    "l2-learn": 25, "l2-fwd": 25, "l2-flood": 60, "l2-output": 20, "ip4-input": 30,
    "ip4-lookup": 25, "ip4-rewrite": 30, "ip4-icmp-error": 150, "ip4-not-enabled": 10,
    "error-drop": 10, "drop": 5,
}
OUTPUT_CLOCKS, TX_CLOCKS = 15, 70
# Error counters VPP moves for every packet a node handles, dropped or not (seen on the
# real VPP for the L2 nodes and the L2 ACL node; the routed ACL node is the same code)
PASSING = {"l2-input": "L2 input packets", "l2-output": "L2 output packets",
           "acl-plugin-in-ip4-l2": "checked packets", "acl-plugin-in-ip4-fa": "checked packets"}


@dataclass(frozen=True)
class Headers:
    """What the model reads of a packet: its IPv4 header and UDP/TCP ports."""

    ttl: int
    src: ipaddress.IPv4Address
    dst: ipaddress.IPv4Address
    proto: int
    sport: int = 0
    dport: int = 0


@dataclass(frozen=True)
class StreamOffer:
    """One stream of an offer: its rate, its frame size and its IPv4 TTL (None: not IPv4);
    `headers` when the packet was read in full (ACLs match on them)."""

    pps: float
    frame_len: int
    ttl: int | None = None
    headers: Headers | None = None

    @classmethod
    def of_packet(cls, pps: float, frame_len: int, packet: bytes) -> StreamOffer:
        headers = parse_headers(packet)
        return cls(pps, frame_len, headers.ttl if headers else None, headers)


@dataclass(frozen=True)
class Path:
    """Where the packets of one stream go once VPP has read them."""

    seen: bool  # VPP reads them at all
    nodes: tuple[str, ...] = ()  # after the input node, in order
    egress: int | None = None  # the interface that sends them (None: dropped)
    error: tuple[str, str] | None = None  # the error counter a drop is charged to
    also: tuple[tuple[str, str], ...] = ()  # counters that count them too
    ip4: bool = False


@dataclass
class _Group:
    path: Path
    share: float  # of the accepted packets
    done: int = 0  # accepted packets of this group counted so far in this offer


@dataclass
class PortFlow:
    """One T-Rex port's traffic into its interface: the current offer and what is counted."""

    sw_if_index: int
    peer: int
    input_node: str = "af-packet-input"
    counts_miss: bool = False
    miss: float = 0.0  # fraction lost before VPP (over capacity)
    vectors_per_call: float = 1.0
    groups: list[_Group] = field(default_factory=list)
    sent0: int = 0  # packets sent when this offer began
    miss_done: int = 0
    last: tuple[int, int, int, int] = (0, 0, 0, 0)  # sent, bytes, received, bytes
    t: float = 0.0


def vectors_per_call(load: float) -> float:
    """Vectors per input node call at `load` = offered / capacity."""
    if load >= 1.0 - 1.0 / FULL_FRAME:
        return float(FULL_FRAME)
    return min(float(FULL_FRAME), max(1.0, load / (1.0 - load)))


def parse_headers(packet: bytes) -> Headers | None:
    """The IPv4 header (and ports) of an Ethernet frame after up to two VLAN tags; None
    if it is not IPv4."""
    at = 12
    while len(packet) >= at + 2 and packet[at:at + 2] in (b"\x81\x00", b"\x88\xa8"):
        at += 4
    ip = at + 2
    if packet[at:at + 2] != b"\x08\x00" or len(packet) < ip + 20:
        return None
    ports = ip + (packet[ip] & 0x0F) * 4
    proto = packet[ip + 9]
    sport = dport = 0
    if proto in (6, 17) and len(packet) >= ports + 4:
        sport = int.from_bytes(packet[ports:ports + 2], "big")
        dport = int.from_bytes(packet[ports + 2:ports + 4], "big")
    return Headers(packet[ip + 8], ipaddress.IPv4Address(packet[ip + 12:ip + 16]),
                   ipaddress.IPv4Address(packet[ip + 16:ip + 20]), proto, sport, dport)


def parse_ttl(packet: bytes) -> int | None:
    """The IPv4 TTL of an Ethernet frame; None if it is not IPv4."""
    headers = parse_headers(packet)
    return headers.ttl if headers else None


def _rule_matches(rule: dict[str, Any], h: Headers) -> bool:
    for key, address in (("src_prefix", h.src), ("dst_prefix", h.dst)):
        try:
            network = ipaddress.ip_network(str(rule.get(key, "0.0.0.0/0")), strict=False)
        except ValueError:
            return False
        if network.version != 4 or address not in network:
            return False
    proto = int(rule.get("proto", 0))
    if proto == 0:
        return True
    if proto != h.proto:
        return False
    if proto not in (6, 17):
        return True
    return (int(rule.get("srcport_or_icmptype_first", 0)) <= h.sport
            <= int(rule.get("srcport_or_icmptype_last", 65535))
            and int(rule.get("dstport_or_icmpcode_first", 0)) <= h.dport
            <= int(rule.get("dstport_or_icmpcode_last", 65535)))


def acl_verdict(state: SimState, rx: int, headers: Headers | None) -> bool | None:
    """Whether the input ACLs of interface `rx` permit the packet: the first rule that
    matches, over the ACLs in their order, decides; none matching denies (VPP's implicit
    deny). None when the interface has no input ACL (or the packet is not IPv4)."""
    acl = state.plugins.get("acl")
    lists = getattr(acl, "lists", {}).get(rx) if acl is not None else None
    if not lists or not lists.input or headers is None:
        return None
    for index in lists.input:
        for rule in acl.acls[index].rules if index in acl.acls else ():
            if _rule_matches(rule, headers):
                return bool(rule.get("is_permit", 0))
    return False


def _has_ip4(state: SimState, itf: SimInterface) -> bool:
    lender = state.get(itf.unnumbered_to) if itf.unnumbered_to is not None else None
    return any(":" not in a for a in (lender or itf).addresses)


def _out_nodes(model: StatsModel, itf: SimInterface, state: SimState) -> tuple[str, str]:
    return model.output_nodes(state.hw_owner(itf).hw_if_index)


def _up(state: SimState, itf: SimInterface | None) -> bool:
    return itf is not None and itf.admin_up and state.is_link_up(itf)


def _send(model: StatsModel, state: SimState, head: tuple[str, ...], peer: SimInterface,
          ip4: bool = False) -> Path:
    output, tx = _out_nodes(model, peer, state)
    if not peer.admin_up:
        return Path(True, (*head, output, "error-drop", "drop"), None,
                    (output, "interface is down"), ip4=ip4)
    return Path(True, (*head, output, tx), peer.sw_if_index, ip4=ip4)


def _l2_path(model: StatsModel, state: SimState, mode: tuple[str, int],
             peer: SimInterface | None) -> Path:
    kind, target = mode
    if kind == "xconnect":
        out = state.get(target)
        if out is None:
            return Path(True, ("ethernet-input", "l2-input", "l2-output", "error-drop", "drop"),
                        None, ("l2-output", "L2 Output interface not valid"))
        return _send(model, state, ("ethernet-input", "l2-input", "l2-output"), out)
    in_bridge = peer is not None and state.l2_mode.get(peer.sw_if_index) == mode
    if not in_bridge:
        return Path(True, ("ethernet-input", "l2-input", "l2-learn", "l2-fwd", "l2-flood"),
                    None, None, (("l2-flood", "L2 flood packets"),))
    assert peer is not None
    return _send(model, state, ("ethernet-input", "l2-input", "l2-learn", "l2-fwd",
                                "l2-output"), peer)


def _ip4_path(model: StatsModel, state: SimState, itf: SimInterface,
              peer: SimInterface | None, ttl: int | None) -> Path:
    if ttl is not None and ttl <= 1:
        return Path(True, ("ethernet-input", "ip4-input", "ip4-icmp-error"), None,
                    ("ip4-input", "time_expired"), (("ip4-icmp-error", "ttl_expire_sent"),),
                    ip4=True)
    routed = peer is not None and _has_ip4(state, peer) and peer.table_id[0] == itf.table_id[0]
    if not routed:
        return Path(True, ("ethernet-input", "ip4-input", "ip4-lookup", "error-drop", "drop"),
                    None, ("ip4-input", "dst_lookup_miss"), ip4=True)
    assert peer is not None
    return _send(model, state, ("ethernet-input", "ip4-input", "ip4-lookup", "ip4-rewrite"),
                 peer, ip4=True)


def trace(model: StatsModel, state: SimState, rx: int, peer_index: int,
          ttl: int | None, headers: Headers | None = None) -> Path:
    """The path of a packet arriving on interface `rx`, with T-Rex's other port behind
    interface `peer_index`."""
    itf, peer = state.get(rx), state.get(peer_index)
    if itf is None or not _up(state, itf):
        return Path(False)
    mode = state.l2_mode.get(rx)
    if mode is not None:
        return _with_acl(_l2_path(model, state, mode, peer), state, rx, headers,
                         ("l2-input-feat-arc", "acl-plugin-in-ip4-l2"), 2,
                         ("l2-input-feat-arc-end",))
    if _has_ip4(state, itf) and ttl is not None:
        return _with_acl(_ip4_path(model, state, itf, peer, ttl), state, rx, headers,
                         ("acl-plugin-in-ip4-fa",), 2)
    return Path(True, ("ethernet-input", "ip4-not-enabled", "error-drop", "drop"))


def _with_acl(path: Path, state: SimState, rx: int, headers: Headers | None,
              nodes: tuple[str, ...], at: int, after: tuple[str, ...] = ()) -> Path:
    """An input ACL runs as a feature after the first `at` nodes of the path: `nodes`,
    the last of them the ACL's, then `after` for what it permits (on L2 the real VPP
    goes through l2-input-feat-arc and, permitted, l2-input-feat-arc-end)."""
    verdict = acl_verdict(state, rx, headers)
    if verdict is None or (path.error is not None and path.nodes.index(path.error[0]) < at):
        return path
    head, node = (*path.nodes[:at], *nodes), nodes[-1]
    if not verdict:
        return Path(True, (*head, "error-drop", "drop"), None,
                    (node, "ACL deny packets"), ip4=path.ip4)
    return Path(True, (*head, *after, *path.nodes[at:]), path.egress, path.error,
                ((node, "ACL permit packets"), *path.also), path.ip4)


class TrafficModel:
    """Moves the StatsModel's counters as a T-Rex port's packets come and go."""

    def __init__(self, model: StatsModel, capacity_pps: float | None = None) -> None:
        self.model = model
        self.capacity = capacity_pps
        self.flows: dict[int, PortFlow] = {}
        self._calls: dict[str, float] = {}  # fractional calls per node
        # this step's packets per node and port, dispatched together (see dispatch)
        self._pending: dict[str, dict[int, int]] = {}

    def offer(self, state: SimState, port: int, rx: int, peer: int,
              streams: list[StreamOffer]) -> tuple[float, float, list[float]]:
        """A port starts offering `streams` (after `count` brought it up to date).
        Returns (forwarded fraction, load = offered / capacity, each stream's forwarded
        fraction)."""
        flow = self.flows.setdefault(port, PortFlow(rx, peer))
        flow.sw_if_index, flow.peer = rx, peer
        itf = state.get(rx)
        dev_type = state.hw_owner(itf).dev_type if itf is not None else ""
        # a PHY of another driver is read like a DPDK one (and counts its rx-miss)
        flow.input_node, reasons = INPUT_NODES.get(dev_type, INPUT_NODES["dpdk"])
        self.model.add_node(flow.input_node, reasons)
        flow.counts_miss = dev_type != "af-packet"
        offered = sum(s.pps for s in streams)
        load = offered / self.capacity if self.capacity else 0.0
        flow.miss = max(0.0, 1.0 - self.capacity / offered) if self.capacity and offered else 0.0
        flow.vectors_per_call = vectors_per_call(load) if self.capacity else 1.0
        flow.groups = [_Group(trace(self.model, state, rx, peer, s.ttl, s.headers),
                              s.pps / offered if offered else 0.0) for s in streams]
        flow.sent0, flow.miss_done = flow.last[0], 0
        if not any(g.path.seen for g in flow.groups):
            return 0.0, load, [0.0] * len(streams)
        kept = [(1.0 - flow.miss) * (g.path.egress == peer) for g in flow.groups]
        return sum(k * g.share for k, g in zip(kept, flow.groups, strict=True)), load, kept

    def count(self, port: int, t: float, counts: tuple[int, int, int, int],
              dispatch: bool = True) -> int:
        """The port has sent counts[0] packets (counts[1] bytes) into its interface and
        received counts[2] (counts[3] bytes) from its peer's, since the emulator started.
        Returns the packets VPP read in this step. With dispatch=False the node counters
        wait for dispatch(), so the ports of one step share their loops."""
        flow = self.flows.get(port)
        if flow is None:
            return 0
        deltas = [now - before for now, before in zip(counts, flow.last, strict=True)]
        if min(deltas) < 0:  # the emulator started over: take its counts as the new zero
            flow.last, flow.sent0, flow.miss_done = tuple(counts), counts[0], 0
            return 0
        flow.last, flow.t = tuple(counts), t
        sent, sent_bytes, received, received_bytes = deltas
        if (not sent and not received) or not flow.groups or not flow.groups[0].path.seen:
            return 0
        miss_total = math.floor((counts[0] - flow.sent0) * flow.miss + 1e-9)
        missed, flow.miss_done = miss_total - flow.miss_done, miss_total
        accepted = sent - missed
        accepted_bytes = sent_bytes * accepted // sent if sent else 0
        self._ingress(flow, accepted, accepted_bytes, missed)
        self._groups(flow, counts[0] - flow.sent0 - miss_total, accepted)
        self._egress(flow, received, received_bytes)
        if dispatch:
            self.dispatch()
        return accepted

    def _ingress(self, flow: PortFlow, packets: int, octets: int, missed: int) -> None:
        counters = self.model.interface(flow.sw_if_index)
        for name in ("rx", "rx-unicast"):
            counters.combined[name][0] += packets
            counters.combined[name][1] += octets
        if flow.groups[0].path.ip4:
            counters.simple["ip4"] += packets
        if flow.counts_miss:
            counters.simple["rx-miss"] += missed
        self._visit(flow.input_node, flow, packets)

    def _groups(self, flow: PortFlow, accepted_total: int, accepted: int) -> None:
        """Share this step's accepted packets among the streams' paths (cumulative shares,
        so rounding never drifts) and count what each path does with them."""
        left = accepted
        for i, group in enumerate(flow.groups):
            last = i == len(flow.groups) - 1
            total = group.done + left if last else math.floor(accepted_total * group.share + 1e-9)
            packets = max(0, min(left, total - group.done))
            group.done += packets
            left -= packets
            self._walk(flow, group.path, packets)

    def _walk(self, flow: PortFlow, path: Path, packets: int) -> None:
        if not packets:
            return
        for node in path.nodes:
            self._visit(node, flow, packets)
            if node in PASSING:
                key = (node, PASSING[node])
                self.model.errors[key] = self.model.errors.get(key, 0) + packets
        if path.egress is None:
            self.model.interface(flow.sw_if_index).simple["drops"] += packets
        for key in ((path.error,) if path.error else ()) + path.also:
            self.model.errors[key] = self.model.errors.get(key, 0) + packets

    def _egress(self, flow: PortFlow, received: int, received_bytes: int) -> None:
        """What T-Rex received back left through the peer's interface."""
        slot = self.model.slots.get(flow.peer)
        if received and slot is not None and slot.live:
            for name in ("tx", "tx-unicast"):
                slot.counters.combined[name][0] += received
                slot.counters.combined[name][1] += received_bytes

    def _visit(self, node: str, flow: PortFlow, packets: int) -> None:
        if packets:
            by_port = self._pending.setdefault(node, {})
            port = next(p for p, f in self.flows.items() if f is flow)
            by_port[port] = by_port.get(port, 0) + packets

    def dispatch(self) -> None:
        """Account this step's node work. One main loop serves every interface: each turn
        it polls all of them and each node gets at most one call, so a node's calls are
        the turns its busiest port needed (packets / that port's vectors per call). A
        device input node reads all its queues in one call; every other node takes one
        frame a call, at most FULL_FRAME vectors, however many ports feed it."""
        turns = 0.0
        devices = {f.input_node for f in self.flows.values()}
        for node, by_port in self._pending.items():
            counters = self.model.nodes.get(node)
            if counters is None:
                continue
            calls = max(n / self.flows[p].vectors_per_call for p, n in by_port.items())
            turns = max(turns, calls)
            packets = sum(by_port.values())
            if node not in devices:
                calls = max(calls, packets / FULL_FRAME)
            total = self._calls.get(node, 0.0) + calls
            self._calls[node] = total
            before, counters.calls = counters.calls, max(1, round(total))
            counters.vectors += packets
            per_packet = NODE_CLOCKS.get(node)
            if per_packet is None:
                per_packet = TX_CLOCKS if node.endswith("-tx") else OUTPUT_CLOCKS
            counters.clocks += packets * per_packet + (counters.calls - before) * CALL_CLOCKS
        inputs = [by_port for node, by_port in self._pending.items() if node.endswith("-input")
                  and node in {f.input_node for f in self.flows.values()}]
        read = sum(sum(by_port.values()) for by_port in inputs)
        self.model.gauges["vector_rate"] = round(read / turns) if turns else 0
        self._pending = {}
