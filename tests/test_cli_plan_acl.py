"""A printed plan binds the ACLs it creates wherever their index can be known.

VPP gives a new ACL the most recently freed slot of its pool (LIFO), else the
pool's end. So the plan's CLI names the slots its own deletes freed, last
first. Anything else is left to the next plan: older free slots are not in the
dump, not even at the pool's end (the real-VPP walk found a guess there naming
a free slot, which VPP took without a word, leaving the interface unbound).
Checked on the simulator, which allocates as VPP does, and through `vppctl exec`
on the real VPP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.apply_models import SSH, G, dp, phy, run_cli_plan
from vppcfg import config
from vppcfg.apply import apply_config
from vppcfg.model import Acl, AclTerm, InterfaceAcls
from vppcfg.objects import render_cli
from vppcfg.objects.acl import acl_indexes
from vppcfg.objects.base import RenderContext
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection
from vppcfg.vpp_numbers import NONE_INDEX

WEB = Acl("web-in", terms=(AclTerm("permit", family="ipv4", protocol=6,),))


def _bound(*pairs: tuple[str, Acl]) -> Any:
    """G[0] and G[1] with an input ACL each (as given), and those ACLs."""
    itfs = [phy(name, acls=InterfaceAcls(input=(acl.name,))) for name, acl in pairs]
    return dp(*itfs, acls=list({acl.name: acl for _, acl in pairs}.values()))


def _one_round(conn: Any, desired: Any) -> str:
    text = render_cli(plan(desired, conn.dump()), acl_indexes(conn))
    for line in text.splitlines():
        conn.cli(line)
    return text


def test_a_new_acl_beyond_the_freed_slots_is_bound_by_the_next_plan(vpp_sim: Any) -> None:
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        text = _one_round(conn, _bound((G[0], SSH)))
        assert "set acl-plugin interface" not in text
        assert "run vppcfg plan again to bind it" in text
        texts = run_cli_plan(conn, _bound((G[0], SSH)))
        assert f"set acl-plugin interface {G[0]} input acl 0" in texts[0]


def test_slots_freed_at_the_pools_end_are_not_guessed(vpp_sim: Any) -> None:
    """ACLs 0 and 1 deleted before: the dump shows an empty pool, VPP hands out
    1 next. Guessing 0 bound nothing (VPP takes a free slot without a word)."""
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        for _ in range(2):
            conn.call("acl_add_replace", acl_index=NONE_INDEX, tag="", count=0, r=[])
        conn.call("acl_del", acl_index=0)
        conn.call("acl_del", acl_index=1)
        text = _one_round(conn, _bound((G[0], SSH)))
        assert "set acl-plugin interface" not in text
        assert acl_indexes(conn)[SSH.name] == 1
        run_cli_plan(conn, _bound((G[0], SSH)))  # the next plan binds it


def test_a_replaced_acl_takes_the_slot_the_plan_freed(vpp_sim: Any) -> None:
    """ssh-in at 0 and web-in at 1; the next config drops ssh-in for a new ACL:
    VPP puts it where ssh-in was, and the printed plan says so."""
    other = Acl("other-in", terms=(AclTerm("deny", family="ipv4", protocol=17),))
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, _bound((G[0], SSH), (G[1], WEB))).ok
        freed = acl_indexes(conn)[SSH.name]
        desired = _bound((G[0], other), (G[1], WEB))
        text = _one_round(conn, desired)
        assert f"set acl-plugin interface {G[0]} input acl {freed}" in text
        assert acl_indexes(conn)["other-in"] == freed
        assert plan(desired, conn.dump()) == []


def test_a_hole_in_the_pool_is_not_guessed(vpp_sim: Any) -> None:
    """Someone else's ACLs (untagged: left alone) at 0 and 2, 1 freed before:
    which free slot VPP hands out next is not in the dump, so the binding waits
    for the next plan (never a wrong ACL)."""
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        for _ in range(3):
            conn.call("acl_add_replace", acl_index=NONE_INDEX, tag="", count=0, r=[])
        conn.call("acl_del", acl_index=1)
        text = _one_round(conn, _bound((G[0], SSH)))
        assert "run vppcfg plan again to bind it" in text
        assert conn.dump().interfaces[G[0]].acls.input == ()
        run_cli_plan(conn, _bound((G[0], SSH)))  # the next plan binds it


def test_two_new_acls_are_not_guessed() -> None:
    """Two new ACLs beyond any slot the plan freed: older free slots could swap
    them, so neither binding is printed."""
    desired = _bound((G[0], SSH), (G[1], WEB))
    text = render_cli(plan(desired, dp(phy(G[0]), phy(G[1]))), {})
    assert "set acl-plugin interface" not in text
    assert text.count("run vppcfg plan again to bind it") == 2


def test_render_context_follows_the_pool() -> None:
    rc = RenderContext({"a": 0, "b": 1, "c": 2})
    rc.release_acl("a")
    rc.release_acl("c")
    assert rc.new_acl("x") == 2 and rc.new_acl("y") == 0  # last freed first
    assert rc.new_acl("z") is None  # beyond the freed slots: no guess
    holes = RenderContext({"a": 0, "c": 2})
    assert holes.new_acl("x") is None
    dense = RenderContext({"a": 0, "b": 1})
    assert dense.new_acl("x") is None  # the end is no safer: older frees may be there


CONFIG = """\
interfaces:
  host-ge0:
    addresses: [192.0.2.1/24]
    acls:
      input: [ssh-in]
acls:
  ssh-in:
    terms:
      - action: permit
        source: 192.0.2.0/24
        protocol: tcp
        destination-port: ssh
"""


@pytest.mark.real
def test_vppctl_exec_of_the_plan_reaches_the_config(vpp_real_factory: Any) -> None:
    vpp = vpp_real_factory()
    desired = config.loads(CONFIG)
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        texts = run_cli_plan(conn, desired, vpp.exec_text)
        assert len(texts) == 2, texts  # the new ACL's binding: the next plan
        assert "set acl-plugin interface host-ge0 input acl 0" in texts[1]
        live = conn.dump()
        assert live.interfaces["host-ge0"].acls.input == ("ssh-in",)
        # the same ACL again under another name: the plan deletes, then creates in
        # the slot it freed, and binds it there
        renamed = config.loads(CONFIG.replace("ssh-in", "ssh-v2"))
        texts = run_cli_plan(conn, renamed, vpp.exec_text)
        assert len(texts) == 1, texts
        assert acl_indexes(conn) == {"ssh-v2": 0}
        assert plan(renamed, conn.dump()) == []
