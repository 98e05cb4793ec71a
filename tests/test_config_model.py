"""What a valid config becomes: the model, with defaults and canonical spellings."""

from __future__ import annotations

from pathlib import Path

import pytest

from vppcfg import config
from vppcfg.model import (
    AclTerm,
    BondLoadBalance,
    BondMode,
    BridgeSettings,
    Encapsulation,
    InterfaceAcls,
    InterfaceKind,
    PortRange,
    Sflow,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("name", ["l2xc.yaml", "routed-lcp.yaml", "router.yaml", "acl.yaml"])
def test_examples_are_valid(name: str) -> None:
    dp = config.load(str(EXAMPLES / name))
    assert dp.interfaces


def test_defaults_are_applied() -> None:
    dp = config.loads(
        """
interfaces:
  GigabitEthernet3/0/0:
    mtu: 9000
    lcp: e0
    sub-interfaces:
      100: {lcp: e0.100}
bondethernets:
  BondEthernet0: {}
  BondEthernet1: {mode: round-robin}
bridgedomains:
  bd42: {}
taps:
  tap100:
    host: {name: vpp-tap, mtu: 9000}
vxlan_tunnels:
  vxlan_tunnel3: {local: 192.0.2.1, remote: 192.0.2.2, vni: 3}
""",
        # bonds without an `interfaces` entry (the language wants one) take the defaults
        allow=["bond-interface"],
    )
    phy = dp.interfaces["GigabitEthernet3/0/0"]
    assert (phy.kind, phy.state, phy.mac, phy.mtu) == (InterfaceKind.PHY, "up", None, 9000)
    sub = dp.interfaces["GigabitEthernet3/0/0.100"]
    assert sub.kind is InterfaceKind.SUB and sub.parent == phy.name and sub.sub_id == 100
    assert sub.encapsulation == Encapsulation(dot1q=100, exact_match=True)
    assert sub.mtu == 9000  # a sub-interface follows its parent's MTU
    bond = dp.bonds["BondEthernet0"]
    assert (bond.mode, bond.load_balance, bond.instance) == (BondMode.LACP, BondLoadBalance.L34, 0)
    assert dp.bonds["BondEthernet1"].load_balance is None
    assert dp.interfaces["BondEthernet0"].kind is InterfaceKind.BOND
    bridge = dp.bridge_domains["bd42"]
    assert (bridge.bd_id, bridge.mtu, bridge.settings) == (42, 1500, BridgeSettings())
    tap = dp.taps["tap100"]
    assert (tap.rx_ring_size, tap.tx_ring_size, tap.instance) == (256, 256, 100)
    assert dp.interfaces["tap100"].mtu == 9000  # follows the host MTU
    assert dp.interfaces["vxlan_tunnel3"].kind is InterfaceKind.VXLAN
    assert dp.vxlan_tunnels["vxlan_tunnel3"].instance == 3
    assert dp.sflow == Sflow()


def test_spellings_are_normalised() -> None:
    dp = config.loads(
        """
interfaces:
  GigabitEthernet3/0/0:
    mac: 0201.0203.0405
    addresses: [2001:DB8:0:0::1/64, 192.0.2.1/24]
  GigabitEthernet3/0/1:
    mac: 02-AA-BB-CC-DD-EE
  GigabitEthernet3/0/2: {}
  GigabitEthernet3/0/3: {}
  BondEthernet0: {}
loopbacks:
  loop0:
    mac: 10:20:30:40:50:59
    addresses: [2001:0DB8:1::0:1/128]
bondethernets:
  BondEthernet0:
    interfaces: [GigabitEthernet3/0/3, GigabitEthernet3/0/2]
    mac: 02AA.BBCC.DDEF
vxlan_tunnels:
  vxlan_tunnel0: {local: "2001:DB8::1", remote: "2001:db8:0::2", vni: 1}
"""
    )
    assert dp.interfaces["GigabitEthernet3/0/0"].mac == "02:01:02:03:04:05"
    assert dp.interfaces["GigabitEthernet3/0/0"].addresses == ("192.0.2.1/24", "2001:db8::1/64")
    assert dp.interfaces["GigabitEthernet3/0/1"].mac == "02:aa:bb:cc:dd:ee"
    # YAML 1.1 would read 10:20:30:40:50:59 as a base-60 integer; here it stays a MAC
    assert dp.interfaces["loop0"].mac == "10:20:30:40:50:59"
    assert dp.interfaces["loop0"].addresses == ("2001:db8:1::1/128",)
    assert dp.bonds["BondEthernet0"].members == ("GigabitEthernet3/0/2", "GigabitEthernet3/0/3")
    assert dp.bonds["BondEthernet0"].mac == "02:aa:bb:cc:dd:ef"
    tunnel = dp.vxlan_tunnels["vxlan_tunnel0"]
    assert (tunnel.local, tunnel.remote) == ("2001:db8::1", "2001:db8::2")


def test_sub_interfaces_encapsulation_and_qinq() -> None:
    dp = config.loads(
        """
interfaces:
  GigabitEthernet3/0/0:
    lcp: e0
    mtu: 9000
    sub-interfaces:
      100: {lcp: e0.100, mtu: 2000}
      101:
        lcp: e0.100.10
        mtu: 1500
        encapsulation: {dot1q: 100, inner-dot1q: 10, exact-match: true}
      200:
        encapsulation: {dot1ad: 200}
"""
    )
    qinq = dp.interfaces["GigabitEthernet3/0/0.101"]
    assert qinq.encapsulation == Encapsulation(dot1q=100, inner_dot1q=10, exact_match=True)
    assert qinq.encapsulation.tags == 2
    # an explicit encapsulation is exact-match only when it says so (as in IPng's vppcfg)
    assert dp.interfaces["GigabitEthernet3/0/0.200"].encapsulation == Encapsulation(
        dot1ad=200, exact_match=False
    )
    assert dp.interfaces["GigabitEthernet3/0/0.200"].mtu == 9000


def test_bridge_unnumbered_l2xc_mpls_sflow() -> None:
    dp = config.load(str(EXAMPLES / "router.yaml"))
    bridge = dp.bridge_domains["bd10"]
    assert bridge.members == ("GigabitEthernet3/0/2", "vxlan_tunnel10")
    assert bridge.bvi == "loop10" and bridge.mtu == 2000
    assert bridge.settings == BridgeSettings(mac_age_minutes=10)
    assert dp.interfaces["BondEthernet0.300"].unnumbered == "loop0"
    assert dp.interfaces["BondEthernet0"].mpls is True
    assert dp.interfaces["GigabitEthernet3/0/3"].sflow is True
    assert dp.sflow == Sflow(sampling_rate=1000, polling_interval=30, header_bytes=128)
    xc = config.load(str(EXAMPLES / "l2xc.yaml"))
    assert xc.interfaces["GigabitEthernet3/0/0"].l2xc == "GigabitEthernet3/0/1"


def test_acls_and_prefixlists() -> None:
    dp = config.load(str(EXAMPLES / "acl.yaml"))
    assert dp.prefixlists["trusted"].members == (
        "192.0.2.0/24",
        "198.51.100.7/32",
        "2001:db8:cafe::/48",
    )
    ssh, ping4, nd6, deny = dp.acls["mgmt-in"].terms
    assert ssh == AclTerm(
        action="permit",
        description="SSH from trusted networks",
        source="trusted",
        protocol=6,
        destination_port=PortRange(22, 22),
    )
    assert (ping4.protocol, ping4.icmp_type, ping4.icmp_code) == (
        1,
        PortRange(8, 8),
        PortRange(0, 255),
    )
    assert (nd6.protocol, nd6.icmp_type) == (58, PortRange(128, 136))
    assert deny == AclTerm(action="deny", description="Everything else")
    reflect = dp.acls["mgmt-out"].terms[0]
    assert reflect.source_port == PortRange(1024, 65535)
    iface = dp.interfaces["GigabitEthernet3/0/0"]
    assert iface.acls == InterfaceAcls(input=("mgmt-in",), output=("mgmt-out",))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("80", PortRange(80, 80)),
        ("www", PortRange(80, 80)),
        ('"-1024"', PortRange(0, 1024)),
        ('"1024-"', PortRange(1024, 65535)),
        ('"1000-2000"', PortRange(1000, 2000)),
        ("any", PortRange(0, 65535)),
    ],
)
def test_port_spellings(text: str, expected: PortRange) -> None:
    dp = config.loads(
        f"acls:\n  a:\n    terms:\n      - action: permit\n        protocol: udp\n"
        f"        destination-port: {text}\n"
    )
    assert dp.acls["a"].terms[0].destination_port == expected


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n# x\n", "---\n...\n"])
def test_empty_file_is_refused(text: str) -> None:
    # Applied at boot from a truncated file, "nothing" would remove all vppcfg owns.
    with pytest.raises(config.ConfigError) as err:
        config.loads(text, "boot.yaml")
    (problem,) = err.value.problems
    assert problem.file == "boot.yaml" and "empty file" in problem.message
    assert "interfaces: {}" in problem.message


def test_an_explicitly_empty_config_is_an_empty_dataplane() -> None:
    dp = config.loads("interfaces: {}\n")
    assert not dp.interfaces and not dp.bridge_domains and not dp.acls
    assert config.loads("interfaces:\nloopbacks:\n") == dp


def test_yaml_merge_keys_are_supported() -> None:
    dp = config.loads(
        """
loopbacks:
  loop0: &common {mtu: &jumbo 9000, description: "shared"}
  loop1:
    <<: *common
    description: "own"
  loop2:
    <<: [*common]
    mtu: *jumbo
"""
    )
    assert dp.interfaces["loop2"].mtu == 9000
    assert dp.interfaces["loop1"].mtu == 9000
    assert dp.interfaces["loop1"].description == "own"


def test_config_error_lists_every_problem_with_location() -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.loads(
            "interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 99999\n    state: sideways\n",
            filename="x.yaml",
        )
    problems = caught.value.problems
    assert [(p.line, p.column, p.path) for p in problems] == [
        (3, 10, "interfaces.GigabitEthernet3/0/0.mtu"),
        (4, 12, "interfaces.GigabitEthernet3/0/0.state"),
    ]
    assert (
        str(caught.value)
        .splitlines()[0]
        .startswith("x.yaml:3:10: interfaces.GigabitEthernet3/0/0.mtu: 99999")
    )
    assert not isinstance(caught.value, config.ConfigIOError)


def test_io_errors_are_distinguishable(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigIOError):
        config.load(str(tmp_path / "missing.yaml"))
    with pytest.raises(config.ConfigIOError):
        config.load(str(tmp_path))
    (tmp_path / "latin1.yaml").write_bytes(b'loopbacks:\n  loop0: {description: "\xe9"}\n')
    with pytest.raises(config.ConfigIOError) as caught:
        config.load(str(tmp_path / "latin1.yaml"))
    assert caught.value.problems[0].line == 2


@pytest.mark.parametrize(
    ("text", "path", "hint"),
    [
        (
            "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n      100: {mtux: 1}\n",
            "interfaces.GigabitEthernet3/0/0.sub-interfaces.100.mtux",
            "'mtu'",
        ),
        (
            "interfaces:\n  GigabitEthernet3/0/0:\n    sub-interfaces:\n"
            "      100: {encapsulation: {dot1qq: 5}}\n",
            "sub-interfaces.100.encapsulation.dot1qq",
            "'dot1q'",
        ),
        (
            "acls:\n  a:\n    terms:\n      - {action: permit, sorce: x}\n",
            "acls.a.terms[0].sorce",
            "'source'",
        ),
        ("taps:\n  tap0: {host: {name: t, mtux: 1}}\n", "taps.tap0.host.mtux", "'mtu'"),
        ("sflow: {sample-rate: 5}\n", "sflow.sample-rate", "'sampling-rate'"),
    ],
)
def test_unknown_keys_get_a_hint_at_every_level(text: str, path: str, hint: str) -> None:
    with pytest.raises(config.ConfigError) as caught:
        config.loads(text)
    (problem,) = caught.value.problems
    assert problem.path.endswith(path)
    assert f"did you mean {hint}?" in problem.message


def test_semantic_problems_are_reported_alongside_structural_ones() -> None:
    text = """
interfaces:
  GigabitEthernet3/0/0:
    mtux: 9000
  GigabitEthernet3/0/1:
    addresses: [192.0.2.1/24]
  GigabitEthernet3/0/2:
    addresses: [192.0.2.2/25]
bridgedomains:
  bd1:
    interfaces: [GigabitEthernet3/0/0]
"""
    with pytest.raises(config.ConfigError) as caught:
        config.loads(text)
    messages = [p.message for p in caught.value.problems]
    assert len(messages) == 2, messages
    assert "unknown key 'mtux'" in messages[0]
    assert "overlaps 192.0.2.1/24 on GigabitEthernet3/0/1" in messages[1]
    # the malformed interface is not reported again as missing from bd1


def test_a_malformed_section_stops_the_semantic_rules() -> None:
    text = (
        "interfaces: [GigabitEthernet3/0/0]\n"
        "bridgedomains:\n  bd1: {interfaces: [GigabitEthernet3/0/0]}\n"
    )
    with pytest.raises(config.ConfigError) as caught:
        config.loads(text)
    assert len(caught.value.problems) == 1
