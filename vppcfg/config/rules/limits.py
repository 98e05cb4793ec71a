"""The language's limits that are narrower than VPP's: MTUs of 128-9216 and the
highest loopback, tap and bridge-domain instances.

The schema takes what VPP takes (so a dump of a VPP holding a wider value can
be allowed); these rules refuse the rest by default, as IPng's vppcfg does."""

from __future__ import annotations

from typing import Any

from vppcfg.config.rules import Context

MTU_MIN, MTU_MAX = 128, 9216
# section -> (model collection, name prefix, highest instance, rule)
_INSTANCES = {
    "loopbacks": ("interfaces", "loop", 4095, "loopback-instance"),
    "taps": ("taps", "tap", 1024, "tap-instance"),
    "bridgedomains": ("bridge_domains", "bd", 65535, "bridgedomain-instance"),
}


def check(ctx: Context) -> None:
    for iface in ctx.ifaces.values():
        key = f"interfaces/{iface.name}"
        _mtu(ctx, key, ("mtu",), ctx.raw_of(key))
    for tap in ctx.dp.taps.values():
        key = f"taps/{tap.name}"
        _mtu(ctx, key, ("host", "mtu"), ctx.raw_of(key).get("host", {}))
    for bridge in ctx.dp.bridge_domains.values():
        key = f"bridge_domains/{bridge.name}"
        _mtu(ctx, key, ("mtu",), ctx.raw_of(key))
    for section, (collection, prefix, top, rule) in _INSTANCES.items():
        for name in ctx.raw.get(section, {}):
            instance = int(name[len(prefix):])
            if instance > top:
                ctx.refuse(
                    rule, f"{collection}/{name}", "",
                    f"instance {instance} is above the language's highest, {prefix}{top}",
                    f"use {prefix}0 to {prefix}{top}",
                )


def _mtu(ctx: Context, key: str, field: tuple[str, ...], body: Any) -> None:
    """Only an MTU that is written: a default is always in range."""
    mtu = body.get(field[-1]) if isinstance(body, dict) else None
    if isinstance(mtu, int) and not MTU_MIN <= mtu <= MTU_MAX:
        ctx.refuse(
            "mtu-range", key, field,
            f"MTU {mtu} is outside the language's {MTU_MIN}-{MTU_MAX}",
            f"use an MTU from {MTU_MIN} to {MTU_MAX}",
        )
