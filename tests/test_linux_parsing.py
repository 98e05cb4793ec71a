"""The Linux side's small readers: `show lcp` as VPP prints it, a startup.conf
stanza's words, and the addresses as the model spells them."""

from __future__ import annotations

import ipaddress
import random

import pytest

from vppcfg.linux import canonical_addresses, parse_show_lcp, parse_words
from vppcfg.model import LinuxCp

# as vpp-real prints them (26.10), with and without a default netns
SHOW_PRODUCTION = """lcp default netns 'dataplane'
lcp lcp-auto-subint on
lcp lcp-sync on
lcp lcp-sync-unnumbered on
lcp del-static-on-link-down off
lcp del-dynamic-on-link-down off
itf-pair: [0] host-ge0 tap4096 e0\x00 2 type tap netns dataplane
"""
SHOW_DEFAULTS = """lcp default netns '<unset>'
lcp lcp-auto-subint off
lcp lcp-sync off
lcp lcp-sync-unnumbered on
lcp del-static-on-link-down off
lcp del-dynamic-on-link-down off
"""


def test_show_lcp_is_read_as_vpp_prints_it() -> None:
    assert parse_show_lcp(SHOW_PRODUCTION) == LinuxCp(True, True, "dataplane", True)
    assert parse_show_lcp(SHOW_DEFAULTS) == LinuxCp()


def test_stanza_words() -> None:
    assert parse_words("lcp-sync lcp-auto-subint default netns dataplane") == \
        LinuxCp(True, True, "dataplane")
    assert parse_words("linux-cp { lcp-sync }") == LinuxCp(sync=True)
    assert parse_words("") == LinuxCp()
    with pytest.raises(ValueError, match="lcp-snyc"):
        parse_words("lcp-snyc")


def test_addresses_are_spelled_as_ipaddress_does_without_link_local() -> None:
    rng = random.Random(30)
    for _ in range(20000):
        prefix = ".".join(str(rng.randint(0, 255)) for _ in range(4)) + f"/{rng.randint(0, 32)}"
        assert canonical_addresses([prefix]) == (str(ipaddress.ip_interface(prefix)),)
    assert canonical_addresses(["2001:DB8:0::1/64", "fe80::1/64", "10.0.0.1/24"]) == \
        ("10.0.0.1/24", "2001:db8::1/64")
