"""Bonds (bondethernets): members are otherwise unconfigured PHYs of the bond's MTU."""

from __future__ import annotations

from vppcfg.config import names
from vppcfg.config.problems import index
from vppcfg.config.rules import Context
from vppcfg.model import BondMode, Interface, InterfaceKind


def check(ctx: Context) -> None:
    for bond in ctx.dp.bonds.values():
        key = f"bonds/{bond.name}"
        raw = ctx.raw_of(key)
        if "load-balance" in raw and bond.mode not in (BondMode.XOR, BondMode.LACP):
            ctx.report(
                key,
                "load-balance",
                f"load-balance applies only to xor and lacp, not {bond.mode.value}",
            )
        if bond.mac and not names.mac_is_unicast(bond.mac):
            ctx.report(key, "mac", f"MAC {bond.mac} is not a unicast address")
        if ctx.where.get(f"interfaces/{bond.name}", ())[:1] != ("interfaces",):
            ctx.refuse(
                "bond-interface", key, "",
                f"{bond.name} has no entry under 'interfaces'",
                f"add '{bond.name}: {{}}' under 'interfaces' (where its mtu, lcp and "
                "addresses go)",
            )
        mtu = ctx.ifaces[bond.name].mtu if bond.name in ctx.ifaces else 1500
        seen: set[str] = set()
        for i, member in enumerate(raw.get("interfaces", ())):
            if member in seen:
                ctx.report(key, ("interfaces", index(i)), f"member {member} is listed twice")
                continue
            seen.add(member)
            _member(ctx, key, ("interfaces", index(i)), bond.name, member, mtu)


def _member(ctx: Context, key: str, field: tuple, bond: str, name: str, mtu: int) -> None:
    member = ctx.ifaces.get(name)
    if member is None:
        ctx.report(key, field, f"member {name} is not configured under 'interfaces'")
        return
    if member.kind is not InterfaceKind.PHY:
        ctx.report(key, field, f"member {name} is not a PHY")
        return
    if ctx.bond_of.get(name) != bond:
        ctx.report(key, field, f"member {name} is already a member of {ctx.bond_of[name]}")
        return
    problems = []
    if member.l2xc or name in ctx.xc_targets:
        problems.append("an l2xc")
    if name in ctx.bridge_of:
        problems.append(f"bridge {ctx.bridge_of[name]}")
    if problems:
        ctx.report(key, field, f"member {name} cannot have {', '.join(problems)}")
    _member_l3(ctx, key, field, bond, name, member)
    if member.mtu != mtu:  # VPP lets it differ; frames above the smaller MTU drop
        ctx.refuse(
            "bond-member-mtu", key, field,
            f"member {name} has MTU {member.mtu}, the bond has {mtu}",
            f"give {name} and {bond} the same mtu",
        )
    _member_mac(ctx, key, field, ctx.dp.bonds[bond].mac, name, member.mac)


def _member_l3(
    ctx: Context, key: str, field: tuple, bond: str, name: str, member: Interface
) -> None:
    """VPP keeps these on a member, but the member's traffic goes to the bond:
    they are never used."""
    if member.addresses or member.unnumbered:
        what = "addresses" if member.addresses else "unnumbered"
        ctx.refuse(
            "bond-member-address", key, field,
            f"member {name} has {what}, which a bond member never uses",
            f"move them to {bond}",
        )
    if member.lcp:
        ctx.refuse(
            "bond-member-lcp", key, field,
            f"member {name} has an lcp, which a bond member never uses",
            f"give {bond} the lcp instead",
        )
    if ctx.subs.get(name):
        ctx.refuse(
            "bond-member-sub-interfaces", key, field,
            f"member {name} has sub-interfaces, which see no traffic on a bond member",
            f"move them under {bond}",
        )


def _member_mac(
    ctx: Context, key: str, field: tuple, bond_mac: str | None, name: str, mac: str | None
) -> None:
    """VPP gives every member the bond's MAC, so a member's own MAC would never
    hold; the bond's MAC itself is fine (a dump of a live bond writes it)."""
    if mac is None or mac == bond_mac:
        return
    if bond_mac is None:
        ctx.report(key, field, f"member {name} cannot have its own MAC: set it on the bond")
    else:
        ctx.report(key, field, f"member {name} has MAC {mac}, the bond has {bond_mac}")
