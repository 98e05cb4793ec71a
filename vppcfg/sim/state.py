"""The simulator's dataplane state: what a VPP holds, as plain mutable records.

Owned by the core behaviour model (vppcfg.sim.dataplane); plugins read and
change it through these records and register hooks for cascades (deleting an
interface removes its lcp pair, its bridge membership, its bond membership...).
SKELETON: the core-model engineer owns and extends this file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

NONE_INDEX = 0xFFFFFFFF  # ~0: "no interface"


@dataclass
class SimInterface:
    sw_if_index: int
    name: str
    dev_type: str  # as VPP reports interface_dev_type: "af_packet", "Loopback", "bond", ...
    hw_if_index: int
    sup_sw_if_index: int
    mac: str = "00:00:00:00:00:00"
    admin_up: bool = False
    link_up: bool = False
    link_mtu: int = 9000  # the hardware MTU (max frame size)
    mtu: list[int] = field(default_factory=lambda: [9000, 0, 0, 0])  # L3, IP4, IP6, MPLS
    tag: str = ""
    # sub-interfaces
    sub_id: int = 0
    sub_number_of_tags: int = 0
    sub_outer_vlan_id: int = 0
    sub_inner_vlan_id: int = 0
    sub_if_flags: int = 0
    # anything a plugin needs to keep per interface, keyed by plugin name
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SimState:
    interfaces: dict[int, SimInterface] = field(default_factory=dict)
    # Hooks called with (state, sw_if_index) just before an interface is deleted.
    on_delete: list[Callable[[SimState, int], None]] = field(default_factory=list)
    # Plugin-wide state, keyed by plugin name.
    plugins: dict[str, Any] = field(default_factory=dict)

    def alloc_sw_if_index(self) -> int:
        """VPP reuses freed indexes: the lowest free one (0 is local0)."""
        index = 0
        while index in self.interfaces:
            index += 1
        return index

    def by_name(self, name: str) -> SimInterface | None:
        for itf in self.interfaces.values():
            if itf.name == name:
                return itf
        return None
