"""VXLAN tunnels: no setter for any field, so a change recreates the tunnel."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from vppcfg.model import Dataplane, FrozenDict, InterfaceKind, VxlanTunnel
from vppcfg.objects.base import (
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    fd,
    field_of,
    ikey,
    token,
)
from vppcfg.objects.interface import tag_cli, tag_created
from vppcfg.objects.needs import EVERY_INTERFACE, TAG, VXLAN, Dump, Uses, pick
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import NONE_INDEX

# newest first: the executor sends the first one this VPP offers
ADD_DEL = Uses(("vxlan_add_del_tunnel_v3", "vxlan_add_del_tunnel_v2"), VXLAN)

class Vxlan(Descriptor):
    obj = "vxlan-tunnel"
    api_modules = ("vxlan",)
    uses = (ADD_DEL, TAG)
    reads = (Dump("vxlans", ("vxlan_tunnel_v2_dump", "vxlan_tunnel_dump"), VXLAN,
                  args=EVERY_INTERFACE),)

    def mark(self, raw: RawDump, reading: Reading) -> None:
        reading.mark(raw.rows("vxlans"), InterfaceKind.VXLAN)

    def read(self, raw: RawDump, reading: Reading) -> None:
        tunnels: dict[str, VxlanTunnel] = {}
        for v, itf in reading.modelled(raw.rows("vxlans")):
            tunnels[itf.name] = VxlanTunnel(
                name=itf.name, instance=v["instance"], vni=v["vni"],
                local=str(ipaddress.ip_address(v["src_address"])),
                remote=str(ipaddress.ip_address(v["dst_address"])),
            )
            if reading.foreign_interface(itf.name):
                reading.foreign.add(f"vxlan_tunnels/{itf.name}")
        reading.sections["vxlan_tunnels"] = FrozenDict(sorted(tunnels.items()))

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for tun in dp.vxlan_tunnels.values():
            value = fd(name=tun.name, instance=tun.instance, local=tun.local, remote=tun.remote,
                       vni=tun.vni)
            yield Node(f"vxlan_tunnels/{tun.name}", self.obj, value, owner=ikey(tun.name))

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "tunnel endpoints or vni changed: tunnel is recreated"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        p = op.params
        base = f"create vxlan tunnel src {token(p['local'])} dst {token(p['remote'])}"
        if op.action == "delete":
            return [f"{base} vni {int(p['vni'])} del"]
        return [f"{base} instance {int(p['instance'])} vni {int(p['vni'])}", tag_cli(p["name"])]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        is_add = op.action != "delete"
        args = dict(is_add=is_add, instance=p["instance"], src_address=p["local"],
                    dst_address=p["remote"], mcast_sw_if_index=NONE_INDEX, encap_vrf_id=0,
                    decap_next_index=NONE_INDEX, vni=p["vni"])
        if pick(ctx, ADD_DEL) == "vxlan_add_del_tunnel_v3":
            reply = ctx.call("vxlan_add_del_tunnel_v3", src_port=0, dst_port=0, is_l3=False,
                             **args)
        else:
            reply = ctx.call("vxlan_add_del_tunnel_v2", src_port=0, dst_port=0, **args)
        if is_add:
            tag_created(ctx, p["name"], field_of(reply, "sw_if_index"))
        else:
            ctx.forget(p["name"])


class VxlanInterface(Descriptor):
    obj = "vxlan-interface"
    virtual = True

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for tun in dp.vxlan_tunnels.values():
            key = ikey(tun.name)
            yield Node(key, self.obj, fd(kind="vxlan"), deps=(f"vxlan_tunnels/{tun.name}",),
                       owner=key)
