"""The address spellings the checker makes canonical agree with Python's
ipaddress module, which the model and the dump use (a config and a dump of
the same VPP must compare equal)."""

from __future__ import annotations

import ipaddress
import random

import pytest
import yaml

from vppcfg import config
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


# Values an address list may hold. is_ip_interface (the schema's test) takes
# the plain spellings by the C library's parse alone and read_interface (the
# builder's read) by the same parse and a table of prefix lengths; both must
# answer as ip_interface's tests and Python's ipaddress do, blanks and all.
ADDRESS_VALUES = [
    *ODD_SPELLINGS, *(f"{a}/64" for a in TRICKY_V6), *(f"{a}/128" for a in TRICKY_V6),
    "192.0.2.1/24", "0.0.0.0/0", "255.255.255.255/32", "10.0.0.1/33", "10.0.0.1/0", "10.0.0.1/00",
    "010.0.0.1/24", "10.0.0.01/24", "1.2.3/24", "1.2.3.4.5/24", "256.1.1.1/24", "1.2.3.4/-1",
    "1.2.3.4/+24", "1.2.3.4/24/24", "1.2.3.4/0x18", "/24", "/", "", "1.2.3.4", "2001:db8::1",
    " 10.0.0.1/24", "10.0.0.1/24 ", "10.0.0.1 /24", "10.0.0.1/ 24", "10.0.0.1/24\n", "1.2.3.4\t/24",
    "\u00a010.0.0.1/24", "10.0.0.1/24\u2028", "\uff11.2.3.4/24", "1.2.3.4/\uff12\uff14",
    "2001:db8::1/129", "2001:db8::1/0128", "2001:db8::1/64/64", "2001:db8:::1/64", "1::2::3/64",
    "1:2:3:4:5:6:7:8:9/64", "12345::1/64", "1:2:3:4:5:6:7::/64", "::1:2:3:4:5:6:7/64", ":/64",
    "fe80::1%eth0/64", "fe80::1/64%eth0", "::ffff:1.2.3/64", "::ffff:1.2.3.04/120",
    "::ffff:01.2.3.4/120", "2001:db8::1.2.3.4/96", "FE80::1/10", "2001:db8::G/64",
    7, 0, 1.5, True, None, [], ["10.0.0.1/24"], {"a": "10.0.0.1/24"},
]


def _reference(value: object) -> str | None:
    """ip_interface's answer, by ip_interface's own tests and Python's ipaddress."""
    if not isinstance(value, str) or "/" not in value or value != value.strip() or "%" in value:
        return None
    try:
        return str(ipaddress.ip_interface(value))
    except ValueError:
        return None


@pytest.mark.parametrize("value", ADDRESS_VALUES)
def test_the_schemas_test_and_the_builders_read_agree(value: object) -> None:
    expected = _reference(value)
    assert names.is_ip_interface(value) == (expected is not None)
    assert names.ip_interface(value) == expected
    if isinstance(value, str) and "/" in value and value == value.strip() and "%" not in value:
        found = names.read_interface(value)  # (what the schema's test leaves it)
        assert (found[0] if found else None) == expected


@pytest.mark.parametrize(
    "value", [v for v in ADDRESS_VALUES if not isinstance(v, str) or v.isprintable()]
)
def test_a_config_takes_an_address_as_ip_interface_does(value: object) -> None:
    """The schema (its fast test, and yamale's when the object has another
    problem) refuses what ip_interface refuses; the model holds its spelling."""
    expected = _reference(value)
    for extra in ({}, {"mtu": "x"}):  # a well-formed object, then one yamale reports on
        text = yaml.safe_dump({"loopbacks": {"loop0": {"addresses": [value], **extra}}})
        try:
            dp = config.loads(text)
        except config.ConfigError as err:
            refused = [p.message for p in err.problems if p.path == "loopbacks.loop0.addresses[0]"]
            assert (expected is None) == bool(refused), (value, err.problems)
            if value is not None:
                assert refused == [f"{value!r} is not an address with prefix length (such as "
                                   "192.0.2.1/24 or 2001:db8::1/64)"][: len(refused)]
        else:
            assert not extra and dp.interfaces["loop0"].addresses == (expected,)


def test_random_ipv4_spellings_agree_with_ipaddress() -> None:
    """The C library's inet_pton takes a dotted quad in canonical spelling only
    (inet_aton also takes `10.1`, `0x0a.0.0.1`, `010.0.0.1` and trailing text)."""
    rng = random.Random(7)
    parts = ["0", "00", "1", "01", "9", "10", "010", "99", "100", "199", "255", "256", "0255",
             "1000", "0x1", "a", "", " 1", "1 ", "+1", "-1", "\u0661"]
    for _ in range(20000):
        address = ".".join(rng.choice(parts) for _ in range(rng.choice((3, 4, 4, 4, 5))))
        text = f"{address}/{rng.choice(('0', '24', '32', '33', '024', '8', '-1', ''))}"
        expected = _reference(text)
        assert names.is_ip_interface(text) == (expected is not None), text
        assert names.ip_interface(text) == expected, text
        found = names.read_interface(text) if text == text.strip() else None
        assert (found[0] if found else None) == expected, text
