"""ACLs and prefix lists: references exist, fields fit the protocol, ranges are
ordered, and every term can match at least one address family."""

from __future__ import annotations

import ipaddress

from vppcfg.config import names
from vppcfg.config.build import FULL_ICMP, FULL_PORTS
from vppcfg.config.problems import index
from vppcfg.config.rules import Context
from vppcfg.config.tables import ICMP, ICMP6, TCP, UDP
from vppcfg.model import AclTerm

_FAMILIES = {"ipv4": {4}, "ipv6": {6}, "any": {4, 6}}


def check(ctx: Context) -> None:
    families = {
        name: {ipaddress.ip_interface(m).version for m in plist.members}
        for name, plist in ctx.dp.prefixlists.items()
    }
    for acl in ctx.dp.acls.values():
        key = f"acls/{acl.name}"
        for i, term in enumerate(acl.terms):
            _term(ctx, key, ("terms", index(i)), term, families)


def _term(ctx: Context, key: str, at: tuple, term: AclTerm, families: dict[str, set[int]]) -> None:
    wanted = _FAMILIES[term.family]
    found = {}
    for field, value in (("source", term.source), ("destination", term.destination)):
        found[field] = _families(ctx, key, (*at, field), value, families) & wanted
        if not found[field]:
            ctx.report(key, (*at, field), f"has no {term.family} address to match")
    if found["source"] and found["destination"] and not found["source"] & found["destination"]:
        ctx.report(key, at, "source and destination are of different address families")
    if term.protocol not in (TCP, UDP):
        for field, value in (
            ("source-port", term.source_port),
            ("destination-port", term.destination_port),
        ):
            if value != FULL_PORTS:  # VPP keeps them but matches no port
                ctx.refuse("acl-ports", key, (*at, field),
                           "ports apply only to protocol tcp or udp",
                           "add 'protocol: tcp' or 'protocol: udp', or remove the port")
    if term.protocol not in (ICMP, ICMP6):
        for field, value in (("icmp-type", term.icmp_type), ("icmp-code", term.icmp_code)):
            if value != FULL_ICMP:
                ctx.refuse("acl-icmp", key, (*at, field),
                           "icmp-type/code apply only to protocol icmp or ipv6-icmp",
                           "add 'protocol: icmp' or 'protocol: ipv6-icmp', or remove it")
    if term.protocol == ICMP and term.family == "ipv6":
        ctx.warn(key, (*at, "protocol"), "icmp is IPv4's; use ipv6-icmp for IPv6")
    if term.protocol == ICMP6 and term.family == "ipv4":
        ctx.warn(key, (*at, "protocol"), "ipv6-icmp is IPv6's; use icmp for IPv4")
    for field, value in (
        ("source-port", term.source_port),
        ("destination-port", term.destination_port),
        ("icmp-type", term.icmp_type),
        ("icmp-code", term.icmp_code),
    ):
        if value.first > value.last:
            ctx.report(key, (*at, field), f"range {value.first}-{value.last} runs backwards")


def _families(
    ctx: Context, key: str, at: tuple, value: str | None, families: dict[str, set[int]]
) -> set[int]:
    if value is None:
        return {4, 6}
    if names.ip_prefix(value):
        return {ipaddress.ip_interface(value).version}
    if value not in families:
        ctx.report(key, at, f"prefix list {value} does not exist")
        return {4, 6}  # reported once; do not add a family complaint
    return families[value]
