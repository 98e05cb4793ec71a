"""The simulator's dataplane state: what a VPP holds, as plain mutable records.

Owned by the core behaviour model (vppcfg.sim.dataplane); plugins read and
change it through these records and register hooks for cascades (deleting an
interface removes its lcp pair, its bridge membership, its bond membership...).

Indexes behave like VPP's pools: a freed sw_if_index / hw_if_index is handed
out again before a fresh one, the most recently freed first (observed on a real
VPP: delete 4 then 5, the next create gets 5). Name and parent lookups are
dicts, so a model with 10,000+ interfaces answers in constant time per call.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.vpp_numbers import IF_ADMIN_UP, IF_LINK_UP, NONE_INDEX, ZERO_MAC  # noqa: F401

# sw_interface_dump `flags`


@dataclass
class SimInterface:
    sw_if_index: int
    name: str
    dev_type: str  # as VPP reports interface_dev_type: "af-packet", "Loopback", "bond", ...
    hw_if_index: int
    sup_sw_if_index: int
    mac: str = ZERO_MAC
    admin_up: bool = False
    link_up: bool = False  # meaningful on hardware interfaces; subs show their hw's link
    link_mtu: int = 9000  # the hardware MTU (max frame size); subs show their hw's
    mtu: list[int] = field(default_factory=lambda: [9000, 0, 0, 0])  # L3, IP4, IP6, MPLS
    tag: str = ""
    # sub-interfaces
    is_sub: bool = False
    sub_id: int = 0
    sub_number_of_tags: int = 0
    sub_outer_vlan_id: int = 0
    sub_inner_vlan_id: int = 0
    sub_if_flags: int = 0
    # l2 vlan tag rewrite: (vtr_op, push_dot1q, tag1, tag2)
    vtr: tuple[int, int, int, int] = (0, 0, 0, 0)
    # how the interface floods in a bridge: "normal" or "tunnel" (VXLAN and co.,
    # which VPP keeps behind the normal members)
    flood_class: str = "normal"
    # IP: prefixes ("10.0.0.1/24", "2001:db8::1/64") in the order they were added
    addresses: list[str] = field(default_factory=list)
    table_id: list[int] = field(default_factory=lambda: [0, 0])  # [ip4 vrf, ip6 vrf]
    unnumbered_to: int | None = None  # sw_if_index lending its addresses
    # anything a plugin needs to keep per interface, keyed by plugin name
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SimBridgeDomain:
    bd_id: int
    bd_index: int  # VPP's internal slot: the order bridge_domain_dump lists them in
    flood: bool = True
    uu_flood: bool = True
    forward: bool = True
    learn: bool = True
    arp_term: bool = False
    arp_ufwd: bool = False
    mac_age: int = 0
    tag: str = ""
    # ports: sw_if_index -> split-horizon group, each dict in join order
    normal: dict[int, int] = field(default_factory=dict)
    tunnels: dict[int, int] = field(default_factory=dict)  # flooded after the normal ports
    bvi: int = NONE_INDEX
    bvi_shg: int = 0
    uu_fwd: int = NONE_INDEX
    uu_fwd_bit: bool = False

    @property
    def members(self) -> list[tuple[int, int]]:
        """(sw_if_index, shg) in VPP's order: the BVI, normal ports, then tunnels."""
        head = [(self.bvi, self.bvi_shg)] if self.bvi != NONE_INDEX else []
        return head + list(self.normal.items()) + list(self.tunnels.items())

    def has_members(self) -> bool:
        return self.bvi != NONE_INDEX or bool(self.normal) or bool(self.tunnels)


class IndexPool:
    """VPP pool index allocation: reuse freed indexes, last freed first."""

    def __init__(self, first: int = 0) -> None:
        self._next = first
        self._free: list[int] = []

    def peek(self) -> int:
        return self._free[-1] if self._free else self._next

    def take(self) -> int:
        if self._free:
            return self._free.pop()
        self._next += 1
        return self._next - 1

    def give_back(self, index: int) -> None:
        self._free.append(index)


@dataclass
class SimState:
    interfaces: dict[int, SimInterface] = field(default_factory=dict)
    # Hooks called with (state, sw_if_index) just before an interface is deleted
    # (its sub-interfaces are deleted first, each with its own hook calls).
    on_delete: list[Callable[[SimState, int], None]] = field(default_factory=list)
    # Hooks called with (state, message, args) after a core call changed state
    # successfully (e.g. linux-cp mirrors admin state / mtu / addresses).
    on_change: list[Callable[[SimState, str, dict[str, Any]], None]] = field(default_factory=list)
    # Hooks called with (state, interface, "ip/len", is_add) as an address is added
    # to or removed from an interface, by any path (VPP's add_del_interface_address
    # callbacks, which linux-cp uses).
    on_address: list[Callable[[SimState, SimInterface, str, bool], None]] = field(
        default_factory=list)
    # Plugin-wide state, keyed by plugin name.
    plugins: dict[str, Any] = field(default_factory=dict)
    # Linux interfaces an af_packet can attach to (the "veths" of the host).
    host_interfaces: set[str] = field(default_factory=set)
    # af_packet host name -> sw_if_index, in creation order
    af_packet: dict[str, int] = field(default_factory=dict)
    loopback_instances: dict[int, int] = field(default_factory=dict)  # instance -> sw_if_index
    bridge_domains: dict[int, SimBridgeDomain] = field(default_factory=dict)
    # per interface: ("bridge", bd_id) or ("xconnect", tx_sw_if_index)
    l2_mode: dict[int, tuple[str, int]] = field(default_factory=dict)
    ip_tables: dict[tuple[bool, int], str] = field(
        default_factory=lambda: {(False, 0): "ipv4-VRF:0", (True, 0): "ipv6-VRF:0"}
    )
    mpls_tables: dict[int, str] = field(default_factory=dict)
    # sw_if_index -> MPLS enable count (a u8). VPP keeps it per index and does
    # not clear it when the interface is deleted: a new interface that reuses
    # the index comes up with MPLS enabled.
    mpls_refs: dict[int, int] = field(default_factory=dict)
    # hw_if_index -> VLAN matches ethernet still marks "in use" after the hw
    # interface was deleted with its sub-interfaces (see core/subif.py)
    stale_vlans: dict[int, set[tuple[Any, ...]]] = field(default_factory=dict)
    # Hooks called with (state, sw_if_index) before a hardware interface that
    # still has sub-interfaces deletes them (its own on_delete calls come later).
    before_cascade: list[Callable[[SimState, int], None]] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0x5EED))
    # indexes
    names: dict[str, int] = field(default_factory=dict)
    hw_to_sw: dict[int, int] = field(default_factory=dict)
    subs: dict[int, set[int]] = field(default_factory=dict)  # sup sw_if_index -> subs
    # (sup, "id", sub_id) and (sup, <vlan match>) -> the sub holding them
    sub_index: dict[tuple[Any, ...], int] = field(default_factory=dict)
    # (is_ip6, vrf) -> sorted [(network int, prefix length, sw_if_index)]: overlap checks
    # against every interface of a VRF without scanning the interfaces
    ip_index: dict[tuple[bool, int], list[tuple[int, int, int]]] = field(default_factory=dict)
    borrowers: dict[int, set[int]] = field(default_factory=dict)  # unnumbered lender -> borrowers
    _sw_pool: IndexPool = field(default_factory=IndexPool)
    _hw_pool: IndexPool = field(default_factory=IndexPool)
    _bd_pool: list[int] = field(default_factory=list)  # bd_index slots in use

    # -- interfaces -----------------------------------------------------------------
    def get(self, sw_if_index: int) -> SimInterface | None:
        return self.interfaces.get(sw_if_index)

    def by_name(self, name: str) -> SimInterface | None:
        index = self.names.get(name)
        return None if index is None else self.interfaces[index]

    def next_sw_if_index(self) -> int:
        """The index the next created interface will get."""
        return self._sw_pool.peek()

    def alloc_sw_if_index(self) -> int:
        """Compatibility: the index the next interface gets (see next_sw_if_index)."""
        return self._sw_pool.peek()

    def add_interface(
        self,
        name: str,
        dev_type: str,
        *,
        mac: str = ZERO_MAC,
        link_up: bool = False,
        link_mtu: int = 9000,
        mtu: list[int] | None = None,
        sup_sw_if_index: int | None = None,
        hw_if_index: int | None = None,
    ) -> SimInterface:
        """Create an interface. Without sup_sw_if_index it is a hardware interface
        (gets its own hw_if_index); otherwise a sub-interface of that sup sharing
        the given (or the sup's) hardware."""
        sw_if_index = self._sw_pool.take()
        if sup_sw_if_index is None:
            hw = self._hw_pool.take()
            self.hw_to_sw[hw] = sw_if_index
            itf = SimInterface(
                sw_if_index,
                name,
                dev_type,
                hw,
                sw_if_index,
                mac=mac,
                link_up=link_up,
                link_mtu=link_mtu,
                mtu=list(mtu) if mtu is not None else [link_mtu, 0, 0, 0],
            )
        else:
            if hw_if_index is None:
                hw_if_index = self.interfaces[sup_sw_if_index].hw_if_index
            hw = hw_if_index
            itf = SimInterface(
                sw_if_index,
                name,
                dev_type,
                hw,
                sup_sw_if_index,
                link_mtu=0,
                mtu=list(mtu) if mtu is not None else [0, 0, 0, 0],
                is_sub=True,
            )
            self.subs.setdefault(sup_sw_if_index, set()).add(sw_if_index)
        self.interfaces[sw_if_index] = itf
        self.names[name] = sw_if_index
        return itf

    def rename(self, itf: SimInterface, name: str) -> None:
        if self.names.get(itf.name) == itf.sw_if_index:
            del self.names[itf.name]
        itf.name = name
        self.names[name] = itf.sw_if_index

    def delete_interface(self, sw_if_index: int) -> None:
        """Delete an interface and everything hanging off it: its sub-interfaces
        first, then whatever the on_delete hooks clean up (l2, ip, plugins)."""
        itf = self.interfaces.get(sw_if_index)
        if itf is None:
            return
        if not itf.is_sub and self.subs.get(sw_if_index):
            for hook in list(self.before_cascade):
                hook(self, sw_if_index)
        for sub in sorted(self.subs.get(sw_if_index, ()), reverse=True):
            if sub != sw_if_index:
                self.delete_interface(sub)
        for hook in list(self.on_delete):
            hook(self, sw_if_index)
        del self.interfaces[sw_if_index]
        if self.names.get(itf.name) == sw_if_index:
            del self.names[itf.name]
        self.subs.pop(sw_if_index, None)
        if itf.is_sub:
            self.subs.get(itf.sup_sw_if_index, set()).discard(sw_if_index)
        elif self.hw_to_sw.get(itf.hw_if_index) == sw_if_index:
            del self.hw_to_sw[itf.hw_if_index]
            self._hw_pool.give_back(itf.hw_if_index)
        self._sw_pool.give_back(sw_if_index)

    def hw_owner(self, itf: SimInterface) -> SimInterface:
        """The hardware interface an interface sends through (itself for hw ones)."""
        owner = self.hw_to_sw.get(itf.hw_if_index)
        return self.interfaces[owner] if owner is not None else itf

    def by_hw_index(self, hw_if_index: int) -> SimInterface | None:
        sw = self.hw_to_sw.get(hw_if_index)
        return None if sw is None else self.interfaces[sw]

    def is_link_up(self, itf: SimInterface) -> bool:
        return self.hw_owner(itf).link_up

    def random_mac(self) -> str:
        """A VPP-style random locally administered MAC: 02:fe:xx:xx:xx:xx."""
        return "02:fe:" + ":".join(f"{self.rng.randrange(256):02x}" for _ in range(4))

    # -- bridge domains -------------------------------------------------------------
    def add_bridge_domain(self, bd_id: int) -> SimBridgeDomain:
        index = 0
        used = set(self._bd_pool)
        while index in used:  # VPP takes the lowest clear bit of its bd bitmap
            index += 1
        self._bd_pool.append(index)
        bd = SimBridgeDomain(bd_id, index)
        self.bridge_domains[bd_id] = bd
        return bd

    def remove_bridge_domain(self, bd_id: int) -> None:
        bd = self.bridge_domains.pop(bd_id)
        self._bd_pool.remove(bd.bd_index)
