"""`vppcfg dump`: the live VPP as a config that checks and plans to nothing."""

from __future__ import annotations

import json

from tests.apply_models import sample_a
from vppcfg import config
from vppcfg.apply import apply_config
from vppcfg.cli import main
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection


def vpp_args(sim) -> list[str]:
    return ["--vpp-api-socket", sim.socket, "--vpp-json-dir", str(sim.api_dir)]


def test_dump_round_trip_with_foreign_objects(vpp_sim, tmp_path, capsys):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, sample_a()).ok
        # made by someone else: no vppcfg tag
        conn.call("create_loopback_instance", is_specified=True, user_instance=9)
        conn.call("bridge_domain_add_del_v2", bd_id=20, is_add=True, bd_tag="theirs")
    out = tmp_path / "dump.yaml"
    assert main(["dump", *vpp_args(vpp_sim), "-o", str(out)]) == 0
    text = out.read_text()
    desired = config.load(str(out))  # `vppcfg check` accepts it
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert plan(desired, conn.dump()) == []  # and it plans to nothing
    # foreign objects are shown, commented out, after a header saying so
    config_part, _, foreign_part = text.partition("not created by vppcfg")
    assert "loop9" not in config_part and "bd20" not in config_part
    assert "#     loop9:" in foreign_part and "#     bd20:" in foreign_part
    assert "loop0" in config_part and "ssh-in" in config_part
    capsys.readouterr()
    assert main(["plan", "-c", str(out), *vpp_args(vpp_sim)]) == 0
    printed = capsys.readouterr()
    assert "0 to create, 0 to change, 0 to delete" in printed.out + printed.err


def test_dump_json(vpp_sim, capsys):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        conn.call("create_loopback_instance", is_specified=True, user_instance=4)
    assert main(["dump", *vpp_args(vpp_sim), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "GigabitEthernet3/0/0" in data["interfaces"]
    assert data["_foreign"] == ["interfaces/loop4"]


def test_dump_without_vpp_is_a_one_line_error(tmp_path, capsys):
    code = main(["dump", "--vpp-api-socket", str(tmp_path / "none.sock"),
                 "--vpp-json-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("vppcfg dump: ") and "Traceback" not in err


def test_foreign_object_an_owned_one_needs_stays_in_the_config():
    from tests.apply_models import dp, loop, phy
    from vppcfg.commands.dump import render, split_foreign
    from vppcfg.model import BridgeDomain

    live = dp(phy("GigabitEthernet3/0/0"), loop(1), loop(2),
              bridge_domains=[BridgeDomain("bd10", 10, bvi="loop1")])
    live = type(live)(**{**live.__dict__, "foreign": frozenset(
        {"interfaces/loop1", "interfaces/loop2"})})
    owned, foreign = split_foreign(live)
    assert "loop1" in owned.interfaces and "loop2" not in owned.interfaces
    assert owned.foreign == frozenset({"interfaces/loop1"})  # still marked as foreign
    assert foreign is not None and list(foreign.interfaces) == ["loop2"]
    text = render(live)
    head, _, tail = text.partition("Present in VPP but not created by vppcfg")
    assert "# not created by vppcfg" in head and "loop1" in head  # annotated in place
    assert "loop2" in tail and "loop2" not in head
    assert config.loads(head)  # the config part is valid on its own


def test_acl_tags_that_are_not_config_names_are_foreign():
    from vppcfg.objects.acl import looks_like_ours

    assert looks_like_ours("ssh-in") and looks_like_ours("v6-dns")
    assert not looks_like_ours("") and not looks_like_ours("Some ACL")
    assert not looks_like_ours("x" * 57)
