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
    _mtus(ctx)
    for section, (collection, prefix, top, rule) in _INSTANCES.items():
        for name in ctx.raw.get(section, {}):
            instance = int(name[len(prefix):])
            if instance > top:
                ctx.refuse(
                    rule, f"{collection}/{name}", "",
                    f"instance {instance} is above the language's highest, {prefix}{top}",
                    f"use {prefix}0 to {prefix}{top}",
                )


def _mtus(ctx: Context) -> None:
    """Every MTU written in the file, read from the file's own sections (a
    default is always in range)."""
    raw = ctx.raw
    for name, body in raw.get("interfaces", {}).items():
        _mtu(ctx, f"interfaces/{name}", ("mtu",), body)
        for sub_id, sub in (body.get("sub-interfaces") or {}).items():
            if _out_of_range(sub, "mtu"):  # tested first, as most are: the key costs more
                _mtu(ctx, f"interfaces/{name}.{sub_id}", ("mtu",), sub)
    for name, body in raw.get("loopbacks", {}).items():
        _mtu(ctx, f"interfaces/{name}", ("mtu",), body)
    for name, body in raw.get("bridgedomains", {}).items():
        _mtu(ctx, f"bridge_domains/{name}", ("mtu",), body)
    for name, body in raw.get("taps", {}).items():
        _mtu(ctx, f"taps/{name}", ("host", "mtu"), body.get("host"))


def _out_of_range(body: Any, name: str) -> bool:
    """Whether the MTU `name` of `body` is written and out of the language's range."""
    mtu = body.get(name) if isinstance(body, dict) else None
    return isinstance(mtu, int) and not MTU_MIN <= mtu <= MTU_MAX


def _mtu(ctx: Context, key: str, field: tuple[str, ...], body: Any) -> None:
    if _out_of_range(body, field[-1]):
        mtu = body[field[-1]]
        ctx.refuse(
            "mtu-range", key, field,
            f"MTU {mtu} is outside the language's {MTU_MIN}-{MTU_MAX}",
            f"use an MTU from {MTU_MIN} to {MTU_MAX}",
        )
