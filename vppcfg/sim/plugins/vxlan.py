"""VXLAN tunnels (vxlan_tunnel<instance> interfaces).

Observed VPP behaviour modelled here:
* the API refuses mixed address families (-7), unknown encap VRF (-3),
  src == dst (-82) and a multicast dst without a valid mcast_sw_if_index (-2);
  a vni above 24 bits is accepted.
* a tunnel is keyed by (src, dst, vni, vrf, port): the same key again ->
  TUNNEL_EXIST (-75). Instance ~0 takes the tunnel's pool index (freed pool
  slots are reused last-freed first); an instance in use -> -147.
* delete ignores ``instance`` and matches the key; unknown key -> -6; the
  reply carries the deleted sw_if_index.
* new tunnels are admin up with link; L3 (is_l3) tunnels have no MAC and
  report link_mtu 0, mtu [0,0,0,0]. Ports 0 read back as 4789, decap_next ~0
  as 1 (l2-input).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.plugins._util import (
    INSTANCE_IN_USE,
    INVALID_SW_IF_INDEX,
    INVALID_VALUE,
    NO_SUCH_ENTRY,
    NO_SUCH_FIB,
    OK,
    SAME_SRC_DST,
    TUNNEL_EXIST,
    ZERO_MAC,
    Pool,
    add_interface,
    delete_interface,
    details,
    random_mac,
    reply,
    vrf_exists,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimState

VXLAN_PORT = 4789
DECAP_L2_INPUT = 1

Key = tuple[Any, ...]


@dataclass
class Tunnel:
    sw_if_index: int
    instance: int
    src_address: str
    dst_address: str
    src_port: int
    dst_port: int
    mcast_sw_if_index: int
    encap_vrf_id: int
    decap_next_index: int
    vni: int
    is_l3: bool
    key: Key
    pool_index: int = 0

    def details(self, with_ports: bool) -> dict[str, Any]:
        row = {
            "sw_if_index": self.sw_if_index, "instance": self.instance,
            "src_address": self.src_address, "dst_address": self.dst_address,
            "src_port": self.src_port, "dst_port": self.dst_port,
            "mcast_sw_if_index": self.mcast_sw_if_index, "encap_vrf_id": self.encap_vrf_id,
            "decap_next_index": self.decap_next_index, "vni": self.vni,
        }
        if not with_ports:
            del row["src_port"], row["dst_port"]
        return row


@dataclass
class VxlanState:
    pool: Pool = field(default_factory=Pool)
    by_key: dict[Key, Tunnel] = field(default_factory=dict)
    by_sw: dict[int, Tunnel] = field(default_factory=dict)
    instances: set[int] = field(default_factory=set)


def tunnels(state: SimState) -> VxlanState:
    data = state.plugins.get("vxlan")
    if data is None:
        data = state.plugins["vxlan"] = VxlanState()
    return data


def _check(state: SimState, args: dict[str, Any]) -> int:
    """The API handler's argument checks, in VPP's order."""
    src = ipaddress.ip_address(args.get("src_address", "0.0.0.0"))
    dst = ipaddress.ip_address(args.get("dst_address", "0.0.0.0"))
    if src.version != dst.version:
        return INVALID_VALUE
    if not vrf_exists(state, args.get("encap_vrf_id", 0), src.version == 6):
        return NO_SUCH_FIB
    if src == dst:
        return SAME_SRC_DST
    if dst.is_multicast and args.get("mcast_sw_if_index", NONE_INDEX) not in state.interfaces:
        return INVALID_SW_IF_INDEX
    return OK


def _key(args: dict[str, Any]) -> Key:
    return (
        ipaddress.ip_address(args.get("src_address", "0.0.0.0")),
        ipaddress.ip_address(args.get("dst_address", "0.0.0.0")),
        args.get("vni", 0), args.get("encap_vrf_id", 0), args.get("dst_port", 0) or VXLAN_PORT,
    )


def _add(state: SimState, args: dict[str, Any], key: Key) -> Response:
    data = tunnels(state)
    if key in data.by_key:
        return reply(TUNNEL_EXIST, sw_if_index=NONE_INDEX)
    pool_index = data.pool.get(None)
    instance = args.get("instance", NONE_INDEX)
    if instance == NONE_INDEX:
        instance = pool_index
    if instance in data.instances:
        data.pool.put(pool_index)
        return reply(INSTANCE_IN_USE, sw_if_index=NONE_INDEX)
    is_l3 = bool(args.get("is_l3"))
    itf = add_interface(
        state, f"vxlan_tunnel{instance}", "VXLAN", admin_up=True, link_up=True,
        mac=ZERO_MAC if is_l3 else random_mac(state), link_mtu=0 if is_l3 else 9000,
        mtu=[0, 0, 0, 0] if is_l3 else [9000, 0, 0, 0],
    )
    decap = args.get("decap_next_index", NONE_INDEX)
    tunnel = Tunnel(
        sw_if_index=itf.sw_if_index, instance=instance,
        src_address=str(key[0]), dst_address=str(key[1]),
        src_port=args.get("src_port", 0) or VXLAN_PORT, dst_port=key[4],
        mcast_sw_if_index=args.get("mcast_sw_if_index", NONE_INDEX),
        encap_vrf_id=key[3], decap_next_index=DECAP_L2_INPUT if decap == NONE_INDEX else decap,
        vni=key[2], is_l3=is_l3, key=key, pool_index=pool_index,
    )
    data.pool.items[pool_index] = tunnel
    data.by_key[key] = tunnel
    data.by_sw[itf.sw_if_index] = tunnel
    data.instances.add(instance)
    return reply(OK, sw_if_index=itf.sw_if_index)


def vxlan_add_del_tunnel(state: SimState, args: dict[str, Any]) -> Response:
    retval = _check(state, args)
    if retval != OK:
        return reply(retval, sw_if_index=NONE_INDEX)
    key = _key(args)
    if args.get("is_add", True):
        return _add(state, args, key)
    tunnel = tunnels(state).by_key.get(key)
    if tunnel is None:
        return reply(NO_SUCH_ENTRY, sw_if_index=NONE_INDEX)
    delete_interface(state, tunnel.sw_if_index)
    return reply(OK, sw_if_index=tunnel.sw_if_index)


def _dump(state: SimState, args: dict[str, Any], with_ports: bool) -> Response:
    index = args.get("sw_if_index", NONE_INDEX)
    rows = [t.details(with_ports) for t in tunnels(state).pool.ordered()
            if index in (NONE_INDEX, t.sw_if_index)]
    return details(rows)


def vxlan_tunnel_dump(state: SimState, args: dict[str, Any]) -> Response:
    return _dump(state, args, with_ports=False)


def vxlan_tunnel_v2_dump(state: SimState, args: dict[str, Any]) -> Response:
    return _dump(state, args, with_ports=True)


def _on_delete(state: SimState, sw_if_index: int) -> None:
    data = tunnels(state)
    tunnel = data.by_sw.pop(sw_if_index, None)
    if tunnel is None:
        return
    del data.by_key[tunnel.key]
    data.instances.discard(tunnel.instance)
    data.pool.put(tunnel.pool_index)


def install(state: SimState) -> None:
    tunnels(state)
    state.on_delete.append(_on_delete)


HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    "vxlan_add_del_tunnel": vxlan_add_del_tunnel,
    "vxlan_add_del_tunnel_v2": vxlan_add_del_tunnel,
    "vxlan_add_del_tunnel_v3": vxlan_add_del_tunnel,
    "vxlan_tunnel_dump": vxlan_tunnel_dump,
    "vxlan_tunnel_v2_dump": vxlan_tunnel_v2_dump,
}
