"""L2: bridge domains, bridge ports, cross-connects and VLAN tag rewrite.

Observed VPP behaviour this models:
- bd 0 always exists but is never listed, cannot be deleted (-121) or re-added
  (-119); ids >= 2^24 are -122; bd_id ~0 allocates a (random) id;
- bridge members are listed BVI first, then normal ports in join order, then
  tunnels; n_sw_ifs counts the BVI; a UU-forward port is not a member;
- set_l2_bridge to a missing bd creates it with default flags; moving a port to
  another bd is allowed; enable=0 (bridge or xconnect message) returns the port
  to L3 whatever bd_id is given, and succeeds when it was not in L2;
- a second BVI is -152; deleting a bd with members (even just a BVI) is -120;
- xconnect directions are independent; joining a bd drops a port's xconnect
  and vice versa;
- bridge_flags answers with the bd's l2-input feature bitmap.
"""

from __future__ import annotations

from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimBridgeDomain, SimState

BD_ID_MAX = (1 << 24) - 1
PORT_NORMAL, PORT_BVI, PORT_UU_FWD = 0, 1, 2
# bridge_flags bits -> l2-input feature bit positions of this VPP build
# (drop, xconnect, flood, arp-ufwd, arp-term, uu-flood, uu-fwd, fwd, rw, learn, ...)
# LEARN, FWD, FLOOD, UU_FLOOD, ARP_TERM, ARP_UFWD
FLAG_FEATURE_BIT = {1: 9, 2: 7, 4: 2, 8: 5, 16: 4, 32: 3}
FLAG_ATTR = {1: "learn", 2: "forward", 4: "flood", 8: "uu_flood", 16: "arp_term", 32: "arp_ufwd"}
UU_FWD_BIT = 6
# Flood class "tunnel normal": kept behind the normal members of a bridge.
TUNNEL_DEV_TYPES = frozenset({"VXLAN"})


def feature_bitmap(bd: SimBridgeDomain) -> int:
    every = (1 << 32) - 1  # a u32 feature bitmap: all features on
    bitmap = every & ~(1 << UU_FWD_BIT) if not bd.uu_fwd_bit else every
    for flag, bit in FLAG_FEATURE_BIT.items():
        if not getattr(bd, FLAG_ATTR[flag]):
            bitmap &= ~(1 << bit)
    return bitmap


def _bd_details(bd: SimBridgeDomain) -> dict[str, Any]:
    return {
        "bd_id": bd.bd_id,
        "flood": bd.flood,
        "uu_flood": bd.uu_flood,
        "forward": bd.forward,
        "learn": bd.learn,
        "arp_term": bd.arp_term,
        "arp_ufwd": bd.arp_ufwd,
        "mac_age": bd.mac_age,
        "bd_tag": bd.tag,
        "bvi_sw_if_index": bd.bvi,
        "uu_fwd_sw_if_index": bd.uu_fwd,
        "n_sw_ifs": len(bd.members),
        "sw_if_details": [{"sw_if_index": sw, "shg": shg} for sw, shg in bd.members],
    }


def ensure_default_bd(state: SimState) -> None:
    if 0 not in state.bridge_domains:
        state.add_bridge_domain(0)


# -- bridge domains -----------------------------------------------------------------
def _bd_add(state: SimState, args: dict[str, Any]) -> tuple[int, int]:
    bd_id = args.get("bd_id", 0)
    if bd_id == NONE_INDEX:
        bd_id = state.rng.randrange(1, BD_ID_MAX + 1)
        while bd_id in state.bridge_domains:
            bd_id = state.rng.randrange(1, BD_ID_MAX + 1)
    elif bd_id > BD_ID_MAX:
        return c.BD_ID_EXCEED_MAX, bd_id
    elif bd_id in state.bridge_domains:
        return c.BD_ALREADY_EXISTS, bd_id
    bd = state.add_bridge_domain(bd_id)
    for attr in FLAG_ATTR.values():
        setattr(bd, attr, bool(args.get(attr, False)))
    bd.mac_age = args.get("mac_age", 0)
    bd.tag = str(args.get("bd_tag", ""))
    return 0, bd_id


def _bd_del(state: SimState, bd_id: int) -> int:
    if bd_id == 0:
        return c.BD_NOT_MODIFIABLE
    bd = state.bridge_domains.get(bd_id)
    if bd is None:
        return c.NO_SUCH_ENTRY
    if bd.has_members():
        return c.BD_IN_USE
    if bd.uu_fwd != NONE_INDEX:
        state.l2_mode.pop(bd.uu_fwd, None)
    state.remove_bridge_domain(bd_id)
    return 0


def bridge_domain_add_del_v2(state: SimState, args: dict[str, Any]) -> Response:
    if args.get("is_add", True):
        retval, bd_id = _bd_add(state, args)
        return c.reply(retval, bd_id=bd_id)
    bd_id = args.get("bd_id", 0)
    return c.reply(_bd_del(state, bd_id), bd_id=bd_id)


def bridge_domain_add_del(state: SimState, args: dict[str, Any]) -> Response:
    if args.get("is_add", True):
        return c.reply(_bd_add(state, args)[0])
    return c.reply(_bd_del(state, args.get("bd_id", 0)))


def bridge_domain_dump(state: SimState, args: dict[str, Any]) -> Response:
    if args.get("sw_if_index", NONE_INDEX) != NONE_INDEX:
        return c.details([])  # observed: VPP 26.10 lists nothing with an interface filter
    bd_id = args.get("bd_id", NONE_INDEX)
    bds = sorted(state.bridge_domains.values(), key=lambda bd: bd.bd_index)
    return c.details(
        [_bd_details(bd) for bd in bds if bd.bd_id != 0 and bd_id in (NONE_INDEX, bd.bd_id)]
    )


def bridge_flags(state: SimState, args: dict[str, Any]) -> Response:
    bd_id = args.get("bd_id", 0)
    bd = state.bridge_domains.get(bd_id)
    if bd is None:
        return c.reply(c.NO_SUCH_ENTRY, resulting_feature_bitmap=0)
    if bd_id == 0:
        return c.reply(c.BD_NOT_MODIFIABLE, resulting_feature_bitmap=0)
    for flag, attr in FLAG_ATTR.items():
        if args.get("flags", 0) & flag:
            setattr(bd, attr, bool(args.get("is_set")))
    return c.reply(resulting_feature_bitmap=feature_bitmap(bd))


def bridge_domain_set_mac_age(state: SimState, args: dict[str, Any]) -> Response:
    bd = state.bridge_domains.get(args.get("bd_id", 0))
    if bd is None:
        return c.reply(c.NO_SUCH_ENTRY)
    bd.mac_age = args.get("mac_age", 0)
    return c.reply()


# -- ports --------------------------------------------------------------------------
def to_l3(state: SimState, sw_if_index: int) -> None:
    """Take an interface out of whatever L2 mode it is in."""
    mode = state.l2_mode.pop(sw_if_index, None)
    if mode is None or mode[0] != "bridge":
        return
    bd = state.bridge_domains.get(mode[1])
    if bd is None:
        return
    bd.normal.pop(sw_if_index, None)
    bd.tunnels.pop(sw_if_index, None)
    if bd.bvi == sw_if_index:
        bd.bvi = NONE_INDEX
    if bd.uu_fwd == sw_if_index:
        bd.uu_fwd = NONE_INDEX
        bd.uu_fwd_bit = False


def _is_tunnel(state: SimState, sw_if_index: int) -> bool:
    itf = state.interfaces[sw_if_index]
    return itf.flood_class == "tunnel" or itf.dev_type in TUNNEL_DEV_TYPES


def _join(state: SimState, bd: SimBridgeDomain, sw_if_index: int, port_type: int, shg: int) -> None:
    state.l2_mode[sw_if_index] = ("bridge", bd.bd_id)
    if port_type == PORT_UU_FWD:
        bd.uu_fwd = sw_if_index
        bd.uu_fwd_bit = True
        return
    if port_type == PORT_BVI:
        bd.bvi, bd.bvi_shg = sw_if_index, shg
    elif _is_tunnel(state, sw_if_index):
        bd.tunnels[sw_if_index] = shg
    else:
        bd.normal[sw_if_index] = shg


def sw_interface_set_l2_bridge(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = args.get("rx_sw_if_index", 0)
    if sw_if_index not in state.interfaces:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if not args.get("enable", True):
        to_l3(state, sw_if_index)
        return c.reply()
    bd_id = args.get("bd_id", 0)
    if bd_id > BD_ID_MAX:
        return c.reply(c.BD_ID_EXCEED_MAX)
    port_type = args.get("port_type", PORT_NORMAL)
    bd = state.bridge_domains.get(bd_id)
    if bd is not None and port_type == PORT_BVI and bd.bvi not in (NONE_INDEX, sw_if_index):
        return c.reply(c.BD_ALREADY_HAS_BVI)
    to_l3(state, sw_if_index)
    if bd is None:  # VPP creates a missing bd with default flags
        bd = state.add_bridge_domain(bd_id)
    _join(state, bd, sw_if_index, port_type, args.get("shg", 0))
    return c.reply()


def sw_interface_set_l2_xconnect(state: SimState, args: dict[str, Any]) -> Response:
    rx = args.get("rx_sw_if_index", 0)
    tx = args.get("tx_sw_if_index", 0)
    if rx not in state.interfaces:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if not args.get("enable", True):
        to_l3(state, rx)
        return c.reply()
    if tx not in state.interfaces:
        return c.reply(c.INVALID_SW_IF_INDEX)
    to_l3(state, rx)
    state.l2_mode[rx] = ("xconnect", tx)
    return c.reply()


def l2_xconnect_dump(state: SimState, args: dict[str, Any]) -> Response:
    pairs = sorted((rx, m[1]) for rx, m in state.l2_mode.items() if m[0] == "xconnect")
    return c.details([{"rx_sw_if_index": rx, "tx_sw_if_index": tx} for rx, tx in pairs])


# -- vlan tag rewrite ---------------------------------------------------------------
VTR_DISABLED, VTR_PUSH_1, VTR_PUSH_2, VTR_POP_1, VTR_POP_2 = 0, 1, 2, 3, 4
# tags a sub must match before an op can pop them
VTR_POPS = {0: 0, 1: 0, 2: 0, 3: 1, 4: 2, 5: 1, 6: 1, 7: 2, 8: 2}
VTR_PUSHES = {0: 0, 1: 1, 2: 2, 3: 0, 4: 0, 5: 1, 6: 2, 7: 1, 8: 2}


def _configured_tags(itf: Any) -> int:
    if not itf.is_sub:
        return 0
    flags = itf.sub_if_flags
    if flags & 2:  # one tag
        return 0 if flags & 64 else 1
    if flags & 4:  # two tags
        return 0 if flags & 64 else 1 if flags & 128 else 2
    return 0


def l2_interface_vlan_tag_rewrite(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    op = args.get("vtr_op", 0)
    if op not in VTR_POPS:
        return c.reply(c.INVALID_VALUE)
    if state.hw_owner(itf).dev_type == "local":
        return c.reply(c.INVALID_INTERFACE)
    if _configured_tags(itf) < VTR_POPS[op]:
        return c.reply(c.INVALID_VALUE)  # VPP: "vlan tag rewrite not compatible"
    pushes = VTR_PUSHES[op]
    tag1 = args.get("tag1", 0) if pushes >= 1 else 0
    tag2 = args.get("tag2", 0) if pushes == 2 else 0
    push_dot1q = int(bool(args.get("push_dot1q", 0))) if pushes else 0
    itf.vtr = (op, push_dot1q, tag1, tag2)
    return c.reply()


def forget(state: SimState, sw_if_index: int) -> None:
    """on_delete hook: leave the bridge / drop the cross-connect."""
    to_l3(state, sw_if_index)


HANDLERS = {
    "bridge_domain_add_del_v2": bridge_domain_add_del_v2,
    "bridge_domain_add_del": bridge_domain_add_del,
    "bridge_domain_dump": bridge_domain_dump,
    "bridge_flags": bridge_flags,
    "bridge_domain_set_mac_age": bridge_domain_set_mac_age,
    "sw_interface_set_l2_bridge": sw_interface_set_l2_bridge,
    "sw_interface_set_l2_xconnect": sw_interface_set_l2_xconnect,
    "l2_xconnect_dump": l2_xconnect_dump,
    "l2_interface_vlan_tag_rewrite": l2_interface_vlan_tag_rewrite,
}
