"""Simulator fixes: a kernel with 802.1q by default, `show hardware-interfaces`,
the bridge-domain setters' VPP syntax, and the backend's hw_if_index lookup
(sflow is keyed by hw_if_index, which differs from sw_if_index once a PHY is
created after a sub-interface)."""

from __future__ import annotations

from typing import Any

from tests.apply_models import dp, phy
from vppcfg.apply import apply_config, format_outcome
from vppcfg.objects.sflow import parse_hw_table
from vppcfg.sim.__main__ import build_parser, make_dataplane
from vppcfg.sim.cli import SimCli
from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory
from vppcfg.sim.plugins._util import linux
from vppcfg.vpp import VppConnection

NONE = 0xFFFFFFFF


def cli(model: SimDataplane, text: str) -> str:
    out, retval = SimCli(model).run(text)
    assert retval == 0, out
    return out


def test_kernel_vlan_is_on_by_default_and_can_be_turned_off() -> None:
    args = build_parser().parse_args(["--socket", "x"])
    assert linux(make_dataplane(default_inventory(), None, args.kernel_vlan).state).vlan_support
    args = build_parser().parse_args(["--socket", "x", "--no-kernel-vlan"])
    model = make_dataplane(default_inventory(), None, args.kernel_vlan)
    cli(model, "lcp create GigabitEthernet3/0/0 host-if e0\n"
               "create sub-interfaces GigabitEthernet3/0/0 100")
    out, retval = SimCli(model).run("lcp create GigabitEthernet3/0/0.100 host-if e0.100")
    assert retval == -1 and "(-73)" in out
    # a normal kernel, and lcp-auto-subint off (VPP's default, what vppcfg needs):
    # a new sub stays unpaired until vppcfg pairs it
    model = SimDataplane(default_inventory())
    cli(model, "lcp create GigabitEthernet3/0/0 host-if e0\n"
               "create sub-interfaces GigabitEthernet3/0/0 100\n"
               "create sub-interfaces GigabitEthernet3/0/0 200\n"
               "lcp create GigabitEthernet3/0/0.200 host-if v200")
    pairs = model.handle("lcp_itf_pair_get", {"cursor": 0}).details
    assert [p["host_if_name"] for p in pairs] == ["e0", "v200"]
    auto = make_dataplane(default_inventory(), None, True, lcp_auto_subint=build_parser()
                          .parse_args(["--socket", "x", "--lcp-auto-subint"]).lcp_auto_subint)
    cli(auto, "lcp create GigabitEthernet3/0/0 host-if e0\n"
              "create sub-interfaces GigabitEthernet3/0/0 100")
    pairs = auto.handle("lcp_itf_pair_get", {"cursor": 0}).details
    assert [p["host_if_name"] for p in pairs] == ["e0", "e0.100"]
    assert linux(SimDataplane([], kernel_vlan=False).state).vlan_support is False


def test_bridge_domain_setters_follow_l2_bd_c() -> None:
    model = SimDataplane(default_inventory())
    cli(model, "create bridge-domain 10\n"
               "set bridge-domain learn 10 disable\nset bridge-domain forward 10 disable\n"
               "set bridge-domain flood 10 disable\nset bridge-domain uu-flood 10 disable\n"
               "set bridge-domain arp term 10\nset bridge-domain arp-ufwd 10\n"
               "set bridge-domain mac-age 10 5")
    bd = model.handle("bridge_domain_dump", {"bd_id": 10, "sw_if_index": NONE}).details[0]
    assert [bd[k] for k in ("learn", "forward", "flood", "uu_flood", "arp_term", "arp_ufwd",
                            "mac_age")] == [False, False, False, False, True, True, 5]
    cli(model, "set bridge-domain learn 10\nset bridge-domain arp term 10 disable")
    bd = model.handle("bridge_domain_dump", {"bd_id": 10, "sw_if_index": NONE}).details[0]
    assert (bd["learn"], bd["arp_term"]) == (True, False)
    errors = {
        "set bridge-domain learn 11": "set bridge-domain learn: No such bridge domain 11",
        "set bridge-domain flood 0": "set bridge-domain flood: No operations on the default "
                                     "bridge domain are supported",
        "set bridge-domain uu-flood x": "set bridge-domain uu-flood: expecting bridge-domain "
                                        "id but got `x'",
        "set bridge-domain mac-age 10 256": "set bridge-domain mac-age: mac aging time cannot "
                                            "be bigger than 255",
        "set bridge-domain mac-age 10 soon": "set bridge-domain mac-age: expecting ageing time "
                                             "in minutes but got `soon'",
    }
    for text, message in errors.items():
        assert SimCli(model).run(text) == (message + "\n", -1)


def after_a_sub(model: SimDataplane) -> None:
    """A sub-interface takes sw_if_index 5, so the next PHY is sw 6 but hw 5."""
    cli(model, "create sub-interfaces GigabitEthernet3/0/0 100")
    reply = model.handle("af_packet_create_v3", {"host_if_name": "veth0a", "mode": 1,
                                                 "use_random_hw_addr": True}).reply
    assert reply["retval"] == 0 and reply["sw_if_index"] == 6


def test_show_hardware_interfaces_looks_like_vpp() -> None:
    model = SimDataplane(default_inventory(), host_interfaces=["veth0a"])
    after_a_sub(model)
    cli(model, "create bond mode lacp id 0\nbond add BondEthernet0 GigabitEthernet3/0/3")
    lines = cli(model, "show hardware-interfaces brief").splitlines()
    assert lines[0] == "              Name                Idx   Link  Hardware"
    rows = {line.split()[0]: line for line in lines[1:] if not line.startswith(" ")}
    assert rows["host-veth0a"] == f"{'host-veth0a':<32}   5     up   host-veth0a"
    assert rows["GigabitEthernet3/0/3"].split()[1:3] == ["4", "slave"]
    assert rows["BondEthernet0"].endswith("Slave-Idx: 4")
    assert "GigabitEthernet3/0/0.100" not in rows  # subs have no hardware of their own
    assert all(line == "  Link speed: unknown" for line in lines[2::2])
    one = cli(model, "show hardware-interfaces 5").splitlines()
    assert [line.split()[0] for line in one[1:] if not line.startswith(" ")] == ["host-veth0a"]
    table = parse_hw_table("\n".join(lines), ["host-veth0a", "GigabitEthernet3/0/3", "local0"])
    assert table == {"host-veth0a": 5, "GigabitEthernet3/0/3": 4, "local0": 0}


def test_parse_hw_table_survives_long_names_and_noise() -> None:
    long = "VirtualFunctionEthernet3b/0/1.very"  # 34 characters: runs into the index
    text = (
        "              Name                Idx   Link  Hardware\n"
        "0: format_dpdk_device:590: rte_eth_dev_rss_hash_conf_get returned -95\n"
        f"{long}123456  down  {long}\n"
        "  Link speed: unknown\n"
        "loop10                            12    down  loop10\n"
        "  Ethernet address 02:fe:00:00:00:01\n"
        "GigabitEthernet3/0/2               3    slave GigabitEthernet3/0/2\n"
    )
    table = parse_hw_table(text, [long, "loop10", "loop1", "GigabitEthernet3/0/2"])
    assert table == {long: 123456, "loop10": 12, "GigabitEthernet3/0/2": 3}


def test_sflow_uses_the_hw_index_of_a_phy_made_after_a_sub(vpp_sim_factory: Any) -> None:
    model = SimDataplane(default_inventory(), host_interfaces=["veth0a"])
    after_a_sub(model)
    sim = vpp_sim_factory(handler=model)
    desired = dp(phy("host-veth0a", sflow=True))
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        outcome = apply_config(conn, desired)
        assert outcome.ok, format_outcome(outcome)
        assert [d["hw_if_index"] for d in
                model.handle("sflow_interface_dump", {"hw_if_index": NONE}).details] == [5]
        live = conn.dump()
        assert live.interfaces["host-veth0a"].sflow
        assert not any(i.sflow for n, i in live.interfaces.items() if n != "host-veth0a")
        assert apply_config(conn, dp(phy("host-veth0a"))).ok
        assert model.handle("sflow_interface_dump", {"hw_if_index": NONE}).details == []
