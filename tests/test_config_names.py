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
