"""L2 cross-connects (one direction: rx interface -> tx interface)."""

from __future__ import annotations

from collections.abc import Iterable

from vppcfg.model import Dataplane
from vppcfg.objects.base import Claim, Descriptor, Node, NodeContext, RenderContext, fd, ikey, token
from vppcfg.objects.bridge import popped_tags, set_tag_rewrite, tag_rewrite_cli
from vppcfg.objects.needs import Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext


class L2xc(Descriptor):
    """A sub-interface source has its VLAN tags popped, as a bridge member has
    (the other direction's pop on the target pushes them back on the way out)."""

    obj = "l2xc"
    api_modules = ("l2",)
    uses = (Uses(("sw_interface_set_l2_xconnect",)),)
    reads = (Dump("l2xc", ("l2_xconnect_dump",)),)

    def read(self, raw: RawDump, reading: Reading) -> None:
        for xc in raw.rows("l2xc"):
            tx = reading.names.get(xc["tx_sw_if_index"])
            if tx is not None:
                reading.set(xc["rx_sw_if_index"], l2xc=tx)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.having("l2xc"):
            yield Node(f"{key}/l2xc", self.obj,
                       fd(name=itf.name, tx=itf.l2xc, pop=popped_tags(dp, itf.name)),
                       deps=(key, ikey(itf.l2xc)), owner=key)

    def claims(self, node: Node) -> tuple[Claim, ...]:
        name = node.value["name"]
        return (Claim(f"port:{name}"), Claim(f"role:{name}", "l2"))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name, pop = op.params["name"], int(op.params["pop"])
        if op.action == "delete":
            lines = [tag_rewrite_cli(name, 0)] if pop else []
            return [*lines, f"set interface l3 {token(name)}"]
        lines = [f"set interface l2 xconnect {token(name)} {token(op.params['tx'])}"]
        if pop and op.action == "create":  # an update only changes the target
            lines.append(tag_rewrite_cli(name, pop))
        return lines

    def execute(self, op: Operation, ctx: VppContext) -> None:
        rx, pop = ctx.sw_if_index(op.params["name"]), int(op.params["pop"])
        if op.action == "delete":
            if pop:
                set_tag_rewrite(ctx, rx, 0)
            ctx.call("sw_interface_set_l2_xconnect", rx_sw_if_index=rx, tx_sw_if_index=rx,
                     enable=False)
            return
        ctx.call("sw_interface_set_l2_xconnect", rx_sw_if_index=rx,
                 tx_sw_if_index=ctx.sw_if_index(op.params["tx"]), enable=True)
        if pop and op.action == "create":
            set_tag_rewrite(ctx, rx, pop)
