"""The simulator's VPP CLI (cli_inband).

First against a recording model (what API calls each command turns into), then
end to end: CLI text sent with cli_inband over the socket, the outcome read back
with the API dumps of the real behaviour model.
"""

from __future__ import annotations

from typing import Any

import pytest

from vppcfg.sim.cli import SimCli
from vppcfg.sim.protocol import Response

NONE = 0xFFFFFFFF
PHYS = ["GigabitEthernet3/0/0", "GigabitEthernet3/0/1", "GigabitEthernet3/0/2"]


class Recorder:
    """Knows three interfaces and says yes to everything else, remembering the calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.names = {i + 1: n for i, n in enumerate(PHYS)}

    def handle(self, name: str, args: dict[str, Any]) -> Response:
        if name == "sw_interface_dump":
            return Response(details=[{"sw_if_index": i, "interface_name": n}
                                     for i, n in self.names.items()])
        if name in ("bridge_domain_dump", "l2_xconnect_dump", "ip_unnumbered_dump"):
            return Response(details=[])
        self.calls.append((name, args))
        if name == "delete_loopback":
            raise KeyError(name)  # a model without this message
        self.names[10 + len(self.calls)] = f"new{len(self.calls)}"
        return Response(reply={"retval": 0, "sw_if_index": 10 + len(self.calls)})


def run(text: str) -> tuple[Recorder, str, int]:
    model = Recorder()
    out, retval = SimCli(model).run(text)
    return model, out, retval


def only_call(text: str) -> tuple[str, dict[str, Any]]:
    model, out, retval = run(text)
    assert retval == 0, out
    assert len(model.calls) == 1, model.calls
    return model.calls[0]


def test_commands_become_api_calls_with_full_arguments() -> None:
    name, args = only_call("create sub-interfaces GigabitEthernet3/0/1 100 dot1ad 100 "
                           "inner-dot1q 200 exact-match")
    assert name == "create_subif"
    assert (args["sw_if_index"], args["sub_id"], args["outer_vlan_id"], args["inner_vlan_id"]) == (
        2, 100, 100, 200)
    assert args["sub_if_flags"] == 4 | 8 | 16  # TWO_TAGS | DOT1AD | EXACT_MATCH
    assert only_call("create sub-interfaces GigabitEthernet3/0/0 7")[1]["sub_if_flags"] == 2 | 16
    default = only_call("create sub-interfaces GigabitEthernet3/0/0 8 default")[1]
    assert default["sub_if_flags"] == 32

    name, args = only_call("create tap id 3 host-if-name vpp-tap3 host-ns ns1 host-mtu-size 1500 "
                           "host-ip4-addr 10.1.1.1/24 rx-ring-size 512 gso")
    assert name == "tap_create_v3"
    assert (args["id"], args["host_if_name"], args["host_if_name_set"]) == (3, "vpp-tap3", True)
    assert (args["host_namespace"], args["host_namespace_set"]) == ("ns1", True)
    assert (args["host_mtu_set"], args["host_mtu_size"], args["rx_ring_sz"]) == (True, 1500, 512)
    assert args["host_ip4_prefix"] == "10.1.1.1/24" and args["tap_flags"] == 1
    assert args["tx_ring_sz"] == 256 and args["num_rx_queues"] == 1  # .api defaults, as on the wire

    name, args = only_call("set acl-plugin acl permit src 10.0.0.0/8 dst 0.0.0.0/0 proto 6 "
                           "sport 1024-65535 dport 80-80, deny src ::/0 dst ::/0 tag web")
    assert (name, args["acl_index"], args["tag"], args["count"]) == ("acl_add_replace", NONE,
                                                                       "web", 2)
    first, second = args["r"]
    assert (first["is_permit"], first["src_prefix"], first["proto"]) == (1, "10.0.0.0/8", 6)
    assert (first["srcport_or_icmptype_first"], first["dstport_or_icmpcode_last"]) == (1024, 80)
    assert (second["is_permit"], second["dst_prefix"]) == (0, "::/0")

    # as acl.c parses (seen on vpp-real): a word it does not know ends the rule
    # silently, tag included, and the tag defaults to `cli`; tcpflags VALUE [mask] MASK
    args = only_call("set acl-plugin acl permit ipv6 proto 17 dport 53 tag dns6")[1]
    (rule,) = args["r"]
    assert (args["tag"], rule["is_permit"], rule["proto"], rule["src_prefix"]) == \
        ("cli", 1, 0, "0.0.0.0/0")
    args = only_call("set acl-plugin acl permit proto 6 tcpflags 2 2, deny tcpflags 1 mask 3 "
                     "src 10.0.0.1/8 tag syn")[1]
    first, second = args["r"]
    assert args["tag"] == "syn"
    assert (first["tcp_flags_value"], first["tcp_flags_mask"]) == (2, 2)
    assert (second["tcp_flags_value"], second["tcp_flags_mask"], second["src_prefix"]) == \
        (1, 3, "10.0.0.0/8")

    cases = {
        "set interface state GigabitEthernet3/0/2 up": ("sw_interface_set_flags",
                                                        {"sw_if_index": 3, "flags": 1}),
        "set interface mtu packet 1500 GigabitEthernet3/0/0": (
            "sw_interface_set_mtu", {"sw_if_index": 1, "mtu": [1500, 0, 0, 0]}),
        "set interface mtu 9216 GigabitEthernet3/0/0": ("hw_interface_set_mtu",
                                                        {"sw_if_index": 1, "mtu": 9216}),
        "set interface ip address del GigabitEthernet3/0/0 2001:db8::1/64": (
            "sw_interface_add_del_address",
            {"sw_if_index": 1, "is_add": False, "del_all": False, "prefix": "2001:db8::1/64"}),
        "set interface unnumbered GigabitEthernet3/0/1 use GigabitEthernet3/0/0": (
            "sw_interface_set_unnumbered",
            {"sw_if_index": 1, "unnumbered_sw_if_index": 2, "is_add": True}),
        "set interface l2 bridge GigabitEthernet3/0/0 10 bvi": (
            "sw_interface_set_l2_bridge",
            {"rx_sw_if_index": 1, "bd_id": 10, "port_type": 1, "shg": 0, "enable": True}),
        "set interface l2 tag-rewrite GigabitEthernet3/0/0 pop 2": (
            "l2_interface_vlan_tag_rewrite",
            {"sw_if_index": 1, "vtr_op": 4, "push_dot1q": 0, "tag1": 0, "tag2": 0}),
        "set bridge-domain arp term 10 disable": ("bridge_flags",
                                                 {"bd_id": 10, "is_set": False, "flags": 16}),
        "create bond mode xor load-balance l23 id 4 hw-addr 02:00:00:00:00:04": (
            "bond_create2", {"mode": 3, "lb": 2, "numa_only": False, "enable_gso": False,
                             "use_custom_mac": True, "mac_address": "02:00:00:00:00:04",
                             "id": 4}),
        "bond add GigabitEthernet3/0/0 GigabitEthernet3/0/1 passive": (
            "bond_add_member", {"sw_if_index": 2, "bond_sw_if_index": 1, "is_passive": True,
                                "is_long_timeout": False}),
        "lcp create GigabitEthernet3/0/0 host-if e0 netns dataplane": (
            "lcp_itf_pair_add_del_v3", {"is_add": True, "sw_if_index": 1, "host_if_name": "e0",
                                        "host_if_type": 0, "netns": "dataplane"}),
        "sflow polling-interval 30": ("sflow_polling_interval_set", {"polling_S": 30}),
        "mpls table add 0": ("mpls_table_add_del",
                             {"mt_is_add": True, "mt_table": {"mt_table_id": 0, "mt_name": ""}}),
        "set acl-plugin interface GigabitEthernet3/0/2 output acl 4 del": (
            "acl_interface_add_del", {"is_add": False, "is_input": False, "sw_if_index": 3,
                                      "acl_index": 4}),
    }
    for text, expected in cases.items():
        assert only_call(text) == expected, text


def test_vxlan_and_created_names() -> None:
    model, out, retval = run("create vxlan tunnel src 192.0.2.1 dst 2001:db8::2 vni 7 instance 3")
    assert retval == 0 and out == "new1\n"  # VPP prints the new interface's name
    name, args = model.calls[0]
    assert name == "vxlan_add_del_tunnel_v3"
    assert (args["src_address"], args["dst_address"], args["vni"], args["instance"]) == (
        "192.0.2.1", "2001:db8::2", 7, 3)
    assert args["is_add"] and args["decap_next_index"] == NONE


def test_comments_errors_and_stopping() -> None:
    model, out, retval = run("# a comment\n\ncomment { two\n lines }\n"
                             "set interface state GigabitEthernet3/0/0 up\n"
                             "set interface state Nope0 up\n"
                             "set interface state GigabitEthernet3/0/1 up\n")
    assert retval == -1
    assert out == "set interface state: unknown interface `Nope0'\n"
    assert [a["sw_if_index"] for _, a in model.calls] == [1]  # the first failure stops the rest
    assert run("frobnicate now")[1:] == ("unknown input `frobnicate now'\n", -1)
    assert run("set interface frob")[1:] == ("set interface: unknown input `frob'\n", -1)
    assert run("set interface state GigabitEthernet3/0/0 sideways")[1:] == (
        "set interface state: unknown input `sideways'\n", -1)
    assert run("set interface ip address GigabitEthernet3/0/0 10.0.0.1")[2] == -1
    out, retval = run("delete loopback interface intfc GigabitEthernet3/0/0")[1:]
    assert retval == -1 and "not supported" in out


# -- end to end, with the real model ----------------------------------------------------------


def cli(client: Any, text: str) -> str:
    reply = client.api.cli_inband(cmd=text)
    if "not supported by this simulator" in reply.reply:
        pytest.skip(f"the model lacks a message: {reply.reply.strip()}")
    assert reply.retval == 0, reply.reply
    return reply.reply


def interfaces(client: Any) -> dict[str, Any]:
    return {i.interface_name: i for i in client.api.sw_interface_dump()}


def test_cli_interfaces_end_to_end(vpp_sim: Any) -> None:
    client = vpp_sim.client()
    out = cli(client, "create loopback interface instance 5\n"
                      "set interface tag loop5 vppcfg\n"
                      "set interface mac address loop5 02:00:00:00:00:55\n"
                      "set interface ip address loop5 192.0.2.1/24\n"
                      "set interface ip address loop5 2001:db8::1/64\n"
                      "set interface state loop5 up\n"
                      "set interface mtu packet 1500 loop5\n")
    assert out == "loop5\n"
    loop = interfaces(client)["loop5"]
    assert (loop.tag, str(loop.l2_address), int(loop.flags) & 1) == ("vppcfg",
                                                                    "02:00:00:00:00:55", 1)
    assert loop.mtu[0] == 1500
    v4 = client.api.ip_address_dump(sw_if_index=loop.sw_if_index, is_ipv6=False)
    v6 = client.api.ip_address_dump(sw_if_index=loop.sw_if_index, is_ipv6=True)
    assert [str(a.prefix) for a in v4 + v6] == ["192.0.2.1/24", "2001:db8::1/64"]

    out = cli(client, "create sub-interfaces GigabitEthernet3/0/0 100 dot1q 100 exact-match\n"
                      "create sub-interfaces GigabitEthernet3/0/0 200 dot1ad 20 inner-dot1q 30\n")
    assert out == "GigabitEthernet3/0/0.100\nGigabitEthernet3/0/0.200\n"
    subs = interfaces(client)
    assert (subs["GigabitEthernet3/0/0.100"].sub_outer_vlan_id,
            int(subs["GigabitEthernet3/0/0.100"].sub_if_flags)) == (100, 2 | 16)
    qinq = subs["GigabitEthernet3/0/0.200"]
    assert (qinq.sub_outer_vlan_id, qinq.sub_inner_vlan_id, int(qinq.sub_if_flags)) == (
        20, 30, 4 | 8)
    cli(client, "delete sub-interface GigabitEthernet3/0/0.200\n"
                "delete loopback interface intfc loop5")
    assert not {"GigabitEthernet3/0/0.200", "loop5"} & set(interfaces(client))


def test_cli_l2_end_to_end(vpp_sim: Any) -> None:
    client = vpp_sim.client()
    cli(client, "create loopback interface instance 0\n"
                "create bridge-domain 10 learn 1 forward 1 uu-flood 1 flood 1 arp-term 0 "
                "arp-ufwd 0 mac-age 0\n"
                "set bridge-domain arp term 10\n"
                "set bridge-domain learn 10 disable\n"
                "set bridge-domain mac-age 10 5\n"
                "set interface l2 bridge loop0 10 bvi\n"
                "set interface l2 bridge GigabitEthernet3/0/0 10\n"
                "set interface l2 xconnect GigabitEthernet3/0/1 GigabitEthernet3/0/2\n")
    names = {i.sw_if_index: i.interface_name for i in client.api.sw_interface_dump()}
    (bd,) = client.api.bridge_domain_dump(bd_id=10)
    assert (bd.learn, bd.arp_term, bd.flood, bd.mac_age) == (False, True, True, 5)
    assert names[bd.bvi_sw_if_index] == "loop0"
    assert {names[m.sw_if_index] for m in bd.sw_if_details} == {"loop0", "GigabitEthernet3/0/0"}
    xcs = client.api.l2_xconnect_dump()
    assert [(names[x.rx_sw_if_index], names[x.tx_sw_if_index]) for x in xcs] == [
        ("GigabitEthernet3/0/1", "GigabitEthernet3/0/2")]

    cli(client, "set interface l3 GigabitEthernet3/0/0\nset interface l3 GigabitEthernet3/0/1\n")
    (bd,) = client.api.bridge_domain_dump(bd_id=10)
    assert {names[m.sw_if_index] for m in bd.sw_if_details} == {"loop0"}
    assert client.api.l2_xconnect_dump() == []
    reply = client.api.cli_inband(cmd="create bridge-domain 10 del")
    assert (reply.retval, reply.reply) == (
        -1, "create bridge-domain: bridge domain in use - remove members\n")


def test_cli_bond_tap_vxlan_lcp_end_to_end(vpp_sim: Any) -> None:
    client = vpp_sim.client()
    out = cli(client, "create bond mode lacp load-balance l34 id 10\n"
                      "bond add BondEthernet10 GigabitEthernet3/0/2\n"
                      "bond add BondEthernet10 GigabitEthernet3/0/3\n"
                      "create tap id 7 host-if-name vpp-tap7 host-mtu-size 1500\n"
                      "create vxlan tunnel src 192.0.2.1 dst 192.0.2.2 instance 3 vni 300\n"
                      "lcp create GigabitEthernet3/0/0 host-if e0\n")
    assert out == "BondEthernet10\ntap7\nvxlan_tunnel3\n"
    (bond,) = client.api.sw_bond_interface_dump(sw_if_index=NONE)
    assert (bond.interface_name, int(bond.mode), int(bond.lb), bond.members) == (
        "BondEthernet10", 5, 1, 2)
    taps = {t.id: t for t in client.api.sw_interface_tap_v2_dump(sw_if_index=NONE)}
    assert (taps[7].host_if_name, taps[7].host_mtu_size) == ("vpp-tap7", 1500)
    (tunnel,) = client.api.vxlan_tunnel_v2_dump(sw_if_index=NONE)
    assert (tunnel.instance, tunnel.vni, str(tunnel.dst_address)) == (3, 300, "192.0.2.2")
    _, pairs = client.api.lcp_itf_pair_get(cursor=0)
    assert [p.host_if_name for p in pairs] == ["e0"]

    cli(client, "lcp delete GigabitEthernet3/0/0\nbond del GigabitEthernet3/0/3\n"
                "delete tap tap7\ncreate vxlan tunnel src 192.0.2.1 dst 192.0.2.2 vni 300 del\n")
    assert client.api.lcp_itf_pair_get(cursor=0)[1] == []
    assert client.api.sw_bond_interface_dump(sw_if_index=NONE)[0].members == 1
    assert 7 not in {t.id for t in client.api.sw_interface_tap_v2_dump(sw_if_index=NONE)}
    assert client.api.vxlan_tunnel_v2_dump(sw_if_index=NONE) == []
    cli(client, "delete bond BondEthernet10")
    assert "BondEthernet10" not in interfaces(client)


def test_cli_unnumbered_mpls_sflow_acl_end_to_end(vpp_sim: Any) -> None:
    client = vpp_sim.client()
    cli(client, "create loopback interface instance 0\n"
                "set interface ip address loop0 192.0.2.1/32\n"
                "set interface unnumbered GigabitEthernet3/0/0 use loop0\n"
                "mpls table add 0\nset interface mpls GigabitEthernet3/0/1 enable\n"
                "sflow sampling-rate 1000\nsflow header-bytes 256\n"
                "sflow enable-disable GigabitEthernet3/0/2\n"
                "set acl-plugin acl permit src 10.0.0.0/8 dst 0.0.0.0/0 tag web\n"
                "set acl-plugin interface GigabitEthernet3/0/3 input acl 0\n")
    names = {i.sw_if_index: i.interface_name for i in client.api.sw_interface_dump()}
    unnumbered = client.api.ip_unnumbered_dump(sw_if_index=NONE)
    assert [(names[u.sw_if_index], names[u.ip_sw_if_index]) for u in unnumbered] == [
        ("GigabitEthernet3/0/0", "loop0")]
    mpls = client.api.mpls_interface_dump(sw_if_index=NONE)
    assert [names[m.sw_if_index] for m in mpls] == ["GigabitEthernet3/0/1"]
    assert client.api.sflow_sampling_rate_get().sampling_N == 1000
    assert client.api.sflow_header_bytes_get().header_B == 256
    assert len(client.api.sflow_interface_dump(hw_if_index=NONE)) == 1
    (acl,) = client.api.acl_dump(acl_index=NONE)
    assert (acl.tag, acl.count, str(acl.r[0].src_prefix)) == ("web", 1, "10.0.0.0/8")
    lists = {names[a.sw_if_index]: list(a.acls) for a in client.api.acl_interface_list_dump()
             if a.count}
    assert lists == {"GigabitEthernet3/0/3": [0]}

    cli(client, "set interface unnumbered del GigabitEthernet3/0/0\n"
                "set interface mpls GigabitEthernet3/0/1 disable\n"
                "sflow enable-disable GigabitEthernet3/0/2 disable\n"
                "set acl-plugin interface GigabitEthernet3/0/3 input acl 0 del\n"
                "delete acl-plugin acl index 0\n")
    assert client.api.ip_unnumbered_dump(sw_if_index=NONE) == []
    assert client.api.mpls_interface_dump(sw_if_index=NONE) == []
    assert client.api.sflow_interface_dump(hw_if_index=NONE) == []
    assert client.api.acl_dump(acl_index=NONE) == []


def test_cli_failure_counts_like_the_api(vpp_sim_factory: Any) -> None:
    """fail_after applies to the API calls the CLI makes: the N-th change fails."""
    client = vpp_sim_factory(fail_after=2).client()
    reply = client.api.cli_inband(cmd="create loopback interface instance 0\n"
                                      "create loopback interface instance 1\n"
                                      "create loopback interface instance 2\n")
    assert reply.retval == -1
    assert reply.reply.startswith("loop0\ncreate loopback interface: ")
    assert [n for n in interfaces(client) if n.startswith("loop")] == ["loop0"]
