"""An ACL vppcfg owns, bound to an interface the next config no longer names.

VPP refuses acl_del while the ACL is bound (-142). A PHY the config no longer
names returns to its defaults, so its binding goes first and then the ACL. The
planner keeps such an ACL only while a foreign object (one vppcfg leaves
alone) still uses it, and prunes it once it is no longer in use.
"""

from __future__ import annotations

from tests.apply_models import SSH, G, dp, phy
from vppcfg.apply import apply_config, format_outcome
from vppcfg.model import InterfaceAcls
from vppcfg.objects import render_cli
from vppcfg.objects.acl import acl_indexes
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection
from vppcfg.vpp_numbers import NONE_INDEX as NONE


def with_acl() -> object:
    return dp(phy(G[0], acls=InterfaceAcls(input=(SSH.name,))), phy(G[1]), acls=[SSH])


def test_acl_on_a_dropped_phy_is_unbound_then_deleted(vpp_sim):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, with_acl()).ok
        # G[0] and the ACL leave the config; G[1] stays
        keys = [(op.action, op.key) for op in plan(dp(phy(G[1])), conn.dump())]
        assert keys.index(("delete", f"interfaces/{G[0]}/acls")) < keys.index(
            ("delete", f"acls/{SSH.name}"))
        outcome = apply_config(conn, dp(phy(G[1])))
        assert outcome.ok, format_outcome(outcome)
        live = conn.dump()
        assert SSH.name not in live.acls
        assert live.interfaces[G[0]].acls == InterfaceAcls()
        assert plan(dp(phy(G[1])), live) == []


def test_unused_acl_and_bindings_of_named_interfaces_are_still_pruned(vpp_sim):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, with_acl()).ok
        ops = plan(dp(phy(G[0]), phy(G[1])), conn.dump())
        assert [(op.action, op.key) for op in ops] == [
            ("delete", f"interfaces/{G[0]}/acls"), ("delete", f"acls/{SSH.name}")]
        assert apply_config(conn, dp(phy(G[0]), phy(G[1]))).ok
        assert not conn.dump().acls


def test_acl_used_by_a_foreign_interface_is_kept_and_the_binding_untouched():
    from dataclasses import replace

    from tests.apply_models import loop

    live = dp(phy(G[0]), loop(5, acls=InterfaceAcls(input=(SSH.name,))), acls=[SSH])
    foreign = replace(live, foreign=frozenset({"interfaces/loop5"}))
    assert plan(dp(phy(G[0])), foreign) == []
    # the same loopback, ours: it is unbound and goes, and the ACL after the unbinding
    keys = [(op.action, op.key) for op in plan(dp(phy(G[0])), live)]
    assert sorted(keys) == [("delete", "acls/ssh-in"), ("delete", "interfaces/loop5"),
                            ("delete", "interfaces/loop5/acls")]
    assert keys.index(("delete", "interfaces/loop5/acls")) < keys.index(("delete", "acls/ssh-in"))


def _run_cli_plan(conn, desired) -> None:
    """Apply as an operator would: the plan's CLI text, line by line."""
    text = render_cli(plan(desired, conn.dump()), acl_indexes(conn))
    for line in text.splitlines():
        conn.cli(line)


def test_cli_plan_does_not_reuse_the_index_of_an_untagged_acl(vpp_sim):
    # Someone else's ACL without a tag holds index 0: the new ACL gets index 1,
    # and the binding must name 1, never the stranger's ACL (the first round
    # leaves it unbound: a new ACL's index is VPP's choice; the next binds it).
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        conn.call("acl_add_replace", acl_index=NONE, tag="", count=0, r=[])
        _run_cli_plan(conn, with_acl())
        assert conn.dump().interfaces[G[0]].acls.input == ()
        _run_cli_plan(conn, with_acl())
        live = conn.dump()
        assert live.interfaces[G[0]].acls.input == (SSH.name,)
        assert acl_indexes(conn)[SSH.name] == 1
        assert plan(with_acl(), live) == []


def test_cli_plan_addresses_the_acl_the_planner_compared(vpp_sim):
    # Two ACLs share the tag: the dump calls the lower index by the tag, so the
    # CLI must update and bind that one, as the API path does.
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        for _ in range(2):
            conn.call("acl_add_replace", acl_index=NONE, tag=SSH.name, count=0, r=[])
        _run_cli_plan(conn, with_acl())
        live = conn.dump()
        assert live.interfaces[G[0]].acls.input == (SSH.name,)
        assert plan(with_acl(), live) == []
