"""Bridge domains: members and BVI exist, belong to one bridge only and share its
MTU when it is given."""

from __future__ import annotations

from itertools import chain, compress, repeat
from operator import attrgetter, is_, ne

from vppcfg.config.problems import index
from vppcfg.config.rules import Context
from vppcfg.model import BridgeDomain, InterfaceKind

_MEMBERS, _BVI = attrgetter("members"), attrgetter("bvi")
_KIND, _MTU, _UNNUMBERED = attrgetter("kind"), attrgetter("mtu"), attrgetter("unnumbered")
_LOOPBACK = InterfaceKind.LOOPBACK


def check(ctx: Context) -> None:
    bridges = list(ctx.dp.bridge_domains.values())
    if _members_fine(ctx, bridges) and _bvis_fine(ctx, bridges):
        return  # as in nearly every file: told in C, not bridge by bridge
    for bridge in bridges:
        key = f"bridge_domains/{bridge.name}"
        raw = ctx.raw_of(key)
        mtu_given = _mtu_given(raw)
        seen: set[str] = set()
        for i, name in enumerate(raw.get("interfaces", ())):
            field = ("interfaces", index(i))
            if name in seen:
                ctx.report(key, field, f"{name} is listed twice")
                continue
            seen.add(name)
            _member(ctx, key, field, bridge, name, mtu_given)
        if bridge.bvi:
            _bvi(ctx, key, bridge, mtu_given)


def _members_fine(ctx: Context, bridges: list[BridgeDomain]) -> bool:
    """Whether _member has nothing to say about any bridge's members: each
    listed once in all bridges (so in its bridge's list once, and its
    bridge_of that bridge), an interface but no loopback, no bvi and no bond
    member, of its bridge's MTU. A bridge's members are its list, sorted."""
    members = list(chain.from_iterable(map(_MEMBERS, bridges)))
    named = set(members)
    if len(named) != len(members):
        return False
    if not (named.isdisjoint(ctx.bond_of) and named.isdisjoint(ctx.bvi_of)):
        return False
    found = list(map(ctx.ifaces.get, members))
    if any(map(is_, found, repeat(None))) or any(map(is_, map(_KIND, found), repeat(_LOOPBACK))):
        return False
    counts = map(len, map(_MEMBERS, bridges))
    their_mtu = chain.from_iterable(map(repeat, map(_MTU, bridges), counts))
    return not any(map(ne, map(_MTU, found), their_mtu))


def _bvis_fine(ctx: Context, bridges: list[BridgeDomain]) -> bool:
    """Whether _bvi has nothing to say about any bridge: each bvi a loopback
    of its bridge only, of its MTU, not unnumbered."""
    having = list(compress(bridges, map(_BVI, bridges)))
    bvis = list(map(_BVI, having))
    if len(set(bvis)) != len(bvis):
        return False
    found = list(map(ctx.ifaces.get, bvis))
    return (
        not any(map(is_, found, repeat(None)))
        and all(map(is_, map(_KIND, found), repeat(_LOOPBACK)))
        and not any(map(ne, map(_MTU, found), map(_MTU, having)))
        and not any(map(_UNNUMBERED, found))
    )


def _member(
    ctx: Context, key: str, field: tuple, bridge: BridgeDomain, name: str, mtu_given: bool
) -> None:
    member = ctx.ifaces.get(name)
    if member is None:
        ctx.report(key, field, f"member {name} does not exist")
        return
    if ctx.bridge_of.get(name) != bridge.name:
        ctx.report(key, field, f"{name} is already a member of bridge {ctx.bridge_of[name]}")
        return
    if member.kind is InterfaceKind.LOOPBACK:
        ctx.report(key, field, f"loopback {name} can join a bridge only as its bvi")
    if name == bridge.bvi:
        ctx.report(key, field, f"{name} is the bridge's bvi; do not list it as a member too")
    if name in ctx.bond_of:
        ctx.report(key, field, f"{name} is a member of {ctx.bond_of[name]}")
    if mtu_given and member.mtu != bridge.mtu:
        ctx.report(key, field, f"member {name} has MTU {member.mtu}, the bridge has {bridge.mtu}")


def _mtu_given(raw: dict) -> bool:
    """A bridge's `mtu`, when written, binds its members and BVI (IPng's rule).
    VPP bridges have no MTU and take members of any, so without one they may
    differ: a dump of such a bridge must check."""
    return "mtu" in raw


def _bvi(ctx: Context, key: str, bridge: BridgeDomain, mtu_given: bool) -> None:
    bvi = ctx.ifaces.get(bridge.bvi)
    if bvi is None or bvi.kind is not InterfaceKind.LOOPBACK:
        ctx.report(key, "bvi", f"bvi {bridge.bvi} must be a loopback declared under 'loopbacks'")
        return
    if ctx.bvi_of[bridge.bvi] != bridge.name:
        ctx.report(key, "bvi", f"{bridge.bvi} is already the bvi of {ctx.bvi_of[bridge.bvi]}")
    if mtu_given and bvi.mtu != bridge.mtu:
        ctx.report(key, "bvi", f"bvi {bridge.bvi} has MTU {bvi.mtu}, the bridge has {bridge.mtu}")
    if bvi.unnumbered:
        ctx.report(key, "bvi", f"bvi {bridge.bvi} is unnumbered")
