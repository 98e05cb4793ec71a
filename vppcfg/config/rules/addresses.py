"""Addresses: each subnet lives on one interface only, and subnets never nest.

VPP refuses an address whose subnet equals, contains or is contained in a
subnet of another interface; on one interface it accepts several addresses of
the same subnet but no nesting. Checked with one sort (n log n).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import islice, repeat
from operator import add, and_, eq, lt

from vppcfg.config.build import Subnet
from vppcfg.config.names import V4_HOST, V6_HOST
from vppcfg.config.rules import Context

# fe80::/10 in canonical spelling: a first group of four digits fe80-febf.
_LINK_LOCAL = re.compile(r"fe[89ab][0-9a-f]:")
_LINK_LOCAL_LINE = re.compile(r"\nfe[89ab][0-9a-f]:")  # the same, in texts joined by lines
# A subnet key is start << 8 | length, the start's host bits zero; adding
# _PAST[length] makes the key of the address just past its end (length 0,
# the lowest key there): a key below that starts inside the subnet.
_PAST_V4 = [((host + 1) << 8) - length for length, host in enumerate(V4_HOST)]
_PAST_V6 = [((host + 1) << 8) - length for length, host in enumerate(V6_HOST)]
_V6_KEYS = 1 << 136  # the lowest IPv6 key (build._FAMILY): IPv4 keys sort below it


def check(ctx: Context) -> None:
    """The builder's record of every address (ctx.addresses), taken by subnet
    with one sort: a subnet's users come together, its first user first."""
    keys, owners, texts = ctx.addresses.subnets, ctx.addresses.owners, ctx.addresses.texts
    if _all_apart(sorted(keys)) and not _LINK_LOCAL_LINE.search("\n" + "\n".join(texts)):
        return  # nothing for the walk to report, told without a loop in Python
    order = sorted(range(len(keys)), key=keys.__getitem__)
    ranked = list(map(keys.__getitem__, order))
    if any(map(eq, ranked, islice(ranked, 1, None))):  # a subnet with several users
        # ...who must come in the model's order: interfaces by name, addresses sorted
        order.sort(key=lambda i: (keys[i], owners[i], texts[i]))
    _walk(ctx, order, keys, owners, texts)


def _all_apart(ranked: list[Subnet]) -> bool:
    """Whether no subnet of the sorted keys starts inside the one before it:
    no subnet repeated (on one interface or two) and none nested, so the walk
    has nothing to say but about link-local addresses."""
    v6 = bisect_left(ranked, _V6_KEYS)
    v4_nest = _any_inside(ranked, 0, v6, _PAST_V4)
    return not (v4_nest or _any_inside(ranked, v6, len(ranked), _PAST_V6))


def _any_inside(ranked: list[Subnet], lo: int, hi: int, past: list[int]) -> bool:
    """Whether a key of ranked[lo:hi] (one family) is below the end of the
    one before it; in C, as a large file has a hundred thousand addresses."""
    lengths = map(and_, islice(ranked, lo, hi), repeat(255))
    ends = map(add, islice(ranked, lo, hi), map(past.__getitem__, lengths))
    return any(map(lt, islice(ranked, lo + 1, hi), ends))


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
