"""The dump builder fed with replies recorded from a real VPP 26.10.

Each scenario of ../shared/vpp/traces ends with a full set of dumps; building
the model from them must give what VPP was left holding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vppcfg.model import BondLoadBalance, BondMode, Encapsulation, InterfaceKind
from vppcfg.objects import DESCRIPTORS
from vppcfg.objects.needs import Dump
from vppcfg.vpp.dump import RawDump, build_dataplane

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TRACES = SHARED / "vpp" / "traces"
# names ../shared, so that tests/ci_policy.py counts it as the real tier's: under CI=true
# it fails instead of skipping
MISSING = "../shared/vpp/traces is not available (the real VPP's recorded replies)"


def final_raw(scenario: str) -> RawDump:
    """The replies of the last full dump set of a recorded scenario."""
    path = next(TRACES.glob(f"{scenario}-*.jsonl"), None)
    if path is None:
        pytest.skip(MISSING)
    calls = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    start = max(i for i, c in enumerate(calls) if c["call"] == "sw_interface_dump")
    tables = {dump.messages[0]: dump.table for desc in DESCRIPTORS for dump in desc.reads
              if isinstance(dump, Dump)}
    raw = RawDump()
    for c in calls[start:]:
        name, replies = c["call"], c.get("replies") or []
        if name == "ip_address_dump":
            raw.by_index("addresses").setdefault(c["args"]["sw_if_index"], []).extend(
                r["prefix"] for r in replies)
        elif name == "sw_member_interface_dump":
            raw.by_index("bond_members")[c["args"]["sw_if_index"]] = replies
        elif name == "bridge_domain_dump" and c["args"].get("bd_id") != 0xFFFFFFFF:
            continue  # one bridge asked again: not the whole table
        elif name == "sflow_interface_dump" and c["args"].get("hw_if_index") != 0xFFFFFFFF:
            continue
        elif name in tables:
            raw[tables[name]] = replies
    return raw


def test_subinterfaces_and_phys():
    dp = build_dataplane(final_raw("02"))
    assert "local0" not in dp.interfaces
    sub = dp.interfaces["host-veth1a.10"]
    assert sub.kind is InterfaceKind.SUB and sub.parent == "host-veth1a" and sub.sub_id == 10
    assert sub.encapsulation == Encapsulation(dot1q=10, exact_match=True)
    assert dp.interfaces["host-veth1a"].kind is InterfaceKind.PHY
    # subs VPP made without our tag are foreign; PHYs never are
    assert "interfaces/host-veth1a.10" in dp.foreign
    assert not any(k.startswith("interfaces/host-veth1a") and k.count(".") == 0
                   for k in dp.foreign)


def test_bonds_modes_members_and_qinq_sub():
    dp = build_dataplane(final_raw("05"))
    bond = dp.bonds["BondEthernet20"]
    assert (bond.mode, bond.load_balance, bond.instance) == (BondMode.XOR, BondLoadBalance.L2, 20)
    assert bond.members == ("host-veth2a",)
    assert dp.bonds["BondEthernet3"].load_balance is None  # active-backup has no lb
    assert dp.interfaces["BondEthernet20"].kind is InterfaceKind.BOND
    qinq = dp.interfaces["BondEthernet20.200"].encapsulation
    assert qinq is not None and qinq.inner_dot1q == 2 and qinq.dot1q == 200


def test_lcp_host_taps_are_not_interfaces():
    raw = final_raw("08")
    dp = build_dataplane(raw)
    hosts = {p["host_sw_if_index"] for p in raw.rows("lcp_pairs")}
    host_names = {i["interface_name"] for i in raw.rows("interfaces") if i["sw_if_index"] in hosts}
    assert host_names and not host_names & set(dp.interfaces)
    assert not dp.taps
    assert dp.interfaces["host-veth1a"].lcp == "vpp1"
    assert dp.interfaces["loop10"].lcp == "lo10"


def test_taps_host_side():
    dp = build_dataplane(final_raw("06"))
    tap = dp.taps["tap12"]
    assert tap.instance == 12 and tap.host.name == "vpptap12" and tap.host.bridge == "vppbr6"
    assert dp.taps["tap13"].rx_ring_size == 512
    assert dp.interfaces["tun14"].kind is InterfaceKind.TAP


def test_vxlan_and_bridge():
    dp = build_dataplane(final_raw("07"))
    tunnel = dp.vxlan_tunnels["vxlan_tunnel0"]
    assert (tunnel.local, tunnel.remote, tunnel.vni) == ("192.0.2.1", "192.0.2.2", 100)
    assert dp.interfaces["host-veth0a"].addresses == ("192.0.2.1/24", "2001:db8:7::1/64")
    assert dp.bridge_domains["bd700"].members == ("host-veth1a",)


def test_loopback_bvi_bridge_settings():
    dp = build_dataplane(final_raw("03"))
    bd = dp.bridge_domains["bd10"]
    assert bd.bvi == "loop10" and "loop10" not in bd.members
    assert bd.settings.mac_age_minutes == 10 and not bd.settings.learn
    assert dp.interfaces["loop10"].kind is InterfaceKind.LOOPBACK
    assert "bridge_domains/bd10" in dp.foreign  # bd_tag is not ours


def test_l2xc_both_directions_independent():
    dp = build_dataplane(final_raw("04"))
    assert dp.interfaces["host-veth1a"].l2xc == "host-veth0a"
    assert dp.interfaces["host-veth0a"].l2xc is None
    assert dp.interfaces["host-veth2a"].l2xc == "host-veth2a"


def test_unnumbered_sflow_acls():
    dp = build_dataplane(final_raw("09"))
    assert dp.interfaces["host-veth0a"].unnumbered == "loop9"
    assert dp.interfaces["host-veth0a"].sflow
    assert not dp.interfaces["host-veth1a"].sflow
    assert dp.interfaces["host-veth0a"].acls.input == ("ssh-in-v2",)
    assert dp.interfaces["host-veth0a"].acls.output == ("v6-dns",)
    term = dp.acls["ssh-in-v2"].terms[0]
    assert (term.action, term.family, term.source, term.protocol) == (
        "permit", "ipv4", "10.0.0.0/8", 6)
    assert (term.destination_port.first, term.destination_port.last) == (22, 22)
    assert dp.acls["v6-dns"].terms[0].action == "permit+reflect"
    assert dp.acls["empty"].terms == ()


def test_a_missing_trace_cannot_skip_silently_under_ci() -> None:
    from tests.ci_policy import guarded_category

    assert guarded_category(MISSING, marked_real=False) == "the real tier"
