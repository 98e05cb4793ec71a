"""What leaves the file leaves VPP (issue 20, part 0).

A PHY the config does not name returns to what a freshly started VPP has
(admin down, MTU 9000, L3, no address, lcp, binding or feature); a field
dropped from a named PHY's stanza is undone. Each step is an operation of the
plan. Objects other tools made are still left alone. Run against the
simulator here; tests/test_real_phy_defaults.py does the same on real VPPs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.apply_models import SSH, G, dp, loop, phy, sample_a, sub
from vppcfg.apply import apply_config, format_outcome
from vppcfg.cli import main
from vppcfg.model import (
    PHY_DEFAULT_MTU,
    Bond,
    BridgeDomain,
    Dataplane,
    FrozenDict,
    InterfaceAcls,
    InterfaceKind,
    phy_at_defaults,
)
from vppcfg.objects import render_cli
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

ROUTED = f"""\
interfaces:
  {G[0]}:
    mtu: 1500
    lcp: e0
    addresses: [192.0.2.1/30, 2001:db8::1/64]
  {G[1]}:
    mtu: 1500
    lcp: e1
    addresses: [192.0.2.5/30]
"""

# A PHY holding every field the language gives it (MAC aside: vppcfg leaves it as it is).
FULL = phy(G[0], mtu=2000, state="down", lcp="e0", addresses=("192.0.2.1/30", "2001:db8::1/64"),
           mpls=True, sflow=True, acls=InterfaceAcls(input=(SSH.name,), output=(SSH.name,)))
I0 = f"interfaces/{G[0]}"
REMOVABLE = {  # field -> its value when absent from the stanza, and the plan that undoes it
    # MPLS goes off around the pair's removal (linux-cp copied it to the host tap)
    "lcp": (None, [("delete", f"{I0}/mpls"), ("delete", f"{I0}/lcp"), ("create", f"{I0}/mpls")]),
    "addresses": ((), [("delete", f"{I0}/address/192.0.2.1/30"),
                       ("delete", f"{I0}/address/2001:db8::1/64")]),
    "mpls": (False, [("delete", f"{I0}/mpls")]),
    "sflow": (False, [("delete", f"{I0}/sflow")]),
    "acls": (InterfaceAcls(), [("delete", f"{I0}/acls")]),
    # a named PHY's MTU and state fall back to the language's defaults (1500, up)
    "mtu": (1500, [("update", f"{I0}/mtu")]),
    "state": ("up", [("update", f"{I0}/state")]),
}


def without_macs(live: Dataplane) -> Dataplane:
    """A dump minus the MACs, which vppcfg leaves as they are (documented)."""
    return replace(live, interfaces=FrozenDict(
        {name: replace(itf, mac=None) for name, itf in live.interfaces.items()}))


def keys(ops: list) -> list[tuple[str, str]]:
    return [(op.action, op.key) for op in ops]


def test_a_phy_absent_from_the_file_plans_back_to_its_defaults() -> None:
    live = dp(FULL, phy(G[1], l2xc=G[2]), phy(G[2], l2xc=G[1]), loop(0), phy(G[3],
              unnumbered="loop0"), acls=[SSH])
    ops = plan(dp(), live)
    text = render_cli(ops, {SSH.name: 0}).splitlines()
    for line in (f"lcp delete {G[0]}", f"set interface ip address del {G[0]} 192.0.2.1/30",
                 f"set interface ip address del {G[0]} 2001:db8::1/64",
                 f"set interface mpls {G[0]} disable", f"sflow enable-disable {G[0]} disable",
                 f"set acl-plugin interface {G[0]} input acl 0 del",
                 f"set acl-plugin interface {G[0]} output acl 0 del",
                 f"set interface l3 {G[1]}", f"set interface l3 {G[2]}",
                 f"set interface unnumbered del {G[3]}", "delete acl-plugin acl index 0",
                 "delete loopback interface intfc loop0"):
        assert line in text
    for name in G:
        assert f"set interface mtu {PHY_DEFAULT_MTU} {name}" in text
    for name in G[1:]:  # up (the model's default); G[0] is down already
        assert f"set interface state {name} down" in text
    assert f"set interface state {G[0]} down" not in text
    # the binding goes before the ACL (VPP refuses -142), the unnumbered before loop0
    order = keys(ops)
    assert order.index(("delete", f"interfaces/{G[0]}/acls")) < order.index(
        ("delete", f"acls/{SSH.name}"))
    assert order.index(("delete", f"interfaces/{G[3]}/unnumbered")) < order.index(
        ("delete", "interfaces/loop0"))
    # once there, nothing more to do
    fresh = dp(*(phy_at_defaults(name) for name in G))
    assert plan(dp(), fresh) == []


def test_a_phy_already_at_its_defaults_needs_nothing_and_its_mac_is_kept() -> None:
    live = dp(replace(phy_at_defaults(G[0]), mac="02:fe:00:00:00:01", device_type="dpdk"))
    assert plan(dp(), live) == []


@pytest.mark.parametrize("field", sorted(REMOVABLE))
def test_a_field_dropped_from_a_named_stanza_is_undone(field: str) -> None:
    absent, expected = REMOVABLE[field]
    live = dp(FULL, acls=[SSH])
    assert keys(plan(dp(replace(FULL, **{field: absent}), acls=[SSH]), live)) == expected


def test_a_phy_in_a_foreign_bond_is_left_alone() -> None:
    bond = replace(phy("BondEthernet7", mtu=9000), kind=InterfaceKind.BOND)
    live = dp(phy(G[0], mtu=1500), bond, bonds=[Bond("BondEthernet7", 7, members=(G[0],))])
    live = replace(live, foreign=frozenset({"interfaces/BondEthernet7", "bonds/BondEthernet7"}))
    assert plan(dp(), live) == []


def test_a_phy_carrying_a_foreign_sub_bridge_or_l2xc_is_left_alone() -> None:
    """Resetting such a PHY (down, MTU) would break what another tool made on it."""
    live = dp(phy(G[0], mtu=1500, addresses=("192.0.2.1/30",)), sub(G[0], 5, mtu=1500),
              phy(G[1], mtu=1500), phy(G[2], mtu=1500, l2xc="wg0"),
              phy("wg0", mtu=1420, l2xc=G[2], device_type="wireguard"),
              phy(G[3], mtu=1500, addresses=("192.0.2.9/30",)),
              bridge_domains=[BridgeDomain("bd9", 9, members=(G[1],))])
    live = replace(live, foreign=frozenset({f"interfaces/{G[0]}.5", "bridge_domains/bd9",
                                            "interfaces/wg0"}))
    # only G[3], which carries nothing foreign, goes back to its defaults
    assert sorted(keys(plan(dp(), live))) == sorted([
        ("delete", f"interfaces/{G[3]}/address/192.0.2.9/30"),
        ("update", f"interfaces/{G[3]}/mtu"), ("update", f"interfaces/{G[3]}/state")])


@pytest.mark.parametrize("device_type", ["wireguard", "GRE", "memif", "virtio", "ipip"])
def test_an_interface_that_is_not_a_nic_is_left_alone(device_type: str) -> None:
    """dump calls every top-level interface it does not model a PHY; only NICs
    (vppcfg.model.NIC_DEVICE_TYPES) go back to defaults when the file does not name them."""
    other = phy("tun0", mtu=1420, state="up", addresses=("10.9.0.1/24",), device_type=device_type)
    assert plan(dp(), dp(other)) == []
    nic = replace(other, name="eth9", device_type="dpdk")
    assert ("update", "interfaces/eth9/state") in keys(plan(dp(), dp(nic)))


# -- on the simulator: applied, then emptied, ends as a fresh VPP ------------------


def test_every_example_object_emptied_away_on_the_simulator(vpp_sim) -> None:
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        fresh = conn.dump()
        for desired in (sample_a(), dp(FULL, phy(G[1], l2xc=G[2]), phy(G[2], l2xc=G[1]),
                                        loop(0), phy(G[3], unnumbered="loop0"), acls=[SSH])):
            outcome = apply_config(conn, desired)
            assert outcome.ok, format_outcome(outcome)
            assert conn.dump() != fresh
            outcome = apply_config(conn, dp())
            assert outcome.ok, format_outcome(outcome)
            assert conn.dump() == fresh
            assert plan(dp(), conn.dump()) == []


def test_a_stanza_emptied_field_by_field_on_the_simulator(vpp_sim) -> None:
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        fresh = without_macs(conn.dump())
        current = FULL
        assert apply_config(conn, dp(current, acls=[SSH])).ok
        for field, (absent, _) in sorted(REMOVABLE.items()):
            current = replace(current, **{field: absent})
            outcome = apply_config(conn, dp(current))
            assert outcome.ok, format_outcome(outcome)
            assert getattr(conn.dump().interfaces[G[0]], field) == absent
        # and then the stanza itself
        assert apply_config(conn, dp()).ok
        assert without_macs(conn.dump()) == fresh


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


def test_routed_phys_then_an_empty_file_through_the_cli(vpp_sim, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's report: two routed PHYs, then `interfaces: {}`."""
    args = ["--vpp-api-socket", vpp_sim.socket, "--vpp-json-dir", str(vpp_sim.api_dir)]
    state = ["--lock-file", str(tmp_path / "lock"), "--state-dir", str(tmp_path / "state")]
    routed, empty = tmp_path / "routed.yaml", tmp_path / "empty.yaml"
    routed.write_text(ROUTED)
    empty.write_text("interfaces: {}\n")
    assert run(["apply", "-c", str(routed), *args, *state], capsys)[0] == 0
    code, out = run(["plan", "-c", str(empty), *args], capsys)
    assert code == 0
    lines = out.splitlines()
    for name, host in ((G[0], "e0"), (G[1], "e1")):
        assert f"lcp delete {name}" in lines, host
        assert f"set interface state {name} down" in lines
        assert f"set interface mtu {PHY_DEFAULT_MTU} {name}" in lines
    assert f"set interface ip address del {G[0]} 2001:db8::1/64" in lines
    assert run(["apply", "-c", str(empty), *args, *state], capsys)[0] == 0
    code, out = run(["plan", "-c", str(empty), *args], capsys)
    assert (code, out) == (0, "")
    # a dump of that state checks and plans to nothing (the PHYs listed at their defaults)
    dumped = tmp_path / "dumped.yaml"
    assert run(["dump", "-o", str(dumped), *args], capsys)[0] == 0
    assert f"{G[0]}:" in dumped.read_text()
    assert run(["check", "-c", str(dumped)], capsys)[0] == 0
    assert run(["plan", "-c", str(dumped), *args], capsys) == (0, "")
