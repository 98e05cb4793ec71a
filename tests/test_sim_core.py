"""The simulator's core model (vppcfg.sim.dataplane / state / core) beyond the traces:
inventory PHYs, index reuse, cascades, hooks, fault injection and scale."""

from __future__ import annotations

from typing import Any

import pytest

from vppcfg.sim.cli import SimCli
from vppcfg.sim.dataplane import SimDataplane, is_mutating, load_plugins
from vppcfg.sim.inventory import Phy, default_inventory
from vppcfg.sim.state import NONE_INDEX, SimState

ALL = {"sw_if_index": NONE_INDEX, "name_filter_valid": False, "name_filter": ""}


def call(model: SimDataplane, message: str, **args: Any) -> dict[str, Any]:
    response = model.handle(message, args)
    assert response.reply is not None, message
    return response.reply


def ok(model: SimDataplane, message: str, **args: Any) -> dict[str, Any]:
    reply = call(model, message, **args)
    assert reply["retval"] == 0, (message, args, reply)
    return reply


def dump(model: SimDataplane, message: str = "sw_interface_dump", **args: Any) -> list[dict]:
    return model.handle(message, args or dict(ALL)).details


def by_name(model: SimDataplane) -> dict[str, dict[str, Any]]:
    return {d["interface_name"]: d for d in dump(model)}


@pytest.fixture
def model() -> SimDataplane:
    return SimDataplane(default_inventory(), host_interfaces=["veth0a", "veth1a"])


def test_inventory_phys_look_like_vpp(model: SimDataplane) -> None:
    rows = dump(model)
    assert [r["interface_name"] for r in rows] == ["local0"] + [
        f"GigabitEthernet3/0/{n}" for n in range(4)
    ]
    local0, phy = rows[0], rows[1]
    assert (local0["sw_if_index"], local0["flags"], local0["link_mtu"]) == (0, 0, 0)
    assert local0["mtu"] == [0, 0, 0, 0] and local0["interface_dev_type"] == "local"
    assert phy["sw_if_index"] == 1 and phy["sup_sw_if_index"] == 1
    assert phy["interface_dev_type"] == "dpdk" and phy["l2_address"] == "02:fe:00:00:00:01"
    assert (phy["flags"], phy["link_mtu"], phy["mtu"]) == (2, 9000, [9000, 0, 0, 0])


def test_link_follows_admin_transitions(model: SimDataplane) -> None:
    port = ok(model, "af_packet_create_v3", host_if_name="veth0a", use_random_hw_addr=True)
    for sw in (1, port["sw_if_index"]):
        ok(model, "sw_interface_set_flags", sw_if_index=sw, flags=1)
        ok(model, "sw_interface_set_flags", sw_if_index=sw, flags=0)
    ok(model, "sw_interface_set_flags", sw_if_index=2, flags=2)  # LINK_UP only: no transition
    ok(model, "sw_interface_set_flags", sw_if_index=3, flags=1)
    rows = by_name(model)
    assert rows["GigabitEthernet3/0/0"]["flags"] == 0
    assert rows["host-veth0a"]["flags"] == 0
    assert rows["GigabitEthernet3/0/1"]["flags"] == 2
    assert rows["GigabitEthernet3/0/2"]["flags"] == 3
    assert rows["host-veth0a"]["l2_address"].startswith("02:fe:")


def test_custom_inventory_mtu_and_dev_type() -> None:
    model = SimDataplane([Phy("TenGigabitEthernet1/0/0", "02:00:00:00:00:AA", 1500, "virtio")])
    phy = by_name(model)["TenGigabitEthernet1/0/0"]
    assert (phy["link_mtu"], phy["mtu"][0], phy["interface_dev_type"]) == (1500, 1500, "virtio")
    assert phy["l2_address"] == "02:00:00:00:00:aa"


def test_freed_indexes_are_reused_last_freed_first(model: SimDataplane) -> None:
    subs = [
        ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=v)["sw_if_index"] for v in (10, 20)
    ]
    assert subs == [5, 6]
    ok(model, "delete_subif", sw_if_index=5)
    ok(model, "delete_subif", sw_if_index=6)
    assert ok(model, "create_loopback", mac_address="00:00:00:00:00:00")["sw_if_index"] == 6
    assert ok(model, "create_loopback", mac_address="00:00:00:00:00:00")["sw_if_index"] == 5


def test_an_outer_tag_of_any_is_refused_as_vpp_does(model: SimDataplane) -> None:
    # vpp-real: `dot1q any` (also with `inner-dot1q any`) is -1 "not implemented yet"
    for flags in (2 | 64, 4 | 64 | 128, 2 | 64 | 16):
        refused = call(model, "create_subif", sw_if_index=1, sub_id=300, sub_if_flags=flags)
        assert refused["retval"] == -1
    assert ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=7)["sw_if_index"] == 5
    cli = SimCli(model)
    out, retval = cli.run("create sub-interfaces GigabitEthernet3/0/0 302 dot1q any")
    assert (out, retval) == ("create sub-interfaces: not implemented yet\n", -1)
    out, retval = cli.run("create sub-interfaces GigabitEthernet3/0/0 8 dot1q 7 exact-match")
    assert (out, retval) == ("create sub-interfaces: vlan is already in use\n", -1)


def test_loopback_instances_end_at_vpps_limit(model: SimDataplane) -> None:
    # vpp-real: 16383 works, 16384 (LOOPBACK_MAX_INSTANCE) and up are -31
    ok(model, "create_loopback_instance", is_specified=True, user_instance=16383)
    assert call(model, "create_loopback_instance", is_specified=True,
                user_instance=16384)["retval"] == -31


def test_refused_sub_reports_the_index_the_next_create_gets(model: SimDataplane) -> None:
    ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=100)
    clash = call(
        model, "create_subif", sw_if_index=1, sub_id=7, outer_vlan_id=100, sub_if_flags=2 | 16
    )  # same exact-match vlan as .100
    assert clash == {"retval": -1, "sw_if_index": 6}
    assert ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=7)["sw_if_index"] == 6
    assert call(model, "create_vlan_subif", sw_if_index=1, vlan_id=7)["retval"] == -56


def test_deleting_a_parent_cascades(model: SimDataplane) -> None:
    port = ok(model, "af_packet_create_v3", host_if_name="veth0a", hw_addr="02:00:00:00:00:01")
    parent = port["sw_if_index"]
    sub = ok(model, "create_vlan_subif", sw_if_index=parent, vlan_id=10)["sw_if_index"]
    nested = ok(
        model, "create_subif", sw_if_index=sub, sub_id=11, outer_vlan_id=11, sub_if_flags=2
    )["sw_if_index"]
    ok(model, "sw_interface_set_l2_bridge", rx_sw_if_index=sub, bd_id=10, port_type=0, shg=0)
    ok(model, "sw_interface_set_l2_bridge", rx_sw_if_index=2, bd_id=10, port_type=0, shg=0)
    ok(model, "sw_interface_set_l2_xconnect", rx_sw_if_index=parent, tx_sw_if_index=3)
    ok(model, "sw_interface_add_del_address", sw_if_index=parent, is_add=True, prefix="10.0.0.1/24")
    ok(
        model,
        "sw_interface_set_unnumbered",
        sw_if_index=parent,
        unnumbered_sw_if_index=4,
        is_add=True,
    )
    deleted: list[int] = []
    model.state.on_delete.append(lambda state, sw: deleted.append(sw))

    ok(model, "af_packet_delete", host_if_name="veth0a")

    assert deleted == [nested, sub, parent]  # subs go first
    assert {parent, sub, nested}.isdisjoint(model.state.interfaces)
    (bd,) = dump(model, "bridge_domain_dump", bd_id=NONE_INDEX, sw_if_index=NONE_INDEX)
    assert bd["sw_if_details"] == [{"sw_if_index": 2, "shg": 0}]
    assert dump(model, "l2_xconnect_dump") == []
    assert dump(model, "ip_unnumbered_dump", sw_if_index=NONE_INDEX) == []
    assert dump(model, "af_packet_dump") == []
    # the name, the address and the Linux interface are free again
    again = ok(model, "af_packet_create_v3", host_if_name="veth0a", hw_addr="02:00:00:00:00:01")
    assert again["sw_if_index"] == parent
    ok(model, "sw_interface_add_del_address", sw_if_index=2, is_add=True, prefix="10.0.0.2/24")


def test_on_change_hooks_see_successful_mutations_only(model: SimDataplane) -> None:
    seen: list[str] = []
    model.state.on_change.append(lambda state, message, args: seen.append(message))
    ok(model, "sw_interface_set_mtu", sw_if_index=1, mtu=[1500, 0, 0, 0])
    call(model, "sw_interface_set_mtu", sw_if_index=99, mtu=[1500, 0, 0, 0])  # -2
    dump(model)
    assert seen == ["sw_interface_set_mtu"]


def test_hw_mtu_resets_l3_mtu_of_interface_and_subs(model: SimDataplane) -> None:
    sub = ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=10)["sw_if_index"]
    ok(model, "sw_interface_set_mtu", sw_if_index=sub, mtu=[1400, 1300, 0, 0])
    ok(model, "hw_interface_set_mtu", sw_if_index=1, mtu=1500)
    rows = by_name(model)
    assert rows["GigabitEthernet3/0/0"]["mtu"] == [1500, 0, 0, 0]
    assert rows["GigabitEthernet3/0/0.10"]["mtu"] == [1500, 1300, 0, 0]
    assert rows["GigabitEthernet3/0/0.10"]["link_mtu"] == 1500
    assert call(model, "hw_interface_set_mtu", sw_if_index=sub, mtu=1500)["retval"] == -7
    assert call(model, "hw_interface_set_mtu", sw_if_index=0, mtu=1500)["retval"] == -30


def test_vlan_tag_rewrite_and_tag_show_in_dump(model: SimDataplane) -> None:
    sub = ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=10)["sw_if_index"]
    ok(model, "l2_interface_vlan_tag_rewrite", sw_if_index=sub, vtr_op=3, push_dot1q=1, tag1=5)
    assert call(model, "l2_interface_vlan_tag_rewrite", sw_if_index=sub, vtr_op=4)["retval"] == -7
    ok(model, "sw_interface_tag_add_del", is_add=True, sw_if_index=sub, tag="uplink")
    row = by_name(model)["GigabitEthernet3/0/0.10"]
    assert (row["vtr_op"], row["vtr_push_dot1q"], row["vtr_tag1"], row["tag"]) == (
        3,
        0,
        0,
        "uplink",
    )
    ok(model, "l2_interface_vlan_tag_rewrite", sw_if_index=2, vtr_op=1, push_dot1q=1, tag1=100)
    row = by_name(model)["GigabitEthernet3/0/1"]
    assert (row["vtr_op"], row["vtr_push_dot1q"], row["vtr_tag1"]) == (1, 1, 100)
    ok(model, "sw_interface_tag_add_del", is_add=False, sw_if_index=sub, tag="")
    assert by_name(model)["GigabitEthernet3/0/0.10"]["tag"] == ""


def test_address_overlap_is_per_vrf(model: SimDataplane) -> None:
    ok(model, "sw_interface_add_del_address", sw_if_index=1, is_add=True, prefix="10.1.0.1/16")
    add = {"is_add": True}
    assert (
        call(model, "sw_interface_add_del_address", sw_if_index=2, prefix="10.1.2.1/24", **add)[
            "retval"
        ]
        == -105
    )  # inside an existing supernet
    assert (
        call(model, "sw_interface_add_del_address", sw_if_index=2, prefix="10.0.0.1/8", **add)[
            "retval"
        ]
        == -105
    )  # covers an existing subnet
    ok(model, "ip_table_add_del", is_add=True, table={"table_id": 7, "is_ip6": False})
    ok(model, "sw_interface_set_table", sw_if_index=2, is_ipv6=False, vrf_id=7)
    ok(model, "sw_interface_add_del_address", sw_if_index=2, prefix="10.1.2.1/24", **add)
    assert (
        call(model, "sw_interface_set_table", sw_if_index=2, is_ipv6=False, vrf_id=0)["retval"]
        == -114
    )
    assert call(model, "sw_interface_get_table", sw_if_index=2, is_ipv6=False)["vrf_id"] == 7
    ok(model, "sw_interface_add_del_address", sw_if_index=1, is_add=False, prefix="10.1.0.1/16")
    ok(model, "sw_interface_add_del_address", sw_if_index=3, prefix="10.1.2.1/24", **add)


def test_bridge_feature_bitmap_follows_flags(model: SimDataplane) -> None:
    ok(
        model,
        "bridge_domain_add_del_v2",
        bd_id=5,
        flood=True,
        uu_flood=True,
        forward=True,
        learn=True,
        is_add=True,
    )
    cleared = call(model, "bridge_flags", bd_id=5, is_set=False, flags=1 | 4)
    assert cleared["resulting_feature_bitmap"] == 4294966691  # as recorded from VPP 26.10
    (bd,) = dump(model, "bridge_domain_dump", bd_id=5, sw_if_index=NONE_INDEX)
    assert (bd["learn"], bd["flood"], bd["forward"]) == (False, False, True)


def test_mpls_enable_count_wraps_like_vpp(model: SimDataplane) -> None:
    assert call(model, "sw_interface_set_mpls_enable", sw_if_index=1, enable=True)["retval"] == -3
    ok(model, "mpls_table_add_del", mt_is_add=True, mt_table={"mt_table_id": 0, "mt_name": ""})
    ok(model, "sw_interface_set_mpls_enable", sw_if_index=1, enable=True)
    ok(model, "sw_interface_set_mpls_enable", sw_if_index=2, enable=False)
    ok(model, "sw_interface_set_mpls_enable", sw_if_index=1, enable=False)
    assert dump(model, "mpls_interface_dump", sw_if_index=NONE_INDEX) == [{"sw_if_index": 2}]


def test_mutating_messages_are_classified() -> None:
    for read in (
        "sw_interface_dump",
        "show_version",
        "control_ping",
        "lcp_itf_pair_get_v2",
        "sflow_sampling_rate_get",
        "sw_interface_get_table",
        "cli_inband",
    ):
        assert not is_mutating(read), read
    for write in (
        "sw_interface_set_flags",
        "create_loopback",
        "bridge_flags",
        "lcp_itf_pair_add_del_v3",
    ):
        assert is_mutating(write), write


WORKLOAD: list[tuple[str, dict[str, Any]]] = [
    ("create_loopback", {"mac_address": "00:00:00:00:00:00"}),
    ("sw_interface_dump", dict(ALL)),
    ("create_vlan_subif", {"sw_if_index": 1, "vlan_id": 10}),
    ("sw_interface_set_flags", {"sw_if_index": 1, "flags": 1}),
    ("sw_interface_add_del_address", {"sw_if_index": 6, "is_add": True, "prefix": "10.0.0.1/24"}),
    ("bridge_domain_add_del_v2", {"bd_id": 3, "flood": True, "is_add": True}),
    ("sw_interface_set_l2_bridge", {"rx_sw_if_index": 5, "bd_id": 3, "port_type": 1}),
    ("ip_address_dump", {"sw_if_index": 6, "is_ipv6": False}),
    ("delete_subif", {"sw_if_index": 6}),
]


def snapshot(model: SimDataplane) -> list[Any]:
    return [
        dump(model),
        dump(model, "bridge_domain_dump", bd_id=NONE_INDEX, sw_if_index=NONE_INDEX),
        *(dump(model, "ip_address_dump", sw_if_index=i, is_ipv6=False) for i in range(8)),
    ]


def test_fail_after_fails_exactly_the_nth_mutation_without_changing_state() -> None:
    clean = SimDataplane(default_inventory())
    for message, args in WORKLOAD:
        assert clean.handle(message, dict(args)).reply is not None or message.endswith("_dump")
    k = clean.mutations
    assert k == 7
    for n in range(1, k + 1):
        model = SimDataplane(default_inventory(), fail_after=n)
        failed = []
        for message, args in WORKLOAD:
            before = snapshot(model)
            response = model.handle(message, dict(args))
            if is_mutating(message) and model.mutations == n:
                assert response.reply is not None and response.reply["retval"] == -1
                if "create" in message:
                    assert response.reply["sw_if_index"] == NONE_INDEX
                assert snapshot(model) == before, f"call {n} changed state"
                failed.append(message)
        assert len(failed) == 1 and model.mutations == k


def test_missing_plugins_are_tolerated() -> None:
    assert load_plugins(SimState(), ["no_such_plugin"]) == {}
    with pytest.raises(KeyError):
        SimDataplane([], plugins=()).handle("bond_create2", {})


def test_ten_thousand_subs_are_created_dumped_and_deleted(model: SimDataplane) -> None:
    count = 10_000
    for vlan in range(1, count + 1):
        outer, inner = divmod(vlan, 4000)
        ok(
            model,
            "create_subif",
            sw_if_index=1,
            sub_id=vlan,
            outer_vlan_id=outer + 1,
            inner_vlan_id=inner + 1,
            sub_if_flags=4 | 16,
        )
    assert len(dump(model)) == count + 5
    named = dump(
        model,
        sw_if_index=NONE_INDEX,
        name_filter_valid=True,
        name_filter=f"GigabitEthernet3/0/0.{count}",
    )
    assert [r["sub_id"] for r in named] == [count]
    lower = dump(model, sw_if_index=NONE_INDEX, name_filter_valid=True, name_filter="ethernet3/0/3")
    assert [r["interface_name"] for r in lower] == ["GigabitEthernet3/0/3"]
    ok(model, "sw_interface_set_flags", sw_if_index=1, flags=1)
    ok(model, "sw_interface_set_flags", sw_if_index=count + 4, flags=1)
    assert model.state.by_name(f"GigabitEthernet3/0/0.{count}").sw_if_index == count + 4
    model.state.delete_interface(1)
    assert len(dump(model)) == 4 and not model.state.sub_index


def test_injected_fault_reaches_a_real_client(vpp_sim_factory: Any) -> None:
    handle = vpp_sim_factory(fail_after=2)
    client = handle.client()
    first = client.api.create_loopback(mac_address="02:00:00:00:00:01")
    failed = client.api.create_loopback(mac_address="02:00:00:00:00:02")
    assert (first.retval, first.sw_if_index) == (0, 5)
    assert (failed.retval, failed.sw_if_index) == (-1, NONE_INDEX)
    names = [d.interface_name for d in client.api.sw_interface_dump(sw_if_index=NONE_INDEX)]
    assert names[-1] == "loop0" and len(names) == 6
    assert handle.dataplane.mutations == 2


def test_version_over_the_wire_and_threads(vpp_sim: Any) -> None:
    client = vpp_sim.client()
    assert client.api.show_version().version == "26.10-rc0~374-gb575ec2c56d"
    threads = call(vpp_sim.dataplane, "show_threads")
    assert threads["count"] == 1 and threads["thread_data"][0]["name"] == "vpp_main"


def test_rename_moves_the_name_index_and_the_sub_names(model: SimDataplane) -> None:
    ok(model, "create_vlan_subif", sw_if_index=1, vlan_id=10)
    ok(model, "sw_interface_set_interface_name", sw_if_index=1, name="uplink0")
    assert model.state.by_name("GigabitEthernet3/0/0") is None
    assert model.state.by_name("uplink0").sw_if_index == 1
    assert model.state.by_name("uplink0.10").sw_if_index == 5
    assert {"uplink0", "uplink0.10"} <= set(by_name(model))
    taken = call(model, "sw_interface_set_interface_name", sw_if_index=2, name="uplink0")
    assert taken["retval"] == -7
