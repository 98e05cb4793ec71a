"""Addresses: each subnet lives on one interface only, and subnets never nest.

VPP refuses an address whose subnet equals, contains or is contained in a
subnet of another interface; on one interface it accepts several addresses of
the same subnet but no nesting. Checked with one sort (n log n).
"""

from __future__ import annotations

import re

from vppcfg.config.build import Subnet, subnet_of
from vppcfg.config.names import interface_info
from vppcfg.config.rules import Context

# fe80::/10 in canonical spelling: a first group of four digits fe80-febf.
_LINK_LOCAL = re.compile(r"fe[89ab][0-9a-f]:")
# the host bits of each prefix length
_V4_HOST = [(1 << (32 - length)) - 1 for length in range(33)]
_V6_HOST = [(1 << (128 - length)) - 1 for length in range(129)]


def check(ctx: Context) -> None:
    subnets = ctx.subnets
    # each address's subnet, interface name and text, in reading order
    keys: list[Subnet] = []
    owners: list[str] = []
    addresses: list[str] = []
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
            subnet = subnets.get(address)
            keys.append(subnet_of(interface_info(address)) if subnet is None else subnet)
            owners.append(iface.name)
            addresses.append(address)
    # One stable sort instead of a dict of subnets: each subnet's users come
    # together in reading order (its first user first), the subnets in the
    # order _overlaps needs.
    order = sorted(range(len(keys)), key=keys.__getitem__)
    _overlaps(ctx, order, keys, owners, addresses)


def _overlaps(
    ctx: Context, order: list[int], keys: list[Subnet], owners: list[str], addresses: list[str]
) -> None:
    """A subnet's later users on other interfaces clash with its first user;
    sorted by start then length, a subnet nests in the one on the stack."""
    stack: list[tuple[int, int]] = []  # (last address, first user) of enclosing subnets
    current, first = -1, 0
    for i in order:
        key = keys[i]
        if key == current:  # the same subnet as the one before
            if owners[i] != owners[first]:
                ctx.report(
                    f"interfaces/{owners[i]}",
                    "addresses",
                    f"address {addresses[i]} is in the same subnet as {addresses[first]} "
                    f"on {owners[first]}",
                )
            continue
        current, first = key, i
        start = key >> 8  # IPv6 starts above every IPv4 end: one comparison pops both
        while stack and stack[-1][0] < start:
            stack.pop()
        if stack:
            other = stack[-1][1]
            ctx.report(
                f"interfaces/{owners[i]}",
                "addresses",
                f"address {addresses[i]} overlaps {addresses[other]} on {owners[other]}",
            )
        host = _V6_HOST if start >> 128 else _V4_HOST
        stack.append((start | host[key & 255], i))
