"""Linux Control Plane pairs: a VPP interface mirrored as a Linux tap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from vppcfg.model import Dataplane, FrozenDict, Interface
from vppcfg.objects.base import (
    Claim,
    Columns,
    Descriptor,
    Node,
    NodeContext,
    PlanView,
    RenderContext,
    ikey,
    token,
    tokens,
)
from vppcfg.objects.needs import LINUX_CP, Dump, Uses, pick
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import INVALID_SW_IF_INDEX, SYSCALL_ERROR_3, VALUE_EXIST

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
        if dp.linux is None and ctx.linux is not None and ctx.linux.settings.auto_subint:
            paired += _unpaired_subs(dp)
        elif dp.linux is not None and dp.linux.managed:
            paired = _netdev_gone(paired, dp.linux.hosts)
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
        if node.value["host"] is None:
            return ()
        return (Claim(f"lcp-host:{node.value['host']}"), Claim(f"role:{node.value['name']}", "any"))

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        if old.value["host"] is None and new.value["host"] is not None:
            return "its Linux netdev is gone: the pair is made again"
        if new.value["host"] is None:
            return "the file asks for no pair: lcp-auto-subint's pair is deleted"
        return "host name changed: lcp pair is recreated"

    def noop(self, op: Operation) -> bool:
        # "no pair" where VPP makes none (see _unpaired_subs)
        return op.action == "create" and op.params["host"] is None and "auto" not in op.params

    def noop_create(self, source: Interface) -> bool:
        return source.lcp is None

    def adjust(self, plan: PlanView) -> None:
        """lcp-auto-subint: VPP pairs a sub made under a paired parent itself,
        as <parent host>.<sub id>. A sub made in this plan while its parent's
        pair stays gets "auto" (that name): its create adopts the pair when the
        file names it so, else replaces or deletes it. A parent whose pair is
        made or removed in this plan has none while the sub is made (the sub
        goes before the new pair, after the old one's delete)."""
        side = plan.desired_ctx.linux
        if side is None or not side.settings.auto_subint:
            return
        interfaces = plan.desired_ctx.dp.interfaces
        for op in plan.operations("create", self.obj):
            itf = interfaces.get(op.params["name"])
            made = plan.get("create", ikey(itf.name)) if itf is not None else None
            if made is None or not itf.parent:
                continue
            parent = interfaces[itf.parent]
            parent_key = f"{ikey(parent.name)}/lcp"
            new_pair, old_pair = plan.get("create", parent_key), plan.get("delete", parent_key)
            if new_pair is not None:
                plan.edge(made, new_pair)
            if old_pair is not None:
                plan.edge(old_pair, made)
            if parent.lcp and new_pair is None and old_pair is None \
                    and _outer_paired(plan, interfaces, itf, made):
                auto = f"{parent.lcp}.{itf.sub_id}"
                plan.replace(op, FrozenDict({**op.params, "auto": auto}))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        if op.action == "delete":
            return [f"lcp delete {token(op.params['name'])}"]
        auto = op.params.get("auto")
        if auto is None:
            return self.created_lines(op.params)
        name, host = token(op.params["name"]), op.params["host"]
        said = f"comment {{ lcp-auto-subint pairs {name} as {token(auto)} }}"
        if host == auto:
            return [said]
        return [said, f"lcp delete {name}", *(self.created_lines(op.params) if host else ())]

    def created_lines(self, params: Mapping[str, Any]) -> list[str]:
        return _created((params["name"],), (params["host"],))

    def created_run(self, sources: list[Interface]) -> list[str]:
        return _created([itf.name for itf in sources], [itf.lcp for itf in sources])

    def execute(self, op: Operation, ctx: VppContext) -> None:
        auto, host = op.params.get("auto"), op.params["host"]
        if auto is not None:
            if host == auto:
                return  # adopted: VPP made the pair the file names
            _drop_auto_pair(op, ctx)
            if host is None:
                return
        args = dict(is_add=op.action == "create", sw_if_index=ctx.sw_if_index(op.params["name"]),
                    host_if_name=host, host_if_type=HOST_TAP, netns="")
        ctx.call(pick(ctx, ADD_DEL), **args)


def _netdev_gone(paired: list[tuple[str, Interface]], hosts: Mapping[str, Any]
                 ) -> list[tuple[str, Interface]]:
    """A live pair whose Linux netdev is gone (deleted in Linux) as one with
    no host: the planner then makes the pair again."""
    return [(key, itf if itf.name in hosts else replace(itf, lcp=None)) for key, itf in paired]


def _outer_paired(plan: PlanView, interfaces: Mapping[str, Interface], sub: Interface,
                  made: Operation) -> bool:
    """Whether lcp-auto-subint can pair ``sub`` when it is made: a sub with one
    tag, yes; a QinQ/QinAD sub only on the pair of a sibling carrying its outer
    tag alone (same tag type; lcp_itf_pair_find_by_outer_vlan), paired by then:
    one whose pair stays, or one made in this plan (VPP pairs it as it is
    made: it is then made first). Otherwise VPP makes no pair, and the plan
    has none to delete or adopt (a CLI `lcp delete` of it would fail)."""
    encap = sub.encapsulation
    if encap is None or not encap.inner_dot1q:
        return True
    for sibling in interfaces.values():
        outer = sibling.encapsulation
        if sibling.parent != sub.parent or sibling is sub or (outer and outer.inner_dot1q):
            continue
        if ((outer.dot1ad if outer else 0) != encap.dot1ad
                or (outer.outer if outer else sibling.sub_id) != encap.outer):
            continue
        sibling_made = plan.get("create", ikey(sibling.name))
        if sibling_made is not None:
            plan.edge(sibling_made, made)
            return True
        key = f"{ikey(sibling.name)}/lcp"
        return bool(sibling.lcp) and plan.get("create", key) is None \
            and plan.get("delete", key) is None
    return False


def _unpaired_subs(dp: Dataplane) -> list[tuple[str, Interface]]:
    """(key, sub) of the subs the file wants without a pair under a parent
    with one: with lcp-auto-subint, "no pair" is something to make."""
    interfaces = dp.interfaces
    return [(ikey(itf.name), itf) for itf in interfaces.values()
            if itf.parent and not itf.lcp and interfaces[itf.parent].lcp]


def _drop_auto_pair(op: Operation, ctx: VppContext) -> None:
    """Delete the pair lcp-auto-subint made (none if VPP could not make it, as
    for a QinQ sub whose outer sub has no pair yet): one call, answered now."""
    immediate = getattr(ctx, "immediate", None)
    with immediate() if immediate is not None else nullcontext():
        try:
            ctx.call(pick(ctx, ADD_DEL), is_add=False,
                     sw_if_index=ctx.sw_if_index(op.params["name"]), host_if_name="",
                     host_if_type=HOST_TAP, netns="")
        except Exception as err:  # the backend's refusal carries the retval
            if getattr(err, "retval", None) != INVALID_SW_IF_INDEX:
                raise
