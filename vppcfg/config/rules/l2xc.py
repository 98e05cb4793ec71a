"""L2 cross-connects: one-way pairs of two distinct interfaces of equal MTU.

VPP accepts a target shared, bridged, a BVI or a bond member, mismatched MTUs
and sub-interfaces on a source. The language refuses a shared or bridged
target, mismatched MTUs and sub-interfaces on a source (each can be allowed,
vppcfg.config.verdicts); a BVI or bond member as target is a warning."""

from __future__ import annotations

from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    for iface in ctx.ifaces.values():
        target = iface.l2xc
        if not target:
            continue
        key = f"interfaces/{iface.name}"
        if ctx.subs.get(iface.name):  # VPP still hands tagged frames to the subs
            ctx.refuse("l2xc-sub-interfaces", key, "sub-interfaces",
                       "has an l2xc, which takes all its frames, and sub-interfaces",
                       "cross-connect a sub-interface instead, or remove the sub-interfaces")
        if iface.name in ctx.bridge_of:
            ctx.report(
                key,
                "l2xc",
                f"is a member of bridge {ctx.bridge_of[iface.name]}, so it cannot have an l2xc",
            )
        if iface.name in ctx.bond_of:
            ctx.report(
                key, "l2xc", f"is a member of {ctx.bond_of[iface.name]}, so it cannot have an l2xc"
            )
        if target == iface.name:
            ctx.report(key, "l2xc", "cannot cross-connect to itself")
            continue
        other = ctx.ifaces.get(target)
        if other is None:
            ctx.report(key, "l2xc", f"l2xc target {target} does not exist")
            continue
        if other.mtu != iface.mtu:  # VPP cross-connects any MTUs (frames may drop)
            ctx.refuse("l2xc-mtu", key, "l2xc",
                       f"l2xc target {target} has MTU {other.mtu}, not {iface.mtu}: larger "
                       "frames drop one way", "give both the same mtu")
        if len(ctx.xc_targets[target]) > 1:
            others = ctx.others(ctx.xc_targets[target], iface.name)
            ctx.refuse("l2xc-target-shared", key, "l2xc",
                       f"l2xc target {target} is also the target of {others}, but sends "
                       "its frames to one only", "cross-connect each source to its own target")
        if target in ctx.bridge_of:
            ctx.refuse("l2xc-target-bridged", key, "l2xc",
                       f"l2xc target {target} is a member of bridge {ctx.bridge_of[target]}, "
                       "which takes its frames", "remove it from the bridge, or bridge both")
        if target in ctx.bond_of:
            ctx.warn(key, "l2xc", f"l2xc target {target} is a member of {ctx.bond_of[target]}")
        if target in ctx.bvi_of:
            ctx.warn(key, "l2xc", f"l2xc target {target} is the BVI of {ctx.bvi_of[target]}")
