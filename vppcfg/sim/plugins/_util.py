"""Small helpers shared by the plugin models.

The core state (vppcfg.sim.state) owns interface records, index allocation and
deletion cascades; the plugins go through these thin wrappers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.linux import LinuxHost
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import SimInterface, SimState

# the retvals the plugin models answer with (re-exported to them)
from vppcfg.vpp_numbers import (  # noqa: F401
    ACL_IN_USE_INBOUND,
    ACL_IN_USE_OUTBOUND,
    INIT_FAILED,
    INSTANCE_IN_USE,
    INVALID_ARGUMENT,
    INVALID_INTERFACE,
    INVALID_SW_IF_INDEX,
    INVALID_VALUE,
    NETLINK_ERROR,
    NO_SUCH_ENTRY,
    NO_SUCH_FIB,
    OK,
    SAME_SRC_DST,
    SYSCALL_ERROR_2,
    SYSCALL_ERROR_3,
    TUNNEL_EXIST,
    VALUE_EXIST,
    ZERO_MAC,
)


def reply(retval: int = OK, **fields: Any) -> Response:
    return Response(reply={"retval": retval, **fields})


def details(rows: list[dict[str, Any]]) -> Response:
    return Response(details=rows)


def random_mac(state: SimState) -> str:
    """VPP's generated MACs: locally administered 02:fe:xx:xx:xx:xx."""
    return state.random_mac()


def get_itf(state: SimState, sw_if_index: int) -> SimInterface | None:
    return state.interfaces.get(sw_if_index)


def sup_itf(state: SimState, itf: SimInterface) -> SimInterface:
    """The interface owning the hardware (a sub's parent, else itself)."""
    return state.hw_owner(itf)


def is_sub(itf: SimInterface) -> bool:
    return itf.is_sub


def add_interface(
    state: SimState, name: str, dev_type: str, cls: type[SimInterface] = SimInterface,
    admin_up: bool = False, tag: str = "", **attrs: Any,
) -> SimInterface:
    """Create a hardware interface (lowest free sw_if_index, core bookkeeping).

    ``cls`` lets a plugin use a SimInterface subclass with derived fields (a
    bond's link state follows its members).
    """
    itf = state.add_interface(name, dev_type, **attrs)
    if cls is not SimInterface:
        itf.__class__ = cls
    itf.admin_up = admin_up
    itf.tag = tag
    return itf


def delete_interface(state: SimState, sw_if_index: int) -> None:
    """Delete through the core (cascades: subs, l2, addresses, on_delete hooks)."""
    state.delete_interface(sw_if_index)


def by_hw_if_index(state: SimState, hw_if_index: int) -> SimInterface | None:
    return state.by_hw_index(hw_if_index)


def vrf_exists(state: SimState, table_id: int, is_ip6: bool) -> bool:
    return (is_ip6, table_id) in state.ip_tables


@dataclass
class Pool:
    """A VPP pool: indexes of freed elements are reused last-freed first.

    Several plugins expose this (vxlan instance ~0 = pool index, bond id ~0,
    dump order = pool order), so the model keeps the same discipline.
    """

    items: dict[int, Any] = field(default_factory=dict)
    free: list[int] = field(default_factory=list)

    def get(self, item: Any) -> int:
        index = self.free.pop() if self.free else len(self.items) + len(self.free)
        self.items[index] = item
        return index

    def put(self, index: int) -> None:
        del self.items[index]
        self.free.append(index)

    def ordered(self) -> list[Any]:
        return [self.items[i] for i in sorted(self.items)]


@dataclass
class LowestFree:
    """A set of ids that hands out the lowest free one at or above a start,
    in amortised constant time (VPP's bitmap "first clear bit" allocations)."""

    used: set[int] = field(default_factory=set)
    # start -> a value such that every id in [start, value) is used
    hints: dict[int, int] = field(default_factory=dict)

    def lowest(self, start: int = 0) -> int:
        candidate = self.hints.get(start, start)
        while candidate in self.used:
            candidate += 1
        self.hints[start] = candidate
        return candidate

    def add(self, value: int) -> None:
        self.used.add(value)

    def discard(self, value: int) -> None:
        self.used.discard(value)
        for start, hint in self.hints.items():
            if start <= value < hint:
                self.hints[start] = value

    def __contains__(self, value: object) -> bool:
        return value in self.used


def name_taken(state: SimState, name: str, ns: str) -> bool:
    """A Linux name in use where a new netdev would be made (it is created in
    the default namespace, then moved): our netdevs and the host's veths."""
    host = linux(state)
    return name in host.netdevs[""] or name in host.netdevs[ns] or name in state.host_interfaces


def linux(state: SimState) -> LinuxHost:
    host = state.plugins.get("linux")
    if host is None:
        host = state.plugins["linux"] = LinuxHost()
    return host

