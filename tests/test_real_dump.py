"""`vppcfg dump` on the real VPP: whatever the VPP holds, the dump passes
`vppcfg check` and `vppcfg plan` of it against the same VPP is empty.

State is built both ways: by `vppcfg apply`, and by hand through vppctl (as an
operator or another tool would: odd names, instances and modes vppcfg never
makes, MTUs and address counts beyond IPng's schema, lcp pairs on hand-made
interfaces, sub-interfaces whose tags the language cannot spell ...). Also
here: the lcp host name length, measured rather than assumed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.real import CLI_ERROR
from vppcfg.cli import main
from vppcfg.vpp import VppConnection
from vppcfg.vpp.plain import plain_list

pytestmark = pytest.mark.real

NONE = 0xFFFFFFFF

# What vppcfg owns before the hand-made changes: every kind of object it makes.
OWNED = """
interfaces:
  host-ge0:
    mtu: 9000
    lcp: e0
    sub-interfaces:
      100: {lcp: e0.100, addresses: [10.1.0.1/24]}
      200: {mtu: 1500, encapsulation: {dot1ad: 200, inner-dot1q: 20, exact-match: true}}
      400: {mtu: 1500, l2xc: host-ge0.401}
      401: {mtu: 1500, l2xc: host-ge0.400}
  host-ge1: {mtu: 9000}
  host-hu0: {mtu: 9000}
  host-hu1: {mtu: 9000}
  BondEthernet0: {mtu: 9000}
  vxlan_tunnel0: {mtu: 1500}
bondethernets:
  BondEthernet0: {interfaces: [host-hu0, host-hu1], mode: xor, load-balance: l23}
loopbacks:
  loop0: {addresses: [10.9.9.9/32], lcp: lo0}
  loop1: {mtu: 9000}
  loop2: {unnumbered: loop0}
bridgedomains:
  bd10: {mtu: 9000, interfaces: [host-ge1], bvi: loop1}
  bd11: {}
taps:
  tap1: {host: {name: t1}}
vxlan_tunnels:
  vxlan_tunnel0: {local: 192.0.2.1, remote: 192.0.2.2, vni: 10}
acls:
  web:
    terms:
      - {action: permit, protocol: tcp, destination-port: 443}
      - {action: deny}
sflow:
  sampling-rate: 1000
"""

# By hand, after the apply: foreign objects, and changes to vppcfg's own.
BY_HAND = [
    # foreign loopbacks, one above IPng's (and our former) loop4095, with an lcp
    "create loopback interface instance 5",
    "create loopback interface instance 9000",
    "set interface ip address loop9000 10.77.0.1/32",
    "lcp create loop9000 host-if Lo9000",
    # sub-interfaces of every kind the CLI makes, on a PHY, the bond and a tunnel
    "create sub-interfaces host-ge0 300",
    "create sub-interfaces host-ge0 301 dot1q 301 inner-dot1q any",
    "create sub-interfaces host-ge0 303 default",
    "create sub-interfaces BondEthernet0 7",
    "create sub-interfaces vxlan_tunnel0 9 dot1ad 9 inner-dot1q 3 exact-match",
    "set interface ip address vxlan_tunnel0.9 10.7.0.1/24",
    "create sub-interfaces loop5 4",
    # a hand-made sub put into vppcfg's bridge, a hand-made bridge with a PHY sub
    "set interface l2 bridge host-ge0.300 10",
    "create bridge-domain 20 learn 0 mac-age 5",
    "set interface l2 bridge host-ge0.301 20",
    # bonds in odd modes
    "create bond mode active-backup id 21",
    "create bond mode broadcast id 22",
    "create bond mode round-robin id 23",
    "create bond mode lacp load-balance l2 id 24",
    # taps vppcfg never makes: id above 1024, upper-case host name, big host MTU
    "create tap id 2000 host-if-name Foo host-mtu-size 9600",
    "create tap id 7 rx-ring-size 1024 host-if-name t7",
    "create vxlan tunnel src 192.0.2.1 dst 192.0.2.9 vni 77 instance 5",
    # on vppcfg's own interfaces: an address more, a state, MTUs beyond 128-9216 (and
    # a bridge whose members then differ: VPP bridges have no MTU)
    "set interface ip address loop0 10.8.8.8/32",
    "set interface ip address host-ge0.100 10.2.0.1/24",
    "set interface mtu packet 1500 host-ge0.100",
    "set interface mtu 9600 host-ge1",
    "set interface state host-ge1 up",
    # likely mistakes VPP takes (check warns): mismatched l2xc MTUs, a sub above
    # its parent, an unnumbered chain, a tap MTU other than its host's
    "set interface mtu packet 1400 host-ge0.401",
    "set interface mtu packet 9216 host-ge0.200",
    "set interface unnumbered host-ge0 use loop2",
    "set interface mtu packet 1400 tap1",
    # L3 on L2 interfaces and bond members, a second source for an l2xc target
    "set interface ip address host-ge1 10.30.0.1/24",
    "mpls table add 0",
    "set interface mpls host-ge1 enable",
    "set interface ip address host-hu0 10.31.0.1/24",
    "set interface l2 xconnect vxlan_tunnel0 host-ge0.400",
    "set interface ip address tap1 10.50.0.1/24",
    "lcp create tap1 host-if tapx",
    # sFlow settings beyond IPng's ranges
    "sflow header-bytes 100",
    "sflow polling-interval 0",
]
# A PHY with many addresses and an odd lcp name: done on a second VPP, whose
# PHYs are not vppcfg's (a dump of a VPP vppcfg never touched must check too).
UNTOUCHED = [
    *(f"set interface ip address host-ge0 10.0.{i}.1/24" for i in range(8)),
    "lcp create host-ge0 host-if Eth0X",
    "lcp create host-ge1 host-if abcdefghijklmno",
    "lcp create host-hu0 host-if 0hu",
    "set interface mtu packet 64 host-hu1",
    "sflow sampling-rate 0",
    "create bridge-domain 30",
    # ACLs made by hand with tags vppcfg could have written (so they count as its
    # own): ports without tcp/udp, ipv6-icmp on IPv4 without type or code (VPP
    # holds 0-65535 there), host bits, TCP flags the language has no word for
    "set acl-plugin acl permit sport 80 tag ports-any",
    "set acl-plugin acl permit proto 58 src 10.0.0.0/8 tag icmp6-on-v4",
    "set acl-plugin acl permit proto 1 dport 3 tag icmp-code",
    "set acl-plugin acl permit src 10.0.0.1/8 tag host-bits",
    "set acl-plugin acl permit proto 6 tcpflags 2 2 tag syn",
    # `ipv6` is no word of acl.c's: the rule ends there, untagged (`cli`, twice)
    "set acl-plugin acl permit ipv6 proto 17 dport 53 tag dns6",
    "set acl-plugin acl deny ipv6 src 2001:db8::1/64 tag v6-host-bits",
    "set acl-plugin interface host-ge1 input acl 0",
    "create sub-interfaces host-hu0 10",
    "create sub-interfaces host-hu0 11 dot1q 11 inner-dot1q 12",
    "set interface l2 xconnect host-hu0.10 host-hu0.11",
    "set interface l2 xconnect host-hu0.11 host-hu0.10",
]


def run(capsys: pytest.CaptureFixture[str], vpp: Any, *args: str) -> tuple[int, str]:
    code = main([*args, *vpp.api_args()])
    out = capsys.readouterr()
    return code, out.out + out.err


def by_hand(vpp: Any, commands: list[str]) -> None:
    for command in commands:
        out = vpp.ctl(*command.split())
        assert not CLI_ERROR.search(out), (command, out)


def assert_dump_round_trips(
    capsys: pytest.CaptureFixture[str], vpp: Any, tmp: Path
) -> tuple[str, str]:
    """The dump's text and what check said of it."""
    dump = tmp / "dump.yaml"
    code, out = run(capsys, vpp, "dump", "-o", str(dump))
    assert code == 0, out
    text = dump.read_text()
    code = main(["check", str(dump)])
    said = capsys.readouterr().err
    assert code == 0, f"{said}\n--- dump:\n{text}"
    code, out = run(capsys, vpp, "plan", "-c", str(dump))
    assert code == 0 and "0 to create, 0 to change, 0 to delete" in out, f"{out}\n{text}"
    return text, said


def test_dump_of_a_fresh_vpp_checks(vpp_real_instance, capsys, tmp_path) -> None:
    # af_packet PHYs report device type `af-packet`, which the language cannot spell
    text, _ = assert_dump_round_trips(capsys, vpp_real_instance, tmp_path)
    assert "device-type" not in text and "host-ge0:" in text


def test_dump_of_hand_made_and_vppcfg_state_checks_and_plans_to_nothing(
    vpp_real_factory, capsys, tmp_path
) -> None:
    vpp = vpp_real_factory()
    cfg = tmp_path / "owned.yaml"
    cfg.write_text(OWNED)
    code, out = run(capsys, vpp, "apply", "-c", str(cfg), "--lock-file", str(tmp_path / "lock"),
                    "--state-dir", str(tmp_path / "state"))
    assert code == 0, out
    by_hand(vpp, BY_HAND)
    text, said = assert_dump_round_trips(capsys, vpp, tmp_path)
    # hand-made objects are set apart as foreign, not lost
    assert "# not created by vppcfg" in text
    for name in ("loop9000", "BondEthernet21", "tap2000", "vxlan_tunnel5", "bd20"):
        assert f"#     {name}:" in text, name
    # states the vppcfg language refuses: the dump allows their rules in its header
    for warned in ("l2xc target host-ge0.400 has MTU 1500, not 1400",
                   "MTU 9216 is higher than parent host-ge0 MTU 9000",
                   "unnumbered target loop2 is itself unnumbered",
                   "MTU 1400 differs from the tap's host MTU 1500",
                   "is a member of bridge bd10 (L2) and has addresses",
                   "is a member of bridge bd10 and has mpls",
                   "member host-hu0 has addresses, which a bond member never uses",
                   "l2xc target host-ge0.400 is also the target of",
                   "a tap's addresses belong on its host side", "an lcp on a tap"):
        assert f"warning: {warned}" in said, said
    assert "# This dataplane holds states that the vppcfg language refuses" in text

    other = vpp_real_factory()
    by_hand(other, UNTOUCHED)
    text, said = assert_dump_round_trips(capsys, other, tmp_path)
    assert "lcp: abcdefghijklmno" in text and "mtu: 64" in text
    assert "ipv6-icmp is IPv6's" in said and "ports apply only to protocol tcp or udp" in said


def pairs(conn: Any) -> dict[str, str]:
    names = {d["sw_if_index"]: d["interface_name"]
             for d in plain_list(conn.call("sw_interface_dump", sw_if_index=NONE))}
    return {names[p["phy_sw_if_index"]]: p["host_if_name"]
            for p in plain_list(conn.dump_stream("lcp_itf_pair_get"))}


def test_lcp_host_names_of_fifteen_characters_work(vpp_real_instance, capsys, tmp_path):
    """Linux allows 15 characters (IFNAMSIZ 16 with the NUL); so does VPP 26.10's
    linux-cp, through the CLI and every API version, on PHYs, loopbacks and subs.
    16 are refused: by the CLI (-73) and by vpp_papi (host_if_name is string[16])."""
    vpp = vpp_real_instance
    for loop in (1, 2, 3):
        vpp.ctl("create", "loopback", "interface", "instance", str(loop))
    vpp.ctl("create", "sub-interfaces", "host-ge1", "200", "dot1q", "200", "exact-match")
    assert vpp.ctl("lcp", "create", "host-ge0", "host-if", "abcdefghijklmno").strip() == ""
    assert "(-73)" in vpp.ctl("lcp", "create", "host-ge1", "host-if", "abcdefghijklmnop")
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        index = {d["interface_name"]: d["sw_if_index"]
                 for d in plain_list(conn.call("sw_interface_dump", sw_if_index=NONE))}
        for itf, host, message in (
            ("loop1", "loopbackpair001", "lcp_itf_pair_add_del"),
            ("loop2", "loopbackpair002", "lcp_itf_pair_add_del_v2"),
            ("loop3", "loopbackpair003", "lcp_itf_pair_add_del_v3"),
            ("host-ge1", "ge1withlongname", "lcp_itf_pair_add_del_v3"),
            ("host-ge1.200", "ge1withlong.200", "lcp_itf_pair_add_del_v3"),
        ):
            assert len(host) == 15
            reply = conn.call(message, is_add=True, sw_if_index=index[itf], host_if_name=host,
                              host_if_type=0, netns="")
            assert reply.retval == 0, (message, host)
        with pytest.raises(Exception, match="host_if_name"):
            conn.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=index["host-hu0"],
                      host_if_name="x" * 16, host_if_type=0, netns="")
        assert pairs(conn) == {
            "host-ge0": "abcdefghijklmno", "loop1": "loopbackpair001",
            "loop2": "loopbackpair002", "loop3": "loopbackpair003",
            "host-ge1": "ge1withlongname", "host-ge1.200": "ge1withlong.200",
        }
    links = vpp.netns.run(["ip", "-o", "link", "show"])
    assert "abcdefghijklmno" in links and "ge1withlong.200" in links


def test_vppcfg_applies_fifteen_character_lcp_names(vpp_real_instance, capsys, tmp_path):
    cfg = tmp_path / "lcp15.yaml"
    cfg.write_text(
        "interfaces:\n"
        "  host-ge0:\n    lcp: hostge0longname\n    sub-interfaces:\n"
        "      100: {lcp: hostge0long.100}\n"
        "loopbacks:\n  loop0: {lcp: loopbacklong000}\n"
    )
    args = ("--lock-file", str(tmp_path / "lock"), "--state-dir", str(tmp_path / "state"))
    code, out = run(capsys, vpp_real_instance, "apply", "-c", str(cfg), *args)
    assert code == 0, out
    code, out = run(capsys, vpp_real_instance, "plan", "-c", str(cfg))
    assert code == 0 and "0 to create, 0 to change, 0 to delete" in out, out
    with VppConnection.open(vpp_real_instance.socket, vpp_real_instance.api_dir) as conn:
        assert set(pairs(conn).values()) == {"hostge0longname", "hostge0long.100",
                                             "loopbacklong000"}


# What check only warns about, written by hand in a config: vppcfg applies it on
# a fresh VPP, converges, and goes back and forth to a plain config.
# states the vppcfg language refuses (allowed here: VPP holds them, vppcfg applies them)
WARNED = """
vppcfg:
  allow: [bond-member-address, l2-address, l2-lcp, l2xc-sub-interfaces, l2xc-target-bridged]
interfaces:
  host-ge0:
    mtu: 9000
    l2xc: host-ge1
    sub-interfaces:
      100: {mtu: 1500, addresses: [10.3.0.1/24]}
  host-ge1: {mtu: 9000, lcp: e1, addresses: [10.1.0.1/24], mpls: true}
  host-hu0: {mtu: 9000, l2xc: loop1}
  host-hu1: {mtu: 1500, addresses: [10.4.0.1/24]}
  BondEthernet0: {mtu: 1500}
loopbacks:
  loop1: {mtu: 9000}
bondethernets:
  BondEthernet0: {interfaces: [host-hu1], mode: round-robin}
bridgedomains:
  bd10: {mtu: 9000, interfaces: [host-ge1], bvi: loop1}
"""
PLAIN = """
interfaces:
  host-ge0: {mtu: 9000, lcp: e0}
  host-ge1: {mtu: 9000, addresses: [10.1.0.1/24]}
  host-hu0: {}
  host-hu1: {}
"""


def test_what_check_warns_about_applies_and_converges(vpp_real_instance, capsys, tmp_path):
    vpp = vpp_real_instance
    args = ("--lock-file", str(tmp_path / "lock"), "--state-dir", str(tmp_path / "state"))
    for n, text in enumerate((WARNED, PLAIN, WARNED)):
        cfg = tmp_path / f"step{n}.yaml"
        cfg.write_text(text)
        code, out = run(capsys, vpp, "apply", "-c", str(cfg), *args)
        assert code == 0, (n, out)
        code, out = run(capsys, vpp, "plan", "-c", str(cfg))
        assert code == 0 and "0 to create, 0 to change, 0 to delete" in out, (n, out)
        _, said = assert_dump_round_trips(capsys, vpp, tmp_path)
        assert ("warning:" in said) == (text is WARNED), said


def test_dump_of_a_sub_left_up_under_a_downed_parent(vpp_real_instance, capsys, tmp_path):
    vpp = vpp_real_instance
    cfg = tmp_path / "sub.yaml"
    cfg.write_text("interfaces:\n  host-ge0:\n    sub-interfaces:\n      100: {description: up}\n")
    code, out = run(capsys, vpp, "apply", "-c", str(cfg), "--lock-file", str(tmp_path / "lock"),
                    "--state-dir", str(tmp_path / "state"))
    assert code == 0, out
    by_hand(vpp, ["set interface state host-ge0 down"])
    # VPP keeps the sub up; the dump says so, and the planner can make that state
    # again (it lifts the parent around the sub: VPP wants the parent up for it)
    text, said = assert_dump_round_trips(capsys, vpp, tmp_path)
    assert "is up while its parent host-ge0 is down" in said
    # and from a fresh VPP (parent down from the start), apply makes that state
    vpp.restart()
    (tmp_path / "dumped.yaml").write_text(text)
    code, out = run(capsys, vpp, "apply", "-c", str(tmp_path / "dumped.yaml"),
                    "--lock-file", str(tmp_path / "lock"), "--state-dir", str(tmp_path / "state"))
    assert code == 0, out
    assert_dump_round_trips(capsys, vpp, tmp_path)


def _render_dump(socket: str, api_dir: str) -> str:
    import re

    from vppcfg.commands.dump import render

    with VppConnection.open(socket, api_dir) as conn:
        text = render(conn.dump())
    return re.sub(r"mac: [0-9a-f:]+", "mac: <random>", text)  # VPP draws them


@pytest.mark.parametrize("history", ["vppcfg then by hand", "by hand only"])
def test_the_simulator_dumps_the_same_after_the_same_history(
    history: str, vpp_real_factory, vpp_sim_factory, tmp_path
) -> None:
    """Differential: the hand-made states above, through the simulator's CLI and
    through vppctl on vpp-real, give the same dump (found: the simulator took
    `dot1q any`, 15-character lcp names were refused, header-bytes unrounded,
    acl.c's way of parsing `set acl-plugin acl`)."""
    from vppcfg import config
    from vppcfg.apply import apply_config
    from vppcfg.sim.cli import SimCli
    from vppcfg.sim.inventory import Phy

    owned, hand = (OWNED, BY_HAND) if history == "vppcfg then by hand" else (None, UNTOUCHED)
    phys = [Phy(f"host-{n}", f"02:fe:00:00:00:0{i}", 9000, "af-packet")
            for i, n in enumerate(("ge0", "ge1", "hu0", "hu1"))]
    sim = vpp_sim_factory(phys=phys)
    real = vpp_real_factory()
    for socket, api_dir in ((sim.socket, str(sim.api_dir)), (real.socket, real.api_dir)):
        if owned:
            with VppConnection.open(socket, api_dir) as conn:
                assert apply_config(conn, config.loads(owned)).ok
    cli = SimCli(sim.dataplane)
    for command in hand:
        out, retval = cli.run(command)
        assert retval == 0, (command, out)
    by_hand(real, hand)
    assert _render_dump(sim.socket, str(sim.api_dir)) == _render_dump(real.socket, real.api_dir)
