"""Interfaces: the dump and the per-interface settings (admin state, MTU, MAC, name, tag).

Observed VPP behaviour this models:
- the link of a sub-interface is its hardware's link; admin up of a sub whose
  parent is admin down is refused with -1;
- af_packet, DPDK and loopback links follow admin transitions (admin down drops
  the link: VPP stops the port); other PHYs keep theirs; local0's is always down;
- hw_interface_set_mtu resets the L3 packet MTU of the interface and all its
  subs to the new value; refuses subs (-7), bonds (-126), local0 (-30) and
  values the driver rejects (-11);
- sw_interface_set_mtu takes any value, with no clamping on readback.
"""

from __future__ import annotations

from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import IF_ADMIN_UP, IF_LINK_UP, ZERO_MAC, SimInterface, SimState

# Device types whose link goes down/up with the admin state.
LINK_FOLLOWS_ADMIN = frozenset({"af-packet", "Loopback", "dpdk"})
# Hardware MTU the drivers accept (a frame of mtu + ethernet header must fit 64k).
HW_MTU_MIN, HW_MTU_MAX = 64, 65535 - 14


def interface_details(state: SimState, itf: SimInterface) -> dict[str, Any]:
    hw = state.hw_owner(itf)
    flags = (IF_ADMIN_UP if itf.admin_up else 0) | (IF_LINK_UP if hw.link_up else 0)
    vtr_op, push_dot1q, tag1, tag2 = itf.vtr
    return {
        "sw_if_index": itf.sw_if_index,
        "sup_sw_if_index": itf.sup_sw_if_index,
        "l2_address": ZERO_MAC if itf.is_sub else itf.mac,
        "flags": flags,
        "type": 1 if itf.is_sub else 0,
        "link_duplex": 0,
        "link_speed": 0,
        "link_mtu": hw.link_mtu,
        "mtu": list(itf.mtu),
        "sub_id": itf.sub_id,
        "sub_number_of_tags": itf.sub_number_of_tags,
        "sub_outer_vlan_id": itf.sub_outer_vlan_id,
        "sub_inner_vlan_id": itf.sub_inner_vlan_id,
        "sub_if_flags": itf.sub_if_flags,
        "vtr_op": vtr_op,
        "vtr_push_dot1q": push_dot1q,
        "vtr_tag1": tag1,
        "vtr_tag2": tag2,
        "outer_tag": 0,
        "b_dmac": ZERO_MAC,
        "b_smac": ZERO_MAC,
        "b_vlanid": 0,
        "i_sid": 0,
        "interface_name": itf.name,
        "interface_dev_type": hw.dev_type,
        "tag": itf.tag,
    }


def sw_interface_dump(state: SimState, args: dict[str, Any]) -> Response:
    index = args.get("sw_if_index", c.NONE_INDEX)
    if index != c.NONE_INDEX:
        itf = state.get(index)
        return c.details([interface_details(state, itf)] if itf else [])
    # VPP matches the filter anywhere in the name, ignoring case (strcasestr)
    wanted = str(args.get("name_filter", "")).lower() if args.get("name_filter_valid") else ""
    found = [
        interface_details(state, state.interfaces[i])
        for i in sorted(state.interfaces)
        if not wanted or wanted in state.interfaces[i].name.lower()
    ]
    return c.details(found)


def sw_interface_set_flags(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    admin_up = bool(args.get("flags", 0) & IF_ADMIN_UP)
    if admin_up and itf.is_sub:
        sup = state.get(itf.sup_sw_if_index)
        if sup is not None and not sup.admin_up:
            return c.reply(c.UNSPECIFIED)
    if admin_up != itf.admin_up:
        itf.admin_up = admin_up
        if not itf.is_sub and itf.dev_type in LINK_FOLLOWS_ADMIN:
            itf.link_up = admin_up
    return c.reply()


def sw_interface_set_mtu(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    mtu = [int(v) for v in args.get("mtu", [0, 0, 0, 0])]
    itf.mtu = [*mtu, 0, 0, 0, 0][:4]
    return c.reply()


def hw_interface_set_mtu(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if itf.is_sub:
        return c.reply(c.INVALID_VALUE)
    if itf.dev_type == "local":
        return c.reply(c.FEATURE_DISABLED)
    if itf.dev_type == "bond":
        return c.reply(c.UNSUPPORTED)
    mtu = args.get("mtu", 0)
    if not HW_MTU_MIN <= mtu <= HW_MTU_MAX:
        return c.reply(c.SYSCALL_ERROR_1)
    itf.link_mtu = mtu
    for sw in (itf.sw_if_index, *state.subs.get(itf.sw_if_index, ())):
        state.interfaces[sw].mtu[0] = mtu
    return c.reply()


def sw_interface_set_mac_address(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    state.hw_owner(itf).mac = str(args.get("mac_address", ZERO_MAC)).lower()
    return c.reply()


def sw_interface_set_interface_name(state: SimState, args: dict[str, Any]) -> Response:
    """VPP renames the hardware interface; sub names are derived from it, so they follow."""
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    hw = state.hw_owner(itf)
    name = str(args.get("name", ""))
    if not name or state.names.get(name, hw.sw_if_index) != hw.sw_if_index:
        return c.reply(c.INVALID_VALUE)  # unverified: VPP refuses a name in use
    state.rename(hw, name)
    for sub in state.subs.get(hw.sw_if_index, ()):
        state.rename(state.interfaces[sub], f"{name}.{state.interfaces[sub].sub_id}")
    return c.reply()


def sw_interface_tag_add_del(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    itf.tag = str(args.get("tag", "")) if args.get("is_add") else ""
    return c.reply()


HANDLERS = {
    "sw_interface_dump": sw_interface_dump,
    "sw_interface_set_flags": sw_interface_set_flags,
    "sw_interface_set_mtu": sw_interface_set_mtu,
    "hw_interface_set_mtu": hw_interface_set_mtu,
    "sw_interface_set_mac_address": sw_interface_set_mac_address,
    "sw_interface_set_interface_name": sw_interface_set_interface_name,
    "sw_interface_tag_add_del": sw_interface_tag_add_del,
}
