"""The semantic rules, one small config per rule: each must be refused with a
message naming the problem, and the nearby valid variants must pass."""

from __future__ import annotations

from dataclasses import replace

import pytest

from vppcfg import config
from vppcfg.model import FrozenDict

PHYS = "".join(f"  GigabitEthernet3/0/{i}: {{}}\n" for i in range(4))

INVALID = {
    "bridge member mtu": (
        "interfaces:\n  GigabitEthernet3/0/0: {mtu: 9000}\n"
        "bridgedomains:\n  bd1: {mtu: 1500, interfaces: [GigabitEthernet3/0/0]}\n",
        "member GigabitEthernet3/0/0 has MTU 9000, the bridge has 1500",
    ),
    "bvi not a loopback": (
        f"interfaces:\n{PHYS}bridgedomains:\n  bd1: {{bvi: GigabitEthernet3/0/0}}\n",
        "must be a loopback declared under 'loopbacks'",
    ),
    "bvi not declared": ("bridgedomains:\n  bd1: {bvi: loop3}\n", "bvi loop3 must be a loopback"),
    "bvi in two bridges": (
        "loopbacks:\n  loop1: {}\nbridgedomains:\n  bd1: {bvi: loop1}\n  bd2: {bvi: loop1}\n",
        "loop1 is already the bvi of bd1",
    ),
    "bvi mtu": (
        "loopbacks:\n  loop1: {mtu: 9000}\nbridgedomains:\n  bd1: {mtu: 1500, bvi: loop1}\n",
        "bvi loop1 has MTU 9000, the bridge has 1500",
    ),
    "member of two bridges": (
        f"interfaces:\n{PHYS}bridgedomains:\n  bd1: {{interfaces: [GigabitEthernet3/0/0]}}\n"
        "  bd2: {interfaces: [GigabitEthernet3/0/0]}\n",
        "GigabitEthernet3/0/0 is already a member of bridge bd1",
    ),
    "loopback as member": (
        "loopbacks:\n  loop1: {}\nbridgedomains:\n  bd1: {interfaces: [loop1]}\n",
        "loopback loop1 can join a bridge only as its bvi",
    ),
    "bvi listed as member": (
        "loopbacks:\n  loop1: {}\nbridgedomains:\n  bd1: {bvi: loop1, interfaces: [loop1]}\n",
        "is the bridge's bvi; do not list it as a member too",
    ),
    "member missing": (
        "bridgedomains:\n  bd1: {interfaces: [GigabitEthernet3/0/0]}\n",
        "member GigabitEthernet3/0/0 does not exist",
    ),
    "l2xc to itself": (
        "interfaces:\n  GigabitEthernet3/0/0: {l2xc: GigabitEthernet3/0/0}\n",
        "cannot cross-connect to itself",
    ),
    "bond member not a phy": (
        "loopbacks:\n  loop0: {}\nbondethernets:\n  BondEthernet0: {interfaces: [loop0]}\n",
        "member loop0 is not a PHY",
    ),
    "bond member not configured": (
        "bondethernets:\n  BondEthernet0: {interfaces: [host-eth0]}\n",
        "member host-eth0 is not configured under 'interfaces'",
    ),
    "bond member twice": (
        "interfaces:\n  GigabitEthernet3/0/0: {}\n"
        "bondethernets:\n  BondEthernet0:\n"
        "    interfaces: [GigabitEthernet3/0/0, GigabitEthernet3/0/0]\n",
        "member GigabitEthernet3/0/0 is listed twice",
    ),
    "load-balance on round-robin": (
        "bondethernets:\n  BondEthernet0: {mode: round-robin, load-balance: l2}\n",
        "load-balance applies only to xor and lacp, not round-robin",
    ),
    "bond interface mac": (
        "bondethernets:\n  BondEthernet0: {}\n"
        "interfaces:\n  BondEthernet0: {mac: 02:00:00:00:00:01}\n",
        "set the bond's MAC under 'bondethernets'",
    ),
    "bond mac multicast": (
        "bondethernets:\n  BondEthernet0: {mac: 01:00:00:00:00:01}\n",
        "MAC 01:00:00:00:00:01 is not a unicast address",
    ),
    "vni twice": (
        "vxlan_tunnels:\n  vxlan_tunnel0: {local: 192.0.2.1, remote: 192.0.2.2, vni: 5}\n"
        "  vxlan_tunnel1: {local: 192.0.2.1, remote: 192.0.2.3, vni: 5}\n",
        "VNI 5 is already used by vxlan_tunnel0",
    ),
    "vxlan local is remote": (
        "vxlan_tunnels:\n  vxlan_tunnel0: {local: 192.0.2.1, remote: 192.0.2.1, vni: 5}\n",
        "local and remote must differ",
    ),
    "vxlan multicast": (
        "vxlan_tunnels:\n  vxlan_tunnel0: {local: 192.0.2.1, remote: 239.1.1.1, vni: 5}\n",
        "239.1.1.1 is not a unicast address",
    ),
    "tap host twice": (
        "taps:\n  tap0: {host: {name: vpp0}}\n  tap1: {host: {name: vpp0}}\n",
        "Linux name vpp0 is also used by tap1",
    ),
    "tap with subs": (
        "taps:\n  tap0: {host: {name: vpp0}}\n"
        "interfaces:\n  tap0:\n    sub-interfaces:\n      5: {}\n",
        "a tap interface cannot have sub-interfaces",
    ),
    "lcp twice": (
        "interfaces:\n  GigabitEthernet3/0/0: {lcp: e0}\nloopbacks:\n  loop0: {lcp: e0}\n",
        "Linux name e0 is also used by loop0",
    ),
    "unnumbered missing": (
        "loopbacks:\n  loop1: {unnumbered: loop0}\n",
        "target loop0 does not exist",
    ),
    "unnumbered with address": (
        "loopbacks:\n  loop0: {}\n  loop1: {unnumbered: loop0, addresses: [192.0.2.1/32]}\n",
        "an unnumbered interface cannot also have addresses",
    ),
    "unnumbered target in l2": (
        f"interfaces:\n{PHYS}loopbacks:\n  loop1: {{unnumbered: GigabitEthernet3/0/0}}\n"
        "bridgedomains:\n  bd1: {interfaces: [GigabitEthernet3/0/0]}\n",
        "unnumbered target GigabitEthernet3/0/0 is in L2 mode",
    ),
    "qinq middle without lcp": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    lcp: e0\n    sub-interfaces:\n      100: {}\n"
        "      101: {lcp: e0.q, encapsulation: {dot1q: 100, inner-dot1q: 5, exact-match: true}}\n",
        "lcp e0.q needs GigabitEthernet3/0/0.100 to have an lcp too",
    ),
    "dot1q and dot1ad": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n"
        "      100: {encapsulation: {dot1q: 100, dot1ad: 100}}\n",
        "give dot1q or dot1ad, not both",
    ),
    "no outer tag": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n"
        "      100: {encapsulation: {exact-match: true}}\n",
        "needs an outer tag",
    ),
    "device-type on a bond": (
        "bondethernets:\n  BondEthernet0: {}\ninterfaces:\n  BondEthernet0: {device-type: dpdk}\n",
        "only a PHY can have a device-type",
    ),
    "acl listed twice": (
        "acls:\n  a: {terms: [{action: permit}]}\n"
        "interfaces:\n  GigabitEthernet3/0/0: {acls: {input: [a, a]}}\n",
        "ACL a is listed twice",
    ),
    "nested subnets on one interface": (
        "interfaces:\n  GigabitEthernet3/0/0: {addresses: [192.0.2.1/24, 192.0.2.5/29]}\n",
        "address 192.0.2.5/29 overlaps 192.0.2.1/24 on GigabitEthernet3/0/0",
    ),
    "loopback multicast mac": (
        "loopbacks:\n  loop0: {mac: 01:00:5e:00:00:01}\n",
        "is not a unicast address",
    ),
    "lcp longer than linux allows": (
        "loopbacks:\n  loop0: {lcp: abcdefghijklmnop}\n",
        "'abcdefghijklmnop' is not a Linux interface name",
    ),
}


# Likely mistakes that VPP accepts: warned about, not refused, so that a dump of
# a VPP holding them checks (tests/test_real_dump.py).
WARNED = {
    "l2xc mtu": (
        "interfaces:\n  GigabitEthernet3/0/0: {l2xc: GigabitEthernet3/0/1}\n"
        "  GigabitEthernet3/0/1: {mtu: 9000, l2xc: GigabitEthernet3/0/0}\n",
        "l2xc target GigabitEthernet3/0/1 has MTU 9000, not 1500",
    ),
    "bond member mtu": (
        "interfaces:\n  GigabitEthernet3/0/0: {mtu: 9000}\n"
        "bondethernets:\n  BondEthernet0: {interfaces: [GigabitEthernet3/0/0]}\n",
        "member GigabitEthernet3/0/0 has MTU 9000, the bond has 1500",
    ),
    "unnumbered chain": (
        "loopbacks:\n  loop0: {addresses: [192.0.2.1/32]}\n  loop1: {unnumbered: loop0}\n"
        "  loop2: {unnumbered: loop1}\n",
        "unnumbered target loop1 is itself unnumbered",
    ),
    "qinq mtu above middle": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 9000\n    sub-interfaces:\n"
        "      100: {mtu: 1500}\n"
        "      101: {mtu: 2000, encapsulation: {dot1q: 100, inner-dot1q: 5}}\n",
        "MTU 2000 is higher than GigabitEthernet3/0/0.100 MTU 1500",
    ),
    "address on bridge member": (
        "interfaces:\n  GigabitEthernet3/0/0: {addresses: [192.0.2.1/24]}\n"
        "bridgedomains:\n  bd1: {interfaces: [GigabitEthernet3/0/0]}\n",
        "is a member of bridge bd1 and has addresses, unusual for an L2 interface",
    ),
    "bond member with l3": (
        "interfaces:\n  GigabitEthernet3/0/0: {lcp: e0, addresses: [192.0.2.1/24]}\n"
        "bondethernets:\n  BondEthernet0: {interfaces: [GigabitEthernet3/0/0]}\n",
        "member GigabitEthernet3/0/0 has addresses, an lcp, unusual for a bond member",
    ),
    "l2xc source has lcp": (
        "interfaces:\n  GigabitEthernet3/0/0: {l2xc: GigabitEthernet3/0/1, lcp: e0}\n"
        "  GigabitEthernet3/0/1: {}\n",
        "is an l2xc source and has an lcp",
    ),
    "l2xc target has address": (
        "interfaces:\n  GigabitEthernet3/0/0: {l2xc: GigabitEthernet3/0/1}\n"
        "  GigabitEthernet3/0/1: {addresses: [192.0.2.1/24]}\n",
        "is the l2xc target of GigabitEthernet3/0/0 and has addresses",
    ),
    "l2xc target twice": (
        "interfaces:\n  GigabitEthernet3/0/0: {l2xc: GigabitEthernet3/0/2}\n"
        "  GigabitEthernet3/0/1: {l2xc: GigabitEthernet3/0/2}\n  GigabitEthernet3/0/2: {}\n",
        "is also the target of GigabitEthernet3/0/1",
    ),
    "l2xc with subs": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    l2xc: GigabitEthernet3/0/1\n"
        "    sub-interfaces:\n      100: {}\n  GigabitEthernet3/0/1: {}\n",
        "has an l2xc and sub-interfaces, which is unusual",
    ),
    "mpls on bridge member": (
        "interfaces:\n  GigabitEthernet3/0/0: {mpls: true}\n"
        "bridgedomains:\n  bd1: {interfaces: [GigabitEthernet3/0/0]}\n",
        "is a member of bridge bd1 and has mpls",
    ),
    "icmp for ipv6": (
        "acls:\n  a: {terms: [{action: permit, family: ipv6, protocol: icmp}]}\n",
        "use ipv6-icmp for IPv6",
    ),
    "ports without tcp or udp": (
        "acls:\n  a: {terms: [{action: permit, source-port: 80}]}\n"
        "interfaces:\n  GigabitEthernet3/0/0: {acls: {input: a}}\n",
        "ports apply only to protocol tcp or udp",
    ),
    "tap with address": (
        "taps:\n  tap0: {host: {name: vpp0}}\ninterfaces:\n  tap0: {addresses: [192.0.2.1/24]}\n",
        "addresses on a tap are unusual",
    ),
    "tap mtu not its host mtu": (
        "taps:\n  tap0: {host: {name: t0, mtu: 9000}}\ninterfaces:\n  tap0: {mtu: 1500}\n",
        "MTU 1500 must equal the tap's host MTU 9000",
    ),
    "sub mtu above parent": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n      100: {mtu: 9000}\n",
        "MTU 9000 is higher than parent GigabitEthernet3/0/0 MTU 1500",
    ),
}


@pytest.mark.parametrize("case", sorted(WARNED))
def test_rule_warns(case: str) -> None:
    text, fragment = WARNED[case]
    dp, warnings = config.check_text(text, "case.yaml")
    assert dp.interfaces or dp.acls
    assert any(fragment in str(w) for w in warnings), warnings
    assert all(w.line > 0 and w.path and w.file == "case.yaml" for w in warnings)


def test_check_prints_warnings_and_exits_zero(tmp_path, capsys) -> None:
    from vppcfg.cli import main

    path = tmp_path / "warn.yaml"
    path.write_text(WARNED["l2xc mtu"][0])
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr()
    assert "warn.yaml: valid" in out.out
    assert f"{path}:3:" in out.err and "warning: l2xc target GigabitEthernet3/0/0 has MTU 1500" \
        in out.err


@pytest.mark.parametrize("case", sorted(INVALID))
def test_rule_refuses(case: str) -> None:
    text, fragment = INVALID[case]
    with pytest.raises(config.ConfigError) as caught:
        config.loads(text, "case.yaml")
    assert fragment in str(caught.value), str(caught.value)
    assert all(p.line > 0 and p.path for p in caught.value.problems)


VALID = {
    "same subnet twice on one interface": (
        "interfaces:\n  GigabitEthernet3/0/0: {addresses: [192.0.2.1/24, 192.0.2.2/24]}\n"
    ),
    "bvi with addresses and lcp": (
        "loopbacks:\n  loop1: {lcp: bvi1, addresses: [192.0.2.1/24]}\n"
        "bridgedomains:\n  bd1: {bvi: loop1, interfaces: [GigabitEthernet3/0/0.10]}\n"
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n"
        "      10: {encapsulation: {dot1q: 10, exact-match: false}}\n"
    ),
    "unnumbered to a sub-interface": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n"
        "      100: {addresses: [192.0.2.1/24]}\n"
        "  GigabitEthernet3/0/1: {unnumbered: GigabitEthernet3/0/0.100}\n"
    ),
    "bond of non-dpdk ports": (
        "interfaces:\n  host-eth0: {}\n  virtio-0/0/10/0: {}\n"
        "bondethernets:\n  BondEthernet0: {interfaces: [host-eth0, virtio-0/0/10/0]}\n"
    ),
    "qinad with lcp chain": (
        "interfaces:\n  GigabitEthernet3/0/0:\n    lcp: e0\n    sub-interfaces:\n"
        "      100: {lcp: e0.ad, encapsulation: {dot1ad: 100, exact-match: true}}\n"
        "      101:\n        lcp: e0.ad.5\n"
        "        encapsulation: {dot1ad: 100, inner-dot1q: 5, exact-match: true}\n"
    ),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_rule_accepts(case: str) -> None:
    assert config.loads(VALID[case]).interfaces


@pytest.mark.parametrize(
    ("section", "name", "body", "ok"),
    [
        ("loopbacks", "loop16383", "{}", True),  # VPP's LOOPBACK_MAX_INSTANCE 16384
        ("loopbacks", "loop16384", "{}", False),
        ("loopbacks", "loop01", "{}", False),
        ("taps", "tap8192", "{host: {name: h}}", True),  # VPP's TAP_MAX_INSTANCE
        ("taps", "tap8193", "{host: {name: h}}", False),
        ("bridgedomains", "bd16777215", "{}", True),
        ("bridgedomains", "bd16777216", "{}", False),
        ("bondethernets", "BondEthernet4294967294", "{}", True),
        ("bondethernets", "BondEthernet4294967295", "{}", False),
        ("bondethernets", "bondethernet0", "{}", False),
        (
            "vxlan_tunnels",
            "vxlan_tunnel2147483647",
            "{local: 192.0.2.1, remote: 192.0.2.2, vni: 1}",
            True,
        ),
        (
            "vxlan_tunnels",
            "vxlan_tunnel2147483648",
            "{local: 192.0.2.1, remote: 192.0.2.2, vni: 1}",
            False,
        ),
    ],
)
def test_instance_ranges(section: str, name: str, body: str, ok: bool) -> None:
    text = f"{section}:\n  {name}: {body}\n"
    if ok:
        config.loads(text)
    else:
        with pytest.raises(config.ConfigError, match="is not a valid name here"):
            config.loads(text)


def test_a_bridge_without_an_mtu_takes_members_of_any_mtu() -> None:
    # VPP bridges have no MTU: a dump of one whose members differ must check.
    dp = config.loads(
        "interfaces:\n  GigabitEthernet3/0/0: {mtu: 9000}\n  GigabitEthernet3/0/1: {}\n"
        "loopbacks:\n  loop1: {mtu: 9216}\n"
        "bridgedomains:\n  bd1: {bvi: loop1, interfaces: [GigabitEthernet3/0/0, "
        "GigabitEthernet3/0/1]}\n"
    )
    assert config.loads(config.to_yaml(dp)) == dp
    # the dump's bridge (MTU = the largest member's) writes no MTU its members lack
    live = dp.bridge_domains["bd1"]
    mixed = replace(dp, bridge_domains=FrozenDict({"bd1": replace(live, mtu=9216)}))
    assert "mtu" not in config.to_dict(mixed)["bridgedomains"]["bd1"]
