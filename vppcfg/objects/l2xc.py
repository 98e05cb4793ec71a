"""L2 cross-connects (one direction: rx interface -> tx interface)."""

from __future__ import annotations

from collections.abc import Iterable

from vppcfg.model import Dataplane
from vppcfg.objects.base import Claim, Descriptor, Node, NodeContext, RenderContext, fd, ikey, token
from vppcfg.ops import Operation, VppContext


class L2xc(Descriptor):
    obj = "l2xc"

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for itf in ctx.interfaces():
            if itf.l2xc:
                key = ikey(itf.name)
                yield Node(f"{key}/l2xc", self.obj, fd(name=itf.name, tx=itf.l2xc),
                           deps=(key, ikey(itf.l2xc)), owner=key)

    def claims(self, node: Node) -> tuple[Claim, ...]:
        name = node.value["name"]
        return (Claim(f"port:{name}"), Claim(f"role:{name}", "l2"))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["name"])
        if op.action == "delete":
            return [f"set interface l3 {name}"]
        return [f"set interface l2 xconnect {name} {token(op.params['tx'])}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        rx = ctx.sw_if_index(op.params["name"])
        if op.action == "delete":
            ctx.call("sw_interface_set_l2_xconnect", rx_sw_if_index=rx, tx_sw_if_index=rx,
                     enable=False)
            return
        ctx.call("sw_interface_set_l2_xconnect", rx_sw_if_index=rx,
                 tx_sw_if_index=ctx.sw_if_index(op.params["tx"]), enable=True)
