"""VXLAN tunnels: unicast endpoints of one family, and one tunnel per VNI."""

from __future__ import annotations

import ipaddress
import socket

from vppcfg.config.rules import Context
from vppcfg.model import VxlanTunnel


def check(ctx: Context) -> None:
    vnis: dict[int, str] = {}
    for tunnel in ctx.dp.vxlan_tunnels.values():
        local, remote = tunnel.local, tunnel.remote
        if local == remote or not (_v4_unicast(local) and _v4_unicast(remote)):
            _endpoints(ctx, f"vxlan_tunnels/{tunnel.name}", tunnel)
        if tunnel.vni in vnis:
            ctx.report(f"vxlan_tunnels/{tunnel.name}", "vni",
                       f"VNI {tunnel.vni} is already used by {vnis[tunnel.vni]}")
        else:
            vnis[tunnel.vni] = tunnel.name


def _v4_unicast(text: str) -> bool:
    """Whether `text` is an IPv4 address in canonical spelling that is neither
    multicast nor unspecified: _endpoints has nothing to say about two such
    that differ. Told without ipaddress, whose objects cost ten times more
    (a large file has thousands of tunnels)."""
    try:  # inet_pton takes the canonical dotted quad only (as names.read_interface)
        packed = socket.inet_pton(socket.AF_INET, text)
    except (OSError, TypeError, ValueError):
        return False
    return not (224 <= packed[0] <= 239 or packed == b"\0\0\0\0")  # multicast, unspecified


def _endpoints(ctx: Context, key: str, tunnel: VxlanTunnel) -> None:
    local = ipaddress.ip_address(tunnel.local)
    remote = ipaddress.ip_address(tunnel.remote)
    if local.version != remote.version:
        ctx.report(key, "remote", "local and remote must be of the same address family")
    elif local == remote:
        ctx.report(key, "remote", "local and remote must differ")
    for field, address in (("local", local), ("remote", remote)):
        if address.is_multicast or address.is_unspecified:
            ctx.report(key, field, f"{address} is not a unicast address")
