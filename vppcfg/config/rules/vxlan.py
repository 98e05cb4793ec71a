"""VXLAN tunnels: unicast endpoints of one family, and one tunnel per VNI."""

from __future__ import annotations

import ipaddress

from vppcfg.config.rules import Context


def check(ctx: Context) -> None:
    vnis: dict[int, str] = {}
    for tunnel in ctx.dp.vxlan_tunnels.values():
        key = f"vxlan_tunnels/{tunnel.name}"
        local = ipaddress.ip_address(tunnel.local)
        remote = ipaddress.ip_address(tunnel.remote)
        if local.version != remote.version:
            ctx.report(key, "remote", "local and remote must be of the same address family")
        elif local == remote:
            ctx.report(key, "remote", "local and remote must differ")
        for field, address in (("local", local), ("remote", remote)):
            if address.is_multicast or address.is_unspecified:
                ctx.report(key, field, f"{address} is not a unicast address")
        if tunnel.vni in vnis:
            ctx.report(key, "vni", f"VNI {tunnel.vni} is already used by {vnis[tunnel.vni]}")
        else:
            vnis[tunnel.vni] = tunnel.name
