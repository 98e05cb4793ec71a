"""Rules for interfaces, sub-interfaces and loopbacks (their L2/L3 role, MTU,
state, encapsulation and unnumbered use)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress, repeat
from operator import attrgetter, is_, ne, not_

from vppcfg.config import names
from vppcfg.config.problems import Problem, format_path
from vppcfg.config.rules import Context
from vppcfg.model import NO_ACLS, Encapsulation, Interface, InterfaceKind

_DECLARED_IN = {
    InterfaceKind.BOND: ("bonds", "bondethernets"),
    InterfaceKind.VXLAN: ("vxlan_tunnels", "vxlan_tunnels"),
    InterfaceKind.TAP: ("taps", "taps"),
}
_CAN_HAVE_SUBS = (InterfaceKind.PHY, InterfaceKind.BOND, InterfaceKind.VXLAN)
# read once: an enum member is a slow attribute in the loops over every interface
_SUB, _TAP = InterfaceKind.SUB, InterfaceKind.TAP
MAX_VLAN = 4095  # VPP refuses VLAN 0 and 4096 and up (INVALID_VLAN)
# What _own looks at, and its value on a sub-interface it has nothing to say
# about (equal, not the same: a field set to an empty value counts as unset).
_OWN_FIELDS = attrgetter("kind", "mac", "device_type", "sflow", "unnumbered", "acls")
_PLAIN_SUB = (_SUB, None, None, False, None, NO_ACLS)
# columns of the sub-interfaces, read in C
_MTU, _LCP, _ENCAP = attrgetter("mtu"), attrgetter("lcp"), attrgetter("encapsulation")
_DOT1Q, _DOT1AD = attrgetter("dot1q"), attrgetter("dot1ad")
_INNER, _EXACT = attrgetter("inner_dot1q"), attrgetter("exact_match")
_DOT1Q_OF = attrgetter("encapsulation.dot1q")


def check(ctx: Context) -> None:
    _loopbacks_in_interfaces(ctx)
    for iface in _with_own_checks(ctx):
        _own(ctx, f"interfaces/{iface.name}", iface)
    for name in ctx.l2_names:  # a few of a large file's interfaces, so asked by name
        iface = ctx.ifaces.get(name)
        if iface is not None:
            _layer(ctx, f"interfaces/{name}", iface)
    for parent, subs in ctx.subs.items():
        _subs(ctx, ctx.ifaces[parent], subs)
    check_encapsulations(ctx)


def _loopbacks_in_interfaces(ctx: Context) -> None:
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


def _with_own_checks(ctx: Context) -> Iterator[Interface]:
    """The interfaces _own may have something to say about: all but the
    sub-interfaces with none of the fields it looks at, told apart in C (a
    large file's interfaces are nearly all such sub-interfaces)."""
    ifaces = ctx.ifaces.values()
    return compress(ifaces, map(ne, map(_OWN_FIELDS, ifaces), repeat(_PLAIN_SUB)))


def _own(ctx: Context, key: str, iface: Interface) -> None:
    """The checks of an interface on its own: its kind's declaration and
    fields, unnumbered and ACLs."""
    if iface.kind in _DECLARED_IN:
        _declared(ctx, key, iface)
    if _may_misplace_fields(ctx, iface):
        _kind_fields(ctx, key, iface)
    if iface.unnumbered:
        _unnumbered(ctx, key, iface)
    if iface.acls.input or iface.acls.output:
        _acls(ctx, key, iface)


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
    if not (iface.addresses or iface.lcp or iface.unnumbered or iface.mpls):
        return  # as for nearly every L2 interface: no role to name
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


def _subs(ctx: Context, parent: Interface, subs: list[Interface]) -> None:
    """The checks of one parent's sub-interfaces, each asked first of all of
    them at once, in C: most of a large file's interfaces are sub-interfaces,
    and nearly all of them pass every check."""
    if max(map(_MTU, subs)) > parent.mtu:  # VPP sets it; frames above the parent's MTU drop
        for sub in subs:
            if sub.mtu > parent.mtu:
                ctx.refuse("sub-mtu", f"interfaces/{sub.name}", "mtu",
                           f"MTU {sub.mtu} is higher than parent {parent.name} MTU {parent.mtu}",
                           f"lower it to {parent.mtu} or less, or raise the parent's")
    if parent.state == "down":  # VPP keeps an up sub so; vppcfg applies it
        for sub in subs:
            if sub.state == "up":
                ctx.refuse("sub-up-parent-down", f"interfaces/{sub.name}", "state",
                           f"is up while its parent {parent.name} is down, so it passes no "
                           "traffic", "set 'state: down' here, or bring the parent up")
    if not parent.lcp:
        for sub in compress(subs, map(_LCP, subs)):
            ctx.report(f"interfaces/{sub.name}", "lcp",
                       f"lcp {sub.lcp} needs parent {parent.name} to have an lcp too")
    _empties(ctx, parent, subs)
    encaps = list(map(_ENCAP, subs))
    if not _one_plain_tag(encaps):
        for sub in subs:
            _outer_tag(ctx, f"interfaces/{sub.name}", sub)
    if not all(map(_EXACT, encaps)):
        for sub in compress(subs, map(not_, map(_EXACT, encaps))):
            _exact_match(ctx, f"interfaces/{sub.name}", sub)
    if any(map(_INNER, encaps)):
        for sub in compress(subs, map(_INNER, encaps)):
            _double_tagged(ctx, f"interfaces/{sub.name}", sub, parent)


def _one_plain_tag(encaps: list[Encapsulation]) -> bool:
    """Whether every encapsulation has one outer tag, of the same kind for
    all, in VLAN range: then _outer_tag has nothing to say about any of them."""
    if not any(map(_DOT1AD, encaps)):
        tags = list(map(_DOT1Q, encaps))
    elif not any(map(_DOT1Q, encaps)):
        tags = list(map(_DOT1AD, encaps))
    else:
        return False
    return min(tags) > 0 and max(tags) <= MAX_VLAN


def _empties(ctx: Context, parent: Interface, subs: list[Interface]) -> None:
    """The sub-interfaces written with no settings at all. One with an lcp,
    addresses or a description has some: most are told so without reading
    the file's data (read as Context.raw_of would, from the parent's entry:
    a sub-interface's place is under its parent's, build.Where)."""
    unset = compress(subs, map(is_, map(_LCP, subs), repeat(None)))
    bare = [sub for sub in unset if not (sub.addresses or sub.description)]
    if not bare:
        return
    written = ctx.raw_of(f"interfaces/{parent.name}").get("sub-interfaces")
    written = written if isinstance(written, dict) else {}
    for sub in bare:
        body = written.get(sub.sub_id)
        if isinstance(body, dict) and body:
            continue
        ctx.refuse("sub-empty", f"interfaces/{sub.name}", "", "has no settings at all",
                   f"say what it is, e.g. 'encapsulation: {{dot1q: {sub.sub_id}, exact-match: "
                   "true}' (what an empty one means) or a description")


def _outer_tag(ctx: Context, key: str, sub: Interface) -> None:
    encap = sub.encapsulation
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


def _exact_match(ctx: Context, key: str, sub: Interface) -> None:
    """For a sub-interface whose encapsulation is not exact-match."""
    if sub.lcp or sub.addresses or sub.unnumbered:
        what = "an lcp" if sub.lcp else "addresses" if sub.addresses else "unnumbered"
        ctx.report(key, "encapsulation", f"has {what}, so its encapsulation must be exact-match")


def _double_tagged(ctx: Context, key: str, sub: Interface, parent: Interface) -> None:
    """QinQ/QinAD: the single-tagged sibling carrying the same outer tag (the
    middle) must exist for an lcp and hold the MTU."""
    encap = sub.encapsulation
    middle = ctx.single_tagged.get((sub.parent, encap.dot1q, encap.dot1ad))
    if middle and sub.mtu > middle.mtu:
        ctx.refuse("sub-mtu", key, "mtu",
                   f"MTU {sub.mtu} is higher than {middle.name} MTU {middle.mtu} (its outer tag)",
                   f"lower it to {middle.mtu} or less, or raise {middle.name}'s")
    if sub.lcp:
        _sub_lcp(ctx, key, sub, parent, middle)


def _sub_lcp(
    ctx: Context, key: str, sub: Interface, parent: Interface, middle: Interface | None
) -> None:
    """A double-tagged sub-interface's lcp needs one on its middle."""
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
        if len(set(map(_DOT1Q_OF, subs))) == len(subs):
            continue  # each its own dot1q (told in C): no two can match the same tags
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
