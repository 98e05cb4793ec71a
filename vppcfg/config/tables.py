"""Small built-in tables of IP protocol and service names, so that ACLs mean the
same on every host (no dependency on /etc/protocols or /etc/services)."""

from __future__ import annotations

import re

PROTOCOLS: dict[str, int] = {
    "icmp": 1,
    "igmp": 2,
    "ipencap": 4,
    "tcp": 6,
    "egp": 8,
    "igp": 9,
    "udp": 17,
    "dccp": 33,
    "ipv6": 41,
    "ipv6-route": 43,
    "ipv6-frag": 44,
    "rsvp": 46,
    "gre": 47,
    "esp": 50,
    "ah": 51,
    "ipv6-icmp": 58,
    "icmpv6": 58,
    "ipv6-nonxt": 59,
    "ipv6-opts": 60,
    "eigrp": 88,
    "ospf": 89,
    "ipip": 94,
    "etherip": 97,
    "encap": 98,
    "pim": 103,
    "ipcomp": 108,
    "vrrp": 112,
    "l2tp": 115,
    "isis": 124,
    "sctp": 132,
    "udplite": 136,
    "mpls-in-ip": 137,
}
# The spelling used when writing a protocol number back out.
PROTOCOL_NAMES: dict[int, str] = {
    1: "icmp",
    6: "tcp",
    17: "udp",
    47: "gre",
    50: "esp",
    51: "ah",
    58: "ipv6-icmp",
    132: "sctp",
}

SERVICES: dict[str, int] = {
    "ftp-data": 20,
    "ftp": 21,
    "ssh": 22,
    "telnet": 23,
    "smtp": 25,
    "domain": 53,
    "dns": 53,
    "bootps": 67,
    "bootpc": 68,
    "tftp": 69,
    "finger": 79,
    "http": 80,
    "www": 80,
    "kerberos": 88,
    "pop3": 110,
    "sunrpc": 111,
    "auth": 113,
    "nntp": 119,
    "ntp": 123,
    "netbios-ns": 137,
    "netbios-dgm": 138,
    "netbios-ssn": 139,
    "imap": 143,
    "imap2": 143,
    "snmp": 161,
    "snmp-trap": 162,
    "bgp": 179,
    "ldap": 389,
    "https": 443,
    "microsoft-ds": 445,
    "isakmp": 500,
    "syslog": 514,
    "rtsp": 554,
    "submission": 587,
    "ldaps": 636,
    "ldp": 646,
    "rsync": 873,
    "imaps": 993,
    "pop3s": 995,
    "openvpn": 1194,
    "ms-sql-s": 1433,
    "l2tp": 1701,
    "pptp": 1723,
    "radius": 1812,
    "radius-acct": 1813,
    "nfs": 2049,
    "mysql": 3306,
    "ipsec-nat-t": 4500,
    "sip": 5060,
    "xmpp-client": 5222,
    "postgresql": 5432,
    "http-alt": 8080,
    "git": 9418,
}

TCP, UDP, ICMP, ICMP6 = 6, 17, 1, 58
_RANGE = re.compile(r"([0-9]*)-([0-9]*)")
# ASCII only: str.isdigit() also accepts '²' (which int() refuses) and full-width digits.
_DIGITS = re.compile(r"[0-9]+")


def protocol(value: object) -> int | None:
    """Protocol number for an int, a name from PROTOCOLS or 'any' (0); None if unknown."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= 255 else None
    if isinstance(value, str):
        if value == "any":
            return 0
        if _DIGITS.fullmatch(value):
            return protocol(int(value))
        return PROTOCOLS.get(value)
    return None


def value_range(
    value: object, top: int, names: dict[str, int] | None = None
) -> tuple[int, int] | None:
    """(first, last) for `80`, `"www"`, `"-1024"`, `"1024-"`, `"10-20"` or `"any"`;
    None when it cannot be read. Order (first <= last) is checked by the rules."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (value, value) if 0 <= value <= top else None
    if not isinstance(value, str):
        return None
    if value == "any":
        return (0, top)
    if _DIGITS.fullmatch(value):
        return value_range(int(value), top)
    if names and value in names:
        return (names[value], names[value])
    found = _RANGE.fullmatch(value)
    if not found or value == "-":
        return None
    first = int(found.group(1)) if found.group(1) else 0
    last = int(found.group(2)) if found.group(2) else top
    if first > top or last > top:
        return None
    return (first, last)
