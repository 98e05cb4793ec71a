"""Bonding (and its lacp dump): BondEthernet<id> interfaces and their members.

Observed VPP behaviour modelled here:
* id ~0 takes the bond's pool index; ids in use -> INSTANCE_IN_USE with
  sw_if_index 0; xor/lacp with a load-balance meant for another mode -> -73.
* round-robin / active-backup / broadcast force lb RR(3) / AB(5) / BC(4).
* without a custom MAC the bond takes its first member's MAC; every member's
  hardware then carries the bond MAC (a sub-interface member changes its
  parent's) and gets its own MAC back when it leaves the bond.
* a member is active when it is admin up and has link, whatever the bond's
  admin state (never in LACP mode: no partner answers); the bond has link while
  it is admin up and has an active member. ``is_local_numa`` reads 0 until the member is
  first up (admin and link) outside LACP mode, then 1 for good, even when it
  goes down again (VPP sets it when it starts distributing to the member; seen
  on vpp-real 26.06 and 26.10); an LACP member, never distributing here, keeps 0.
* a MAC later set on the bond is pushed to the members as well.
* bond_delete releases the members (they keep admin state and MTU) and deletes
  the bond's sub-interfaces (core cascade).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.plugins._util import (
    INSTANCE_IN_USE,
    INVALID_ARGUMENT,
    INVALID_INTERFACE,
    INVALID_SW_IF_INDEX,
    OK,
    VALUE_EXIST,
    ZERO_MAC,
    Pool,
    add_interface,
    delete_interface,
    details,
    get_itf,
    is_sub,
    random_mac,
    reply,
    sup_itf,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimInterface, SimState
from vppcfg.vpp_numbers import BOND_LB, BOND_MODE

# vl_api_bond_mode_t / vl_api_bond_lb_algo_t
MODE_RR, MODE_AB, MODE_XOR, MODE_BC, MODE_LACP = (
    BOND_MODE[m] for m in ("round-robin", "active-backup", "xor", "broadcast", "lacp"))
LB_L2, LB_L34, LB_L23, LB_RR, LB_BC, LB_AB = (
    BOND_LB[lb] for lb in ("l2", "l34", "l23", "round-robin", "broadcast", "active-backup"))
FORCED_LB = {MODE_RR: LB_RR, MODE_AB: LB_AB, MODE_BC: LB_BC}


@dataclass
class Member:
    sw_if_index: int
    is_passive: bool
    is_long_timeout: bool
    orig_mac: str  # the hardware MAC before joining, restored on detach
    weight: int = 0
    local_numa: bool = False  # sticky: see the module's notes


@dataclass
class Bond:
    sw_if_index: int
    id: int
    mode: int
    lb: int
    numa_only: bool
    gso: bool
    use_custom_mac: bool
    pool_index: int = 0
    members: list[Member] = field(default_factory=list)


@dataclass
class BondState:
    pool: Pool = field(default_factory=Pool)
    by_sw: dict[int, Bond] = field(default_factory=dict)
    by_id: dict[int, Bond] = field(default_factory=dict)
    member_of: dict[int, Bond] = field(default_factory=dict)  # member sw_if_index -> bond


def bonds(state: SimState) -> BondState:
    data = state.plugins.get("bond")
    if data is None:
        data = state.plugins["bond"] = BondState()
    return data


class BondInterface(SimInterface):
    """A bond's link flag is derived from its members and its admin state, never stored."""

    @property
    def link_up(self) -> bool:  # type: ignore[override]
        state = self.__dict__.get("_state")
        # admin down: no link even with active members (vpp-real 26.06 and 26.10)
        return (state is not None and self.admin_up
                and active_count(state, self.sw_if_index) > 0)

    @link_up.setter
    def link_up(self, value: bool) -> None:
        pass  # computed; the core may still assign it (e.g. on admin changes)


def is_active(state: SimState, bond: Bond, member: Member) -> bool:
    """Up (admin and link) outside LACP mode; the bond's own admin state does not
    matter (vpp-real 26.06 and 26.10: a down bond keeps its active members)."""
    itf = state.interfaces.get(member.sw_if_index)
    if bond.mode == MODE_LACP or itf is None:
        return False
    return _is_up(state, itf)


def _is_up(state: SimState, itf: SimInterface) -> bool:
    return itf.admin_up and state.is_link_up(itf)


def active_count(state: SimState, bond_sw_if_index: int) -> int:
    bond = bonds(state).by_sw.get(bond_sw_if_index)
    if bond is None:
        return 0
    return sum(is_active(state, bond, m) for m in bond.members)


# --- create / delete ------------------------------------------------------


def _create(state: SimState, args: dict[str, Any], gso: bool) -> Response:
    data = bonds(state)
    mode, lb = args.get("mode", 0), args.get("lb", 0)
    if mode not in (MODE_RR, MODE_AB, MODE_XOR, MODE_BC, MODE_LACP):
        return reply(INVALID_ARGUMENT, sw_if_index=0)
    if mode in (MODE_XOR, MODE_LACP) and lb not in (LB_L2, LB_L34, LB_L23):
        return reply(INVALID_ARGUMENT, sw_if_index=0)
    lb = FORCED_LB.get(mode, lb)
    bond_id = args.get("id", NONE_INDEX)
    pool_index = data.pool.get(None)
    if bond_id == NONE_INDEX:
        bond_id = pool_index
    if bond_id in data.by_id:
        data.pool.put(pool_index)
        return reply(INSTANCE_IN_USE, sw_if_index=0)
    custom = bool(args.get("use_custom_mac"))
    mac = args.get("mac_address", ZERO_MAC) if custom else random_mac(state)
    itf = add_interface(state, f"BondEthernet{bond_id}", "bond", cls=BondInterface, mac=mac)
    itf.__dict__["_state"] = state
    bond = Bond(itf.sw_if_index, bond_id, mode, lb, bool(args.get("numa_only")), gso, custom,
                pool_index)
    data.pool.items[pool_index] = bond
    data.by_sw[itf.sw_if_index] = bond
    data.by_id[bond_id] = bond
    return reply(OK, sw_if_index=itf.sw_if_index)


def bond_create(state: SimState, args: dict[str, Any]) -> Response:
    return _create(state, args, gso=False)


def bond_create2(state: SimState, args: dict[str, Any]) -> Response:
    return _create(state, args, gso=bool(args.get("enable_gso")))


def bond_delete(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index not in bonds(state).by_sw:
        return reply(INVALID_SW_IF_INDEX)
    delete_interface(state, sw_if_index)  # the on_delete hook releases the members
    return reply(OK)


# --- membership -----------------------------------------------------------


def bond_add_member(state: SimState, args: dict[str, Any]) -> Response:
    data = bonds(state)
    member_index = args.get("sw_if_index", NONE_INDEX)
    member_itf = get_itf(state, member_index)
    if member_itf is None:
        return reply(INVALID_SW_IF_INDEX)
    bond = data.by_sw.get(args.get("bond_sw_if_index", NONE_INDEX))
    if bond is None:
        return reply(INVALID_INTERFACE)
    if member_index in data.member_of:
        return reply(VALUE_EXIST)
    if member_index in data.by_sw:
        return reply(INVALID_INTERFACE)  # a bond cannot be a member
    bond_itf = state.interfaces[bond.sw_if_index]
    hw = sup_itf(state, member_itf)
    if not bond.use_custom_mac and not bond.members:
        bond_itf.mac = hw.mac
    member = Member(member_index, bool(args.get("is_passive")),
                    bool(args.get("is_long_timeout")), orig_mac=hw.mac)
    hw.mac = bond_itf.mac
    bond.members.append(member)
    data.member_of[member_index] = bond
    _mark_local_numa(state, bond, member)
    return reply(OK)


def _mark_local_numa(state: SimState, bond: Bond, member: Member) -> None:
    itf = state.interfaces.get(member.sw_if_index)
    if bond.mode != MODE_LACP and itf is not None and _is_up(state, itf):
        member.local_numa = True


def _release(state: SimState, bond: Bond, member: Member) -> None:
    bond.members.remove(member)
    bonds(state).member_of.pop(member.sw_if_index, None)
    itf = state.interfaces.get(member.sw_if_index)
    if itf is not None:
        sup_itf(state, itf).mac = member.orig_mac


def bond_detach_member(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index not in state.interfaces:
        return reply(INVALID_SW_IF_INDEX)
    bond = bonds(state).member_of.get(sw_if_index)
    if bond is None:
        return reply(INVALID_INTERFACE)
    member = next(m for m in bond.members if m.sw_if_index == sw_if_index)
    _release(state, bond, member)
    return reply(OK)


def sw_interface_set_bond_weight(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index not in state.interfaces:
        return reply(INVALID_SW_IF_INDEX)
    bond = bonds(state).member_of.get(sw_if_index)
    if bond is None:
        return reply(INVALID_INTERFACE)
    if bond.mode != MODE_AB:
        return reply(INVALID_ARGUMENT)  # weights only order active-backup failover
    member = next(m for m in bond.members if m.sw_if_index == sw_if_index)
    member.weight = args.get("weight", 0)
    return reply(OK)


# --- dumps ----------------------------------------------------------------


def _bond_rows(state: SimState, sw_if_index: int, active: str, total: str) -> list[dict]:
    rows = []
    for bond in bonds(state).pool.ordered():
        if bond is None or sw_if_index not in (NONE_INDEX, bond.sw_if_index):
            continue
        rows.append({
            "sw_if_index": bond.sw_if_index, "id": bond.id, "mode": bond.mode, "lb": bond.lb,
            "numa_only": bond.numa_only, active: active_count(state, bond.sw_if_index),
            total: len(bond.members), "interface_name": state.interfaces[bond.sw_if_index].name,
        })
    return rows


def sw_bond_interface_dump(state: SimState, args: dict[str, Any]) -> Response:
    index = args.get("sw_if_index", NONE_INDEX)
    return details(_bond_rows(state, index, "active_members", "members"))


def sw_interface_bond_dump(state: SimState, args: dict[str, Any]) -> Response:
    return details(_bond_rows(state, NONE_INDEX, "active_slaves", "slaves"))


def _member_name(state: SimState, itf: SimInterface) -> str:
    # VPP names a member by its hardware interface; a sub-interface member has
    # none of its own and the dump shows hw index 0's name (local0).
    if is_sub(itf):
        local0 = state.interfaces.get(0)
        return local0.name if local0 is not None else "local0"
    return itf.name


def sw_member_interface_dump(state: SimState, args: dict[str, Any]) -> Response:
    bond = bonds(state).by_sw.get(args.get("sw_if_index", NONE_INDEX))
    if bond is None:
        return details([])
    rows = []
    for m in bond.members:
        itf = state.interfaces[m.sw_if_index]
        rows.append({
            "sw_if_index": m.sw_if_index, "interface_name": _member_name(state, itf),
            "is_passive": m.is_passive, "is_long_timeout": m.is_long_timeout,
            "is_local_numa": m.local_numa, "weight": m.weight,
        })
    return details(rows)


# LACP state bits (802.1AX): activity, timeout, aggregation, ..., defaulted, expired
_LACP_ACTIVE, _LACP_SHORT_TIMEOUT, _LACP_AGGREGATABLE = 1, 2, 4
_LACP_DEFAULTED, _LACP_EXPIRED = 64, 128


def sw_interface_lacp_dump(state: SimState, args: dict[str, Any]) -> Response:
    """Members of LACP bonds; no partner ever answers here (defaulted/expired)."""
    rows = []
    members = [(m, b) for b in bonds(state).by_sw.values() if b.mode == MODE_LACP
               for m in b.members]
    for member, bond in sorted(members, key=lambda mb: mb[0].sw_if_index):
        itf = state.interfaces[member.sw_if_index]
        bond_itf = state.interfaces[bond.sw_if_index]
        actor_state = _LACP_AGGREGATABLE | _LACP_DEFAULTED | _LACP_EXPIRED
        if not member.is_passive:
            actor_state |= _LACP_ACTIVE
        if not member.is_long_timeout:
            actor_state |= _LACP_SHORT_TIMEOUT
        port = sup_itf(state, itf).hw_if_index
        rows.append({
            "sw_if_index": member.sw_if_index, "interface_name": _member_name(state, itf),
            "rx_state": 2, "tx_state": 0, "mux_state": 0, "ptx_state": 0,
            "bond_interface_name": bond_itf.name,
            "actor_system_priority": 65535, "actor_system": bond_itf.mac,
            "actor_key": bond_itf.hw_if_index, "actor_port_priority": 255,
            "actor_port_number": port, "actor_state": actor_state,
            "partner_system_priority": 65535, "partner_system": ZERO_MAC,
            "partner_key": bond_itf.hw_if_index, "partner_port_priority": 255,
            "partner_port_number": port, "partner_state": _LACP_SHORT_TIMEOUT,
        })
    return details(rows)


# --- cascades -------------------------------------------------------------


def _on_delete(state: SimState, sw_if_index: int) -> None:
    data = bonds(state)
    bond = data.by_sw.pop(sw_if_index, None)
    if bond is not None:
        for member in list(bond.members):
            _release(state, bond, member)
        del data.by_id[bond.id]
        data.pool.put(bond.pool_index)
        return
    owner = data.member_of.get(sw_if_index)
    if owner is not None:  # VPP detaches a member that goes away
        member = next(m for m in owner.members if m.sw_if_index == sw_if_index)
        _release(state, owner, member)


def _on_change(state: SimState, message: str, args: dict[str, Any]) -> None:
    """A MAC set on a bond reaches every member's hardware; a member coming up
    is marked local-numa."""
    if message == "sw_interface_set_flags":
        for bond in bonds(state).by_sw.values():
            for member in bond.members:
                _mark_local_numa(state, bond, member)
        return
    if message != "sw_interface_set_mac_address":
        return
    bond = bonds(state).by_sw.get(args.get("sw_if_index", NONE_INDEX))
    if bond is None:
        return
    mac = state.interfaces[bond.sw_if_index].mac
    for member in bond.members:
        sup_itf(state, state.interfaces[member.sw_if_index]).mac = mac


def install(state: SimState) -> None:
    bonds(state)
    state.on_delete.append(_on_delete)
    state.on_change.append(_on_change)


HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    "bond_create": bond_create,
    "bond_create2": bond_create2,
    "bond_delete": bond_delete,
    "bond_add_member": bond_add_member,
    "bond_enslave": bond_add_member,
    "bond_detach_member": bond_detach_member,
    "bond_detach_slave": bond_detach_member,
    "sw_interface_set_bond_weight": sw_interface_set_bond_weight,
    "sw_bond_interface_dump": sw_bond_interface_dump,
    "sw_interface_bond_dump": sw_interface_bond_dump,
    "sw_member_interface_dump": sw_member_interface_dump,
    "sw_interface_slave_dump": sw_member_interface_dump,
    "sw_interface_lacp_dump": sw_interface_lacp_dump,
}
