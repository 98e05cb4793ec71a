"""Bonds (BondEthernetN) and their membership."""

from __future__ import annotations

from collections.abc import Iterable

from vppcfg.model import BondLoadBalance, BondMode, Dataplane
from vppcfg.objects.base import (
    Claim,
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
from vppcfg.objects.needs import CREATE, DELETE, TAG, Uses, pick
from vppcfg.ops import Operation, VppContext

MODE_API = {
    BondMode.ROUND_ROBIN: 1, BondMode.ACTIVE_BACKUP: 2, BondMode.XOR: 3,
    BondMode.BROADCAST: 4, BondMode.LACP: 5,
}
LB_API = {BondLoadBalance.L2: 0, BondLoadBalance.L34: 1, BondLoadBalance.L23: 2}


def bond_key(name: str) -> str:
    return f"bonds/{name}"

# newest first: the executor sends the first one this VPP offers (renamed in 21.06)
CREATE_BOND = Uses(("bond_create2", "bond_create"), actions=CREATE)
ADD_MEMBER = Uses(("bond_add_member", "bond_enslave"), actions=CREATE)
DETACH_MEMBER = Uses(("bond_detach_member", "bond_detach_slave"), actions=DELETE)

class Bond(Descriptor):
    """The bond device. Mode, load-balance and MAC have no setter in VPP: a
    bond's MAC is set at creation (else the first member's is copied to it),
    and VPP hands it to members as they join; `set interface mac address` on
    a bond would change the bond alone, and the next first member overwrites it."""

    obj = "bond"
    uses = (CREATE_BOND, TAG, Uses(("bond_delete",), actions=DELETE))
    reads = (Uses(("sw_bond_interface_dump", "sw_interface_bond_dump")),
             Uses(("sw_member_interface_dump", "sw_interface_slave_dump")))
    optional = ("mac",)  # no MAC in the config: whatever VPP gave it

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for bond in dp.bonds.values():
            lb = bond.load_balance if bond.mode in (BondMode.XOR, BondMode.LACP) else None
            value = fd(name=bond.name, instance=bond.instance, mode=str(bond.mode),
                       load_balance=str(lb) if lb else None,
                       mac=bond.mac.lower() if bond.mac else None)
            yield Node(bond_key(bond.name), self.obj, value, owner=ikey(bond.name))

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        if old.value["mode"] != new.value["mode"]:
            return "mode changed: bond is recreated"
        if old.value["load_balance"] != new.value["load_balance"]:
            return "load-balance changed: bond is recreated"
        return "MAC changed: bond is recreated"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        p = op.params
        if op.action == "delete":
            return [f"delete bond {token(p['name'])}"]
        lb = f" load-balance {token(p['load_balance'])}" if p["load_balance"] else ""
        mac = f" hw-addr {token(p['mac'])}" if p["mac"] else ""
        return [f"create bond mode {token(p['mode'])}{lb}{mac} id {int(p['instance'])}",
                tag_cli(p["name"])]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        if op.action == "delete":
            ctx.call("bond_delete", sw_if_index=ctx.sw_if_index(p["name"]))
            ctx.forget(p["name"])
            return
        lb = LB_API[BondLoadBalance(p["load_balance"])] if p["load_balance"] else 0
        args = dict(id=p["instance"], mode=MODE_API[BondMode(p["mode"])], lb=lb,
                    numa_only=False, use_custom_mac=bool(p["mac"]),
                    mac_address=p["mac"] or "00:00:00:00:00:00")
        if pick(ctx, CREATE_BOND) == "bond_create2":
            reply = ctx.call("bond_create2", enable_gso=False, **args)
        else:
            reply = ctx.call("bond_create", **args)
        tag_created(ctx, p["name"], field_of(reply, "sw_if_index"))


class BondInterface(Descriptor):
    """The interface side of a bond: exists when the bond does (graph only)."""

    obj = "bond-interface"
    virtual = True

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for bond in dp.bonds.values():
            key = ikey(bond.name)
            yield Node(key, self.obj, fd(kind="bond"), deps=(bond_key(bond.name),), owner=key)


class BondMember(Descriptor):
    obj = "bond-member"
    uses = (ADD_MEMBER, DETACH_MEMBER)

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for bond in dp.bonds.values():
            for member in bond.members:
                yield Node(
                    f"{bond_key(bond.name)}/member/{member}", self.obj,
                    fd(bond=bond.name, member=member),
                    deps=(bond_key(bond.name), ikey(member)),
                    owner=ikey(bond.name),
                )

    def claims(self, node: Node) -> tuple[Claim, ...]:
        member = node.value["member"]
        return (Claim(f"port:{member}"), Claim(f"role:{member}", "member"))

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        member = token(op.params["member"])
        if op.action == "delete":
            return [f"bond del {member}"]
        return [f"bond add {token(op.params['bond'])} {member}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        member = ctx.sw_if_index(op.params["member"])
        if op.action == "delete":
            ctx.call(pick(ctx, DETACH_MEMBER), sw_if_index=member)
            return
        ctx.call(pick(ctx, ADD_MEMBER), sw_if_index=member,
                 bond_sw_if_index=ctx.sw_if_index(op.params["bond"]),
                 is_passive=False, is_long_timeout=False)
