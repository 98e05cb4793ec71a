"""Linux Control Plane (linux-cp) interface pairs.

Observed VPP behaviour modelled here (recorded on VPP 26.10 with lcp-sync and
lcp-auto-subint, on a kernel without 802.1q support; the simulator defaults to
a kernel with 802.1q and lcp-auto-subint off, see SimDataplane):
* a pair creates a host tap tap4096, tap4097... (tun<N> for host_if_type TUN)
  carrying the phy's MAC and L3 (packet) MTU, not its hardware MTU, admin
  up; the reply gives its sw_if_index and the Linux ifindex (vif_index,
  counted per namespace).
* refusals: bad index -> -2; local0 -> -73; a phy already paired -> -81; an
  empty or 16+ character host name or an unknown namespace -> -81 (15 characters
  work on vpp-real; the recording's "15 chars" refusal was the same loopback's
  second pair); a host
  name Linux already has -> -13 (the tap fails). Sub-interfaces: parent without
  pair -> -2. With a kernel with 802.1q (``linux(state).vlan_support``, the
  default) a sub pair is a Linux VLAN plus a mirror sub-interface on the host
  tap, and lcp-auto-subint (``pairs(state).auto_subint``, off by default as in
  VPP) pairs new subs of paired interfaces as <host>.<sub_id>; without 802.1q
  (the recorded VPP's kernel) -> -73.
* deleting the phy (or its host tap) removes the pair and the host tap.
* lcp_itf_pair_get walks the pair pool from a cursor; the simulator answers in
  one go (cursor ~0 after pairs were listed, the request's cursor when there
  are none) unless ``pairs(state).page_size`` is set: then a longer walk stops
  with EAGAIN (-165) and the cursor to resume from, to exercise clients.
* lcp_itf_pair_get_v2 with sw_if_index ~0 answers with the v1 reply message
  (a VPP bug: clients never see their reply).
* settings (startup.conf `linux-cp { ... }`, apply_settings; the CLI `lcp
  lcp-sync`, `lcp lcp-auto-subint`, `lcp default netns`, `show lcp`): VPP's
  defaults are sync off, auto-subint off, no default netns, sync-unnumbered on.
* the Linux side of a pair, and what lcp-sync carries to it: see lcp_sync.
* linux-nl (``pairs(state).linux_nl``, off: vpp-real does not load it, `show
  plugins`; the recorded VPP did): Linux mirrors a host tap's MTU back as the
  phy's hardware MTU (see sync_mtu). Without it nothing done in Linux (the
  Linux socket's changes included) reaches VPP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.core import subif
from vppcfg.sim.core.mpls import step_mpls
from vppcfg.sim.plugins import lcp_sync
from vppcfg.sim.plugins import tap as tap_plugin
from vppcfg.sim.plugins._util import (
    INVALID_ARGUMENT,
    INVALID_SW_IF_INDEX,
    OK,
    SYSCALL_ERROR_3,
    VALUE_EXIST,
    Pool,
    delete_interface,
    linux,
    name_taken,
    reply,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimInterface, SimState
from vppcfg.vpp_numbers import EAGAIN, SUB_DOT1AD

HOST_TAP, HOST_TUN = 0, 1
FIRST_TAP_ID = 4096
MAX_HOST_NAME = 15  # Linux's IFNAMSIZ 16 with the NUL; vpp-real takes 15
MAX_PACKET_BYTES = 9216  # ETHERNET_MAX_PACKET_BYTES: a host tap's MTU when the phy has none


@dataclass
class Pair:
    phy_sw_if_index: int
    host_sw_if_index: int
    vif_index: int
    host_if_name: str
    host_if_type: int
    netns: str
    pool_index: int = 0

    def details(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "pool_index"}


@dataclass
class LcpState:
    pool: Pool = field(default_factory=Pool)
    by_phy: dict[int, Pair] = field(default_factory=dict)
    by_host: dict[int, Pair] = field(default_factory=dict)
    default_ns: str = ""
    page_size: int | None = None  # None: every walk answers in one go
    # startup.conf `linux-cp { ... }` words (apply_settings), VPP's defaults:
    # vppcfg wants auto-subint off; the recordings had sync and auto-subint on.
    auto_subint: bool = False
    sync: bool = False
    sync_unnumbered: bool = True
    del_static_on_link_down: bool = False
    del_dynamic_on_link_down: bool = False
    # the linux_nl plugin (Linux changes mirrored into VPP): the recorded VPP
    # loaded it, vpp-real does not
    linux_nl: bool = False


def pairs(state: SimState) -> LcpState:
    data = state.plugins.get("lcp")
    if data is None:
        data = state.plugins["lcp"] = LcpState()
    return data


FLAG_WORDS = {"lcp-sync": "sync", "lcp-auto-subint": "auto_subint",
              "del-static-on-link-down": "del_static_on_link_down",
              "del-dynamic-on-link-down": "del_dynamic_on_link_down"}


def apply_settings(state: SimState, text: str) -> None:
    """The words of a startup.conf `linux-cp { ... }` stanza (lcp_itf_pair_config);
    a default netns named there is made in the sim's Linux, as vpp-real does."""
    data, words = pairs(state), text.split()
    while words:
        word = words.pop(0)
        if word in FLAG_WORDS:
            setattr(data, FLAG_WORDS[word], True)
        elif word == "default" and len(words) >= 2 and words[0] == "netns":
            data.default_ns = words[1]
            linux(state).add_namespace(words[1])
            del words[:2]
        elif word in ("num-rx-queues", "num-tx-queues") and words and words[0].isdigit():
            words.pop(0)
        else:
            raise ValueError(f"linux-cp: unknown input `{' '.join([word, *words])}'")


def set_sync(state: SimState, on: bool) -> None:
    """lcp_set_sync: turning it on syncs every pair at once."""
    pairs(state).sync = on
    if on:
        lcp_sync.sync_all(state, pairs(state))


def set_auto_subint(state: SimState, on: bool) -> None:
    pairs(state).auto_subint = on


def set_sync_unnumbered(state: SimState, on: bool) -> None:
    pairs(state).sync_unnumbered = on
    if on:
        lcp_sync.sync_all(state, pairs(state))


def show(state: SimState, phy_sw_if_index: int = NONE_INDEX) -> str:
    """`show lcp` (lcp_itf_pair_show) as cli_inband returns it: VPP prints each
    host name with the NUL its vector ends with."""
    data = pairs(state)
    onoff = {True: "on", False: "off"}
    lines = [f"lcp default netns '{data.default_ns or '<unset>'}'",
             f"lcp lcp-auto-subint {onoff[data.auto_subint]}",
             f"lcp lcp-sync {onoff[data.sync]}",
             f"lcp lcp-sync-unnumbered {onoff[data.sync_unnumbered]}",
             f"lcp del-static-on-link-down {onoff[data.del_static_on_link_down]}",
             f"lcp del-dynamic-on-link-down {onoff[data.del_dynamic_on_link_down]}"]
    for pair in data.pool.ordered():
        if phy_sw_if_index in (NONE_INDEX, pair.phy_sw_if_index):
            lines.append(_show_pair(state, pair))
    return "".join(f"{line}\n" for line in lines)


def _show_pair(state: SimState, pair: Pair) -> str:
    phy, host = state.interfaces.get(pair.phy_sw_if_index), state.interfaces.get(
        pair.host_sw_if_index)
    text = (f"itf-pair: [{pair.pool_index}] {phy.name if phy else '<no-phy-if>'} "
            f"{host.name if host else '<no-host-if>'} {pair.host_if_name}\0 {pair.vif_index} "
            f"type {'tun' if pair.host_if_type == HOST_TUN else 'tap'}")
    return f"{text} netns {pair.netns}" if pair.netns else text


def _next_tap_id(state: SimState) -> int:
    return tap_plugin.taps(state).ids.lowest(FIRST_TAP_ID)


def _refusal(state: SimState, args: dict[str, Any], netns: str) -> int:
    data = pairs(state)
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    itf = state.interfaces.get(sw_if_index)
    if itf is None:
        return INVALID_SW_IF_INDEX
    if sw_if_index == 0:
        return INVALID_ARGUMENT
    if sw_if_index in data.by_phy:
        return VALUE_EXIST
    if itf.is_sub:
        if itf.sup_sw_if_index not in data.by_phy:
            return INVALID_SW_IF_INDEX
        if not linux(state).vlan_support:
            return INVALID_ARGUMENT  # the Linux VLAN device cannot be made
    name = args.get("host_if_name", "")
    host = linux(state)
    if not name or len(name) > MAX_HOST_NAME or not host.has_namespace(netns):
        return VALUE_EXIST
    if itf.is_sub and name_taken(state, name, netns):
        return SYSCALL_ERROR_3
    return OK


def create_pair(state: SimState, args: dict[str, Any]) -> tuple[int, Pair | None]:
    data = pairs(state)
    netns = args.get("netns", "") or data.default_ns
    retval = _refusal(state, args, netns)
    if retval != OK:
        return retval, None
    phy = state.interfaces[args["sw_if_index"]]
    if phy.is_sub:
        host = _create_vlan(state, phy, args["host_if_name"], netns)
        if host is None:
            return INVALID_ARGUMENT, None
        tun = False
    else:
        tun = args.get("host_if_type", HOST_TAP) == HOST_TUN
        retval, host = _create_host_tap(state, phy, args["host_if_name"], netns, tun)
        if host is None:
            return retval, None
    vif_index = linux(state).ifindex(args["host_if_name"], netns)
    pair = Pair(phy.sw_if_index, host.sw_if_index, vif_index, args["host_if_name"],
                HOST_TUN if tun else HOST_TAP, netns)
    pair.pool_index = data.pool.get(pair)
    data.by_phy[phy.sw_if_index] = pair
    data.by_host[host.sw_if_index] = pair
    # the pair's Linux side takes VPP's admin state, nothing else, until a sync
    lcp_sync.set_link_state(state, pair, phy.admin_up)
    sync_mpls(state, pair)
    return OK, pair


def _create_host_tap(
    state: SimState, phy: SimInterface, name: str, netns: str, tun: bool,
) -> tuple[int, SimInterface | None]:
    # linux-cp sizes the host side by the phy's L3 (packet) MTU, not its hardware
    # MTU: a loopback at 1400 (hardware 9000) gets a 1400 tap (seen on vpp-real)
    l3_mtu = phy.mtu[0]
    tap_args = {
        "id": _next_tap_id(state), "use_random_mac": True,
        "tap_flags": tap_plugin.FLAG_TUN if tun else 0,
        "host_if_name_set": True, "host_if_name": name,
        "host_namespace_set": bool(netns), "host_namespace": netns,
        "host_mtu_set": bool(l3_mtu), "host_mtu_size": l3_mtu,
        "host_mac_addr_set": not tun, "host_mac_addr": phy.mac,
    }
    retval, host = tap_plugin.create_tap(state, tap_args)
    if host is not None:
        host.admin_up = True
        host.mtu = [l3_mtu or MAX_PACKET_BYTES, 0, 0, 0]
    return retval, host


def _create_vlan(state: SimState, phy: SimInterface, name: str, netns: str
                 ) -> SimInterface | None:
    """With VLAN support, a sub's host side is a Linux VLAN on the parent's host
    interface (a QinQ's on its outer VLAN's), and VPP mirrors it as the same
    sub-interface on the host tap. None when Linux cannot make the VLAN."""
    parent_pair = pairs(state).by_phy[phy.sup_sw_if_index]
    lower = _linux_parent(state, phy, parent_pair)
    if lower is None or lower not in linux(state).netdevs[netns]:
        return None  # lcp_netlink_add_link_vlan fails: VPP answers -73
    parent_host = state.interfaces[parent_pair.host_sw_if_index]
    response = subif.create(state, parent_host, parent_host, phy.sub_id, phy.sub_if_flags,
                            phy.sub_outer_vlan_id, phy.sub_inner_vlan_id)
    host = state.interfaces[(response.reply or {})["sw_if_index"]]
    host.admin_up = True
    linux(state).add_vlan(name, netns, lower)
    return host


def _linux_parent(state: SimState, phy: SimInterface, parent_pair: Pair) -> str | None:
    """The Linux device a sub's VLAN goes on: the parent's host interface, or for
    an inner VLAN the pair of the sub carrying its outer VLAN alone, with the
    same tag type (lcp_itf_pair_find_by_outer_vlan: a QinAD's outer sub is a
    dot1ad one)."""
    if not phy.sub_inner_vlan_id:
        return parent_pair.host_if_name
    dot1ad = phy.sub_if_flags & SUB_DOT1AD
    for index in state.subs.get(phy.sup_sw_if_index, ()):
        outer = state.interfaces[index]
        pair = pairs(state).by_phy.get(index)
        if (pair is not None and outer.sub_outer_vlan_id == phy.sub_outer_vlan_id
                and not outer.sub_inner_vlan_id and outer.sub_if_flags & SUB_DOT1AD == dot1ad):
            return pair.host_if_name
    return None


def _forget(state: SimState, pair: Pair) -> None:
    data = pairs(state)
    data.pool.put(pair.pool_index)
    del data.by_phy[pair.phy_sw_if_index]
    del data.by_host[pair.host_sw_if_index]
    linux(state).remove_netdev(pair.host_if_name, pair.netns)


def _auto_subint(state: SimState, message: str, args: dict[str, Any]) -> None:
    """lcp-auto-subint: a new sub of a paired interface gets its own pair."""
    itf = state.interfaces.get(args.get("sw_if_index", NONE_INDEX))
    if itf is None or not linux(state).vlan_support or not pairs(state).auto_subint:
        return
    if message == "create_vlan_subif":
        sup, sub_id = state.hw_owner(itf), args.get("vlan_id", 0)
    else:
        sup, sub_id = itf, args.get("sub_id", 0)
    parent_pair = pairs(state).by_phy.get(sup.sw_if_index)
    sub = state.sub_index.get((sup.sw_if_index, "id", sub_id))
    if parent_pair is None or sub is None:
        return
    create_pair(state, {"sw_if_index": sub, "netns": parent_pair.netns,
                        "host_if_name": f"{parent_pair.host_if_name}.{sub_id}"})


def delete_pair(state: SimState, sw_if_index: int) -> int:
    pair = pairs(state).by_phy.get(sw_if_index)
    if pair is None:
        return INVALID_SW_IF_INDEX
    _forget(state, pair)
    delete_interface(state, pair.host_sw_if_index)
    return OK


def _add_del(state: SimState, args: dict[str, Any]) -> tuple[int, Pair | None]:
    if args.get("is_add", True):
        return create_pair(state, args)
    return delete_pair(state, args.get("sw_if_index", NONE_INDEX)), None


def lcp_itf_pair_add_del(state: SimState, args: dict[str, Any]) -> Response:
    retval, _ = _add_del(state, args)
    return reply(retval)


def lcp_itf_pair_add_del_v2(state: SimState, args: dict[str, Any]) -> Response:
    retval, pair = _add_del(state, args)
    return reply(retval, host_sw_if_index=pair.host_sw_if_index if pair else NONE_INDEX)


def lcp_itf_pair_add_del_v3(state: SimState, args: dict[str, Any]) -> Response:
    retval, pair = _add_del(state, args)
    return reply(retval, vif_index=pair.vif_index if pair else NONE_INDEX,
                 host_sw_if_index=pair.host_sw_if_index if pair else NONE_INDEX)


def _walk(state: SimState, cursor: int, sw_if_index: int = NONE_INDEX) -> Response:
    """The pair pool from ``cursor`` on. With a page_size set, a walk stops after
    that many pairs with EAGAIN and the cursor to resume from, as VPP may."""
    data = pairs(state)
    todo = [p for p in data.pool.ordered()
            if p.pool_index >= cursor and sw_if_index in (NONE_INDEX, p.phy_sw_if_index)]
    retval, end = OK, NONE_INDEX if data.pool.items else cursor
    if data.page_size is not None and len(todo) > data.page_size:
        retval, end = EAGAIN, todo[data.page_size].pool_index
        todo = todo[:data.page_size]
    return Response(reply={"retval": retval, "cursor": end}, details=[p.details() for p in todo],
                    details_name="lcp_itf_pair_details")


def lcp_itf_pair_get(state: SimState, args: dict[str, Any]) -> Response:
    return _walk(state, args.get("cursor", 0))


def lcp_itf_pair_get_v2(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index == NONE_INDEX:
        response = _walk(state, args.get("cursor", 0))
        response.reply_name = "lcp_itf_pair_get_reply"  # what VPP really sends
        return response
    # One interface: its pair whatever the cursor, and cursor ~0 in the reply.
    pair = pairs(state).by_phy.get(sw_if_index)
    retval = OK if pair is not None else INVALID_SW_IF_INDEX
    return Response(reply={"retval": retval, "cursor": NONE_INDEX},
                    details=[pair.details()] if pair is not None else [],
                    details_name="lcp_itf_pair_details")


def lcp_default_ns_get(state: SimState, args: dict[str, Any]) -> Response:
    return Response(reply={"netns": pairs(state).default_ns})


def lcp_default_ns_set(state: SimState, args: dict[str, Any]) -> Response:
    netns = args.get("netns", "")
    if not linux(state).has_namespace(netns):
        return reply(INVALID_ARGUMENT)
    pairs(state).default_ns = netns
    return reply(OK)


def sync_mtu(state: SimState, sw_if_index: int) -> None:
    """lcp-sync after sw_interface_set_mtu on a paired phy, with linux-nl: Linux
    takes the MTU on the host tap and linux-nl mirrors it back as the phy's
    hardware MTU, which (like hw_interface_set_mtu) resets the L3 MTU of the phy
    and its subs. vpp-real (no linux-nl) keeps its hardware MTU."""
    if not (pairs(state).sync and pairs(state).linux_nl):
        return
    pair = pairs(state).by_phy.get(sw_if_index)
    phy = state.interfaces.get(sw_if_index)
    if pair is None or phy is None or phy.is_sub:
        return
    new_mtu = phy.mtu[0]
    tap = tap_plugin.taps(state).by_sw.get(pair.host_sw_if_index)
    if tap is not None:
        tap.host_mtu_size = new_mtu
    phy.link_mtu = new_mtu
    for index in (sw_if_index, *state.subs.get(sw_if_index, ())):
        state.interfaces[index].mtu[0] = new_mtu


def sync_mpls(state: SimState, pair: Pair) -> None:
    """linux-cp's MPLS sync: the host tap's MPLS follows the phy's (at pair
    creation and on every change). Deleting the pair leaves the tap's count
    on its freed index, like any interface's."""
    phy_on = bool(state.mpls_refs.get(pair.phy_sw_if_index))
    if phy_on != bool(state.mpls_refs.get(pair.host_sw_if_index)):
        step_mpls(state, pair.host_sw_if_index, 1 if phy_on else -1)


def _on_change(state: SimState, message: str, args: dict[str, Any]) -> None:
    if message == "sw_interface_set_mpls_enable":
        pair = pairs(state).by_phy.get(args.get("sw_if_index", NONE_INDEX))
        if pair is not None:
            sync_mpls(state, pair)
    elif message == "sw_interface_set_flags":
        lcp_sync.admin_changed(state, pairs(state), args.get("sw_if_index", NONE_INDEX))
    elif message in ("sw_interface_set_mtu", "hw_interface_set_mtu"):
        lcp_sync.mtu_changed(state, pairs(state), args.get("sw_if_index", NONE_INDEX))
        if message == "sw_interface_set_mtu":
            sync_mtu(state, args.get("sw_if_index", NONE_INDEX))
    elif message in ("create_vlan_subif", "create_subif"):
        _auto_subint(state, message, args)


def _on_address(state: SimState, itf: SimInterface, address: str, is_add: bool) -> None:
    """lcp_itf_ip4/ip6_add_del_interface_addr: with lcp-sync, to the pair's Linux side."""
    pair = pairs(state).by_phy.get(itf.sw_if_index)
    if pair is None or not pairs(state).sync:
        return
    (lcp_sync.add_address if is_add else lcp_sync.del_address)(state, pair, address)


def _on_delete(state: SimState, sw_if_index: int) -> None:
    data = pairs(state)
    pair = data.by_phy.get(sw_if_index)
    if pair is not None:
        _forget(state, pair)
        if pair.host_sw_if_index in state.interfaces:
            delete_interface(state, pair.host_sw_if_index)
        return
    pair = data.by_host.get(sw_if_index)
    if pair is not None:
        _forget(state, pair)


def install(state: SimState) -> None:
    pairs(state)
    linux(state)
    state.on_delete.append(_on_delete)
    state.on_change.append(_on_change)
    state.on_address.append(_on_address)


HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    "lcp_itf_pair_add_del": lcp_itf_pair_add_del,
    "lcp_itf_pair_add_del_v2": lcp_itf_pair_add_del_v2,
    "lcp_itf_pair_add_del_v3": lcp_itf_pair_add_del_v3,
    "lcp_itf_pair_get": lcp_itf_pair_get,
    "lcp_itf_pair_get_v2": lcp_itf_pair_get_v2,
    "lcp_default_ns_get": lcp_default_ns_get,
    "lcp_default_ns_set": lcp_default_ns_set,
}

