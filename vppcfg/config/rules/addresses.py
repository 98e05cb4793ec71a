"""Addresses: each subnet lives on one interface only, and subnets never nest.

VPP refuses an address whose subnet equals, contains or is contained in a
subnet of another interface; on one interface it accepts several addresses of
the same subnet but no nesting. Checked with one sort per family (n log n).
"""

from __future__ import annotations

import re
from collections import defaultdict

from vppcfg.config.build import Subnet
from vppcfg.config.names import interface_info
from vppcfg.config.rules import Context

# fe80::/10 in canonical spelling: a first group of four digits fe80-febf.
_LINK_LOCAL = re.compile(r"fe[89ab][0-9a-f]:")


def check(ctx: Context) -> None:
    owners: dict[Subnet, list[tuple[str, str]]] = defaultdict(list)
    for iface in ctx.ifaces.values():
        seen: set[str] = set()
        for address in iface.addresses:
            if address in seen:
                ctx.report(
                    f"interfaces/{iface.name}", "addresses", f"address {address} is listed twice"
                )
                continue
            seen.add(address)
            if _LINK_LOCAL.match(address):
                # VPP keeps the link-local apart: /128 only, never listed by
                # ip_address_dump and never deletable, so it could not converge.
                ctx.report(
                    f"interfaces/{iface.name}",
                    "addresses",
                    f"address {address} is IPv6 link-local, which VPP manages by itself",
                )
                continue
            subnet = ctx.subnets.get(address) or tuple(interface_info(address)[1:])
            owners[subnet].append((iface.name, address))
    for users in owners.values():
        first_owner = users[0][0]
        for name, address in users:
            if name != first_owner:
                ctx.report(
                    f"interfaces/{name}",
                    "addresses",
                    f"address {address} is in the same subnet as {users[0][1]} on {first_owner}",
                )
    _nesting(ctx, sorted(owners, key=lambda s: (s[0], s[1], s[3])), owners)


def _nesting(
    ctx: Context, subnets: list[Subnet], owners: dict[Subnet, list[tuple[str, str]]]
) -> None:
    """Sorted by start address then length, a subnet nests in the one on the stack."""
    stack: list[Subnet] = []
    for subnet in subnets:
        while stack and (stack[-1][0] != subnet[0] or stack[-1][2] < subnet[1]):
            stack.pop()
        if stack:
            name, address = owners[subnet][0]
            other, other_address = owners[stack[-1]][0]
            ctx.report(
                f"interfaces/{name}",
                "addresses",
                f"address {address} overlaps {other_address} on {other}",
            )
        stack.append(subnet)
