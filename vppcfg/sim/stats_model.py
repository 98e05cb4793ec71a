"""Which counters the simulator's stats segment holds, and their values.

Mirrors what a real VPP (26.10, af_packet build, per-node counters on) presents
for the same interfaces (see docs/simulator.md, "Stats segment"):

- `/if/names` and the per-interface counters `/if/<counter>` (simple: drops,
  punt, ip4, ...; combined packets+bytes: rx, tx, ...), one column per
  sw_if_index; a deleted interface keeps its column, named "deleted";
- `/interfaces/<name>/<counter>` symlinks into those columns;
- `/sys/node/names` and `/sys/node/{clocks,vectors,calls,suspends}` with the
  `/nodes/<node>/...` symlinks; a hardware interface adds `<name>-output` and
  `<name>-tx` nodes (renamed `interface-<hw>-output-deleted` when it goes);
- `/node/errors` with the `/err/<node>/<reason>` symlinks, for the nodes the
  simulator's traffic model uses;
- `/sys/*` scalars and gauges (vector rate, worker threads, heartbeat, ...).

One thread (the main thread; no workers), as the real test VPP runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from vppcfg.sim.stats_segment import COMBINED, GAUGE, NAME_VECTOR, SCALAR, SIMPLE, SYMLINK, Entry

IF_SIMPLE = ("drops", "punt", "ip4", "ip6", "rx-no-buf", "rx-miss", "rx-error", "tx-error",
             "mpls")
IF_COMBINED = ("rx", "rx-unicast", "rx-multicast", "rx-broadcast", "tx", "tx-unicast",
               "tx-multicast", "tx-broadcast")
NODE_COUNTERS = ("clocks", "vectors", "calls", "suspends")

IP4_ERRORS = (
    "none", "too_short", "bad_length", "bad_checksum", "version", "options",
    "fragment_offset_one", "time_expired", "hdr_too_short", "mtu_exceeded", "dst_lookup_miss",
    "src_lookup_miss", "drop", "punt", "same_interface", "unknown_protocol", "tcp_checksum",
    "udp_checksum", "udp_length", "spoofed_local_packets", "inacl_table_miss",
    "inacl_session_deny", "outacl_table_miss", "outacl_session_deny", "rpf_failure",
    "reass_duplicate_fragment", "reass_limit_reached", "reass_fragment_chain_too_long",
    "reass_no_buf", "reass_malformed_packet", "reass_internal_error", "reass_timeout",
    "reass_to_custom_app", "reass_success", "reass_fragments_reassembled",
    "reass_fragments_rcvd", "reass_unsupp_ip_prot")
ACL_ERRORS = ("ACL deny packets", "ACL permit packets", "new sessions added",
              "existing session packets", "checked packets", "restart session timer",
              "too many sessions to add new")
# The nodes the traffic model sends packets through, in VPP's registration order
# as far as it matters, with their error counters' names as VPP shows them.
CORE_NODES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ethernet-input", ("no error", "llc length > packet length", "unknown ethernet type",
                        "unknown vlan", "l3 mac mismatch", "subinterface down")),
    ("l2-input", ("L2 input packets", "L2 input drops")),
    ("l2-learn", ("L2 learn packets", "L2 learn misses", "L2 mac moves",
                  "L2 mac move violations", "L2 not learned due to limit",
                  "L2 learn hit updates", "L2 filter mac drops")),
    ("l2-fwd", ("L2 forward packets", "L2 forward misses", "L2 forward hits",
                "BVI L3 MAC mismatch", "BVI packet with unhandled ethertype",
                "Filter Mac Drop", "Reflection Drop", "Stale entry Drop")),
    ("l2-flood", ("L2 flood packets", "L2 replication failures", "L2 replication complete",
                  "BVI L3 mac mismatch", "BVI packet with unhandled ethertype")),
    ("l2-output", ("L2 output packets", "L2 EFP filter pre-rewrite drops",
                   "L2 output tag rewrite drops", "L2 split horizon drops", "L2 output drops",
                   "L2 Output interface not valid")),
    ("ip4-input", IP4_ERRORS),
    ("ip4-not-enabled", ()),
    ("ip4-lookup", ()),
    ("ip4-rewrite", ()),
    ("ip4-icmp-error", ("none", "unknown_type", "invalid_code_for_type",
                        "invalid_hop_limit_for_type", "length_too_small_for_type",
                        "options_with_odd_length", "option_with_zero_length",
                        "echo_replies_sent", "dst_lookup_miss", "dest_unreach_sent",
                        "ttl_expire_sent", "param_problem_sent", "drop")),
    ("error-drop", ()),
    ("drop", ()),
    ("l2-input-feat-arc", ("in default",)),
    ("l2-input-feat-arc-end", ()),
    ("acl-plugin-in-ip4-fa", ACL_ERRORS),
    ("acl-plugin-in-ip4-l2", ACL_ERRORS),
)
# The input node of a PHY's driver, registered when the first PHY of that kind appears
# (the real test VPP has af_packet and no DPDK; a router's has dpdk-input).
INPUT_NODES: dict[str, tuple[str, tuple[str, ...]]] = {
    "af-packet": ("af-packet-input", ("partial packet", "timed out block",
                                      "total received block")),
    "dpdk": ("dpdk-input", ()),
}
OUTPUT_ERRORS = ("interface is down", "interface is deleted", "no tx queue available")
AF_PACKET_TX_ERRORS = ("tx frame not ready", "tx sendto temporary failure",
                       "tx sendto fatal failure", "tx ring overrun")


@dataclass(frozen=True)
class InterfaceInfo:
    """What the stats need to know of an interface of the simulator's state."""

    sw_if_index: int
    name: str
    hw_if_index: int
    is_sub: bool
    dev_type: str


@dataclass
class NodeCounters:
    clocks: int = 0
    vectors: int = 0
    calls: int = 0
    suspends: int = 0


@dataclass
class InterfaceCounters:
    simple: dict[str, int] = field(default_factory=lambda: dict.fromkeys(IF_SIMPLE, 0))
    combined: dict[str, list[int]] = field(
        default_factory=lambda: {name: [0, 0] for name in IF_COMBINED})


@dataclass
class _Slot:
    """A sw_if_index column: live, or "deleted" with its counters kept."""

    name: str
    counters: InterfaceCounters
    live: bool = True


class StatsModel:
    """Counter values by name; `entries()` renders them as the segment's directory."""

    def __init__(self, per_node: bool = True) -> None:
        # statseg { per-node-counters on }: off, a VPP shows no /sys/node/* nor /nodes/*
        self.per_node = per_node
        self.slots: dict[int, _Slot] = {}
        self.nodes: dict[str, NodeCounters] = {}
        self.errors: dict[tuple[str, str], int] = {}
        self.hw_nodes: dict[int, tuple[str, str]] = {}  # hw_if_index -> (output, tx) node
        self.live_hw: dict[int, str] = {}  # hw_if_index -> interface name (live)
        self.gauges = {"vector_rate": 0, "input_rate": 0, "num_worker_threads": 0}
        # what the segment shows of the per-node counters and the vector rate: VPP's
        # stats collector copies them in every update-interval (10 s by default), while
        # interface and error counters move at once
        self.shown_nodes: dict[str, NodeCounters] = {}
        self.shown_vector_rate = 0
        self.heartbeat = 0
        self.boottime = int(time.time())
        self.last_update = 0
        for node, reasons in CORE_NODES:
            self.add_node(node, reasons)

    # -- structure ----------------------------------------------------------------------
    def add_node(self, node: str, reasons: tuple[str, ...] = ()) -> None:
        self.nodes.setdefault(node, NodeCounters())
        for reason in reasons:
            self.errors.setdefault((node, reason), 0)

    def sync(self, interfaces: list[InterfaceInfo]) -> bool:
        """Follow the simulator's interfaces; True when the directory changed."""
        wanted = {i.sw_if_index: i for i in interfaces}
        changed = False
        for index, slot in self.slots.items():
            if slot.live and (index not in wanted or wanted[index].name != slot.name):
                slot.live, slot.name = False, "deleted"
                changed = True
        hw_now = {i.hw_if_index: i.name for i in interfaces if not i.is_sub and i.sw_if_index}
        for hw in [hw for hw, name in self.live_hw.items() if hw_now.get(hw) != name]:
            self._retire_hw(hw)
            changed = True
        for info in interfaces:
            slot = self.slots.get(info.sw_if_index)
            if slot is None or not slot.live:
                # a reused index starts from zero, as VPP clears a new interface's counters
                self.slots[info.sw_if_index] = _Slot(info.name, InterfaceCounters())
                changed = True
            if not info.is_sub and info.sw_if_index and info.hw_if_index not in self.live_hw:
                self._add_hw(info)
                changed = True
        return changed

    def remember(self, info: InterfaceInfo) -> None:
        """An interface created and deleted between two syncs: VPP made its column and
        nodes when it was created, so the next sync must find them to retire."""
        slot = self.slots.get(info.sw_if_index)
        if slot is None or not slot.live or slot.name != info.name:
            self.slots[info.sw_if_index] = _Slot(info.name, InterfaceCounters())
        if not info.is_sub and info.hw_if_index not in self.live_hw:
            self._add_hw(info)

    def _add_hw(self, info: InterfaceInfo) -> None:
        if info.dev_type in INPUT_NODES:
            self.add_node(*INPUT_NODES[info.dev_type])
        output, tx = f"{info.name}-output", f"{info.name}-tx"
        tx_errors = AF_PACKET_TX_ERRORS if info.dev_type == "af-packet" else ()
        self.add_node(output, OUTPUT_ERRORS)
        self.add_node(tx, tx_errors)
        self.hw_nodes[info.hw_if_index] = (output, tx)
        self.live_hw[info.hw_if_index] = info.name

    def _retire_hw(self, hw: int) -> None:
        """VPP renames a deleted interface's nodes and drops their error counters."""
        del self.live_hw[hw]
        renamed = {}
        for node, kind in zip(self.hw_nodes.pop(hw), ("output", "tx"), strict=True):
            renamed[node] = f"interface-{hw}-{kind}-deleted"
            for key in [k for k in self.errors if k[0] == node]:
                del self.errors[key]
        self.nodes = {renamed.get(n, n): c for n, c in self.nodes.items()}

    def collect(self) -> None:
        """What VPP's stats collector does each update-interval: copy the node runtime
        counters and the vector rate into the segment."""
        self.shown_nodes = {name: NodeCounters(c.clocks, c.vectors, c.calls, c.suspends)
                            for name, c in self.nodes.items()}
        self.shown_vector_rate = self.gauges["vector_rate"]
        self.heartbeat += 1  # VPP counts its collector's runs here

    def counter_rows(self) -> tuple[dict[str, list[int]], dict[str, list[tuple[int, int]]]]:
        """What traffic moves: the /if/* rows and /node/errors (simple, combined)."""
        width = max(self.slots, default=-1) + 1
        columns = [self.slots.get(i) for i in range(width)]
        simple = {f"/if/{n}": [s.counters.simple[n] if s else 0 for s in columns]
                  for n in IF_SIMPLE}
        simple["/node/errors"] = list(self.errors.values())
        combined = {f"/if/{n}": [tuple(s.counters.combined[n]) if s else (0, 0)
                                 for s in columns] for n in IF_COMBINED}
        return simple, combined  # type: ignore[return-value]

    def node_rows(self) -> dict[str, list[int]]:
        """The per-node counters as the segment shows them: /sys/node/<counter> rows."""
        zero = NodeCounters()
        return {counter: [getattr(self.shown_nodes.get(n, zero), counter) for n in self.nodes]
                for counter in NODE_COUNTERS}

    def interface(self, sw_if_index: int) -> InterfaceCounters:
        return self.slots[sw_if_index].counters

    def output_nodes(self, hw_if_index: int) -> tuple[str, str]:
        return self.hw_nodes[hw_if_index]

    # -- rendering ----------------------------------------------------------------------
    def entries(self) -> list[Entry]:
        """The directory, in an order close to VPP's."""
        out = self._sys_entries()
        out += self._interface_entries()
        if self.per_node:
            out += self._node_entries()
        out += self._error_entries()
        return out

    def _sys_entries(self) -> list[Entry]:
        g = self.gauges
        return [Entry("/sys/heartbeat", SCALAR, self.heartbeat),
                Entry("/sys/last_stats_clear", SCALAR, 0),
                Entry("/sys/boottime", SCALAR, self.boottime),
                Entry("/sys/vector_rate", GAUGE, self.shown_vector_rate),
                Entry("/sys/vector_rate_per_worker", SIMPLE, [[self.shown_vector_rate]]),
                Entry("/sys/num_worker_threads", GAUGE, g["num_worker_threads"]),
                Entry("/sys/last_update", SCALAR, self.last_update),
                Entry("/sys/input_rate", GAUGE, g["input_rate"])]

    def _interface_entries(self) -> list[Entry]:
        width = max(self.slots, default=-1) + 1
        columns = [self.slots.get(i) for i in range(width)]
        out = []
        for name in IF_SIMPLE:
            out.append(Entry(f"/if/{name}", SIMPLE,
                             [[s.counters.simple[name] if s else 0 for s in columns]]))
        for name in IF_COMBINED:
            out.append(Entry(f"/if/{name}", COMBINED,
                             [[tuple(s.counters.combined[name]) if s else (0, 0)
                               for s in columns]]))
        out.append(Entry("/if/names", NAME_VECTOR,
                         [s.name if s else "deleted" for s in columns]))
        for index, slot in sorted(self.slots.items()):
            if slot.live:
                out += [Entry(f"/interfaces/{slot.name}/{c}", SYMLINK, (f"/if/{c}", index))
                        for c in IF_SIMPLE + IF_COMBINED]
        return out

    def _node_entries(self) -> list[Entry]:
        names = list(self.nodes)
        out = [Entry("/sys/node/names", NAME_VECTOR, names)]
        for counter, row in self.node_rows().items():
            out.append(Entry(f"/sys/node/{counter}", SIMPLE, [row]))
        for i, node in enumerate(names):
            out += [Entry(f"/nodes/{node}/{c}", SYMLINK, (f"/sys/node/{c}", i))
                    for c in NODE_COUNTERS]
        return out

    def _error_entries(self) -> list[Entry]:
        keys = list(self.errors)
        out = [Entry("/node/errors", SIMPLE, [[self.errors[k] for k in keys]])]
        out += [Entry(f"/err/{node}/{reason}", SYMLINK, ("/node/errors", i))
                for i, (node, reason) in enumerate(keys)]
        return out
