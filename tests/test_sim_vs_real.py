"""API sequences where the real VPP keeps state the simulator used to drop,
run against both (the real one with marker `real`): they must answer alike.

- deleting a bond with dot1q+dot1ad or QinQ sub-interfaces leaves stale
  VLAN marks on its hw_if_index: create_subif then answers -1 (once);
- a bond with only dot1q sub-interfaces is left clean;
- MPLS stays enabled on a deleted interface's index and is inherited;
- linux-cp copies a phy's MPLS onto its host tap.
"""

from __future__ import annotations

from typing import Any

import pytest

from vppcfg.vpp import VppConnection

ONE_TAG, TWO_TAGS, DOT1AD, EXACT = 2, 4, 8, 16


def _targets() -> list[Any]:
    from tests.real import selected_releases

    return ["sim", *(pytest.param(r, marks=pytest.mark.real, id=f"vpp{r.name}")
                     for r in selected_releases())]


@pytest.fixture(params=_targets())
def vpp(request: Any, vpp_sim_factory: Any) -> Any:
    if request.param == "sim":
        from vppcfg.sim.plugins.lcp import pairs

        handle = vpp_sim_factory()
        pairs(handle.dataplane.state).sync = False  # as vpp-real runs, VPP's default
    else:
        from tests.real import unavailable, vpp_real

        reason = unavailable(request.param.script)
        if reason:
            pytest.skip(reason)
        handle = stack_enter(request, vpp_real(release=request.param))
    # every message: these tests send some vppcfg itself never does
    with VppConnection.open(handle.socket, handle.api_dir, requests=None) as conn:
        yield conn


def stack_enter(request: Any, manager: Any) -> Any:
    """Enter a context manager until the test's teardown."""
    value = manager.__enter__()
    request.addfinalizer(lambda: manager.__exit__(None, None, None))
    return value


def retval(conn: Any, message: str, **args: Any) -> int:
    """The call's retval (vppcfg's connection raises on a negative one)."""
    try:
        return int(conn.call(message, **args).retval)
    except Exception as err:
        return int(getattr(err, "retval", -999))


def bond(conn: Any) -> int:
    return conn.call("bond_create2", id=0, mode=5, lb=1, numa_only=False, enable_gso=False,
                     use_custom_mac=False, mac_address="00:00:00:00:00:00").sw_if_index


def subif(conn: Any, parent: int, sub_id: int, flags: int, outer: int, inner: int = 0) -> int:
    return retval(conn, "create_subif", sw_if_index=parent, sub_id=sub_id,
                  sub_if_flags=flags | EXACT, outer_vlan_id=outer, inner_vlan_id=inner)


def test_bond_deleted_with_dot1q_and_dot1ad_subs_leaves_stale_vlans(vpp):
    b = bond(vpp)
    assert subif(vpp, b, 100, ONE_TAG, 100) == 0
    assert subif(vpp, b, 200, ONE_TAG, 200) == 0
    assert subif(vpp, b, 300, ONE_TAG | DOT1AD, 300) == 0
    vpp.call("bond_delete", sw_if_index=b)
    b = bond(vpp)
    assert subif(vpp, b, 100, ONE_TAG, 100) == 0
    assert subif(vpp, b, 200, ONE_TAG, 200) == 0
    assert subif(vpp, b, 300, ONE_TAG, 300) == -1  # dot1ad's mark, now in the dot1q table
    assert subif(vpp, b, 300, ONE_TAG, 300) == 0  # the failure cleared it


def test_bond_deleted_with_qinq_subs_swaps_their_inner_tags(vpp):
    b = bond(vpp)
    assert subif(vpp, b, 200, TWO_TAGS, 100, 10) == 0
    assert subif(vpp, b, 100, TWO_TAGS, 200, 20) == 0
    vpp.call("bond_delete", sw_if_index=b)
    b = bond(vpp)
    assert subif(vpp, b, 200, TWO_TAGS, 100, 20) == -1
    assert subif(vpp, b, 100, TWO_TAGS, 200, 10) == -1


def test_bond_deleted_with_only_dot1q_subs_is_clean(vpp):
    b = bond(vpp)
    for vlan in (100, 200, 300):
        assert subif(vpp, b, vlan, ONE_TAG, vlan) == 0
    vpp.call("bond_delete", sw_if_index=b)
    b = bond(vpp)
    for vlan in (300, 200, 100):
        assert subif(vpp, b, vlan, ONE_TAG, vlan) == 0


def mpls_enabled(conn: Any) -> set[int]:
    return {d.sw_if_index for d in conn.call("mpls_interface_dump", sw_if_index=0xFFFFFFFF)}


def test_mpls_survives_on_a_deleted_interfaces_index(vpp):
    vpp.call("mpls_table_add_del", mt_is_add=True, mt_table={"mt_table_id": 0, "mt_name": ""})
    loop = vpp.call("create_loopback_instance", mac_address="00:00:00:00:00:00",
                    is_specified=True, user_instance=7).sw_if_index
    vpp.call("sw_interface_set_mpls_enable", sw_if_index=loop, enable=True)
    vpp.call("delete_loopback", sw_if_index=loop)
    again = vpp.call("create_loopback_instance", mac_address="00:00:00:00:00:00",
                     is_specified=True, user_instance=8).sw_if_index
    assert again == loop  # the pool hands the freed index out again
    assert again in mpls_enabled(vpp)


def test_lcp_copies_mpls_to_the_host_tap(vpp):
    vpp.call("mpls_table_add_del", mt_is_add=True, mt_table={"mt_table_id": 0, "mt_name": ""})
    loop = vpp.call("create_loopback_instance", mac_address="00:00:00:00:00:00",
                    is_specified=True, user_instance=3).sw_if_index
    vpp.call("sw_interface_set_mpls_enable", sw_if_index=loop, enable=True)
    vpp.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop, host_if_name="lo3",
             host_if_type=0, netns="")
    pair = next(iter(vpp.call("lcp_itf_pair_get_v2", cursor=0xFFFFFFFF,
                              sw_if_index=loop)[1]))
    assert mpls_enabled(vpp) == {loop, pair.host_sw_if_index}
    vpp.call("sw_interface_set_mpls_enable", sw_if_index=loop, enable=False)
    assert mpls_enabled(vpp) == set()


def test_lcp_pair_get_for_one_interface_ignores_the_cursor(vpp):
    loop = vpp.call("create_loopback_instance", mac_address="00:00:00:00:00:00",
                    is_specified=True, user_instance=4).sw_if_index
    assert retval(vpp, "lcp_itf_pair_get_v2", cursor=0, sw_if_index=loop) == -2  # no pair
    vpp.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop, host_if_name="lo4",
             host_if_type=0, netns="")
    for cursor in (0, 5, 0xFFFFFFFF):
        reply, details = vpp.call("lcp_itf_pair_get_v2", cursor=cursor, sw_if_index=loop)
        assert reply.cursor == 0xFFFFFFFF
        assert [d.phy_sw_if_index for d in details] == [loop]


def _macs(conn: Any) -> dict[int, str]:
    return {d.sw_if_index: str(d.l2_address)
            for d in conn.call("sw_interface_dump", sw_if_index=0xFFFFFFFF)}


def _first_phy(conn: Any) -> int:
    return min(d.sw_if_index for d in conn.call("sw_interface_dump", sw_if_index=0xFFFFFFFF)
               if d.sw_if_index and d.sw_if_index == d.sup_sw_if_index
               and d.interface_dev_type not in ("local", "Loopback", "bond"))


@pytest.mark.parametrize("custom", [False, True])
def test_a_bond_takes_its_first_members_mac_unless_created_with_one(vpp, custom):
    phy = _first_phy(vpp)
    phy_mac = _macs(vpp)[phy]
    mac = "02:fe:be:00:00:07"
    b = vpp.call("bond_create2", id=3, mode=3, lb=0, numa_only=False, enable_gso=False,
                 use_custom_mac=custom, mac_address=mac if custom else "00:00:00:00:00:00"
                 ).sw_if_index
    vpp.call("bond_add_member", sw_if_index=phy, bond_sw_if_index=b, is_passive=False,
             is_long_timeout=False)
    macs = _macs(vpp)
    if custom:
        assert macs[b] == mac and macs[phy] == mac  # the member takes the bond's
    else:
        assert macs[b] == phy_mac
    vpp.call("bond_detach_member", sw_if_index=phy)
    assert _macs(vpp)[phy] == phy_mac  # given back


def test_lcp_sizes_the_host_tap_by_the_l3_mtu(vpp):
    """Found by the walk's full-state comparison: the simulator gave the host tap the
    loopback's hardware MTU (9000) where VPP takes the packet MTU set on it."""
    loop = vpp.call("create_loopback_instance", mac_address="00:00:00:00:00:00",
                    is_specified=True, user_instance=5).sw_if_index
    vpp.call("sw_interface_set_mtu", sw_if_index=loop, mtu=[1400, 0, 0, 0])
    vpp.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop, host_if_name="lo5",
             host_if_type=0, netns="")
    pair = next(iter(vpp.call("lcp_itf_pair_get_v2", cursor=0xFFFFFFFF,
                              sw_if_index=loop)[1]))
    host = next(iter(vpp.call("sw_interface_dump", sw_if_index=pair.host_sw_if_index)))
    tap = next(iter(vpp.call("sw_interface_tap_v2_dump", sw_if_index=pair.host_sw_if_index)))
    assert (list(host.mtu), tap.host_mtu_size) == ([1400, 0, 0, 0], 1400)


@pytest.mark.parametrize("mode", [3, 5])  # xor, lacp
def test_a_members_local_numa_mark_comes_with_its_first_up_and_stays(vpp, mode):
    """Found by the walk's full-state comparison: the simulator showed is_local_numa
    for every member that is up; VPP sets it the first time a member is up outside
    LACP mode (no partner here, so never in LACP) and never clears it."""
    phy = _first_phy(vpp)
    b = vpp.call("bond_create2", id=4, mode=mode, lb=0, numa_only=False, enable_gso=False,
                 use_custom_mac=False, mac_address="00:00:00:00:00:00").sw_if_index
    vpp.call("bond_add_member", sw_if_index=phy, bond_sw_if_index=b, is_passive=False,
             is_long_timeout=False)

    def local_numa() -> bool:
        return bool(next(iter(vpp.call("sw_member_interface_dump", sw_if_index=b))).is_local_numa)

    seen = [local_numa()]
    for flags in (1, 0):  # the member up, then down again
        vpp.call("sw_interface_set_flags", sw_if_index=phy, flags=flags)
        seen.append(local_numa())
    assert seen == ([False, True, True] if mode == 3 else [False, False, False])


def test_without_lcp_sync_an_mtu_stays_on_the_vpp_side(vpp):
    """Found by the walk's full-state comparison: the simulator always played
    lcp-sync (an MTU set on a paired interface reaching its host tap and coming
    back as its hardware MTU); without it, VPP's default, nothing follows."""
    loop = vpp.call("create_loopback_instance", mac_address="00:00:00:00:00:00",
                    is_specified=True, user_instance=6).sw_if_index
    vpp.call("sw_interface_set_mtu", sw_if_index=loop, mtu=[9000, 0, 0, 0])
    vpp.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop, host_if_name="lo6",
             host_if_type=0, netns="")
    before = next(iter(vpp.call("sw_interface_dump", sw_if_index=loop))).link_mtu
    vpp.call("sw_interface_set_mtu", sw_if_index=loop, mtu=[1500, 0, 0, 0])
    pair = next(iter(vpp.call("lcp_itf_pair_get_v2", cursor=0xFFFFFFFF,
                              sw_if_index=loop)[1]))
    tap = next(iter(vpp.call("sw_interface_tap_v2_dump", sw_if_index=pair.host_sw_if_index)))
    itf = next(iter(vpp.call("sw_interface_dump", sw_if_index=loop)))
    assert (tap.host_mtu_size, itf.link_mtu, list(itf.mtu)) == (9000, before, [1500, 0, 0, 0])


def test_a_bond_down_keeps_its_active_members(vpp):
    """Found by the walk's full-state comparison: the simulator counted a member
    active only while the bond was up; VPP counts members up outside LACP mode."""
    phy = _first_phy(vpp)
    b = vpp.call("bond_create2", id=5, mode=3, lb=0, numa_only=False, enable_gso=False,
                 use_custom_mac=False, mac_address="00:00:00:00:00:00").sw_if_index
    vpp.call("bond_add_member", sw_if_index=phy, bond_sw_if_index=b, is_passive=False,
             is_long_timeout=False)

    def active() -> tuple[int, int]:
        """Active members, and the bond's flags (1 admin up, 2 link up)."""
        flags = next(iter(vpp.call("sw_interface_dump", sw_if_index=b))).flags
        return (int(next(iter(vpp.call("sw_bond_interface_dump", sw_if_index=b))).active_members),
                int(flags))

    seen = [active()]
    for sw, flags in ((phy, 1), (b, 1), (b, 0), (phy, 0)):
        vpp.call("sw_interface_set_flags", sw_if_index=sw, flags=flags)
        seen.append(active())
    # the bond has link only while admin up with an active member
    assert seen == [(0, 0), (1, 0), (1, 3), (1, 0), (0, 0)]
