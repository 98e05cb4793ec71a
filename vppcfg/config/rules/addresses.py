"""Addresses: each subnet lives on one interface only, and subnets never nest.

VPP refuses an address whose subnet equals, contains or is contained in a
subnet of another interface; on one interface it accepts several addresses of
the same subnet but no nesting. Checked with one sort per family (n log n).
"""

from __future__ import annotations

import re

from vppcfg.config.build import Subnet, subnet_of
from vppcfg.config.names import interface_info
from vppcfg.config.rules import Context

# fe80::/10 in canonical spelling: a first group of four digits fe80-febf.
_LINK_LOCAL = re.compile(r"fe[89ab][0-9a-f]:")


def check(ctx: Context) -> None:
    # each subnet's first user (interface, address): who the others clash with
    owners: dict[Subnet, tuple[str, str]] = {}
    for iface in ctx.ifaces.values():
        previous = None
        for address in iface.addresses:  # sorted: a repeated address comes next to itself
            if address == previous:
                ctx.report(
                    f"interfaces/{iface.name}", "addresses", f"address {address} is listed twice"
                )
                continue
            previous = address
            if address[0] == "f" and _LINK_LOCAL.match(address):  # the test alone: no v4 one
                # VPP keeps the link-local apart: /128 only, never listed by
                # ip_address_dump and never deletable, so it could not converge.
                ctx.report(
                    f"interfaces/{iface.name}",
                    "addresses",
                    f"address {address} is IPv6 link-local, which VPP manages by itself",
                )
                continue
            subnet = ctx.subnets.get(address) or subnet_of(interface_info(address))
            first = owners.setdefault(subnet, (iface.name, address))
            if first[0] != iface.name:
                ctx.report(
                    f"interfaces/{iface.name}",
                    "addresses",
                    f"address {address} is in the same subnet as {first[1]} on {first[0]}",
                )
    # A Subnet sorts by version, start address, then length (its last field,
    # the end address, follows from those three).
    _nesting(ctx, sorted(owners), owners)


def _nesting(ctx: Context, subnets: list[Subnet], owners: dict[Subnet, tuple[str, str]]) -> None:
    """Sorted by start address then length, a subnet nests in the one on the stack."""
    stack: list[Subnet] = []
    for subnet in subnets:
        while stack and (stack[-1][0] != subnet[0] or stack[-1][3] < subnet[1]):
            stack.pop()
        if stack:
            name, address = owners[subnet]
            other, other_address = owners[stack[-1]]
            ctx.report(
                f"interfaces/{name}",
                "addresses",
                f"address {address} overlaps {other_address} on {other}",
            )
        stack.append(subnet)
