"""Interfaces: PHY (never created), loopback, sub-interface, and the per-interface
settings every kind has: MTU, admin state and MAC."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, repeat
from typing import Any

from vppcfg.model import Dataplane, Encapsulation, FrozenDict, Interface, InterfaceKind
from vppcfg.objects.base import (
    Claim,
    Columns,
    Descriptor,
    Node,
    NodeContext,
    PlanView,
    RenderContext,
    fd,
    field_of,
    ikey,
    token,
    tokens,
)
from vppcfg.objects.needs import CREATE, DELETE, EVERY_INTERFACE, TAG, Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext
from vppcfg.vpp_numbers import (
    IF_ADMIN_UP,
    OWNER_TAG,
    SUB_DOT1AD,
    SUB_EXACT_MATCH,
    SUB_ONE_TAG,
    SUB_TWO_TAGS,
    UNSPECIFIED,
    ZERO_MAC,
)


def instance_of(name: str) -> int:
    """The trailing number of an interface name (loop12 -> 12)."""
    match = re.search(r"(\d+)$", name)
    if not match:
        raise ValueError(f"interface name {name!r} has no instance number")
    return int(match.group(1))


def tag_created(ctx: VppContext, name: str, sw_if_index: int) -> None:
    """Remember a new interface and mark it as ours."""
    ctx.learn(name, sw_if_index)
    ctx.call("sw_interface_tag_add_del", is_add=True, sw_if_index=sw_if_index, tag=OWNER_TAG)


def tag_cli(name: str) -> str:
    return tag_lines((name,))[0]


def tag_lines(names: Sequence[str]) -> list[str]:
    """The commands that mark these new interfaces as vppcfg's."""
    return [f"set interface tag {name} {OWNER_TAG}" for name in tokens(names)]


class Phy(Descriptor):
    """A PHY exists or not; the planner never creates or deletes one.

    Its reader models every interface VPP has (the other interface types
    `mark` theirs first), with the settings every kind has; the other object
    types then add what is theirs (lcp, l2xc, addresses, ...)."""

    obj = "phy"
    api_modules = ("interface",)
    reads = (Dump("interfaces", ("sw_interface_dump",), args=EVERY_INTERFACE),)
    virtual = True

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, _ in ctx.of_kind(InterfaceKind.PHY):
            yield Node(key, self.obj, fd(kind="phy"), owner=key)

    def read(self, raw: RawDump, reading: Reading) -> None:
        addresses = raw.keyed("addresses")
        for index in sorted(reading.details):
            d = reading.details[index]
            kind = _kind(reading, d)
            if kind is None:
                continue
            itf = _interface(d, kind, reading.names, addresses.get(index, ()))
            reading.kept[index] = itf
            if kind is not InterfaceKind.PHY and d["tag"] != OWNER_TAG:
                reading.foreign.add(ikey(itf.name))


def _kind(reading: Reading, d: dict[str, Any]) -> InterfaceKind | None:
    """The model kind of an interface detail, or None for VPP-internal ones."""
    index = d["sw_if_index"]
    if index in reading.hidden or d["interface_dev_type"] == "local":
        return None
    parent_index = d["sup_sw_if_index"]
    if parent_index != index:
        parent = reading.details.get(parent_index)
        # only subs of top-level interfaces we model (not local0.N, lcp taps)
        if parent is None or parent["sup_sw_if_index"] != parent_index:
            return None
        return InterfaceKind.SUB if _kind(reading, parent) is not None else None
    if index in reading.kinds:
        return reading.kinds[index]
    if d["interface_dev_type"] == "Loopback":
        return InterfaceKind.LOOPBACK
    return InterfaceKind.PHY


def _interface(d: dict[str, Any], kind: InterfaceKind, names: dict[int, str],
               addresses: Any) -> Interface:
    mtu = d["mtu"][0] or d["link_mtu"]  # 0: never set, VPP uses the hw MTU
    mac = d["l2_address"]
    common = {
        "kind": kind,
        "mtu": mtu,
        "state": "up" if d["flags"] & IF_ADMIN_UP else "down",
        "addresses": tuple(sorted(canonical_prefix(a) for a in addresses)),
    }
    if kind is InterfaceKind.SUB:
        parent = names[d["sup_sw_if_index"]]
        return Interface(
            name=f"{parent}.{d['sub_id']}",
            mac=None if mac == ZERO_MAC else mac,
            parent=parent,
            sub_id=d["sub_id"],
            encapsulation=_encapsulation(d),
            **common,
        )
    device = d["interface_dev_type"] if kind is InterfaceKind.PHY else None
    return Interface(name=d["interface_name"], mac=mac, device_type=device, **common)


def canonical_prefix(prefix: str) -> str:
    return str(ipaddress.ip_interface(prefix))


def _encapsulation(d: dict[str, Any]) -> Encapsulation:
    """The inverse of SubInterface.execute's flags."""
    flags = d["sub_if_flags"]
    outer = d["sub_outer_vlan_id"]
    two = bool(flags & SUB_TWO_TAGS) or d["sub_number_of_tags"] == 2
    return Encapsulation(
        dot1q=0 if flags & SUB_DOT1AD else outer,
        dot1ad=outer if flags & SUB_DOT1AD else 0,
        inner_dot1q=d["sub_inner_vlan_id"] if two else 0,
        exact_match=bool(flags & SUB_EXACT_MATCH),
    )


class Loopback(Descriptor):
    obj = "loopback"
    api_modules = ("interface",)
    uses = (Uses(("create_loopback_instance",), actions=CREATE), TAG,
            Uses(("delete_loopback",), actions=DELETE))

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        loops = list(ctx.of_kind(InterfaceKind.LOOPBACK))
        keys = [key for key, _ in loops]
        return Columns(keys, [itf.name for _, itf in loops], (), keys)

    def value(self, source: str) -> dict[str, Any]:
        return {"name": source, "instance": instance_of(source)}

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "instance changed: loopback is recreated"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        name = token(op.params["name"])
        if op.action == "delete":
            return [f"delete loopback interface intfc {name}"]
        return [f"create loopback interface instance {int(op.params['instance'])}", tag_cli(name)]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        name = op.params["name"]
        if op.action == "delete":
            ctx.call("delete_loopback", sw_if_index=ctx.sw_if_index(name))
            ctx.forget(name)
            return
        reply = ctx.call("create_loopback_instance", is_specified=True,
                         user_instance=op.params["instance"], mac_address=ZERO_MAC)
        tag_created(ctx, name, field_of(reply, "sw_if_index"))



class SubInterface(Descriptor):
    obj = "sub-interface"
    api_modules = ("interface",)
    hints = (("create_subif", UNSPECIFIED,
              "another sub-interface of this parent matches these VLAN tags"),)
    uses = (Uses(("create_subif",), actions=CREATE), TAG,
            Uses(("delete_subif",), actions=DELETE))

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        subs = [(key, itf) for key, itf in ctx.of_kind(InterfaceKind.SUB) if itf.parent]
        owners = [key for key, _ in subs]
        return Columns(owners, [itf for _, itf in subs],
                       ([ikey(itf.parent) for _, itf in subs],), owners)

    def value(self, source: Interface) -> dict[str, Any]:
        dot1q, dot1ad, inner_dot1q, exact_match = _tags(source)
        return fd(name=source.name, parent=source.parent, sub_id=source.sub_id, dot1q=dot1q,
                  dot1ad=dot1ad, inner_dot1q=inner_dot1q, exact_match=exact_match)

    def claims(self, node: Node) -> tuple[Claim, ...]:
        # VPP refuses (-1) a VLAN another sub of the parent still matches.
        p = node.value
        outer = f"ad{p['dot1ad']}" if p["dot1ad"] else f"q{p['dot1q']}"
        return (Claim(f"vlan:{p['parent']}:{outer}.{p['inner_dot1q']}"),)

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        return "encapsulation changed: sub-interface is recreated"

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        if op.action == "delete":
            return [f"delete sub-interface {token(op.params['name'])}"]
        return self.created_lines(op.params)

    def created_lines(self, p: Mapping[str, Any]) -> list[str]:
        tags = _tag_words(p["dot1q"], p["dot1ad"], p["inner_dot1q"], p["exact_match"])
        return _created_subs((p["parent"],), (p["sub_id"],), (tags,), (p["name"],))

    def created_run(self, sources: list[Interface]) -> list[str]:
        # value()'s fields as columns; a sub's tags said once per encapsulation
        # (the subs of many parents share each one)
        said: dict[int, str] = {}
        words = []
        for itf in sources:
            enc = itf.encapsulation
            tags = said.get(id(enc)) if enc is not None else None
            if tags is None:
                tags = _tag_words(*_tags(itf))
                if enc is not None:
                    said[id(enc)] = tags
            words.append(tags)
        return _created_subs([itf.parent for itf in sources], [itf.sub_id for itf in sources],
                             words, [itf.name for itf in sources])

    def execute(self, op: Operation, ctx: VppContext) -> None:
        p = op.params
        if op.action == "delete":
            ctx.call("delete_subif", sw_if_index=ctx.sw_if_index(p["name"]))
            ctx.forget(p["name"])
            return
        flags = SUB_TWO_TAGS if p["inner_dot1q"] else SUB_ONE_TAG
        if p["dot1ad"]:
            flags |= SUB_DOT1AD
        if p["exact_match"]:
            flags |= SUB_EXACT_MATCH
        reply = ctx.call(
            "create_subif", sw_if_index=ctx.sw_if_index(p["parent"]), sub_id=p["sub_id"],
            outer_vlan_id=p["dot1ad"] or p["dot1q"], inner_vlan_id=p["inner_dot1q"],
            sub_if_flags=flags,
        )
        tag_created(ctx, p["name"], field_of(reply, "sw_if_index"))


def _tags(sub: Interface) -> tuple[int, int, int, bool]:
    """(dot1q, dot1ad, inner_dot1q, exact_match) of a sub-interface: without an
    encapsulation, one exact-match tag of its sub-id."""
    enc = sub.encapsulation
    if enc is None:
        return int(sub.sub_id or 0), 0, 0, True
    return enc.dot1q, enc.dot1ad, enc.inner_dot1q, enc.exact_match


def _tag_words(dot1q: int, dot1ad: int, inner_dot1q: int, exact_match: bool) -> str:
    """The VLAN tags of a sub-interface as `create sub-interfaces` takes them."""
    outer = f"dot1ad {int(dot1ad)}" if dot1ad else f"dot1q {int(dot1q)}"
    inner = f" inner-dot1q {int(inner_dot1q)}" if inner_dot1q else ""
    return f"{outer}{inner}{' exact-match' if exact_match else ''}"


def _created_subs(parents: Sequence[str], sub_ids: Iterable[int], tags: Iterable[str],
                  names: Sequence[str]) -> list[str]:
    """The commands that create sub-interfaces (with their tags' words) and
    mark them as vppcfg's."""
    creates = [f"create sub-interfaces {parent} {sub_id} {words}" for parent, sub_id, words
               in zip(tokens(parents), map(int, sub_ids), tags, strict=True)]
    return list(chain.from_iterable(zip(creates, tag_lines(names), strict=True)))


def _setting(key: str, itf: Interface, name: str, value: object) -> Node:
    return Node(f"{key}/{name}", name, {"name": itf.name, "value": value}, (key,), key, key)


def _setting_claims(node: Node) -> tuple[Claim, ...]:
    # Settings wait for the interface to leave a bond/bridge/xconnect.
    return (Claim(f"role:{node.value['name']}", "any"),)


def _mtus_set(names: Sequence[str], mtus: Iterable[int], hws: Iterable[bool]) -> list[str]:
    """The commands that set these interfaces' MTUs (and hardware MTU where hw)."""
    lines = []
    for name, mtu, hw in zip(tokens(names), map(int, mtus), hws, strict=False):
        if hw:
            lines.append(f"set interface mtu {mtu} {name}")
        lines.append(f"set interface mtu packet {mtu} {name}")
    return lines


class Mtu(Descriptor):
    """The packet MTU; on a PHY also the hardware MTU (kept equal)."""

    obj = "mtu"
    api_modules = ("interface",)
    uses = (Uses(("hw_interface_set_mtu",)), Uses(("sw_interface_set_mtu",)))

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        keys = ctx.keys
        return Columns([f"{key}/mtu" for key in keys], ctx.interfaces, (keys,), keys, keys)

    def value(self, source: Interface) -> dict[str, Any]:
        return {"name": source.name, "value": source.mtu,
                "hw": source.kind is InterfaceKind.PHY}

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return _setting_claims(node)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        return self.created_lines(op.params)  # an update sets it the same way

    def created_lines(self, p: Mapping[str, Any]) -> list[str]:
        lines = _mtus_set((p["name"],), (p["value"],), (p["hw"],))
        resubs = p.get("resubs")
        if resubs:
            subs = sorted(resubs.items())
            lines += _mtus_set([sub for sub, _ in subs], [mtu for _, mtu in subs],
                               repeat(False))
        return lines

    def created_run(self, sources: list[Interface]) -> list[str]:
        phy = InterfaceKind.PHY  # value()'s fields as columns (no resubs: not refined)
        return _mtus_set([itf.name for itf in sources], [itf.mtu for itf in sources],
                         [itf.kind is phy for itf in sources])

    def execute(self, op: Operation, ctx: VppContext) -> None:
        index = ctx.sw_if_index(op.params["name"])
        mtu = int(op.params["value"])
        if op.params["hw"]:
            ctx.call("hw_interface_set_mtu", sw_if_index=index, mtu=mtu)
        ctx.call("sw_interface_set_mtu", sw_if_index=index, mtu=[mtu, 0, 0, 0])
        # VPP reset the subs' packet MTU to the hw value: put back those that differ.
        for sub, sub_mtu in sorted(op.params.get("resubs", {}).items()):
            ctx.call("sw_interface_set_mtu", sw_if_index=ctx.sw_if_index(sub),
                     mtu=[int(sub_mtu), 0, 0, 0])

    def adjust(self, plan: PlanView) -> None:
        """Order MTU changes between parents and children (raise parents first,
        lower children first) and re-set subs after a PHY's hw MTU change."""
        for op in plan.operations("update", self.obj):
            parent = op.params["name"]
            new, old = op.params["value"], op.params["previous"]["value"]
            resubs: dict[str, int] = {}
            for child in plan.desired_ctx.children.get(parent, ()):
                mtu_key = f"{ikey(child.name)}/{self.obj}"
                child_op = plan.get("update", mtu_key)
                if child_op is not None:
                    if new > old:
                        plan.edge(op, child_op)
                    else:
                        plan.edge(child_op, op)
                        if op.params["hw"]:
                            resubs[child.name] = child.mtu
                elif (created := plan.get("create", mtu_key)) is not None:
                    if op.params["hw"]:
                        plan.edge(op, created)
                elif op.params["hw"] and child.mtu != new:
                    resubs[child.name] = child.mtu
            if resubs:
                plan.replace(op, op.params.replace("resubs", resubs))


def _states_set(names: Sequence[str], states: Iterable[str]) -> list[str]:
    """The commands that set these interfaces up (state "up") or down."""
    return [f"set interface state {name} {'up' if state == 'up' else 'down'}"
            for name, state in zip(tokens(names), states, strict=True)]


class State(Descriptor):
    obj = "state"
    api_modules = ("interface",)
    hints = (("sw_interface_set_flags", UNSPECIFIED,
              "a sub-interface can be set up only while its parent is up"),)
    uses = (Uses(("sw_interface_set_flags",)),)

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns:
        keys = ctx.keys
        # A sub cannot be up while its parent is down: parent state first.
        parents = [f"{ikey(itf.parent)}/state" if itf.parent else None for itf in ctx.interfaces]
        return Columns([f"{key}/state" for key in keys], ctx.interfaces, (keys, parents),
                       keys, keys)

    def value(self, source: Interface) -> dict[str, Any]:
        return {"name": source.name, "value": source.state}

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return _setting_claims(node)

    def noop(self, op: Operation) -> bool:
        return op.action == "create" and op.params["value"] == "down"  # new interfaces are down

    def adjust(self, plan: PlanView) -> None:
        """VPP sets a sub-interface up only while its parent is up ("super-interface
        must be up"), and keeps it up when the parent goes down. So a sub wanted up
        under a parent wanted down is set up with the parent lifted around it (the
        parent's own state change, if any, comes first)."""
        interfaces = plan.desired_ctx.dp.interfaces
        for itf in interfaces.values():  # the few under a parent wanted down
            parent = itf.parent
            if not parent or interfaces[parent].state != "down":
                continue
            key = f"{ikey(itf.name)}/{self.obj}"
            op = plan.get("create", key) or plan.get("update", key)
            if op is not None and op.params["value"] == "up":
                plan.replace(op, FrozenDict({**op.params, "lift": parent}))

    def noop_create(self, source: Interface) -> bool:
        return source.state == "down"  # noop() of value(source)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        return self.created_lines(op.params)  # an update sets it the same way

    def created_lines(self, p: Mapping[str, Any]) -> list[str]:
        line = _states_set((p["name"],), (p["value"],))
        lift = p.get("lift")
        if lift:
            return [*_states_set((lift,), ("up",)), *line, *_states_set((lift,), ("down",))]
        return line

    def created_run(self, sources: list[Interface]) -> list[str]:
        return _states_set([itf.name for itf in sources], [itf.state for itf in sources])

    def execute(self, op: Operation, ctx: VppContext) -> None:
        lift = op.params.get("lift")
        if lift:
            ctx.call("sw_interface_set_flags", sw_if_index=ctx.sw_if_index(lift), flags=IF_ADMIN_UP)
        flags = IF_ADMIN_UP if op.params["value"] == "up" else 0
        ctx.call("sw_interface_set_flags", sw_if_index=ctx.sw_if_index(op.params["name"]),
                 flags=flags)
        if lift:
            ctx.call("sw_interface_set_flags", sw_if_index=ctx.sw_if_index(lift), flags=0)


class Mac(Descriptor):
    """Set only when the config asks for a MAC (None = keep what VPP chose).
    A bond's MAC is a creation parameter of the bond (vppcfg.objects.bond)."""

    obj = "mac"
    api_modules = ("interface",)
    uses = (Uses(("sw_interface_set_mac_address",)),)
    delete_when_absent = False

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        for key, itf in ctx.keyed:
            if itf.mac is not None and itf.kind is not InterfaceKind.BOND:
                yield _setting(key, itf, self.obj, itf.mac.lower())

    def claims(self, node: Node) -> tuple[Claim, ...]:
        return _setting_claims(node)

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        return [f"set interface mac address {token(op.params['name'])} "
                f"{token(op.params['value'])}"]

    def execute(self, op: Operation, ctx: VppContext) -> None:
        ctx.call("sw_interface_set_mac_address",
                 sw_if_index=ctx.sw_if_index(op.params["name"]), mac_address=op.params["value"])
