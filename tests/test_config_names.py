"""The address spellings the checker makes canonical agree with Python's
ipaddress module, which the model and the dump use (a config and a dump of
the same VPP must compare equal)."""

from __future__ import annotations

import ipaddress
import random

import pytest

from vppcfg.config import names

TRICKY_V6 = [
    "::", "::1", "1::", "2001:DB8::1", "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1",
    "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8:0:1:1:1:1:1", "0:0:0:0:0:ffff:102:304",
    "::ffff:0:0", "::ffff:1.2.3.4", "::1.2.3.4", "64:ff9b::192.0.2.33", "fe80::1:0:0:0",
    "1:0:0:1:0:0:0:1", "1:0:0:0:1:0:0:1",
]


@pytest.mark.parametrize("address", TRICKY_V6)
def test_ipv6_spellings_are_canonical_as_ipaddress_writes_them(address: str) -> None:
    text = f"{address}/64"
    assert names.ip_interface(text) == str(ipaddress.ip_interface(text))


def test_random_ipv6_addresses_agree_with_ipaddress() -> None:
    rng = random.Random(5)
    for _ in range(20000):
        groups = [rng.choice((0, 0, 0, 1, 0xFFFF, rng.randrange(65536))) for _ in range(8)]
        text = ":".join(f"{g:x}" for g in groups) + f"/{rng.randrange(129)}"
        info = names.interface_info.__wrapped__(text)  # not the memo: each one computed
        iface = ipaddress.ip_interface(text)
        assert info == (str(iface), 6, int(iface.network.network_address),
                        int(iface.network.broadcast_address), iface.network.prefixlen), text


@pytest.mark.parametrize("text", ["192.0.2.1/24", "10.0.0.0/8", "0.0.0.0/0", "255.255.255.255/32"])
def test_ipv4_info(text: str) -> None:
    iface = ipaddress.ip_interface(text)
    assert names.interface_info(text) == (
        str(iface), 4, int(iface.network.network_address), int(iface.network.broadcast_address),
        iface.network.prefixlen)


@pytest.mark.parametrize("text", ["192.0.2.01/24", "2001:db8::g/64", "::1/129", "192.0.2.1/33",
                                  "2001:db8:::1/64"])
def test_bad_spellings_are_refused(text: str) -> None:
    assert names.ip_interface(text) is None


ODD_SPELLINGS = [
    # what the C library reads but ipaddress refuses (short, hex, octal, trailing text)
    "10.1/8", "0x0a.0.0.1/8", "010.0.0.1/8", "1.2.3.4 x/24", "1.2.3.4\x00/24", "\u0661.2.3.4/24",
    "2001:db8::1\x00/64", "\u0661::1/64", "1.2.3.4/", "1.2.3.4/2:4", "1234/64",
    # what ipaddress reads in a spelling of its own
    "1.2.3.4/024", "1.2.3.4/255.255.255.0", "::ffff:1.2.3.4/96", "2001:DB8::1/064",
]


@pytest.mark.parametrize("text", ODD_SPELLINGS)
def test_odd_spellings_are_read_as_ipaddress_reads_them(text: str) -> None:
    try:
        expected = str(ipaddress.ip_interface(text))
    except ValueError:
        expected = None
    assert names.ip_interface(text) == expected
