"""Rules for interfaces, sub-interfaces and loopbacks (their L2/L3 role, MTU,
state, encapsulation and unnumbered use)."""

from __future__ import annotations

from vppcfg.config import names
from vppcfg.config.problems import Problem, format_path
from vppcfg.config.rules import Context
from vppcfg.model import Interface, InterfaceKind

_DECLARED_IN = {
    InterfaceKind.BOND: ("bonds", "bondethernets"),
    InterfaceKind.VXLAN: ("vxlan_tunnels", "vxlan_tunnels"),
    InterfaceKind.TAP: ("taps", "taps"),
}
_CAN_HAVE_SUBS = (InterfaceKind.PHY, InterfaceKind.BOND, InterfaceKind.VXLAN)
# read once: an enum member is a slow attribute in the loops over every interface
_SUB, _TAP = InterfaceKind.SUB, InterfaceKind.TAP
MAX_VLAN = 4095  # VPP refuses VLAN 0 and 4096 and up (INVALID_VLAN)


def check(ctx: Context) -> None:
    for name in ctx.raw.get("interfaces", {}):
        if names.interface_kind(name) is InterfaceKind.LOOPBACK:
            line, column = ctx.doc.mark(("interfaces", name))
            ctx.problems.append(
                Problem(
                    ctx.doc.filename,
                    line,
                    column,
                    format_path(("interfaces", name)),
                    "a loopback is configured under 'loopbacks', not 'interfaces'",
                )
            )
    for iface in ctx.ifaces.values():  # the checks that may apply, each a call
        name, kind = iface.name, iface.kind
        key = f"interfaces/{name}"
        if kind in _DECLARED_IN:
            _declared(ctx, key, iface)
        if _may_misplace_fields(ctx, iface):
            _kind_fields(ctx, key, iface)
        if ctx.is_l2(name):
            _layer(ctx, key, iface)
        if iface.unnumbered:
            _unnumbered(ctx, key, iface)
        if iface.acls.input or iface.acls.output:
            _acls(ctx, key, iface)
        if kind is _SUB:
            _sub(ctx, key, iface)
    check_encapsulations(ctx)


def _declared(ctx: Context, key: str, iface: Interface) -> None:
    collection, section = _DECLARED_IN[iface.kind]
    if iface.name not in getattr(ctx.dp, collection):
        ctx.report(key, "", f"{iface.name} is not declared in '{section}'")


def _may_misplace_fields(ctx: Context, iface: Interface) -> bool:
    """Whether _kind_fields has anything to look at: false for nearly every
    interface of a large file (a sub-interface or PHY with none of the fields),
    so that most are told so without a call."""
    kind = iface.kind
    return (
        iface.mac is not None
        or bool(iface.device_type)
        or iface.sflow
        or kind is _TAP
        or (kind not in _CAN_HAVE_SUBS and iface.name in ctx.subs)
    )


def _kind_fields(ctx: Context, key: str, iface: Interface) -> None:
    """Fields that only some kinds of interface may have."""
    kind = iface.kind
    if iface.mac is not None:
        if kind in (InterfaceKind.BOND, InterfaceKind.VXLAN, InterfaceKind.TAP):
            where = "it is chosen by VPP"
            if kind is InterfaceKind.BOND:
                where = "set the bond's MAC under 'bondethernets'"
            ctx.report(key, "mac", f"a {kind.value} interface cannot set its MAC here: {where}")
        elif not names.mac_is_unicast(iface.mac):
            ctx.report(key, "mac", f"MAC {iface.mac} is not a unicast address")
    if iface.device_type and kind is not InterfaceKind.PHY:
        ctx.report(key, "device-type", "only a PHY can have a device-type")
    if iface.sflow and kind is not InterfaceKind.PHY:
        ctx.report(key, "sflow", "sFlow can only be enabled on a PHY")
    if kind is InterfaceKind.TAP:
        _tap_interface(ctx, key, iface)
    if ctx.subs.get(iface.name) and kind not in _CAN_HAVE_SUBS:
        ctx.report(key, "sub-interfaces", f"a {kind.value} interface cannot have sub-interfaces")


def _tap_interface(ctx: Context, key: str, iface: Interface) -> None:
    """VPP takes both (its side of a tap is an interface like any other), but
    the tap's Linux side is the host end: L3 belongs there."""
    tap = ctx.dp.taps.get(iface.name)
    if iface.addresses:
        ctx.refuse("tap-address", key, "addresses", "a tap's addresses belong on its host side",
                   "remove them here (the host side is configured in Linux)")
    if iface.lcp:
        ctx.refuse("tap-lcp", key, "lcp", "an lcp on a tap: the tap has a Linux side already",
                   "remove the lcp and use the tap's host name")
    if tap and tap.host.mtu != iface.mtu:  # two MTUs VPP keeps apart
        ctx.refuse("tap-mtu", key, "mtu", f"MTU {iface.mtu} differs from the tap's host MTU "
                   f"{tap.host.mtu}", f"set taps.{iface.name}.host.mtu to the same value")


def _layer(ctx: Context, key: str, iface: Interface) -> None:
    """An L2 interface (bridge member, l2xc source or target) has no use for L3
    settings; VPP keeps them though, so addresses and an lcp are language
    refusals and unnumbered or mpls a warning. Only for an L2 interface."""
    role = _l2_role(ctx, iface.name)
    if iface.addresses:
        ctx.refuse("l2-address", key, "addresses", f"is {role} (L2) and has addresses, "
                   "which an L2 interface never uses", "remove them, or take it out of L2")
    if iface.lcp:
        ctx.refuse("l2-lcp", key, "lcp", f"is {role} (L2) and has an lcp, which passes "
                   "no traffic on an L2 interface", "remove the lcp, or take it out of L2")
    for field, what in (("unnumbered", "unnumbered"), ("mpls", "mpls")):
        if getattr(iface, field):
            ctx.warn(key, field, f"is {role} and has {what}, unusual for an L2 interface")


def _l2_role(ctx: Context, name: str) -> str:
    if name in ctx.bridge_of:
        return f"a member of bridge {ctx.bridge_of[name]}"
    if ctx.ifaces[name].l2xc:
        return "an l2xc source"
    return f"the l2xc target of {ctx.xc_targets[name][0]}"


def _unnumbered(ctx: Context, key: str, iface: Interface) -> None:
    target = iface.unnumbered
    if iface.addresses:
        ctx.report(key, "addresses", "an unnumbered interface cannot also have addresses")
    if target == iface.name:
        ctx.report(key, "unnumbered", "cannot be unnumbered to itself")
        return
    other = ctx.ifaces.get(target)
    if other is None:
        ctx.report(key, "unnumbered", f"unnumbered target {target} does not exist")
        return
    if other.unnumbered:  # VPP takes the chain; the interface borrows nothing usable
        ctx.refuse("unnumbered-chain", key, "unnumbered",
                   f"unnumbered target {target} is itself unnumbered, so it lends no address",
                   f"point it at {other.unnumbered}, the interface holding the addresses")
    if ctx.is_l2(target):
        ctx.report(key, "unnumbered", f"unnumbered target {target} is in L2 mode")
    if target in ctx.bond_of:
        ctx.report(key, "unnumbered", f"unnumbered target {target} is a bond member")


def _acls(ctx: Context, key: str, iface: Interface) -> None:
    for direction, refs in (("input", iface.acls.input), ("output", iface.acls.output)):
        seen: set[str] = set()
        for acl in refs:
            if acl not in ctx.dp.acls:
                ctx.report(key, ("acls", direction), f"ACL {acl} does not exist")
            if acl in seen:
                ctx.report(key, ("acls", direction), f"ACL {acl} is listed twice")
            seen.add(acl)


def _sub(ctx: Context, key: str, sub: Interface) -> None:
    parent = ctx.ifaces[sub.parent]
    encap = sub.encapsulation
    if _empty(ctx, key, sub):
        ctx.refuse("sub-empty", key, "", "has no settings at all",
                   f"say what it is, e.g. 'encapsulation: {{dot1q: {sub.sub_id}, exact-match: "
                   "true}' (what an empty one means) or a description")
    if sub.state == "up" and parent.state == "down":  # VPP keeps it so; vppcfg applies it
        ctx.refuse("sub-up-parent-down", key, "state",
                   f"is up while its parent {parent.name} is down, so it passes no traffic",
                   "set 'state: down' here, or bring the parent up")
    if sub.mtu > parent.mtu:  # VPP sets it; frames above the parent's MTU still drop
        ctx.refuse("sub-mtu", key, "mtu",
                   f"MTU {sub.mtu} is higher than parent {parent.name} MTU {parent.mtu}",
                   f"lower it to {parent.mtu} or less, or raise the parent's")
    outer = encap.dot1q or encap.dot1ad  # encap.outer, read once
    if outer > MAX_VLAN:  # only when implied by the id: the schema caps written tags
        ctx.report(
            key,
            "",
            f"without an encapsulation the id {sub.sub_id} is the dot1q tag, but VLANs end "
            f"at {MAX_VLAN}: give an encapsulation",
        )
    if encap.dot1q and encap.dot1ad:
        ctx.report(key, "encapsulation", "give dot1q or dot1ad, not both")
    elif not outer:
        ctx.report(key, "encapsulation", "needs an outer tag: dot1q or dot1ad")
    middle = _middle(ctx, sub) if encap.inner_dot1q else None
    if middle and sub.mtu > middle.mtu:
        ctx.refuse("sub-mtu", key, "mtu",
                   f"MTU {sub.mtu} is higher than {middle.name} MTU {middle.mtu} (its outer tag)",
                   f"lower it to {middle.mtu} or less, or raise {middle.name}'s")
    l3 = sub.lcp or sub.addresses or sub.unnumbered
    if l3 and not encap.exact_match:
        what = "an lcp" if sub.lcp else "addresses" if sub.addresses else "unnumbered"
        ctx.report(key, "encapsulation", f"has {what}, so its encapsulation must be exact-match")
    if sub.lcp:
        _sub_lcp(ctx, key, sub, parent, middle)


def _empty(ctx: Context, key: str, sub: Interface) -> bool:
    """Whether the sub-interface was written with no settings at all. One with
    an lcp, addresses or a description has some: most are told so without
    walking the file's data to their entry."""
    if sub.lcp is not None or sub.addresses or sub.description:
        return False
    return not ctx.raw_of(key)


def _middle(ctx: Context, sub: Interface) -> Interface | None:
    """For QinQ/QinAD: the single-tagged sibling carrying the same outer tag."""
    encap = sub.encapsulation
    if not encap.inner_dot1q:
        return None
    return ctx.single_tagged.get((sub.parent, encap.dot1q, encap.dot1ad))


def _sub_lcp(
    ctx: Context, key: str, sub: Interface, parent: Interface, middle: Interface | None
) -> None:
    if not parent.lcp:
        ctx.report(key, "lcp", f"lcp {sub.lcp} needs parent {parent.name} to have an lcp too")
    if sub.encapsulation.inner_dot1q:
        if middle is None:
            tag = "dot1q" if sub.encapsulation.dot1q else "dot1ad"
            ctx.report(
                key,
                "lcp",
                f"lcp on a double-tagged sub-interface needs a {tag} {sub.encapsulation.outer} "
                f"sub-interface on {parent.name} (with an lcp)",
            )
        elif not middle.lcp:
            ctx.report(key, "lcp", f"lcp {sub.lcp} needs {middle.name} to have an lcp too")


def check_encapsulations(ctx: Context) -> None:
    """Two sub-interfaces of one parent cannot match the same tags."""
    for parent, subs in ctx.subs.items():
        seen: dict[tuple[int, int, int], str] = {}
        for sub in sorted(subs, key=lambda s: s.sub_id or 0):
            encap = sub.encapsulation
            tags = (encap.dot1q, encap.dot1ad, encap.inner_dot1q)
            if tags in seen:
                ctx.report(
                    f"interfaces/{sub.name}",
                    "encapsulation",
                    f"matches the same VLAN tags as {seen[tags]} on {parent}",
                )
            else:
                seen[tags] = sub.name
