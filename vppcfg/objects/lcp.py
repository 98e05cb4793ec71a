"""Linux Control Plane pairs: a VPP interface mirrored as a Linux tap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vppcfg.model import Dataplane, Interface
from vppcfg.objects.base import (
    Claim,
    Columns,
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    ikey,
    token,
    tokens,
)
from vppcfg.objects.needs import LINUX_CP, Dump, Uses, pick
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import SYSCALL_ERROR_3, VALUE_EXIST

HOST_TAP = 0
# newest first: the executor sends the first one this VPP offers
ADD_DEL = Uses(("lcp_itf_pair_add_del_v3", "lcp_itf_pair_add_del_v2", "lcp_itf_pair_add_del"),
               LINUX_CP)


def _created(names: Sequence[str], hosts: Sequence[str]) -> list[str]:
    """The commands that pair each interface names[i] with the host interface hosts[i]."""
    return [f"lcp create {name} host-if {host}"
            for name, host in zip(tokens(names), tokens(hosts), strict=True)]


class Lcp(Descriptor):
    obj = "lcp"
    api_modules = ("lcp",)
    hints = (
        ("lcp_itf_pair_add_del", SYSCALL_ERROR_3,
         "Linux refused the host interface: is its name taken (by a netdev, or another pair)?"),
        ("lcp_itf_pair_add_del", VALUE_EXIST, "the interface has a pair already"),
    )
    uses = (ADD_DEL,)
    # Never lcp_itf_pair_get_v2 with sw_if_index ~0: VPP answers with the v1
    # reply and the client waits forever.
    reads = (Dump("lcp_pairs", ("lcp_itf_pair_get",), LINUX_CP, paged=True),)

    def mark(self, raw: RawDump, reading: Reading) -> None:
        # the host taps/tuns are linux-cp's plumbing, not interfaces to model
        reading.hidden.update(p["host_sw_if_index"] for p in raw.rows("lcp_pairs"))

    def read(self, raw: RawDump, reading: Reading) -> None:
        for pair in raw.rows("lcp_pairs"):
            reading.set(pair["phy_sw_if_index"], lcp=pair["host_if_name"])

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        interfaces = dp.interfaces
        paired = list(ctx.having("lcp"))
        owners = [key for key, _ in paired]
        parents = [interfaces.get(itf.parent) if itf.parent else None for _, itf in paired]
        # the parent's pair comes first
        parent_pairs = [f"{ikey(parent.name)}/lcp" if parent is not None and parent.lcp
                        else None for parent in parents]
        return Columns([f"{key}/lcp" for key in owners], [itf for _, itf in paired],
                       (owners, parent_pairs), owners)

    def value(self, source: Interface) -> dict[str, Any]:
        return {"name": source.name, "host": source.lcp}

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return (Claim(f"lcp-host:{node.value['host']}"), Claim(f"role:{node.value['name']}", "any"))

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "host name changed: lcp pair is recreated"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        if op.action == "delete":
            return [f"lcp delete {token(op.params['name'])}"]
        return self.created_lines(op.params)

    def created_lines(self, params: Mapping[str, Any]) -> list[str]:
        return _created((params["name"],), (params["host"],))

    def created_run(self, sources: list[Interface]) -> list[str]:
        return _created([itf.name for itf in sources], [itf.lcp for itf in sources])

    def execute(self, op: Operation, ctx: VppContext) -> None:
        args = dict(is_add=op.action == "create", sw_if_index=ctx.sw_if_index(op.params["name"]),
                    host_if_name=op.params["host"], host_if_type=HOST_TAP, netns="")
        ctx.call(pick(ctx, ADD_DEL), **args)
