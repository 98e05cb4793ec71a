"""The planner: diff, dependency ordering, minimality and safe rendering.

Models are built directly (no config file), so these tests pin the planner's
own behaviour. Positions in the operation list are asserted for each ordering
rule.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from vppcfg.model import (
    Acl,
    AclTerm,
    Bond,
    BondMode,
    BridgeDomain,
    BridgeSettings,
    Dataplane,
    Encapsulation,
    FrozenDict,
    Interface,
    InterfaceAcls,
    InterfaceKind,
    PortRange,
    PrefixList,
    Sflow,
    Tap,
    TapHost,
    VxlanTunnel,
)
from vppcfg.objects import RenderError, render_cli
from vppcfg.ops import Operation
from vppcfg.planner import PlanError, plan

PHY, SUB = InterfaceKind.PHY, InterfaceKind.SUB
LOOP, BOND = InterfaceKind.LOOPBACK, InterfaceKind.BOND


def phy(name: str, **kw) -> Interface:
    return Interface(name=name, kind=PHY, **kw)


def sub(parent: str, vlan: int, **kw) -> Interface:
    return Interface(name=f"{parent}.{vlan}", kind=SUB, parent=parent, sub_id=vlan,
                     encapsulation=kw.pop("encapsulation", Encapsulation(dot1q=vlan)), **kw)


def loop(n: int, **kw) -> Interface:
    return Interface(name=f"loop{n}", kind=LOOP, **kw)


def dp(*itfs: Interface, **collections) -> Dataplane:
    fields = {k: FrozenDict({v.name: v for v in vals}) for k, vals in collections.items()
              if k not in ("sflow", "foreign")}
    extra = {k: v for k, v in collections.items() if k in ("sflow", "foreign")}
    return Dataplane(interfaces=FrozenDict({i.name: i for i in itfs}), **fields, **extra)


def pos(ops: list[Operation], action: str, key: str) -> int:
    for i, op in enumerate(ops):
        if op.action == action and op.key == key:
            return i
    raise AssertionError(f"no {action} {key} in {[(o.action, o.key) for o in ops]}")


def keys(ops: list[Operation]) -> list[tuple[str, str]]:
    return [(op.action, op.key) for op in ops]


def rich() -> Dataplane:
    """A config touching every object type."""
    bond = Bond(name="BondEthernet0", instance=0, mode=BondMode.LACP,
                members=("Gi0/0/2", "Gi0/0/3"))
    return dp(
        phy("Gi0/0/0", mtu=9000, lcp="e0", addresses=("192.0.2.1/30", "2001:db8::1/64"),
            mpls=True, sflow=True, acls=InterfaceAcls(input=("ssh",))),
        sub("Gi0/0/0", 100, mtu=1500, lcp="e0.100", addresses=("10.0.0.1/24",)),
        sub("Gi0/0/0", 200, mtu=1500),
        phy("Gi0/0/1", l2xc="Gi0/0/0.200", mtu=1500),
        phy("Gi0/0/2", mtu=9000),
        phy("Gi0/0/3", mtu=9000),
        Interface(name="BondEthernet0", kind=BOND, mtu=9000, addresses=("198.51.100.1/24",)),
        sub("BondEthernet0", 10, mtu=1500),
        loop(0, lcp="bvi10", addresses=("10.1.0.1/24",), mac="02:00:00:00:00:10"),
        loop(1, unnumbered="loop0"),
        Interface(name="vxlan_tunnel0", kind=InterfaceKind.VXLAN),
        Interface(name="tap0", kind=InterfaceKind.TAP),
        bonds=[bond],
        bridge_domains=[BridgeDomain("bd10", 10, bvi="loop0",
                                     members=("BondEthernet0.10", "tap0", "vxlan_tunnel0"))],
        vxlan_tunnels=[VxlanTunnel("vxlan_tunnel0", 0, "192.0.2.1", "192.0.2.2", 100)],
        taps=[Tap("tap0", 0, TapHost("vpp-tap0", namespace="dataplane"))],
        acls=[Acl("ssh", terms=(AclTerm("permit", source="mgmt", protocol=6,
                                        destination_port=PortRange(22, 22)),
                                AclTerm("deny")))],
        prefixlists=[PrefixList("mgmt", members=("192.0.2.0/24", "2001:db8::/48"))],
    )


def fresh(desired: Dataplane) -> Dataplane:
    return dp(*(phy(i.name, mtu=9000, state="down") for i in desired.interfaces.values()
                if i.kind is PHY))


# -- basics ---------------------------------------------------------------------------------


def test_unchanged_config_plans_nothing() -> None:
    assert plan(rich(), rich()) == []


def test_full_plan_from_fresh_vpp_renders_and_orders() -> None:
    ops = plan(rich(), fresh(rich()))
    text = render_cli(ops)
    assert "create bond mode lacp load-balance l34 id 0" in text
    assert "create tap id 0 host-if-name vpp-tap0 host-ns dataplane" in text
    # the ACL expands per family and per prefix-list member: 2 + 2 rules, index 0
    assert "set acl-plugin acl permit src 192.0.2.0/24 dst 0.0.0.0/0 proto 6" in text
    # a new ACL's index is VPP's choice (older free slots may sit at the pool's
    # end, RenderContext): its binding is left to the next plan, which says so
    assert "set acl-plugin interface Gi0/0/0" not in text
    assert text.count("run vppcfg plan again") == 1
    assert pos(ops, "create", "acls/ssh") < pos(ops, "create", "interfaces/Gi0/0/0/acls")
    assert pos(ops, "create", "bonds/BondEthernet0") < pos(
        ops, "create", "interfaces/BondEthernet0.10")
    # after applying, the same config plans nothing
    assert plan(rich(), rich()) == []


def test_missing_phy_is_a_plan_error() -> None:
    with pytest.raises(PlanError, match="Gi9/9/9"):
        plan(dp(phy("Gi9/9/9")), dp())


# -- ordering rules -------------------------------------------------------------------------


def test_sub_after_parent_and_before_its_lcp_parent_lcp_first() -> None:
    bond = Bond("BondEthernet1", 1, members=("Gi0",))
    want = dp(phy("Gi0"), Interface(name="BondEthernet1", kind=BOND, lcp="be1"),
              sub("BondEthernet1", 5, lcp="be1.5"), bonds=[bond])
    ops = plan(want, dp(phy("Gi0")))
    assert pos(ops, "create", "bonds/BondEthernet1") < pos(
        ops, "create", "interfaces/BondEthernet1.5")
    assert pos(ops, "create", "interfaces/BondEthernet1.5") < pos(
        ops, "create", "interfaces/BondEthernet1.5/lcp")
    assert pos(ops, "create", "interfaces/BondEthernet1/lcp") < pos(
        ops, "create", "interfaces/BondEthernet1.5/lcp")


def test_bvi_loopback_created_before_bridge_uses_it() -> None:
    want = dp(loop(7), bridge_domains=[BridgeDomain("bd7", 7, bvi="loop7")])
    ops = plan(want, dp())
    assert pos(ops, "create", "interfaces/loop7") < pos(ops, "create", "bridge_domains/bd7/bvi")
    assert pos(ops, "create", "bridge_domains/bd7") < pos(ops, "create", "bridge_domains/bd7/bvi")


def test_lcp_and_bridge_membership_removed_before_interface_deleted() -> None:
    live = dp(phy("Gi0"), sub("Gi0", 10, lcp="e0.10"), phy("Gi1", l2xc="Gi0.20"),
              sub("Gi0", 20, l2xc="Gi1"), loop(3),
              bridge_domains=[BridgeDomain("bd3", 3, bvi="loop3", members=("Gi0.10",))])
    want = dp(phy("Gi0"), phy("Gi1"))
    ops = plan(want, live)
    assert pos(ops, "delete", "interfaces/Gi0.10/lcp") < pos(ops, "delete", "interfaces/Gi0.10")
    assert pos(ops, "delete", "bridge_domains/bd3/member/Gi0.10") < pos(
        ops, "delete", "interfaces/Gi0.10")
    assert pos(ops, "delete", "bridge_domains/bd3/bvi") < pos(ops, "delete", "interfaces/loop3")
    assert pos(ops, "delete", "bridge_domains/bd3/bvi") < pos(ops, "delete", "bridge_domains/bd3")
    assert pos(ops, "delete", "interfaces/Gi1/l2xc") < pos(ops, "delete", "interfaces/Gi0.20")
    assert pos(ops, "delete", "interfaces/Gi0.20/l2xc") < pos(ops, "delete", "interfaces/Gi0.20")
    text = render_cli(ops)
    assert "set interface l2 tag-rewrite Gi0.10 disable" in text
    assert "delete sub-interface Gi0.10" in text


def test_bridge_members_return_to_l3_before_addresses() -> None:
    """Regression: a member leaving a bridge that stays gets its address only
    after it is back in L3 mode."""
    live = dp(phy("Gi0"), phy("Gi1"),
              bridge_domains=[BridgeDomain("bd1", 1, members=("Gi0", "Gi1"))])
    want = dp(phy("Gi0", addresses=("10.0.0.1/24",)), phy("Gi1"),
              bridge_domains=[BridgeDomain("bd1", 1, members=("Gi1",))])
    ops = plan(want, live)
    assert keys(ops) == [("delete", "bridge_domains/bd1/member/Gi0"),
                         ("create", "interfaces/Gi0/address/10.0.0.1/24")]
    assert render_cli(ops).splitlines()[1] == "set interface l3 Gi0"


def test_l2xc_released_before_addresses_on_same_interface() -> None:
    live = dp(phy("Gi0", l2xc="Gi1"), phy("Gi1", l2xc="Gi0"))
    want = dp(phy("Gi0", addresses=("10.0.0.1/24",)), phy("Gi1", l2xc="Gi0"))
    ops = plan(want, live)
    assert pos(ops, "delete", "interfaces/Gi0/l2xc") < pos(
        ops, "create", "interfaces/Gi0/address/10.0.0.1/24")


def test_address_moves_are_removed_before_added() -> None:
    live = dp(phy("Gi0", addresses=("10.0.0.1/24",)), phy("Gi1"))
    want = dp(phy("Gi0"), phy("Gi1", addresses=("10.0.0.2/24",)))
    ops = plan(want, live)
    assert keys(ops) == [("delete", "interfaces/Gi0/address/10.0.0.1/24"),
                         ("create", "interfaces/Gi1/address/10.0.0.2/24")]


def test_lcp_host_name_moves_are_removed_before_added() -> None:
    live = dp(phy("Gi0", lcp="e0"), phy("Gi1", lcp="e1"))
    want = dp(phy("Gi0", lcp="e1"), phy("Gi1", lcp="e0"))
    ops = plan(want, live)
    for created in ("interfaces/Gi0/lcp", "interfaces/Gi1/lcp"):
        for deleted in ("interfaces/Gi0/lcp", "interfaces/Gi1/lcp"):
            assert pos(ops, "delete", deleted) < pos(ops, "create", created)
    assert "host name changed" in ops[0].reason


def test_bond_members_detached_before_other_config() -> None:
    bond = Bond("BondEthernet0", 0, members=("Gi0", "Gi1"))
    live = dp(phy("Gi0", mtu=9000), phy("Gi1", mtu=9000),
              Interface(name="BondEthernet0", kind=BOND, mtu=9000), bonds=[bond])
    want = dp(phy("Gi0", mtu=1500, addresses=("10.0.0.1/24",), lcp="e0"), phy("Gi1", mtu=9000),
              Interface(name="BondEthernet0", kind=BOND, mtu=9000),
              bonds=[replace(bond, members=("Gi1",))])
    ops = plan(want, live)
    detach = pos(ops, "delete", "bonds/BondEthernet0/member/Gi0")
    assert detach == 0
    assert detach < pos(ops, "update", "interfaces/Gi0/mtu")
    assert detach < pos(ops, "create", "interfaces/Gi0/address/10.0.0.1/24")
    assert detach < pos(ops, "create", "interfaces/Gi0/lcp")
    assert render_cli(ops).splitlines()[1] == "bond del Gi0"


def test_mtu_raised_on_parent_first_lowered_on_child_first() -> None:
    bond = Bond("BondEthernet0", 0, members=("Gi0",))

    def state(parent_mtu: int, child_mtu: int) -> Dataplane:
        return dp(phy("Gi0"), Interface(name="BondEthernet0", kind=BOND, mtu=parent_mtu),
                  sub("BondEthernet0", 10, mtu=child_mtu), bonds=[bond])

    up = plan(state(9000, 9000), state(1500, 1500))
    assert pos(up, "update", "interfaces/BondEthernet0/mtu") < pos(
        up, "update", "interfaces/BondEthernet0.10/mtu")
    down = plan(state(1500, 1500), state(9000, 9000))
    assert pos(down, "update", "interfaces/BondEthernet0.10/mtu") < pos(
        down, "update", "interfaces/BondEthernet0/mtu")


def test_phy_hw_mtu_change_resets_subs_that_differ() -> None:
    """hw_interface_set_mtu resets the subs' packet MTU: the plan puts back
    those that should differ, even when their own MTU did not change."""
    live = dp(phy("Gi0", mtu=9000), sub("Gi0", 10, mtu=1500), sub("Gi0", 20, mtu=9000))
    want = dp(phy("Gi0", mtu=9216), sub("Gi0", 10, mtu=1500), sub("Gi0", 20, mtu=9216))
    ops = plan(want, live)
    assert pos(ops, "update", "interfaces/Gi0/mtu") < pos(ops, "update", "interfaces/Gi0.20/mtu")
    lines = render_cli(ops).splitlines()
    assert lines.index("set interface mtu 9216 Gi0") < lines.index(
        "set interface mtu packet 1500 Gi0.10")
    # lowering: the child goes first, and is put back after the hw reset
    down = plan(dp(phy("Gi0", mtu=1500), sub("Gi0", 10, mtu=1400)),
                dp(phy("Gi0", mtu=9000), sub("Gi0", 10, mtu=9000)))
    assert pos(down, "update", "interfaces/Gi0.10/mtu") < pos(down, "update", "interfaces/Gi0/mtu")
    assert render_cli(down).splitlines()[-1] == "set interface mtu packet 1400 Gi0.10"


def test_sub_created_after_parent_hw_mtu_change() -> None:
    ops = plan(dp(phy("Gi0", mtu=9216), sub("Gi0", 10, mtu=1500)), dp(phy("Gi0", mtu=9000)))
    assert pos(ops, "update", "interfaces/Gi0/mtu") < pos(ops, "create", "interfaces/Gi0.10/mtu")


def test_acl_binding_removed_before_acl_deleted() -> None:
    acl = Acl("web", terms=(AclTerm("permit", family="ipv4"),))
    live = dp(phy("Gi0", acls=InterfaceAcls(input=("web",))), acls=[acl])
    ops = plan(dp(phy("Gi0")), live)
    assert keys(ops) == [("delete", "interfaces/Gi0/acls"), ("delete", "acls/web")]
    assert render_cli(ops, {"web": 4}).splitlines()[1:] == [
        "set acl-plugin interface Gi0 input acl 4 del",
        "comment { delete acl }",
        "delete acl-plugin acl index 4",
    ]


# -- regressions ----------------------------------------------------------------------------


def test_bond_addresses_are_stable_across_runs() -> None:
    """Regression: addresses on a bond are not removed and re-added every run."""
    bond = Bond("BondEthernet0", 0, members=("Gi0", "Gi1"))
    want = dp(phy("Gi0"), phy("Gi1"),
              Interface(name="BondEthernet0", kind=BOND,
                        addresses=("192.0.2.1/24", "2001:db8::1/64")), bonds=[bond])
    assert plan(want, want) == []
    # a member change leaves the bond's addresses alone
    ops = plan(want, dp(phy("Gi0"), phy("Gi1"), want.interfaces["BondEthernet0"],
                        bonds=[replace(bond, members=("Gi0",))]))
    assert keys(ops) == [("create", "bonds/BondEthernet0/member/Gi1")]


def test_bond_mode_change_releases_cross_connects_first() -> None:
    """Regression: recreating a bond first releases what is cross-connected or
    bridged on its sub-interfaces, then restores it."""
    bond = Bond("BondEthernet0", 0, mode=BondMode.LACP, members=("Gi0",))

    def state(mode: BondMode) -> Dataplane:
        return dp(phy("Gi0"), phy("Gi1", l2xc="BondEthernet0.100"),
                  Interface(name="BondEthernet0", kind=BOND, addresses=("10.0.0.1/24",)),
                  sub("BondEthernet0", 100, l2xc="Gi1"), sub("BondEthernet0", 200),
                  bonds=[replace(bond, mode=mode)],
                  bridge_domains=[BridgeDomain("bd1", 1, members=("BondEthernet0.200",))])

    ops = plan(state(BondMode.XOR), state(BondMode.LACP))
    delete_bond = pos(ops, "delete", "bonds/BondEthernet0")
    create_bond = pos(ops, "create", "bonds/BondEthernet0")
    assert pos(ops, "delete", "interfaces/Gi1/l2xc") < delete_bond
    assert pos(ops, "delete", "bridge_domains/bd1/member/BondEthernet0.200") < delete_bond
    assert delete_bond < create_bond
    assert create_bond < pos(ops, "create", "interfaces/BondEthernet0.100") < pos(
        ops, "create", "interfaces/Gi1/l2xc")
    assert create_bond < pos(ops, "create", "bonds/BondEthernet0/member/Gi0")
    assert pos(ops, "create", "interfaces/BondEthernet0/address/10.0.0.1/24") > create_bond
    assert "mode changed" in ops[delete_bond].reason
    text = render_cli(ops)
    assert "create bond mode xor load-balance l34 id 0" in text
    # Nothing is left to VPP's implicit clean-up: the real VPP keeps per-index
    # state of deleted interfaces, so subs, their state, addresses and the
    # members go explicitly, before the bond.
    for key in ("interfaces/BondEthernet0.100", "interfaces/BondEthernet0.200",
                "interfaces/BondEthernet0/address/10.0.0.1/24",
                "bonds/BondEthernet0/member/Gi0"):
        assert pos(ops, "delete", key) < delete_bond, key
    assert "delete sub-interface BondEthernet0.100" in text
    assert "set interface ip address del BondEthernet0 10.0.0.1/24" in text
    # the bridge domain itself is untouched
    assert "bridge-domain 1" not in text


def test_tap_in_named_namespace_plans() -> None:
    tap = Tap("tap1", 1, TapHost("vpp-tap1", namespace="vpp-ns", bridge="br0",
                                 mac="02:00:00:00:00:01", mtu=9000))
    want = dp(Interface(name="tap1", kind=InterfaceKind.TAP, mtu=9000), taps=[tap])
    ops = plan(want, dp())
    text = render_cli(ops)
    assert ("create tap id 1 host-if-name vpp-tap1 host-ns vpp-ns host-bridge br0 "
            "host-mac-addr 02:00:00:00:00:01 host-mtu-size 9000 rx-ring-size 256 "
            "tx-ring-size 256") in text
    assert plan(want, want) == []
    moved = dp(want.interfaces["tap1"], taps=[replace(tap, host=replace(tap.host,
                                                                        namespace="other"))])
    ops = plan(moved, want)
    assert keys(ops)[:2] == [("delete", "taps/tap1"), ("create", "taps/tap1")]
    assert "no setter" in ops[0].reason


# -- minimality and ownership ---------------------------------------------------------------


def test_one_changed_field_changes_only_that() -> None:
    base = rich()
    bd = base.bridge_domains["bd10"]
    changed = replace(base, bridge_domains=base.bridge_domains.replace(
        "bd10", replace(bd, settings=BridgeSettings(learn=False))))
    ops = plan(changed, base)
    assert keys(ops) == [("update", "bridge_domains/bd10")]
    assert render_cli(ops).splitlines()[1:] == ["set bridge-domain learn 10 disable"]

    itf = base.interfaces["loop0"]
    changed = replace(base, interfaces=base.interfaces.replace(
        "loop0", replace(itf, state="down", description="new text")))
    assert keys(plan(changed, base)) == [("update", "interfaces/loop0/state")]


def test_mac_none_means_dont_care() -> None:
    live = dp(phy("Gi0", mac="02:fe:00:00:00:01"))
    assert plan(dp(phy("Gi0")), live) == []
    ops = plan(dp(phy("Gi0", mac="02:00:00:00:00:02")), live)
    assert render_cli(ops).splitlines()[1:] == ["set interface mac address Gi0 02:00:00:00:00:02"]


def test_foreign_objects_are_left_alone_and_unnamed_phys_return_to_defaults() -> None:
    live = dp(phy("Gi0"), phy("Gi1", addresses=("10.9.9.9/24",), lcp="other"), loop(5), loop(6),
              foreign=frozenset({"interfaces/loop5"}))
    ops = plan(dp(phy("Gi0")), live)
    # loop5 (foreign) stays; Gi1 (not in the file) goes back to a fresh VPP's PHY
    assert keys(ops) == [("delete", "interfaces/Gi1/address/10.9.9.9/24"),
                         ("delete", "interfaces/Gi1/lcp"),
                         ("delete", "interfaces/loop6"),
                         ("update", "interfaces/Gi1/mtu"), ("update", "interfaces/Gi1/state")]
    assert [op.params["value"] for op in ops[3:]] == [9000, "down"]
    live = replace(live, interfaces=live.interfaces.replace("Gi1", phy("Gi1", mtu=9000,
                                                                       state="down")))
    # naming a foreign object hands it to vppcfg
    ops = plan(dp(phy("Gi0"), loop(5, mtu=9000)), replace(live, interfaces=FrozenDict(
        {k: v for k, v in live.interfaces.items() if k != "loop6"})))
    assert keys(ops) == [("update", "interfaces/loop5/mtu")]


def test_sub_encapsulation_change_recreates_with_reason() -> None:
    live = dp(phy("Gi0"), sub("Gi0", 10, addresses=("10.0.0.1/24",)))
    want = dp(phy("Gi0"), sub("Gi0", 10, encapsulation=Encapsulation(dot1ad=10),
                              addresses=("10.0.0.1/24",)))
    ops = plan(want, live)
    assert keys(ops) == [("delete", "interfaces/Gi0.10/address/10.0.0.1/24"),
                         ("delete", "interfaces/Gi0.10"), ("create", "interfaces/Gi0.10"),
                         ("create", "interfaces/Gi0.10/mtu"),
                         ("create", "interfaces/Gi0.10/state"),
                         ("create", "interfaces/Gi0.10/address/10.0.0.1/24")]
    assert "encapsulation changed" in ops[1].reason
    assert "create sub-interfaces Gi0 10 dot1ad 10 exact-match" in render_cli(ops)


# -- rendering safety -----------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["loop 0", "loop0;reboot", "loop0\nset", "lo\top", "x{y}"])
def test_unsafe_names_cannot_reach_the_cli(bad: str) -> None:
    ops = plan(dp(phy("Gi0", lcp=bad)), dp(phy("Gi0")))
    with pytest.raises(RenderError):
        render_cli(ops)


def test_empty_token_is_refused() -> None:
    op = Operation("lcp", "create", "interfaces/Gi0/lcp", FrozenDict(name="Gi0", host=""))
    with pytest.raises(RenderError):
        render_cli([op])


def test_reason_comments_cannot_break_out() -> None:
    op = Operation("loopback", "delete", "interfaces/loop1",
                   FrozenDict(name="loop1", instance=1), reason="x } reboot {\nshow")
    lines = render_cli([op]).splitlines()
    assert lines[1] == "comment { interfaces/loop1: x reboot show }"
    assert all("\n" not in line for line in lines)


def test_tap_host_mac_left_to_vpp_is_not_a_change() -> None:
    live = dp(Interface(name="tap0", kind=InterfaceKind.TAP),
              taps=[Tap("tap0", 0, TapHost("h0", mac="02:fe:12:34:56:78"))])
    want = dp(Interface(name="tap0", kind=InterfaceKind.TAP), taps=[Tap("tap0", 0, TapHost("h0"))])
    assert plan(want, live) == []
    other = dp(Interface(name="tap0", kind=InterfaceKind.TAP),
               taps=[Tap("tap0", 0, TapHost("h0", mac="02:00:00:00:00:01"))])
    assert keys(plan(other, live))[:2] == [("delete", "taps/tap0"), ("create", "taps/tap0")]


def test_settings_render_only_what_changed() -> None:
    base = dp(phy("Gi0"), loop(0, addresses=("10.0.0.1/32",)), loop(1, unnumbered="loop0"))
    want = replace(base, sflow=Sflow(sampling_rate=100, polling_interval=20),
                   interfaces=base.interfaces.replace("Gi0", phy("Gi0", mpls=True, sflow=True))
                   .replace("loop1", loop(1, unnumbered="loop0", mtu=9000)))
    lines = render_cli(plan(want, base)).splitlines()
    assert [line for line in lines if not line.startswith("comment")] == [
        "set interface mtu packet 9000 loop1",
        "sflow sampling-rate 100",
        "mpls table add 0",
        "set interface mpls Gi0 enable",
        "sflow enable-disable Gi0",
    ]
    back = render_cli(plan(base, want)).splitlines()
    assert "set interface mpls Gi0 disable" in back
    assert "sflow enable-disable Gi0 disable" in back


def test_qinq_bridge_member_pops_two_tags() -> None:
    qinq = sub("Gi0", 10, encapsulation=Encapsulation(dot1ad=10, inner_dot1q=20))
    want = dp(phy("Gi0"), qinq, bridge_domains=[BridgeDomain("bd1", 1, members=(qinq.name,))])
    lines = render_cli(plan(want, dp(phy("Gi0")))).splitlines()
    assert "create sub-interfaces Gi0 10 dot1ad 10 inner-dot1q 20 exact-match" in lines
    assert "set interface l2 tag-rewrite Gi0.10 pop 2" in lines
    assert lines.index("set interface l2 bridge Gi0.10 1") < lines.index(
        "set interface l2 tag-rewrite Gi0.10 pop 2")


def test_interface_without_its_device_is_a_plan_error() -> None:
    with pytest.raises(PlanError, match="tap0"):
        plan(dp(Interface(name="tap0", kind=InterfaceKind.TAP)), dp())


def test_update_waits_for_what_it_now_needs() -> None:
    """An l2xc re-targeted to a new sub-interface: the sub is created first and
    the xconnect is changed in place (no delete)."""
    live = dp(phy("Gi0", l2xc="Gi1"), phy("Gi1"))
    want = dp(phy("Gi0", l2xc="Gi1.5"), phy("Gi1"), sub("Gi1", 5))
    ops = plan(want, live)
    assert ("delete", "interfaces/Gi0/l2xc") not in keys(ops)
    assert pos(ops, "create", "interfaces/Gi1.5") < pos(ops, "update", "interfaces/Gi0/l2xc")
    assert "set interface l2 xconnect Gi0 Gi1.5" in render_cli(ops).splitlines()


def test_foreign_bridge_domain_is_left_alone() -> None:
    live = dp(phy("Gi0"), phy("Gi1"),
              bridge_domains=[BridgeDomain("bd5", 5, members=("Gi1",)),
                              BridgeDomain("bd6", 6, members=("Gi0",))],
              foreign=frozenset({"bridge_domains/bd5"}))
    ops = plan(dp(phy("Gi0")), live)
    # Gi1 carries the foreign bridge: neither it nor its membership is touched
    assert keys(ops) == [("delete", "bridge_domains/bd6/member/Gi0"),
                         ("delete", "bridge_domains/bd6")]


def test_acl_change_is_replaced_in_place() -> None:
    acl = Acl("web", terms=(AclTerm("permit", family="ipv4", protocol=6,
                                    destination_port=PortRange(80, 80)),))
    live = dp(phy("Gi0", acls=InterfaceAcls(input=("web",))), acls=[acl])
    changed = replace(acl, terms=(*acl.terms, AclTerm("deny", family="ipv4")))
    ops = plan(dp(phy("Gi0", acls=InterfaceAcls(input=("web",))), acls=[changed]), live)
    assert keys(ops) == [("update", "acls/web")]
    assert render_cli(ops, {"web": 3}).splitlines()[1] == (
        "set acl-plugin acl index 3 permit src 0.0.0.0/0 dst 0.0.0.0/0 proto 6 "
        "sport 0-65535 dport 80-80, deny src 0.0.0.0/0 dst 0.0.0.0/0 tag web")
