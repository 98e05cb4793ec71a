"""Bridge domains: members and BVI exist, belong to one bridge only and share its
MTU when it is given."""

from __future__ import annotations

from vppcfg.config.problems import index
from vppcfg.config.rules import Context
from vppcfg.model import BridgeDomain, InterfaceKind


def check(ctx: Context) -> None:
    for bridge in ctx.dp.bridge_domains.values():
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
