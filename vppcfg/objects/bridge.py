"""Bridge domains, their members (with VLAN tag-rewrite for sub-interfaces) and BVI."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vppcfg.model import BridgeDomain as BridgeModel
from vppcfg.model import BridgeSettings, Dataplane, FrozenDict
from vppcfg.objects.base import (
    Claim,
    Columns,
    Descriptor,
    Node,
    NodeContext,
    RenderContext,
    fd,
    ikey,
    token,
)
from vppcfg.objects.needs import UPDATE, Dump, Uses, pick
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import NONE_INDEX, OWNER_TAG

# Model setting -> (bridge_domain_add_del field, bridge_flags bit, CLI word)
FLAGS = {
    "learn": ("learn", 1, "learn"),
    "forward": ("forward", 2, "forward"),
    "flood": ("flood", 4, "flood"),
    "uu_flood": ("uu_flood", 8, "uu-flood"),
    "arp_term": ("arp_term", 16, "arp term"),
    "arp_ufwd": ("arp_ufwd", 32, "arp-ufwd"),
}
# BridgeSettings field -> bridge_domain_details field: the reading side of FLAGS
DETAILS = {
    "learn": "learn", "unicast_forward": "forward", "unicast_flood": "flood",
    "unknown_unicast_flood": "uu_flood", "arp_termination": "arp_term",
    "arp_unicast_forward": "arp_ufwd", "mac_age_minutes": "mac_age",
}
PORT_NORMAL, PORT_BVI = 0, 1
VTR_DISABLED, VTR_POP_1, VTR_POP_2 = 0, 3, 4


def bd_key(name: str) -> str:
    return f"bridge_domains/{name}"


def popped_tags(dp: Dataplane, name: str) -> int:
    """VLAN tags popped on the way into L2 (bridge or xconnect): all of a
    sub-interface's, so L2 sees untagged frames (and they are pushed back out)."""
    itf = dp.interfaces.get(name)
    if itf is None or not itf.is_sub:
        return 0
    return itf.encapsulation.tags if itf.encapsulation else 1


def tag_rewrite_cli(name: str, pop: int) -> str:
    return f"set interface l2 tag-rewrite {token(name)} {f'pop {int(pop)}' if pop else 'disable'}"


def set_tag_rewrite(ctx: VppContext, sw_if_index: int, pop: int) -> None:
    vtr_op = VTR_POP_2 if pop == 2 else VTR_POP_1 if pop else VTR_DISABLED
    ctx.call("l2_interface_vlan_tag_rewrite", sw_if_index=sw_if_index, vtr_op=vtr_op,
             push_dot1q=0, tag1=0, tag2=0)

# newest first: the executor sends the first one this VPP offers (same arguments)
ADD_DEL = Uses(("bridge_domain_add_del_v2", "bridge_domain_add_del"))

class BridgeDomain(Descriptor):
    obj = "bridge-domain"
    api_modules = ("l2",)
    uses = (ADD_DEL,
            Uses(("bridge_domain_set_mac_age",), actions=UPDATE),
            Uses(("bridge_flags",), actions=UPDATE))
    reads = (Dump("bridge_domains", ("bridge_domain_dump",),
                  args=(("bd_id", NONE_INDEX), ("sw_if_index", NONE_INDEX))),)

    def read(self, raw: RawDump, reading: Reading) -> None:
        """Members and BVI too: VPP reports them with the bridge."""
        bridges: list[BridgeModel] = []
        for b in raw.rows("bridge_domains"):
            if b["bd_id"] == 0:  # VPP's own default bridge
                continue
            bvi_index = b["bvi_sw_if_index"]
            bvi = reading.names.get(bvi_index) if bvi_index != NONE_INDEX else None
            ports = [m["sw_if_index"] for m in b["sw_if_details"] if m["sw_if_index"] != bvi_index]
            mtus = [itf.mtu for i in (*ports, bvi_index) if (itf := reading.interface(i))]
            name = f"bd{b['bd_id']}"
            bridges.append(BridgeModel(
                name=name, bd_id=b["bd_id"], mtu=max(mtus) if mtus else 1500, bvi=bvi,
                members=tuple(sorted(reading.names[i] for i in ports if i in reading.names)),
                settings=BridgeSettings(**{f: b[field] for f, field in DETAILS.items()}),
            ))
            if b["bd_tag"] != OWNER_TAG:
                reading.foreign.add(bd_key(name))
        bridges.sort(key=lambda bd: bd.bd_id)
        reading.sections["bridge_domains"] = FrozenDict((bd.name, bd) for bd in bridges)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for bd in dp.bridge_domains.values():
            s = bd.settings
            value = fd(bd_id=bd.bd_id, learn=s.learn, forward=s.unicast_forward,
                       flood=s.unicast_flood, uu_flood=s.unknown_unicast_flood,
                       arp_term=s.arp_termination, arp_ufwd=s.arp_unicast_forward,
                       mac_age=s.mac_age_minutes)
            yield Node(bd_key(bd.name), self.obj, value, owner=bd_key(bd.name))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        p = op.params
        bd_id = int(p["bd_id"])
        if op.action == "delete":
            return [f"create bridge-domain {bd_id} del"]
        if op.action == "create":
            flags = " ".join(f"{word.replace(' ', '-')} {int(bool(p[name]))}"
                             for name, (_, _, word) in FLAGS.items())
            return [f"create bridge-domain {bd_id} {flags} mac-age {int(p['mac_age'])} "
                    f"bd-tag {OWNER_TAG}"]
        lines = []
        for name in p["previous"]:
            if name == "mac_age":
                lines.append(f"set bridge-domain mac-age {bd_id} {int(p['mac_age'])}")
            elif name in FLAGS:
                off = "" if p[name] else " disable"
                lines.append(f"set bridge-domain {FLAGS[name][2]} {bd_id}{off}")
        return lines

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        if op.action == "update":
            for name in p["previous"]:
                if name == "mac_age":
                    ctx.call("bridge_domain_set_mac_age", bd_id=p["bd_id"], mac_age=p["mac_age"])
                elif name in FLAGS:
                    ctx.call("bridge_flags", bd_id=p["bd_id"], is_set=bool(p[name]),
                             flags=FLAGS[name][1])
            return
        args = {api: bool(p[name]) for name, (api, _, _) in FLAGS.items()}
        args.update(bd_id=p["bd_id"], mac_age=p["mac_age"], is_add=op.action == "create")
        ctx.call(pick(ctx, ADD_DEL), bd_tag=OWNER_TAG, **args)


class BridgeMember(Descriptor):
    """A bridge port; sub-interfaces get their VLAN tags popped on the way in."""

    obj = "bridge-member"
    api_modules = ("l2",)
    uses = (Uses(("sw_interface_set_l2_bridge",)), Uses(("l2_interface_vlan_tag_rewrite",)))

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        # a port per member (a large config has thousands): (bd_id, member, pop)
        ports = [(bd_key(bd.name), bd.bd_id, member) for bd in dp.bridge_domains.values()
                 for member in bd.members]
        bds = [key for key, _, _ in ports]
        return Columns([f"{key}/member/{member}" for key, _, member in ports],
                       [(bd_id, member, popped_tags(dp, member)) for _, bd_id, member in ports],
                       (bds, [ikey(member) for _, _, member in ports]), bds)

    def value(self, source: tuple[int, str, int]) -> dict[str, Any]:
        bd_id, member, pop = source
        return {"bd_id": bd_id, "interface": member, "pop": pop}

    def claims(self, node: Node) -> tuple[Claim, ...]:
        member = node.value["interface"]
        return (Claim(f"port:{member}"), Claim(f"role:{member}", "l2"))

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "tag rewrite changed: membership is redone"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name, pop = op.params["interface"], int(op.params["pop"])
        if op.action == "delete":
            lines = [tag_rewrite_cli(name, 0)] if pop else []
            return [*lines, f"set interface l3 {token(name)}"]
        lines = [f"set interface l2 bridge {token(name)} {int(op.params['bd_id'])}"]
        if pop:
            lines.append(tag_rewrite_cli(name, pop))
        return lines

    def execute(self, op: Operation, ctx: VppContext) -> None:
        index = ctx.sw_if_index(op.params["interface"])
        pop = int(op.params["pop"])
        if op.action == "delete":
            if pop:
                set_tag_rewrite(ctx, index, 0)
            ctx.call("sw_interface_set_l2_bridge", rx_sw_if_index=index, bd_id=op.params["bd_id"],
                     port_type=PORT_NORMAL, shg=0, enable=False)
            return
        ctx.call("sw_interface_set_l2_bridge", rx_sw_if_index=index, bd_id=op.params["bd_id"],
                 port_type=PORT_NORMAL, shg=0, enable=True)
        if pop:
            set_tag_rewrite(ctx, index, pop)


class BridgeBvi(Descriptor):
    """The bridge's routed interface (a loopback), one per bridge."""

    obj = "bridge-bvi"
    api_modules = ("l2",)
    uses = (Uses(("sw_interface_set_l2_bridge",)),)

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        bvis = [(bd_key(bd.name), bd) for bd in dp.bridge_domains.values() if bd.bvi]
        bds = [key for key, _ in bvis]
        return Columns([f"{key}/bvi" for key in bds], [bd for _, bd in bvis],
                       (bds, [ikey(bd.bvi) for _, bd in bvis]), bds)

    def value(self, source: BridgeModel) -> dict[str, Any]:
        return {"bd_id": source.bd_id, "interface": source.bvi}

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return (Claim(f"port:{node.value['interface']}"),)

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "BVI changed"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["interface"])
        if op.action == "delete":
            return [f"set interface l3 {name}"]
        return [f"set interface l2 bridge {name} {int(op.params['bd_id'])} bvi"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        index = ctx.sw_if_index(op.params["interface"])
        ctx.call("sw_interface_set_l2_bridge", rx_sw_if_index=index, bd_id=op.params["bd_id"],
                 port_type=PORT_BVI, shg=0, enable=op.action == "create")
