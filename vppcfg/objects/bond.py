"""Bonds (BondEthernetN) and their membership."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vppcfg.model import Bond as BondModel
from vppcfg.model import BondLoadBalance, BondMode, Dataplane, FrozenDict, InterfaceKind
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
from vppcfg.objects.needs import CREATE, DELETE, EVERY_INTERFACE, TAG, Dump, Uses, pick
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import BOND_LB, BOND_MODE, ZERO_MAC

# The model's words are VPP's: forward for writing, inverse for reading.
MODE_API = {mode: BOND_MODE[mode] for mode in BondMode}
MODE_MODEL = {number: mode for mode, number in MODE_API.items()}
LB_API = {lb: BOND_LB[lb] for lb in BondLoadBalance}
LB_MODEL = {number: lb for lb, number in LB_API.items()}
HASHING = (BondMode.XOR, BondMode.LACP)  # the modes that have a load-balance


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
    api_modules = ("bond",)
    uses = (CREATE_BOND, TAG, Uses(("bond_delete",), actions=DELETE))
    # the older message (renamed in 21.06) takes no arguments
    reads = (Dump("bonds", ("sw_bond_interface_dump",), args=EVERY_INTERFACE),
             Dump("bonds", ("sw_interface_bond_dump",)))
    optional = ("mac",)  # no MAC in the config: whatever VPP gave it

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for bond in dp.bonds.values():
            lb = bond.load_balance if bond.mode in HASHING else None
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
                    mac_address=p["mac"] or ZERO_MAC)
        if pick(ctx, CREATE_BOND) == "bond_create2":
            reply = ctx.call("bond_create2", enable_gso=False, **args)
        else:
            reply = ctx.call("bond_create", **args)
        tag_created(ctx, p["name"], field_of(reply, "sw_if_index"))

    def mark(self, raw: RawDump, reading: Reading) -> None:
        reading.mark(raw.rows("bonds"), InterfaceKind.BOND)

    def read(self, raw: RawDump, reading: Reading) -> None:
        bonds: dict[str, BondModel] = {}
        members = raw.keyed("bond_members")
        for b, itf in reading.modelled(raw.rows("bonds")):
            mode = MODE_MODEL.get(b["mode"], BondMode.LACP)
            lb = LB_MODEL.get(b["lb"]) if mode in HASHING else None
            names = sorted(m["interface_name"] for m in members.get(b["sw_if_index"], ()))
            bonds[itf.name] = BondModel(name=itf.name, instance=b["id"], mode=mode,
                                        load_balance=lb, members=tuple(names), mac=itf.mac)
            if reading.foreign_interface(itf.name):
                reading.foreign.add(bond_key(itf.name))
        reading.sections["bonds"] = FrozenDict(sorted(bonds.items()))


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
    api_modules = ("bond",)
    uses = (ADD_MEMBER, DETACH_MEMBER)
    reads = (Uses(("sw_member_interface_dump", "sw_interface_slave_dump")),)

    def follow_up(self, raw: RawDump, reading: Reading) -> list[tuple[str, dict[str, Any]]]:
        # the members' message of the same generation as the bonds' (21.06)
        new = raw.sources.get("bonds") == "sw_bond_interface_dump"
        message = "sw_member_interface_dump" if new else "sw_interface_slave_dump"
        return [(message, {"sw_if_index": b["sw_if_index"]})
                for b in raw.rows("bonds") if b.get("members", b.get("slaves", 1))]

    def take(self, raw: RawDump, requests: list[tuple[str, dict[str, Any]]],
             results: list[Any]) -> None:
        from vppcfg.vpp.plain import plain_list

        members = raw.by_index("bond_members")
        for (_, args), details in zip(requests, results, strict=True):
            members[args["sw_if_index"]] = plain_list(details)

    def read(self, raw: RawDump, reading: Reading) -> None:
        """A member's MAC is the bond's (VPP gives it to every member): the
        bond's setting, which a config may not name on the member."""
        for details in raw.keyed("bond_members").values():
            for member in details:
                reading.set(member["sw_if_index"], mac=None)

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
