"""L2 cross-connects: one-way pairs of two distinct interfaces of equal MTU."""

from __future__ import annotations

from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    for iface in ctx.ifaces.values():
        target = iface.l2xc
        if not target:
            continue
        key = f"interfaces/{iface.name}"
        if ctx.subs.get(iface.name):
            ctx.report(key, "sub-interfaces", "has an l2xc, so it cannot have sub-interfaces")
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
            ctx.warn(key, "l2xc", f"l2xc target {target} has MTU {other.mtu}, not {iface.mtu}")
        if len(ctx.xc_targets[target]) > 1:
            others = ctx.others(ctx.xc_targets[target], iface.name)
            ctx.report(key, "l2xc", f"l2xc target {target} is also the target of {others}")
        if target in ctx.bridge_of:
            ctx.report(
                key, "l2xc", f"l2xc target {target} is a member of bridge {ctx.bridge_of[target]}"
            )
        if target in ctx.bond_of:
            ctx.report(key, "l2xc", f"l2xc target {target} is a member of {ctx.bond_of[target]}")
        if target in ctx.bvi_of:
            ctx.report(key, "l2xc", f"l2xc target {target} is the BVI of {ctx.bvi_of[target]}")
