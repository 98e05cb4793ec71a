"""IP addresses and unnumbered interfaces."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from vppcfg.model import Dataplane
from vppcfg.objects.base import Claim, Descriptor, Node, NodeContext, RenderContext, fd, ikey, token
from vppcfg.objects.needs import Uses
from vppcfg.ops import Operation, VppContext


class Address(Descriptor):
    obj = "address"
    uses = (Uses(("sw_interface_add_del_address",)),)
    reads = (Uses(("ip_address_dump",)),)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.keyed:
            for prefix in itf.addresses:
                # positional: the most numerous node of a large config
                yield Node(f"{key}/address/{prefix}", self.obj,
                           {"name": itf.name, "prefix": prefix}, (key,), key)

    def claims(self, node: Node) -> tuple[Claim, ...]:
        # One address, one subnet per VPP: a move frees them first.
        net = ipaddress.ip_interface(node.value["prefix"])
        return (Claim(f"ip:{net.ip}"), Claim(f"net:{net.network}"),
                Claim(f"role:{node.value['name']}", "l3"))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        verb = "del " if op.action == "delete" else ""
        return [f"set interface ip address {verb}{token(op.params['name'])} "
                f"{token(op.params['prefix'])}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        ctx.call("sw_interface_add_del_address", sw_if_index=ctx.sw_if_index(op.params["name"]),
                 is_add=op.action == "create", del_all=False, prefix=op.params["prefix"])


class Unnumbered(Descriptor):
    obj = "unnumbered"
    uses = (Uses(("sw_interface_set_unnumbered",)),)
    reads = (Uses(("ip_unnumbered_dump",)),)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.keyed:
            if itf.unnumbered:
                yield Node(f"{key}/unnumbered", self.obj, fd(name=itf.name, use=itf.unnumbered),
                           deps=(key, ikey(itf.unnumbered)), owner=key)

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return (Claim(f"role:{node.value['name']}", "l3"),)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["name"])
        if op.action == "delete":
            return [f"set interface unnumbered del {name}"]
        return [f"set interface unnumbered {name} use {token(op.params['use'])}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        target = ctx.sw_if_index(p["name"])
        if op.action == "update":
            previous = p["previous"].get("use", p["use"])
            ctx.call("sw_interface_set_unnumbered", sw_if_index=ctx.sw_if_index(previous),
                     unnumbered_sw_if_index=target, is_add=False)
        ctx.call("sw_interface_set_unnumbered", sw_if_index=ctx.sw_if_index(p["use"]),
                 unnumbered_sw_if_index=target, is_add=op.action != "delete")
