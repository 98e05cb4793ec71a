"""Configs in the style of IPng's vppcfg unit-test corpus (the files it marks
correct) are valid here too: the language is the same, so a limit that IPng's
schema does not enforce and VPP does not have must not creep in.

The configs are our own, written to exercise what each of IPng's correct files
exercises (long descriptions, 15-character lcp names on QinQ sub-interfaces of
a bond and on a VXLAN tunnel, explicitly empty sections, l2xc, unnumbered,
taps, ACLs ...); nothing is fetched at run time.
"""

from __future__ import annotations

import pytest

from vppcfg import config

LONG = (
    "Transit: this sub-interface carries the outer tag that the QinQ lcp below "
    "needs, keep it in place"
)

CONFIGS = {
    "long descriptions and QinQ lcp on a bond": f"""
bondethernets:
  BondEthernet0:
    description: "{LONG}"
    mac: 02:00:00:00:01:00
    interfaces: [GigabitEthernet2/0/0, GigabitEthernet2/0/1]
interfaces:
  GigabitEthernet1/0/0:
    description: "Peering: {LONG}, e1/34 at the exchange"
    lcp: ge0-0
    addresses: [192.0.2.10/24, 2001:db8:100::10/64]
    sub-interfaces:
      100:
        description: "Customer: {LONG}"
        lcp: ge0-0.100
        addresses: [198.51.100.1/29, 2001:db8:101::1/64]
      101:
        description: "L2 only"
  GigabitEthernet2/0/0: {{description: "member one"}}
  GigabitEthernet2/0/1: {{description: "member two"}}
  GigabitEthernet3/0/0: {{description: "bridged"}}
  BondEthernet0:
    description: "{LONG}"
    lcp: be100
    sub-interfaces:
      200:
        description: "{LONG}"
        lcp: be100.2000
        encapsulation: {{dot1q: 2000, exact-match: true}}
      201:
        encapsulation: {{dot1ad: 2000}}
      202:
        description: "{LONG}"
        lcp: be100.2000.3000
        encapsulation: {{dot1q: 2000, inner-dot1q: 3000, exact-match: true}}
        addresses: [10.20.30.1/24]
      203:
        encapsulation: {{dot1ad: 2000, inner-dot1q: 2000}}
loopbacks:
  loop0:
    description: "{LONG}"
    mtu: 9216
    lcp: loop0
    addresses: [203.0.113.1/32, 2001:db8:1::1/128]
bridgedomains:
  bd10:
    description: "{LONG}"
    mtu: 1500
    interfaces: [BondEthernet0.203, GigabitEthernet3/0/0]
""",
    "vxlan tunnels with a 15-character lcp": """
vxlan_tunnels:
  vxlan_tunnel0: {local: 192.0.2.1, remote: 192.0.2.2, vni: 200}
  vxlan_tunnel1: {local: 2001:db8::1, remote: 2001:db8::2, vni: 201}
  vxlan_tunnel2: {local: 2001:db8::1, remote: 2001:db8::3, vni: 202}
interfaces:
  GigabitEthernet1/0/0:
    sub-interfaces:
      100: {l2xc: vxlan_tunnel1}
  vxlan_tunnel0: {mtu: 9216, description: "a bridge member"}
  vxlan_tunnel1: {l2xc: GigabitEthernet1/0/0.100}
  vxlan_tunnel2:
    lcp: vxlan0987654321
    addresses: [10.0.0.1/24, 2001:db8:1::1/64]
bridgedomains:
  bd10: {mtu: 9216, interfaces: [vxlan_tunnel0]}
""",
    "every section explicitly empty": """
interfaces: {}
loopbacks: {}
bridgedomains: {}
bondethernets: {}
""",
    "bonds of every mode": """
bondethernets:
  BondEthernet0: {interfaces: [GigabitEthernet1/0/0, GigabitEthernet1/0/1]}
  BondEthernet1: {mode: xor, load-balance: l23, interfaces: [GigabitEthernet2/0/0]}
  BondEthernet2: {mode: round-robin}
  BondEthernet3: {mode: active-backup, mac: 02:00:00:00:03:00}
  BondEthernet4: {mode: broadcast}
interfaces:
  GigabitEthernet1/0/0: {mtu: 3000}
  GigabitEthernet1/0/1: {mtu: 3000}
  GigabitEthernet2/0/0: {}
  BondEthernet1: {}
  BondEthernet2: {}
  BondEthernet3: {}
  BondEthernet4: {}
  BondEthernet0:
    mtu: 3000
    sub-interfaces:
      100: {mtu: 2000, addresses: [192.0.2.1/24]}
""",
    "bridge domains with bvi and settings": """
interfaces:
  GigabitEthernet1/0/0:
    mtu: 3000
    sub-interfaces:
      100: {mtu: 2000}
      101: {mtu: 2000, encapsulation: {dot1q: 101, inner-dot1q: 5}}
  GigabitEthernet1/0/1: {mtu: 2000}
loopbacks:
  loop1: {mtu: 2000, addresses: [192.0.2.1/29, 2001:db8:2::1/64]}
bridgedomains:
  bd1:
    description: "Routed bridge, with a BVI and every setting given"
    mtu: 2000
    bvi: loop1
    interfaces: [GigabitEthernet1/0/0.100, GigabitEthernet1/0/0.101, GigabitEthernet1/0/1]
    settings:
      learn: false
      unicast-flood: false
      unknown-unicast-flood: false
      unicast-forward: false
      arp-termination: true
      arp-unicast-forward: true
      mac-age-minutes: 10
  bd2: {}
""",
    "l2xc both ways and between subs": """
interfaces:
  GigabitEthernet1/0/0: {l2xc: GigabitEthernet1/0/1}
  GigabitEthernet1/0/1: {l2xc: GigabitEthernet1/0/0}
  GigabitEthernet2/0/0:
    sub-interfaces:
      100: {l2xc: GigabitEthernet2/0/0.200}
      200: {l2xc: GigabitEthernet2/0/0.100}
""",
    "unnumbered to loopbacks, interfaces and subs": """
interfaces:
  GigabitEthernet1/0/0:
    lcp: e1
    addresses: [192.0.2.1/30]
    sub-interfaces:
      100: {unnumbered: loop0}
      101: {unnumbered: GigabitEthernet1/0/0}
  GigabitEthernet1/0/1: {unnumbered: GigabitEthernet1/0/2.102}
  GigabitEthernet1/0/2:
    sub-interfaces:
      102: {addresses: [198.51.100.1/24]}
loopbacks:
  loop0: {addresses: [192.0.2.255/32, 2001:db8::1/128]}
  loop1: {unnumbered: loop0}
""",
    "addresses of both families, several per subnet": """
interfaces:
  GigabitEthernet1/0/0:
    addresses: [192.0.2.1/24, 192.0.2.2/24, 2001:db8::1/64, 2001:db8::2/64]
  GigabitEthernet1/0/1:
    addresses: [198.51.100.1/25, 198.51.100.129/25]
loopbacks:
  loop0: {addresses: [10.0.0.1/32, 10.0.0.2/32]}
""",
    "taps with host settings": """
taps:
  tap0:
    description: "A tap with its own Linux side, and a long description to go with it"
    host:
      name: vpp-tap0
      mac: 02:00:00:00:00:09
      mtu: 9000
      bridge: br0
      bridge-create: true
      namespace: vpp-ns
      namespace-create: true
    rx-ring-size: 1024
    tx-ring-size: 512
  tap1: {host: {name: vpp-tap1}}
interfaces:
  tap0: {mtu: 9000}
""",
    "ACLs with prefix lists, ports and ICMP": """
prefixlists:
  trusted:
    description: "Hosts we trust, both families"
    members: [192.0.2.1, 192.0.2.0/24, 2001:db8::1, 2001:db8::/64]
  empty-list: {members: []}
acls:
  acl01:
    description: "Test ACL"
    terms:
      - description: "Allow a prefix list, only IPv6"
        family: ipv6
        source: trusted
        action: permit
      - description: "A TCP flow"
        source: 2001:db8::1
        destination: 2001:db8::2
        protocol: tcp
        destination-port: www
        source-port: "1024-"
        action: permit
      - description: "ICMP unreachable, any code"
        family: ipv4
        protocol: icmp
        icmp-type: 3
        icmp-code: any
        action: permit
      - action: deny
interfaces:
  GigabitEthernet1/0/0:
    acls: {input: acl01, output: [acl01]}
""",
    "loopbacks with lcp, mac and mpls": """
loopbacks:
  loop0: {lcp: loop0, mac: 02:00:00:00:00:10, mpls: true, addresses: [192.0.2.1/32]}
  loop1: {lcp: loop1, mtu: 9000}
  loop4095: {}
""",
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_ipng_style_config_is_valid_and_round_trips(name: str) -> None:
    dp = config.loads(CONFIGS[name], f"{name}.yaml")
    assert dp.interfaces or name == "every section explicitly empty"
    assert config.loads(config.to_yaml(dp)) == dp


def test_the_long_description_and_qinq_lcp_are_kept() -> None:
    dp = config.loads(CONFIGS["long descriptions and QinQ lcp on a bond"])
    assert len(LONG) > 90
    assert dp.interfaces["BondEthernet0.200"].description == LONG
    assert dp.interfaces["BondEthernet0.202"].lcp == "be100.2000.3000"
    assert len("be100.2000.3000") == 15


def test_a_fifteen_character_lcp_on_a_tunnel() -> None:
    dp = config.loads(CONFIGS["vxlan tunnels with a 15-character lcp"])
    assert dp.interfaces["vxlan_tunnel2"].lcp == "vxlan0987654321"
