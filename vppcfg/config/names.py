"""Name patterns and canonical spellings shared by the schema and the rules.

Every pattern is anchored at both ends (``fullmatch``): a name that merely
starts like a valid one (``loop1x``) is not one. No name may carry
whitespace, quotes, ``;`` or control characters, because names end up in
VPP CLI text.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from functools import lru_cache

from vppcfg.model import InterfaceKind

# Names VPP gives to ports it did not create from a config: DPDK
# (GigabitEthernet3/0/0, TenGigabitEthernet3b/0/1, HundredGigabitEthernet12/0/1,
# VirtualFunctionEthernet...), af_packet (host-eth0), virtio, avf, rdma,
# vmxnet3, af_xdp.
_ETH_SPEED = (
    "|Two|TwoDotFive|Five|Ten|TwentyFive|Forty|Fifty|Hundred|TwoHundred|FourHundred|EightHundred"
)
_PCI = r"[0-9a-f]{1,4}(?:/[0-9a-f]{1,4}){2,3}"
_LINUX = r"[A-Za-z0-9_][A-Za-z0-9_-]{0,14}"
PHY_RE = re.compile(
    rf"(?:(?:{_ETH_SPEED})GigabitEthernet|VirtualFunctionEthernet|Ethernet){_PCI}"
    rf"|host-{_LINUX}"
    rf"|(?:virtio|avf|vmxnet3)-{_PCI}"
    rf"|(?:rdma|af_xdp)-{_LINUX}"
)
LOOPBACK_RE = re.compile(r"loop(0|[1-9][0-9]{0,4})")
BOND_RE = re.compile(r"BondEthernet(0|[1-9][0-9]{0,9})")
VXLAN_RE = re.compile(r"vxlan_tunnel(0|[1-9][0-9]{0,9})")
TAP_RE = re.compile(r"tap(0|[1-9][0-9]{0,3})")
BRIDGE_RE = re.compile(r"bd(0|[1-9][0-9]{0,7})")
# Linux interface names for lcp and tap hosts (dots allowed: `e0.100`). Linux and
# VPP also take upper case and a leading digit or `_` (`Eth0`, `0hu`), so a dump
# of such a pair must check; what a CLI token cannot carry stays out.
LINUX_IFNAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
LINUX_IFNAME_MAX = 15  # IFNAMSIZ 16 with the NUL; VPP 26.10 takes 15 (tested on vpp-real)
LINUX_NAME_RE = re.compile(r"[a-z][a-z0-9_-]*")
LIST_NAME_RE = re.compile(r"[a-z][a-z0-9-]*")

# The language's `device-type` values (IPng's: only `dpdk`, a hint for --novpp).
DEVICE_TYPES = ("dpdk",)

LIMITS = {
    # instance number ranges, inclusive, as documented in docs/config-guide.md; loop
    # and tap are VPP's own (LOOPBACK_MAX_INSTANCE 16384, TAP_MAX_INSTANCE 8192)
    "loop": (0, 16383),
    "BondEthernet": (0, 4294967294),
    "vxlan_tunnel": (0, 2147483647),
    "tap": (0, 8192),
    "bd": (1, 16777215),
}


def numbered(pattern: re.Pattern[str], prefix: str, name: str) -> bool:
    """`name` is `<prefix>N` with N in the documented range for that prefix."""
    low, high = LIMITS[prefix]
    return bool(pattern.fullmatch(name)) and low <= instance(name) <= high


def instance(name: str) -> int:
    """The trailing number of loopN / BondEthernetN / vxlan_tunnelN / tapN / bdN."""
    digits = re.search(r"[0-9]+$", name)
    return int(digits.group()) if digits else -1


def interface_kind(name: str) -> InterfaceKind | None:
    """What an `interfaces` key names, by its spelling (None: not an interface name)."""
    if BOND_RE.fullmatch(name):
        return InterfaceKind.BOND
    if VXLAN_RE.fullmatch(name):
        return InterfaceKind.VXLAN
    if TAP_RE.fullmatch(name):
        return InterfaceKind.TAP
    if LOOPBACK_RE.fullmatch(name):
        return InterfaceKind.LOOPBACK
    if PHY_RE.fullmatch(name):
        return InterfaceKind.PHY
    return None


_MAC_RES = (
    re.compile(
        r"([0-9a-f]{2})([-:]?)([0-9a-f]{2})\2([0-9a-f]{2})\2([0-9a-f]{2})\2([0-9a-f]{2})\2([0-9a-f]{2})"
    ),
    re.compile(r"([0-9a-f]{4})([-.:]?)([0-9a-f]{4})\2([0-9a-f]{4})"),
)


def mac(text: str) -> str | None:
    """`aa:bb:cc:dd:ee:ff` for any usual spelling (`AA-BB-..`, `aabb.ccdd.eeff`), else None."""
    if not isinstance(text, str):
        return None
    low = text.lower()
    for regex in _MAC_RES:
        found = regex.fullmatch(low)
        if found:
            digits = "".join(g for g in found.groups() if g not in ("", "-", ":", "."))
            return ":".join(digits[i : i + 2] for i in range(0, 12, 2))
    return None


def mac_is_unicast(canonical: str) -> bool:
    return not int(canonical[:2], 16) & 1 and canonical != "00:00:00:00:00:00"


def ip_interface(text: object) -> str | None:
    """`192.0.2.1/24` style (address with prefix length) in canonical spelling, or None."""
    if not isinstance(text, str) or "/" not in text or text != text.strip() or "%" in text:
        return None
    info = interface_info(text)
    return info[0] if info else None


# read_interface's answer: (canonical, version, network, broadcast, prefix length)
InterfaceRead = tuple[str, int, int, int, int]
_V4_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_V4_ADDRESS = re.compile(rf"{_V4_OCTET}(?:\.{_V4_OCTET}){{3}}")
_V6_FAST = re.compile(r"([0-9a-fA-F:]+)/(12[0-8]|1[01][0-9]|[1-9]?[0-9])")
# the host bits of each prefix length (also the address rules')
V4_HOST = [(1 << (32 - n)) - 1 for n in range(33)]
V6_HOST = [(1 << (128 - n)) - 1 for n in range(129)]
# The canonical spellings of a prefix length ("0".."32", "0".."128"), each
# with its length, host bits and network mask: one lookup checks and reads the
# length, and no mask is made per address.
_V4_LENGTHS = {str(n): (n, host, ~host) for n, host in enumerate(V4_HOST)}
_V6_LENGTHS = {str(n): (n, host, ~host) for n, host in enumerate(V6_HOST)}
_pton = socket.inet_pton
_AF_INET, _AF_INET6 = socket.AF_INET, socket.AF_INET6


def is_ip_interface(text: object) -> bool:
    """Whether ip_interface(text) is not None, without spelling it: the schema
    only asks yes or no, and the builder spells each address once. A plain
    spelling (as read_interface's) needs only the C library's parse: what it
    takes has no blank and no `%`; the others go through ip_interface's tests."""
    if isinstance(text, str):
        address, _, length = text.partition("/")
        try:
            if ":" not in address:
                if length in _V4_LENGTHS:
                    _pton(_AF_INET, address)
                    return True
            elif length in _V6_LENGTHS and "." not in address:
                _pton(_AF_INET6, address)
                return True
        except (OSError, ValueError):  # ValueError: a NUL or a character not in ASCII
            pass
    return ip_interface(text) is not None


def read_interface(text: str) -> InterfaceRead | None:
    """(canonical, version, network as int, broadcast as int, prefix length) of an
    `address/len`, or None; with a fast path for the plain spellings, as reading
    address text is the slowest step of checking a large config. The C library
    reads the address; a plain spelling is one it takes only in canonical form
    (IPv4: inet_pton, unlike inet_aton, refuses `10.1`, `0x0a.0.0.1`,
    `010.0.0.1`) or one of hex digits and colons (IPv6, rewritten in RFC 5952
    form)."""
    address, _, length_text = text.partition("/")
    known = _V4_LENGTHS.get(length_text) if ":" not in address else None
    if known is not None:
        try:
            packed = _pton(_AF_INET, address)
        except (OSError, ValueError):  # ValueError: a NUL or a character not in ASCII
            pass
        else:
            length, host, mask = known
            network = int.from_bytes(packed, "big") & mask
            return (text, 4, network, network | host, length)
    known = _V6_LENGTHS.get(length_text)
    if known is not None:
        try:
            packed = _pton(_AF_INET6, address)
        except (OSError, ValueError):  # (as above)
            if _V6_FAST.fullmatch(text):  # no second opinion from ipaddress on these
                return None
        else:
            if "." not in address:  # an IPv4 tail (::ffff:192.0.2.1) is read by ipaddress
                return _v6_info(packed, length_text, *known)
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError:
        return None
    bits = iface.max_prefixlen
    return _info(str(iface), iface.version, int(iface.ip), iface.network.prefixlen, bits)


def _v6_info(
    packed: bytes, length_text: str, length: int, host: int, mask: int
) -> InterfaceRead:
    # The C library writes RFC 5952 text as Python does, but for the forms
    # with an IPv4 tail (::ffff:192.0.2.1), which Python 3.11 writes in hex.
    spelled = socket.inet_ntop(_AF_INET6, packed)
    value = int.from_bytes(packed, "big")
    if "." in spelled:
        spelled = str(ipaddress.IPv6Address(value))
    network = value & mask
    return (spelled + "/" + length_text, 6, network, network | host, length)


# Memoised for the callers that meet the same few addresses again (ACL and
# prefix-list endpoints); the bulk of a config's addresses goes through
# read_interface once, in the builder.
interface_info = lru_cache(maxsize=1 << 16)(read_interface)


def _info(canonical: str, version: int, value: int, length: int, bits: int) -> InterfaceRead:
    host = (1 << (bits - length)) - 1
    return (canonical, version, value & ~host, (value & ~host) | host, length)


def ip_address(text: object) -> str | None:
    """A bare address (no prefix length) in canonical spelling, or None."""
    if not isinstance(text, str) or "/" in text or text != text.strip() or "%" in text:
        return None
    if _V4_ADDRESS.fullmatch(text):  # ipaddress's own rule, and already canonical
        return text
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def ip_prefix(text: object) -> str | None:
    """An address (as /32 or /128) or address/len, canonical; host bits are kept."""
    if not isinstance(text, str):
        return None
    return ip_interface(text) or (
        f"{addr}/{ipaddress.ip_address(addr).max_prefixlen}" if (addr := ip_address(text)) else None
    )
