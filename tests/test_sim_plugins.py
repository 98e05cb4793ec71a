"""The simulator's plugin models (bond, tap, vxlan, lcp, sflow, acl).

Two layers:
* replay of the reference traces recorded on a real VPP (../shared/vpp/traces)
  against the whole simulator, compared reply by reply, field by field,
  ignoring only what the traces' README calls non-deterministic (helpers from
  trace_tools); every plugin call must match, and every call at all in the
  plugin scenarios 05..10;
* focused tests on the simulator with the default inventory, for rules the
  traces touch once or not at all, and one pass through the real vpp_papi.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.trace_tools import (
    Comparator,
    Scenario,
    TraceCall,
    load_scenarios,
    replay_model,
    traces_available,
)
from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory
from vppcfg.sim.plugins import acl, bond, lcp, sflow, tap, vxlan
from vppcfg.sim.plugins._util import linux
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX

PLUGINS = (bond, tap, vxlan, lcp, sflow, acl)
PLUGIN_MESSAGES = frozenset(m for p in PLUGINS for m in p.HANDLERS)
SCENARIOS = {s.name: s for s in load_scenarios()} if traces_available() else {}


def replay(scenario: Scenario) -> tuple[list[tuple[int, str, list[str]]], int, int]:
    """Run a scenario on a fresh simulator (no PHYs: the trace makes its ports)."""
    dataplane = replay_model(scenario)
    comparator = Comparator(scenario)
    failures, plugin_calls, plugin_ok = [], 0, 0
    for call in scenario.calls:
        response = dataplane.handle(call.call, call.args)
        problems = compare_call(comparator, call, response)
        if call.call in PLUGIN_MESSAGES:
            plugin_calls += 1
            plugin_ok += not problems
        if problems:
            failures.append((call.index, call.call, problems))
    return failures, plugin_calls, plugin_ok


def compare_call(comparator: Comparator, call: TraceCall, response: Response) -> list[str]:
    if call.reply is not None and call.reply.get("retval") == -165:
        # VNET_API_ERROR_EAGAIN: VPP split this lcp walk at an unpredictable
        # point; the model answers in one go, so the trace's part must be a
        # prefix of the model's answer, which must end the walk.
        head = replace(call, reply={"retval": 0, "cursor": NONE_INDEX})
        return comparator.compare(head, Response(response.reply,
                                                 response.details[:len(call.replies or [])]))
    return comparator.compare(call, response)


@pytest.mark.skipif(not SCENARIOS, reason="reference traces (../shared) absent")
@pytest.mark.parametrize("name", sorted(SCENARIOS) or ["none"])
def test_trace_replay_matches(name: str) -> None:
    """Every plugin call matches; in the plugin scenarios (05..10) every call
    does, since the plugins' side effects show in core dumps (member MACs,
    bond link flags, lcp host taps, lcp-sync MTUs)."""
    failures, total, ok = replay(SCENARIOS[name])
    print(f"{name}: plugin calls matched {ok}/{total}")
    if name < "05":
        failures = [f for f in failures if f[1] in PLUGIN_MESSAGES]
    assert not failures, "\n".join(f"#{n} {call}: {p}" for n, call, p in failures)


# --- focused behaviour tests on the default inventory (Gi3/0/0..3 = 1..4) ------


class Sim:
    def __init__(self, kernel_vlan: bool = True, auto_subint: bool = False) -> None:
        self.dataplane = SimDataplane(default_inventory(), kernel_vlan=kernel_vlan,
                                      lcp_auto_subint=auto_subint)
        self.state = self.dataplane.state

    def __call__(self, message: str, **args: Any) -> dict[str, Any]:
        return self.dataplane.handle(message, args).reply or {}

    def rows(self, message: str, **args: Any) -> list[dict[str, Any]]:
        return self.dataplane.handle(message, args).details

    def itf(self, sw_if_index: int) -> dict[str, Any]:
        return self.rows("sw_interface_dump", sw_if_index=sw_if_index)[0]

    def up(self, sw_if_index: int) -> None:
        assert self("sw_interface_set_flags", sw_if_index=sw_if_index, flags=1)["retval"] == 0


@pytest.fixture
def sim() -> Sim:
    return Sim()


def bond_create(sim: Sim, mode: int = bond.MODE_XOR, lb: int = 0, **args: Any) -> dict:
    return sim("bond_create2", mode=mode, lb=lb, id=args.pop("id", NONE_INDEX), **args)


def test_bond_mac_follows_first_member_and_is_restored(sim: Sim) -> None:
    b = bond_create(sim, id=7)["sw_if_index"]
    mac1, mac2 = sim.itf(1)["l2_address"], sim.itf(2)["l2_address"]
    assert sim("bond_add_member", sw_if_index=1, bond_sw_if_index=b)["retval"] == 0
    assert sim("bond_add_member", sw_if_index=2, bond_sw_if_index=b)["retval"] == 0
    assert sim.itf(b)["l2_address"] == mac1
    assert sim.itf(2)["l2_address"] == mac1
    assert sim("bond_detach_member", sw_if_index=2)["retval"] == 0
    assert sim.itf(2)["l2_address"] == mac2
    assert sim("bond_detach_member", sw_if_index=2)["retval"] == -71  # not a member
    sim("sw_interface_set_mac_address", sw_if_index=b, mac_address="02:00:00:00:00:0b")
    assert sim.itf(1)["l2_address"] == "02:00:00:00:00:0b"


def test_bond_custom_mac_reaches_a_sub_members_parent(sim: Sim) -> None:
    b = bond_create(sim, use_custom_mac=True, mac_address="02:00:00:00:00:aa")["sw_if_index"]
    sub = sim("create_vlan_subif", sw_if_index=3, vlan_id=5)["sw_if_index"]
    assert sim("bond_add_member", sw_if_index=sub, bond_sw_if_index=b)["retval"] == 0
    assert sim.itf(3)["l2_address"] == "02:00:00:00:00:aa"
    member = sim.rows("sw_member_interface_dump", sw_if_index=b)[0]
    assert member["interface_name"] == "local0"  # VPP names a sub member so
    assert sim("delete_subif", sw_if_index=sub)["retval"] == 0
    assert sim.rows("sw_member_interface_dump", sw_if_index=b) == []
    assert sim.itf(3)["l2_address"] != "02:00:00:00:00:aa"


def test_bond_refusals(sim: Sim) -> None:
    b = bond_create(sim, id=3)["sw_if_index"]
    assert bond_create(sim, id=3) == {"retval": -147, "sw_if_index": 0}
    assert bond_create(sim, mode=bond.MODE_LACP, lb=bond.LB_RR)["retval"] == -73
    assert sim("bond_add_member", sw_if_index=b, bond_sw_if_index=b)["retval"] == -71
    assert sim("bond_add_member", sw_if_index=1, bond_sw_if_index=2)["retval"] == -71
    assert sim("bond_add_member", sw_if_index=99, bond_sw_if_index=b)["retval"] == -2
    assert sim("bond_add_member", sw_if_index=1, bond_sw_if_index=b)["retval"] == 0
    assert sim("bond_add_member", sw_if_index=1, bond_sw_if_index=b)["retval"] == -81
    assert sim("sw_interface_set_bond_weight", sw_if_index=1, weight=3)["retval"] == -73
    assert sim("bond_delete", sw_if_index=1)["retval"] == -2


def test_bond_link_and_active_members_follow_admin_state(sim: Sim) -> None:
    b = bond_create(sim, mode=bond.MODE_AB)["sw_if_index"]
    sim("bond_add_member", sw_if_index=1, bond_sw_if_index=b)
    sim("bond_add_member", sw_if_index=2, bond_sw_if_index=b)
    sub = sim("create_vlan_subif", sw_if_index=b, vlan_id=10)["sw_if_index"]
    assert sim.itf(b)["flags"] == 0
    sim.up(b)
    sim.up(1)
    assert sim.itf(b)["flags"] == 3
    assert sim.itf(sub)["flags"] & 2  # a sub shows its bond's link
    row = sim.rows("sw_bond_interface_dump", sw_if_index=b)[0]
    assert (row["active_members"], row["members"], row["lb"]) == (1, 2, bond.LB_AB)
    assert sim("sw_interface_set_bond_weight", sw_if_index=2, weight=9)["retval"] == 0
    weights = [m["weight"] for m in sim.rows("sw_member_interface_dump", sw_if_index=b)]
    assert weights == [0, 9]
    sim("sw_interface_set_flags", sw_if_index=1, flags=0)
    assert sim.itf(b)["flags"] == 1


def test_bond_delete_releases_members_and_deletes_subs(sim: Sim) -> None:
    b = bond_create(sim, id=4)["sw_if_index"]
    sim.up(1)
    sim("sw_interface_set_mtu", sw_if_index=1, mtu=[1500, 0, 0, 0])
    sim("bond_add_member", sw_if_index=1, bond_sw_if_index=b)
    sub = sim("create_vlan_subif", sw_if_index=b, vlan_id=10)["sw_if_index"]
    assert sim("bond_delete", sw_if_index=b)["retval"] == 0
    assert sim.rows("sw_interface_dump", sw_if_index=sub) == []
    assert sim.itf(1)["flags"] == 3 and sim.itf(1)["mtu"][0] == 1500
    assert sim.rows("sw_bond_interface_dump", sw_if_index=NONE_INDEX) == []
    # the id, the member and the pool slot are free again
    assert bond_create(sim, id=4)["retval"] == 0
    assert sim("bond_add_member", sw_if_index=1, bond_sw_if_index=b)["retval"] == 0


def test_lacp_dump_lists_lacp_members_only(sim: Sim) -> None:
    lacp_bond = bond_create(sim, mode=bond.MODE_LACP, lb=bond.LB_L34)["sw_if_index"]
    xor_bond = bond_create(sim)["sw_if_index"]
    sim("bond_add_member", sw_if_index=2, bond_sw_if_index=lacp_bond, is_passive=True,
        is_long_timeout=True)
    sim("bond_add_member", sw_if_index=1, bond_sw_if_index=lacp_bond)
    sim("bond_add_member", sw_if_index=3, bond_sw_if_index=xor_bond)
    rows = sim.rows("sw_interface_lacp_dump")
    assert [(r["sw_if_index"], r["actor_state"]) for r in rows] == [(1, 199), (2, 196)]
    assert rows[0]["actor_system"] == sim.itf(lacp_bond)["l2_address"]


def test_tap_names_ids_and_linux_side(sim: Sim) -> None:
    first = sim("tap_create_v3", id=NONE_INDEX)
    named = sim("tap_create_v3", id=5, host_if_name_set=True, host_if_name="tap1")
    again = sim("tap_create_v3", id=NONE_INDEX, tap_flags=tap.FLAG_TUN)
    rows = {r["sw_if_index"]: r for r in sim.rows("sw_interface_tap_v2_dump")}
    assert rows[first["sw_if_index"]]["host_if_name"] == "tap0"
    assert rows[named["sw_if_index"]]["dev_name"] == "tap5"
    tun = rows[again["sw_if_index"]]
    assert (tun["dev_name"], tun["host_if_name"], tun["id"]) == ("tun1", "tun0", 1)
    assert sim.itf(again["sw_if_index"])["link_mtu"] == 0
    assert sim("tap_create_v3", id=9, host_if_name_set=True, host_if_name="tap0")["retval"] == -13
    sim.state.host_interfaces.add("veth0")
    assert sim("tap_create_v3", id=9, host_if_name_set=True, host_if_name="veth0")["retval"] == -13
    assert sim("tap_create_v3", id=9, host_namespace_set=True,
               host_namespace="ns1")["retval"] == -12
    linux(sim.state).add_namespace("ns1")
    assert sim("tap_create_v3", id=9, host_namespace_set=True,
               host_namespace="ns1")["retval"] == 0
    assert sim("tap_create_v3", id=10, rx_ring_sz=1000)["retval"] == -144
    assert sim("tap_create_v3", id=10, host_mtu_set=True, host_mtu_size=70000)["retval"] == -145
    # ids up to TAP_MAX_INSTANCE 8192, as vpp-real answers
    assert sim("tap_create_v3", id=8192)["retval"] == 0
    assert sim("tap_create_v3", id=8193)["retval"] == -1
    assert sim("tap_delete_v2", sw_if_index=first["sw_if_index"])["retval"] == 0
    assert sim("tap_create_v3", id=NONE_INDEX)["retval"] == 0  # id 0 and tap0 reusable
    assert sim("tap_delete_v2", sw_if_index=1)["retval"] == -2


def vxlan_args(**args: Any) -> dict[str, Any]:
    base = {"is_add": True, "instance": NONE_INDEX, "src_address": "10.0.0.1",
            "dst_address": "10.0.0.2", "mcast_sw_if_index": NONE_INDEX, "encap_vrf_id": 0,
            "decap_next_index": NONE_INDEX, "vni": 1}
    return {**base, **args}


def test_vxlan_instances_reuse_pool_slots_last_freed_first(sim: Sim) -> None:
    names = []
    for vni in (1, 2, 3):
        index = sim("vxlan_add_del_tunnel_v3", **vxlan_args(vni=vni))["sw_if_index"]
        names.append(sim.itf(index)["interface_name"])
    assert names == ["vxlan_tunnel0", "vxlan_tunnel1", "vxlan_tunnel2"]
    for vni in (2, 3):
        sim("vxlan_add_del_tunnel_v3", **vxlan_args(is_add=False, vni=vni, instance=77))
    index = sim("vxlan_add_del_tunnel_v3", **vxlan_args(vni=9))["sw_if_index"]
    assert sim.itf(index)["interface_name"] == "vxlan_tunnel2"
    assert sim("vxlan_add_del_tunnel_v3", **vxlan_args(vni=10, instance=2))["retval"] == -147


def test_vxlan_refusals(sim: Sim) -> None:
    assert sim("vxlan_add_del_tunnel_v3", **vxlan_args(dst_address="::2"))["retval"] == -7
    assert sim("vxlan_add_del_tunnel_v3", **vxlan_args(dst_address="10.0.0.1"))["retval"] == -82
    assert sim("vxlan_add_del_tunnel_v3", **vxlan_args(encap_vrf_id=5))["retval"] == -3
    sim("ip_table_add_del", is_add=True, table={"table_id": 5, "is_ip6": False, "name": ""})
    assert sim("vxlan_add_del_tunnel_v3", **vxlan_args(encap_vrf_id=5))["retval"] == 0
    mcast = vxlan_args(dst_address="239.1.1.1")
    assert sim("vxlan_add_del_tunnel_v3", **mcast)["retval"] == -2
    assert sim("vxlan_add_del_tunnel_v3", **{**mcast, "mcast_sw_if_index": 1})["retval"] == 0
    assert sim("vxlan_add_del_tunnel_v3", **{**mcast, "mcast_sw_if_index": 1})["retval"] == -75
    gone = sim("vxlan_add_del_tunnel_v3", **vxlan_args(is_add=False, vni=42))
    assert gone == {"retval": -6, "sw_if_index": NONE_INDEX}


def test_lcp_pair_lifecycle(sim: Sim) -> None:
    add = sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=1, host_if_name="e0")
    host = add["host_sw_if_index"]
    assert sim.itf(host)["interface_name"] == "tap4096"
    assert sim.itf(host)["flags"] == 3
    tap_row = sim.rows("sw_interface_tap_v2_dump", sw_if_index=host)[0]
    assert tap_row["host_mac_addr"] == sim.itf(1)["l2_address"]
    get = sim.dataplane.handle("lcp_itf_pair_get", {"cursor": 0})
    assert get.reply["cursor"] == NONE_INDEX
    assert [p["host_if_name"] for p in get.details] == ["e0"]
    assert sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=1,
               host_if_name="e0b")["retval"] == -81
    assert sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=2,
               host_if_name="e0")["retval"] == -13
    assert sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=2,
               host_if_name="x" * 16)["retval"] == -81
    # 15 characters (Linux's limit) work on vpp-real, through the CLI and every API version
    assert sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=3,
               host_if_name="x" * 15)["retval"] == 0
    # lcp-sync with linux_nl (the recorded VPP's): the phy's packet MTU comes back
    # as its hardware MTU; vpp-real, without linux_nl, keeps its hardware MTU
    lcp.pairs(sim.state).sync = True
    sim("sw_interface_set_mtu", sw_if_index=1, mtu=[1400, 0, 0, 0])
    assert sim.itf(1)["link_mtu"] == 9000
    lcp.pairs(sim.state).linux_nl = True
    sim("sw_interface_set_mtu", sw_if_index=1, mtu=[1500, 0, 0, 0])
    assert sim.itf(1)["link_mtu"] == 1500
    assert sim("lcp_itf_pair_add_del_v3", is_add=False, sw_if_index=1)["retval"] == 0
    assert sim.rows("sw_interface_dump", sw_if_index=host) == []
    assert sim("lcp_itf_pair_add_del_v3", is_add=False, sw_if_index=1)["retval"] == -2


def test_lcp_pair_goes_with_its_interface(sim: Sim) -> None:
    loop = sim("create_loopback_instance", is_specified=True, user_instance=3)["sw_if_index"]
    add = sim("lcp_itf_pair_add_del_v2", is_add=True, sw_if_index=loop, host_if_name="lo3",
              host_if_type=lcp.HOST_TUN)
    assert sim.itf(add["host_sw_if_index"])["interface_name"] == "tun4096"
    assert sim("delete_loopback", sw_if_index=loop)["retval"] == 0
    assert sim.rows("sw_interface_dump", sw_if_index=add["host_sw_if_index"]) == []
    assert sim.dataplane.handle("lcp_itf_pair_get", {"cursor": 0}).details == []
    # the Linux name is free again
    again = sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=1, host_if_name="lo3")
    assert again["retval"] == 0


def test_lcp_subinterfaces_without_kernel_vlan() -> None:
    """The recorded host: no 802.1q, so no Linux VLAN, so no pair (and no auto pair)."""
    sim = Sim(kernel_vlan=False, auto_subint=True)
    sub = sim("create_vlan_subif", sw_if_index=1, vlan_id=100)["sw_if_index"]
    pair = {"is_add": True, "sw_if_index": sub, "host_if_name": "e0.100"}
    assert sim("lcp_itf_pair_add_del_v3", **pair)["retval"] == -2  # parent unpaired
    sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=1, host_if_name="e0")
    assert sim("lcp_itf_pair_add_del_v3", **pair)["retval"] == -73  # no 802.1q
    sim("create_subif", sw_if_index=1, sub_id=200, outer_vlan_id=200, sub_if_flags=18)
    assert [p["host_if_name"] for p in sim.rows("lcp_itf_pair_get", cursor=0)] == ["e0"]


def test_lcp_subinterfaces() -> None:
    """By default the simulated kernel has 802.1q, like a normal Linux."""
    sim = Sim(auto_subint=True)
    sub = sim("create_vlan_subif", sw_if_index=1, vlan_id=100)["sw_if_index"]
    pair = {"is_add": True, "sw_if_index": sub, "host_if_name": "e0.100"}
    assert sim("lcp_itf_pair_add_del_v3", **pair)["retval"] == -2  # parent unpaired
    sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=1, host_if_name="e0")
    add = sim("lcp_itf_pair_add_del_v3", **pair)
    assert add["retval"] == 0
    assert sim.itf(add["host_sw_if_index"])["interface_name"] == "tap4096.100"
    # lcp-auto-subint pairs new subs of paired interfaces
    sim("create_subif", sw_if_index=1, sub_id=200, outer_vlan_id=200, sub_if_flags=18)
    names = [p["host_if_name"] for p in sim.rows("lcp_itf_pair_get", cursor=0)]
    assert names == ["e0", "e0.100", "e0.200"]


def test_lcp_get_pages_with_eagain_when_asked(sim: Sim) -> None:
    for n in range(1, 5):
        sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=n, host_if_name=f"e{n}")
    sim("lcp_itf_pair_add_del_v3", is_add=False, sw_if_index=2)  # a hole in the pool
    lcp.pairs(sim.state).page_size = 2
    seen, cursor = [], 0
    for _ in range(5):
        page = sim.dataplane.handle("lcp_itf_pair_get", {"cursor": cursor})
        seen += [p["host_if_name"] for p in page.details]
        cursor = page.reply["cursor"]
        if page.reply["retval"] == 0:
            break
        assert page.reply["retval"] == -165
    assert (seen, cursor) == (["e1", "e3", "e4"], NONE_INDEX)


def test_lcp_get_v2_answers_all_with_the_v1_reply_name(sim: Sim) -> None:
    sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=1, host_if_name="e0")
    sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=2, host_if_name="e1")
    one = sim.dataplane.handle("lcp_itf_pair_get_v2", {"cursor": 0, "sw_if_index": 2})
    assert [p["phy_sw_if_index"] for p in one.details] == [2]
    assert one.reply_name is None
    every = sim.dataplane.handle("lcp_itf_pair_get_v2", {"cursor": 0, "sw_if_index": NONE_INDEX})
    assert every.reply_name == "lcp_itf_pair_get_reply"
    assert len(every.details) == 2
    assert sim("lcp_default_ns_get") == {"netns": ""}


def test_sflow_settings_and_interfaces(sim: Sim) -> None:
    assert sim("sflow_sampling_rate_get") == {"sampling_N": 10000}
    assert sim("sflow_header_bytes_set", header_B=64)["retval"] == 0
    assert sim("sflow_header_bytes_get") == {"header_B": 64}
    for asked, kept in ((100, 128), (1, 64), (300, 256), (200, 224)):  # as vpp-real keeps them
        assert sim("sflow_header_bytes_set", header_B=asked)["retval"] == 0
        assert sim("sflow_header_bytes_get") == {"header_B": kept}
    sim("sflow_header_bytes_set", header_B=64)
    hw = {sim.itf(i)["sw_if_index"]: sim.state.interfaces[i].hw_if_index for i in (1, 2)}
    assert sim("sflow_enable_disable", enable_disable=True, hw_if_index=hw[2])["retval"] == 0
    assert sim("sflow_enable_disable", enable_disable=True, hw_if_index=hw[2])["retval"] == -81
    assert sim("sflow_enable_disable", enable_disable=False, hw_if_index=hw[1])["retval"] == -81
    assert sim("sflow_enable_disable", enable_disable=True, hw_if_index=999)["retval"] == -2
    assert sim.rows("sflow_interface_dump", hw_if_index=NONE_INDEX) == [{"hw_if_index": hw[2]}]


def test_sflow_enable_takes_a_sw_if_index_and_dumps_the_hw_if_index(sim: Sim) -> None:
    """VPP's sflow_enable_disable reads its `hw_if_index` field as a sw_if_index
    (sflow.c), and sflow_interface_dump reports the hw_if_index. The two differ
    for an interface created after a sub-interface took a sw_if_index."""
    sub = sim("create_vlan_subif", sw_if_index=1, vlan_id=100)["sw_if_index"]
    loop = sim("create_loopback_instance", is_specified=True, user_instance=9)["sw_if_index"]
    hw = sim.state.interfaces[loop].hw_if_index
    assert hw != loop
    assert sim("sflow_enable_disable", enable_disable=True, hw_if_index=loop)["retval"] == 0
    assert sim.rows("sflow_interface_dump", hw_if_index=NONE_INDEX) == [{"hw_if_index": hw}]
    # a sub-interface is not a hardware interface
    assert sim("sflow_enable_disable", enable_disable=True, hw_if_index=sub)["retval"] == -2


def acl_rule(**fields: Any) -> dict[str, Any]:
    return {"is_permit": 1, "src_prefix": "10.0.0.0/8", "dst_prefix": "0.0.0.0/0", "proto": 6,
            "srcport_or_icmptype_first": 0, "srcport_or_icmptype_last": 65535,
            "dstport_or_icmpcode_first": 22, "dstport_or_icmpcode_last": 22,
            "tcp_flags_mask": 0, "tcp_flags_value": 0, **fields}


def test_acl_lifecycle(sim: Sim) -> None:
    a = sim("acl_add_replace", acl_index=NONE_INDEX, tag="a", count=1, r=[acl_rule()])
    b = sim("acl_add_replace", acl_index=NONE_INDEX, tag="b", count=0, r=[])
    assert (a["acl_index"], b["acl_index"]) == (0, 1)
    assert sim("acl_interface_set_acl_list", sw_if_index=1, count=2, n_input=1,
               acls=[0, 1])["retval"] == 0
    row = sim.rows("acl_interface_list_dump", sw_if_index=1)[0]
    assert (row["n_input"], row["acls"]) == (1, [0, 1])
    assert sim("acl_del", acl_index=0)["retval"] == -142
    assert sim("acl_del", acl_index=1)["retval"] == -143  # applied outbound
    assert sim("acl_interface_add_del", is_add=True, is_input=False, sw_if_index=1,
               acl_index=1)["retval"] == -143
    assert sim("acl_interface_add_del", is_add=False, is_input=False, sw_if_index=1,
               acl_index=1)["retval"] == 0
    assert sim("acl_del", acl_index=1)["retval"] == 0
    c = sim("acl_add_replace", acl_index=NONE_INDEX, tag="c", count=0, r=[])
    assert c["acl_index"] == 1  # lowest free index
    replaced = sim("acl_add_replace", acl_index=0, tag="a2", count=1,
                   r=[acl_rule(is_permit=0)])
    assert replaced == {"acl_index": 0, "retval": 0}
    assert sim.rows("acl_dump", acl_index=0)[0]["r"][0]["is_permit"] == 0


def test_acls_of_a_deleted_interface_are_released(sim: Sim) -> None:
    sim("acl_add_replace", acl_index=NONE_INDEX, tag="a", count=0, r=[])
    loop = sim("create_loopback", mac_address="02:00:00:00:00:01")["sw_if_index"]
    sim("acl_interface_add_del", is_add=True, is_input=True, sw_if_index=loop, acl_index=0)
    assert sim("acl_del", acl_index=0)["retval"] == -142
    sim("delete_loopback", sw_if_index=loop)
    assert sim("acl_del", acl_index=0)["retval"] == 0


def test_many_plugin_objects_stay_fast(sim: Sim) -> None:
    """10,000 interfaces: every create/delete stays O(1) (a few seconds in all)."""
    for n in range(2500):
        assert sim("tap_create_v3", id=NONE_INDEX)["retval"] == 0
        assert sim("vxlan_add_del_tunnel_v3", **vxlan_args(vni=n))["retval"] == 0
        assert bond_create(sim)["retval"] == 0
    loops = [sim("create_loopback", mac_address="02:00:00:00:00:01")["sw_if_index"]
             for _ in range(2500)]
    for n, loop in enumerate(loops):
        assert sim("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop,
                   host_if_name=f"l{n}")["retval"] == 0
    assert len(sim.rows("lcp_itf_pair_get", cursor=0)) == 2500


def test_plugin_messages_through_vpp_papi(vpp_sim: Any) -> None:
    """The plugin replies survive the real client: odd reply shapes (sflow
    getters without retval, lcp's reply+details stream) included."""
    vpp = vpp_sim.client().api
    bond_reply = vpp.bond_create2(mode=3, lb=0, id=9)
    assert bond_reply.retval == 0
    assert vpp.bond_add_member(sw_if_index=1, bond_sw_if_index=bond_reply.sw_if_index).retval == 0
    members = vpp.sw_member_interface_dump(sw_if_index=bond_reply.sw_if_index)
    assert [m.interface_name for m in members] == ["GigabitEthernet3/0/0"]
    pair = vpp.lcp_itf_pair_add_del_v3(is_add=True, sw_if_index=2, host_if_name="e1")
    assert pair.retval == 0
    reply, pairs_ = vpp.lcp_itf_pair_get(cursor=0)
    assert reply.cursor == NONE_INDEX
    assert [(p.phy_sw_if_index, p.host_if_name) for p in pairs_] == [(2, "e1")]
    assert vpp.sflow_sampling_rate_get().sampling_N == 10000
    tunnel = vpp.vxlan_add_del_tunnel_v3(is_add=True, instance=NONE_INDEX, src_address="10.0.0.1",
                                         dst_address="10.0.0.2", vni=5,
                                         mcast_sw_if_index=NONE_INDEX,
                                         decap_next_index=NONE_INDEX)
    assert tunnel.retval == 0
    dump = vpp.vxlan_tunnel_v2_dump(sw_if_index=NONE_INDEX)
    assert [(str(t.dst_address), t.dst_port) for t in dump] == [("10.0.0.2", 4789)]
    acl_reply = vpp.acl_add_replace(acl_index=NONE_INDEX, tag="t", count=1, r=[acl_rule()])
    assert (acl_reply.retval, acl_reply.acl_index) == (0, 0)
    assert str(vpp.acl_dump(acl_index=0)[0].r[0].src_prefix) == "10.0.0.0/8"
    assert vpp.tap_create_v3(id=NONE_INDEX, use_random_mac=True).retval == 0
    taps = vpp.sw_interface_tap_v2_dump(sw_if_index=NONE_INDEX)
    assert [t.host_if_name for t in taps] == ["e1", "tap0"]  # the lcp host tap first
