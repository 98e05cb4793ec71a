"""Addresses: each subnet lives on one interface only, and subnets never nest.

VPP refuses an address whose subnet equals, contains or is contained in a
subnet of another interface; on one interface it accepts several addresses of
the same subnet but no nesting. Checked with one sort (n log n).
"""

from __future__ import annotations

import re
from itertools import islice
from operator import eq

from vppcfg.config.build import Subnet
from vppcfg.config.names import V4_HOST, V6_HOST
from vppcfg.config.rules import Context

# fe80::/10 in canonical spelling: a first group of four digits fe80-febf.
_LINK_LOCAL = re.compile(r"fe[89ab][0-9a-f]:")


def check(ctx: Context) -> None:
    """The builder's record of every address (ctx.addresses), taken by subnet
    with one sort: a subnet's users come together, its first user first."""
    keys, owners, texts = ctx.addresses.subnets, ctx.addresses.owners, ctx.addresses.texts
    order = sorted(range(len(keys)), key=keys.__getitem__)
    ranked = list(map(keys.__getitem__, order))
    if any(map(eq, ranked, islice(ranked, 1, None))):  # a subnet with several users
        # ...who must come in the model's order: interfaces by name, addresses sorted
        order.sort(key=lambda i: (keys[i], owners[i], texts[i]))
    _walk(ctx, order, keys, owners, texts)


def _walk(
    ctx: Context, order: list[int], keys: list[Subnet], owners: list[str], texts: list[str]
) -> None:
    """A repeated address and a link-local one are reported and left out; a
    subnet's later users on other interfaces clash with its first user; sorted
    by start then length, a subnet nests in the one on the stack."""
    stack: list[tuple[int, int]] = []  # (last address, first user) of enclosing subnets
    current, first, last = -1, 0, -1
    for i in order:
        owner, address = owners[i], texts[i]
        if last >= 0 and texts[last] == address and owners[last] == owner:
            ctx.report(f"interfaces/{owner}", "addresses", f"address {address} is listed twice")
            continue
        last = i
        if address[0] == "f" and _LINK_LOCAL.match(address):  # the test alone: no v4 one
            # VPP keeps the link-local apart: /128 only, never listed by
            # ip_address_dump and never deletable, so it could not converge.
            ctx.report(
                f"interfaces/{owner}",
                "addresses",
                f"address {address} is IPv6 link-local, which VPP manages by itself",
            )
            continue
        key = keys[i]
        if key == current:  # the same subnet as the one before
            if owner != owners[first]:
                ctx.report(
                    f"interfaces/{owner}",
                    "addresses",
                    f"address {address} is in the same subnet as {texts[first]} "
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
                f"interfaces/{owner}",
                "addresses",
                f"address {address} overlaps {texts[other]} on {owners[other]}",
            )
        host = V6_HOST if start >> 128 else V4_HOST
        stack.append((start | host[key & 255], i))
