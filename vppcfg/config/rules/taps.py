"""Taps: power-of-two rings, a unicast host MAC, create flags only with a target."""

from __future__ import annotations

from vppcfg.config import names
from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    for tap in ctx.dp.taps.values():
        key = f"taps/{tap.name}"
        for field, size in (("rx-ring-size", tap.rx_ring_size), ("tx-ring-size", tap.tx_ring_size)):
            if size & (size - 1):
                ctx.report(key, field, f"ring size {size} is not a power of two")
        if tap.host.mac and not names.mac_is_unicast(tap.host.mac):
            ctx.report(key, ("host", "mac"), f"MAC {tap.host.mac} is not a unicast address")
        host = ctx.raw_of(key).get("host", {})
        for flag, needs in (("bridge-create", "bridge"), ("namespace-create", "namespace")):
            if host.get(flag) and needs not in host:
                ctx.report(key, ("host", flag), f"{flag} needs host.{needs}")
