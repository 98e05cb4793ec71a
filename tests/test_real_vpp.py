"""Failures found on the real VPP, each pinned by a test against it (marker `real`).

Every test runs the change both ways an operator can: `vppcfg apply` through
the API, and the plan's CLI text through `vppctl exec`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.apply_models import run_cli_plan
from vppcfg import config
from vppcfg.apply import apply_config, format_outcome
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

# A LAG with dot1q, dot1ad and QinQ sub-interfaces in use (cross-connect,
# bridge), whose mode changes while the subs swap their tag types.
BOND = """
bondethernets:
  BondEthernet0:
    mode: {mode}
    interfaces: [host-ge0, host-ge1]
interfaces:
  host-ge0: {{mtu: 9000}}
  host-ge1: {{mtu: 9000}}
  host-hu0:
    mtu: 9000
    sub-interfaces:
      100: {{mtu: 1500, l2xc: BondEthernet0.100}}
  BondEthernet0:
    mtu: 9000
    lcp: be0
    mpls: true
    sub-interfaces:
      100:
        mtu: 1500
        l2xc: host-hu0.100
        encapsulation: {{{first}: 100, exact-match: true}}
      200:
        mtu: 1500
        encapsulation: {{{second}: 200, exact-match: true}}
      300:
        mtu: 1500
        encapsulation: {{dot1q: {outer}, inner-dot1q: {inner}, exact-match: true}}
        addresses: [192.0.2.1/30]
bridgedomains:
  bd10:
    mtu: 1500
    interfaces: [BondEthernet0.200]
"""
STATES = [
    BOND.format(mode="lacp", first="dot1q", second="dot1ad", outer=400, inner=10),
    BOND.format(mode="xor", first="dot1ad", second="dot1q", outer=500, inner=20),
    BOND.format(mode="active-backup", first="dot1q", second="dot1ad", outer=500, inner=10),
]


def _api(conn: Any, text: str) -> None:
    desired = config.loads(text)
    outcome = apply_config(conn, desired)
    assert outcome.ok, format_outcome(outcome)
    assert plan(desired, conn.dump()) == []


def _cli(vpp: Any, conn: Any, text: str) -> None:
    run_cli_plan(conn, config.loads(text), vpp.exec_text)


def test_bond_recreated_with_sub_interfaces_in_use(vpp_real_factory):
    # Before: the planner left the subs to VPP's bond_delete, which frees the
    # parent's VLAN tables before deleting the subs, so their "in use" marks
    # land in the wrong tables and create_subif answered -1 after a recreate.
    api_vpp, cli_vpp = vpp_real_factory(), vpp_real_factory()
    with VppConnection.open(api_vpp.socket, api_vpp.api_dir) as api, \
            VppConnection.open(cli_vpp.socket, cli_vpp.api_dir) as cli:
        for text in [*STATES, *STATES]:
            _api(api, text)
            _cli(cli_vpp, cli, text)


def test_mpls_is_not_inherited_through_a_reused_index(vpp_real_factory):
    # Before: MPLS was left on when an interface (or its lcp pair, whose host
    # tap linux-cp gives MPLS too) was deleted; the next interface to reuse
    # the index came up with MPLS enabled and verification failed.
    first = "loopbacks:\n  loop1: {lcp: lo1, mpls: true}\n  loop2: {mpls: true}\n"
    second = "loopbacks:\n  loop3: {}\n  loop4: {}\n  loop5: {}\ninterfaces: {}\n"
    vpp = vpp_real_factory()
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        _api(conn, first)
        _api(conn, second)
        assert "MPLS enabled" not in vpp.ctl("show", "mpls", "interface")


def test_bond_mac_survives_its_first_member(vpp_real_factory):
    # Before: the MAC was set after creating the bond; VPP copies the first
    # member's MAC onto a bond created without one, so the next member change
    # undid it.
    text = ("bondethernets:\n  BondEthernet0: {{mode: xor, mac: '02:fe:be:00:00:01', "
            "interfaces: [{members}]}}\ninterfaces:\n  host-ge0: {{}}\n  host-ge1: {{}}\n"
            "  BondEthernet0: {{}}\n")
    vpp = vpp_real_factory()
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        for members in ("", "host-ge0", "host-ge0, host-ge1", "host-ge1"):
            _api(conn, text.format(members=members))
            assert conn.dump().bonds["BondEthernet0"].mac == "02:fe:be:00:00:01"


EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.yaml"))
# The examples' PHYs, as vpp-real names them.
REAL_PHYS = {f"GigabitEthernet3/0/{n}": name
             for n, name in enumerate(("host-ge0", "host-ge1", "host-hu0", "host-hu1"))}


def on_real_phys(text: str) -> str:
    for sim_name, real_name in REAL_PHYS.items():
        text = text.replace(sim_name, real_name)
    return text


def test_every_example_converges_one_after_another(vpp_real_factory):
    from vppcfg.commands.dump import render

    api_vpp, cli_vpp = vpp_real_factory(), vpp_real_factory()
    with VppConnection.open(api_vpp.socket, api_vpp.api_dir) as api, \
            VppConnection.open(cli_vpp.socket, cli_vpp.api_dir) as cli:
        for example in [*EXAMPLES, *reversed(EXAMPLES)]:
            text = on_real_phys(example.read_text())
            _api(api, text)
            _cli(cli_vpp, cli, text)
            live = api.dump()
            dumped = config.loads(render(live), filename=f"dump-after-{example.name}")
            assert plan(dumped, live) == [], example.name
