"""The vpp_papi backend against the simulator, through the real vpp_papi client."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from vppcfg.model import BondLoadBalance, BondMode, Encapsulation, InterfaceKind
from vppcfg.sim.codec import DEFAULT_API_DIR
from vppcfg.sim.protocol import Response
from vppcfg.vpp import (
    VppApiError,
    VppConnection,
    VppDefinitionsMissing,
    VppMessageMissing,
    VppNotRunning,
)

NONE = 0xFFFFFFFF


class Wrapped:
    """A behaviour model seen through a change (the simulator's Handler seam)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def handle(self, message: str, args: dict[str, Any]) -> Response:
        return self.inner.handle(message, args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class WithoutMessages(Wrapped):
    """A VPP lacking some messages (as an older VPP would)."""

    def __init__(self, inner: Any, missing: set[str]) -> None:
        super().__init__(inner)
        self.missing = missing

    @property
    def messages(self) -> list[str]:
        from vppcfg.sim.codec import ApiDefinitions

        known = getattr(self.inner, "messages", None) or ApiDefinitions().ids
        return [m for m in known if m not in self.missing]


class PagedLcp(Wrapped):
    """lcp_itf_pair_get answering one pair per call with EAGAIN, as VPP may."""

    def handle(self, message: str, args: dict[str, Any]) -> Response:
        if message != "lcp_itf_pair_get":
            return self.inner.handle(message, args)
        rows = self.inner.handle(message, {**args, "cursor": 0}).details
        cursor = args.get("cursor", 0)
        page = rows[cursor:cursor + 1]
        if cursor + 1 < len(rows):
            return Response(reply={"retval": -165, "cursor": cursor + 1}, details=page)
        return Response(reply={"retval": 0, "cursor": NONE}, details=page)


def connect(handle: Any) -> Any:
    return VppConnection.open(handle.socket, handle.api_dir)


# -- connecting ---------------------------------------------------------------


def test_missing_socket_says_vpp_is_not_running(tmp_path):
    with pytest.raises(VppNotRunning, match=r"does not exist \(is VPP running\?\)"), \
            VppConnection.open(tmp_path / "api.sock", DEFAULT_API_DIR):
        pass


def test_socket_nobody_listens_on(tmp_path):
    path = tmp_path / "s"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))  # bound, never listening: connect is refused
    try:
        with pytest.raises(VppNotRunning, match="not listening"), \
                VppConnection.open(path, DEFAULT_API_DIR, timeout=1):
            pass
    finally:
        sock.close()


def test_definitions_missing_or_empty(tmp_path):
    with pytest.raises(VppDefinitionsMissing, match="does not exist"), \
            VppConnection.open(tmp_path / "x.sock", tmp_path / "nope"):
        pass
    with pytest.raises(VppDefinitionsMissing, match=r"no \*\.api\.json"), \
            VppConnection.open(tmp_path / "x.sock", tmp_path):
        pass


def test_non_zero_retval_raises_with_name(vpp_sim):
    with connect(vpp_sim) as conn, pytest.raises(VppApiError) as info:
        conn.call("delete_loopback", sw_if_index=999)
    assert info.value.retval == -2 and info.value.name == "INVALID_SW_IF_INDEX"
    assert str(info.value) == "delete_loopback failed: retval -2 (INVALID_SW_IF_INDEX)"


def test_missing_message_and_version_choice(vpp_sim_factory):
    from tests.conftest import default_model

    handle = vpp_sim_factory(handler=WithoutMessages(
        default_model(), {"bond_create2", "vxlan_tunnel_v2_dump", "sw_bond_interface_dump"}))
    with connect(handle) as conn:
        assert conn.pick("bond_create2", "bond_create") == "bond_create"
        with pytest.raises(VppMessageMissing, match=r"this VPP lacks bond_create2$"):
            conn.pick("bond_create2")
        with pytest.raises(VppMessageMissing):
            conn.call("bond_create2", mode=5, lb=1)
        # the dump falls back to the older messages
        bond = conn.call("bond_create", id=7, mode=3, lb=0)
        conn.call("sw_interface_tag_add_del", is_add=True, sw_if_index=bond.sw_if_index,
                  tag="vppcfg")
        conn.call("vxlan_add_del_tunnel_v3", is_add=True, instance=3, src_address="192.0.2.1",
                  dst_address="192.0.2.2", vni=30, decap_next_index=1, mcast_sw_if_index=NONE)
        live = conn.dump()
    assert live.bonds["BondEthernet7"].mode is BondMode.XOR
    assert live.vxlan_tunnels["vxlan_tunnel3"].vni == 30


# -- dumping ------------------------------------------------------------------


def _index(conn: Any, name: str) -> int:
    return next(d.sw_if_index for d in conn.call("sw_interface_dump", sw_if_index=NONE)
                if d.interface_name == name)


def _tag(conn: Any, index: int) -> None:
    conn.call("sw_interface_tag_add_del", is_add=True, sw_if_index=index, tag="vppcfg")


def build_sample(conn: Any) -> dict[str, int]:
    """A small dataplane built through the API, as vppcfg would build it."""
    p0, p1, p2, p3 = (_index(conn, f"GigabitEthernet3/0/{n}") for n in range(4))
    loop = conn.call("create_loopback_instance", is_specified=True, user_instance=5,
                     mac_address="02:00:00:00:00:05").sw_if_index
    _tag(conn, loop)
    conn.call("sw_interface_add_del_address", sw_if_index=loop, is_add=True,
              prefix="192.0.2.1/32")
    conn.call("sw_interface_add_del_address", sw_if_index=loop, is_add=True,
              prefix="2001:db8::1/128")
    sub = conn.call("create_subif", sw_if_index=p0, sub_id=100, outer_vlan_id=100,
                    inner_vlan_id=200, sub_if_flags=4 | 16 | 8).sw_if_index
    _tag(conn, sub)
    conn.call("sw_interface_set_mtu", sw_if_index=sub, mtu=[1500, 0, 0, 0])
    conn.call("sw_interface_set_flags", sw_if_index=p0, flags=1)
    conn.call("sw_interface_set_flags", sw_if_index=sub, flags=1)
    conn.call("sw_interface_set_unnumbered", sw_if_index=loop, unnumbered_sw_if_index=sub,
              is_add=True)
    bond = conn.call("bond_create2", id=1, mode=5, lb=1).sw_if_index
    _tag(conn, bond)
    conn.call("bond_add_member", sw_if_index=p2, bond_sw_if_index=bond)
    conn.call("bond_add_member", sw_if_index=p1, bond_sw_if_index=bond)
    conn.call("bridge_domain_add_del_v2", bd_id=10, is_add=True, flood=True, uu_flood=True,
              forward=True, learn=True, mac_age=0, bd_tag="vppcfg")
    bvi = conn.call("create_loopback_instance", is_specified=True, user_instance=10,
                    mac_address="02:00:00:00:00:10").sw_if_index
    _tag(conn, bvi)
    conn.call("sw_interface_set_l2_bridge", rx_sw_if_index=bvi, bd_id=10, port_type=1,
              enable=True)
    conn.call("sw_interface_set_l2_bridge", rx_sw_if_index=bond, bd_id=10, enable=True)
    conn.call("sw_interface_set_l2_xconnect", rx_sw_if_index=p3, tx_sw_if_index=p3, enable=True)
    conn.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop, host_if_name="lo5")
    tap = conn.call("tap_create_v3", id=7, host_if_name_set=True, host_if_name="vpptap7",
                    host_mtu_set=True, host_mtu_size=9000).sw_if_index
    _tag(conn, tap)
    return {"p0": p0, "loop": loop, "sub": sub, "bond": bond, "bvi": bvi}


def test_dump_reads_back_what_was_built(vpp_sim):
    with connect(vpp_sim) as conn:
        build_sample(conn)
        live = conn.dump()
    itf = live.interfaces
    assert "local0" not in itf
    assert not any(name.startswith(("tap4", "tun4")) for name in itf)  # lcp host side
    assert list(live.taps) == ["tap7"]  # the user's tap, not the lcp host taps
    assert (live.taps["tap7"].host.name, live.taps["tap7"].host.mtu) == ("vpptap7", 9000)
    loop5 = itf["loop5"]
    assert loop5.kind is InterfaceKind.LOOPBACK and loop5.mac == "02:00:00:00:00:05"
    assert loop5.addresses == ("192.0.2.1/32", "2001:db8::1/128")
    assert loop5.lcp == "lo5" and loop5.unnumbered is None
    sub = itf["GigabitEthernet3/0/0.100"]
    assert (sub.kind, sub.parent, sub.sub_id, sub.mtu, sub.state) == (
        InterfaceKind.SUB, "GigabitEthernet3/0/0", 100, 1500, "up")
    assert sub.encapsulation == Encapsulation(dot1ad=100, inner_dot1q=200, exact_match=True)
    assert sub.unnumbered == "loop5"  # the sub borrows loop5's address
    bond = live.bonds["BondEthernet1"]
    assert (bond.mode, bond.load_balance) == (BondMode.LACP, BondLoadBalance.L34)
    assert bond.members == ("GigabitEthernet3/0/1", "GigabitEthernet3/0/2")
    assert itf["GigabitEthernet3/0/1"].kind is InterfaceKind.PHY
    bd = live.bridge_domains["bd10"]
    assert bd.bvi == "loop10" and bd.members == ("BondEthernet1",)
    assert itf["GigabitEthernet3/0/3"].l2xc == "GigabitEthernet3/0/3"
    assert live.foreign == frozenset()  # everything carries our tag; PHYs never foreign


def test_untagged_objects_are_foreign(vpp_sim):
    with connect(vpp_sim) as conn:
        conn.call("create_loopback_instance", is_specified=True, user_instance=9)
        conn.call("bridge_domain_add_del_v2", bd_id=20, is_add=True, bd_tag="theirs")
        conn.call("acl_add_replace", acl_index=NONE, tag="", count=0, r=[])
        live = conn.dump()
    assert {"interfaces/loop9", "bridge_domains/bd20"} <= live.foreign
    assert any(k.startswith("acls/") for k in live.foreign)


def test_lcp_pairs_paged_with_eagain(vpp_sim_factory):
    from tests.conftest import default_model

    handle = vpp_sim_factory(handler=PagedLcp(default_model()))
    with connect(handle) as conn:
        for n in range(3):
            loop = conn.call("create_loopback_instance", is_specified=True,
                             user_instance=n).sw_if_index
            conn.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop,
                      host_if_name=f"lo{n}")
        calls = conn.calls
        live = conn.dump()
        assert conn.calls - calls > 3
    assert [live.interfaces[f"loop{n}"].lcp for n in range(3)] == ["lo0", "lo1", "lo2"]


def test_call_many_equals_one_by_one(vpp_sim):
    with connect(vpp_sim) as conn:
        build_sample(conn)
        indexes = [d.sw_if_index for d in conn.call("sw_interface_dump", sw_if_index=NONE)]
        requests = [("ip_address_dump", {"sw_if_index": i, "is_ipv6": v6})
                    for i in indexes for v6 in (False, True)]
        piped = conn.call_many(requests, window=3)
        single = [conn.call(m, **a) for m, a in requests]
    assert [[str(d.prefix) for d in r] for r in piped] == [[str(d.prefix) for d in r]
                                                          for r in single]
    assert any(piped)


def test_context_index_map(vpp_sim):
    with connect(vpp_sim) as conn:
        ctx = conn.context()
        index = ctx.call("create_loopback_instance", is_specified=True,
                         user_instance=3).sw_if_index
        ctx.learn("loop3", index)
        ctx.learn("loop3.10", 99)
        assert ctx.sw_if_index("loop3") == index
        assert ctx.sw_if_index("GigabitEthernet3/0/0") == _index(conn, "GigabitEthernet3/0/0")
        ctx.forget("loop3")
        with pytest.raises(KeyError):
            ctx.sw_if_index("loop3.10")
        assert ctx.changes == 1
        assert ctx.has_message("bond_create2") and not ctx.has_message("no_such_message")


def test_dump_of_fresh_vpp_has_only_phys(vpp_sim):
    with connect(vpp_sim) as conn:
        live = conn.dump()
    assert sorted(live.interfaces) == [f"GigabitEthernet3/0/{n}" for n in range(4)]
    assert all(i.kind is InterfaceKind.PHY for i in live.interfaces.values())
    assert not (live.bonds or live.bridge_domains or live.acls or live.foreign)


def test_full_definitions_of_a_real_vpp(vpp_sim, shared_dir):
    """The client loading a real VPP 26.10's whole API directory (as installed in
    /usr/share/vpp/api) works against the simulator: same names and CRCs."""
    with VppConnection.open(vpp_sim.socket, shared_dir / "vpp" / "api") as conn:
        build_sample(conn)
        live = conn.dump()
        assert conn.has_message("bond_create2") and not conn.has_message("ipsec_sa_dump")
    assert live.bonds["BondEthernet1"].members == ("GigabitEthernet3/0/1", "GigabitEthernet3/0/2")


def test_a_bare_retval_gets_a_hint_where_its_meaning_is_known() -> None:
    from vppcfg.vpp.errors import VppApiError

    err = VppApiError("lcp_itf_pair_add_del_v3", -13, {"host_if_name": "e0"})
    assert str(err).startswith("lcp_itf_pair_add_del_v3 failed: retval -13 (SYSCALL_ERROR_3): ")
    assert "is its name taken" in str(err)
    plain = VppApiError("bond_create2", -13)
    assert str(plain) == "bond_create2 failed: retval -13 (SYSCALL_ERROR_3)"
