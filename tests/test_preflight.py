"""The preflight: apply refuses before any change when VPP lacks what the plan
needs; plan warns (exit 3, JSON carries it); dump names what it could not
read; a definitions mismatch is told apart from a missing plugin; apply's
error path blames the operation that failed.

The VPP is the simulator's model with a plugin left out (as a VPP whose
startup.conf does not enable linux_cp) or served other definitions.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SimHandle
from vppcfg.cli import main
from vppcfg.sim.codec import DEFAULT_API_DIR
from vppcfg.sim.dataplane import PLUGINS, SimDataplane
from vppcfg.sim.inventory import default_inventory
from vppcfg.vpp import VppConnection

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROUTER = EXAMPLES / "router.yaml"


def _without(factory: Callable[..., SimHandle], plugin: str, **kwargs: Any) -> SimHandle:
    model = SimDataplane(default_inventory(), plugins=[p for p in PLUGINS if p != plugin])
    return factory(handler=model, **kwargs)


def _args(sim: SimHandle, json_dir: Path | None = None) -> list[str]:
    return ["--vpp-api-socket", sim.socket, "--vpp-json-dir", str(json_dir or sim.api_dir)]


def _state(sim: SimHandle) -> Any:
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        return conn.dump()


def test_apply_refuses_before_any_change_without_linux_cp(
        vpp_sim_factory: Callable[..., SimHandle], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    sim = _without(vpp_sim_factory, "lcp")
    before = _state(sim)
    code = main(["apply", "-c", str(ROUTER), *_args(sim), "--lock-file",
                 str(tmp_path / "lock"), "--state-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert sim.dataplane.mutations == 0  # not one state-changing call reached VPP
    assert _state(sim) == before
    assert "refused before any change" in err
    assert "linux_cp_plugin.so" in err and "first in VPP 21.06" in err
    assert "plugins { plugin linux_cp_plugin.so { enable } }" in err
    # the config lines that need it, by file and line
    assert f"{ROUTER}:24: create lcp interfaces/BondEthernet0/lcp" in err
    assert f"{ROUTER}:30: create lcp interfaces/BondEthernet0.100/lcp" in err
    assert f"{ROUTER}:67: create lcp interfaces/loop0/lcp" in err
    assert "nothing was changed" in err
    assert "went away" not in err and "rollback" not in err


def test_plan_warns_and_exits_3(vpp_sim_factory: Callable[..., SimHandle], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    sim = _without(vpp_sim_factory, "lcp")
    assert main(["plan", "-c", str(ROUTER), *_args(sim)]) == 3
    out, err = capsys.readouterr()
    assert "lcp create BondEthernet0 host-if be0" in out  # the plan is still printed
    assert "vppcfg plan: warning: this VPP lacks the Linux Control Plane plugin" in err
    assert "would refuse" in err
    assert main(["plan", "-c", str(ROUTER), *_args(sim), "--detailed-exitcode"]) == 3
    capsys.readouterr()
    plan_file = tmp_path / "plan.json"
    assert main(["plan", "-c", str(ROUTER), *_args(sim), "--format", "json",
                 "-o", str(plan_file)]) == 3
    doc = json.loads(plan_file.read_text())
    ops = doc["operations"] if isinstance(doc, dict) else doc
    flagged = [op for op in ops if "preflight" in op]
    assert {op["obj"] for op in flagged} == {"lcp"}
    assert len(flagged) == sum(op["obj"] == "lcp" for op in ops) == 8
    finding = flagged[0]["preflight"][0]
    assert finding["so"] == "linux_cp_plugin.so" and finding["status"] == "absent"
    assert finding["stanza"] == "plugins { plugin linux_cp_plugin.so { enable } }"
    assert finding["since"] == "21.06"
    assert any(n.startswith(f"{ROUTER}:24: ") for n in finding["needed_by"])
    # apply --dry-run says the same
    assert main(["apply", "-c", str(ROUTER), *_args(sim), "--dry-run"]) == 3
    err = capsys.readouterr().err
    assert "vppcfg apply: warning: this VPP lacks the Linux Control Plane" in err


def test_plan_on_a_vpp_with_every_plugin_has_no_warning(
        vpp_sim: SimHandle, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "-c", str(ROUTER), *_args(vpp_sim), "--detailed-exitcode"]) == 2
    err = capsys.readouterr().err
    assert "would refuse" not in err and "lacks" not in err


def test_config_without_the_plugin_is_applied(vpp_sim_factory: Callable[..., SimHandle],
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Only what the plan needs counts: without lcp, a config with no lcp applies."""
    sim = _without(vpp_sim_factory, "lcp")
    config = tmp_path / "l2xc.yaml"
    shutil.copy(EXAMPLES / "l2xc.yaml", config)
    assert "lcp" not in config.read_text()
    assert main(["apply", "-c", str(config), *_args(sim), "--lock-file",
                 str(tmp_path / "lock"), "--state-dir", str(tmp_path)]) == 0
    assert sim.dataplane.mutations > 0


def test_dump_names_the_sections_it_could_not_read(
        vpp_sim_factory: Callable[..., SimHandle], capsys: pytest.CaptureFixture[str]) -> None:
    sim = _without(vpp_sim_factory, "acl")
    assert main(["dump", *_args(sim)]) == 0
    err = capsys.readouterr().err
    assert "vppcfg dump: not read: acl: this VPP lacks the ACL plugin (acl_plugin.so" in err
    assert "not read: interface-acls" in err
    assert "not read: lcp" not in err


def _wrong_crc(tmp_path: Path) -> Path:
    """Our definitions, but sflow_enable_disable with another CRC than VPP's."""
    ours = tmp_path / "api"
    shutil.copytree(DEFAULT_API_DIR, ours)
    path = ours / "plugins" / "sflow.api.json"
    api = json.loads(path.read_text())
    for message in api["messages"]:
        if message[0] == "sflow_enable_disable":
            message[-1]["crc"] = "0x12345678"
    path.write_text(json.dumps(api))
    return ours


def test_definitions_mismatch_is_not_a_missing_plugin(
        vpp_sim: SimHandle, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The client's JSON gives sflow_enable_disable another CRC than the
    running VPP's: the message is there, the definitions are wrong."""
    ours = _wrong_crc(tmp_path)
    assert main(["plan", "-c", str(ROUTER), *_args(vpp_sim, ours)]) == 3
    err = capsys.readouterr().err
    assert "the API definitions are not the running VPP's" in err
    assert "VPP has sflow_enable_disable with CRC 0x" in err and "say 0x12345678" in err
    assert "lacks the sFlow plugin" not in err
    assert f"{ROUTER}:15: create sflow-interface" in err


def test_apply_blames_the_operation_that_failed(
        vpp_sim_factory: Callable[..., SimHandle], monkeypatch: pytest.MonkeyPatch) -> None:
    """With the preflight out of the way, the pipelined apply still names the
    lcp operation (not the MTU change queued before it) and the plugin, and
    says nothing of VPP going away; the rollback restores the state."""
    import vppcfg.apply as apply_mod
    from vppcfg import config

    monkeypatch.setattr(apply_mod, "preflight", lambda *a, **k: [])
    sim = _without(vpp_sim_factory, "lcp")
    before = _state(sim)
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        outcome = apply_mod.apply_config(conn, config.load(str(ROUTER)))
    report = apply_mod.format_outcome(outcome)
    assert not outcome.ok and outcome.failed is not None
    assert outcome.failed.obj == "lcp", report
    assert outcome.error.startswith(f"create lcp {outcome.failed.key}: this VPP lacks "
                                    "lcp_itf_pair_add_del (the Linux Control Plane plugin")
    assert "went away" not in report and outcome.unanswered == 0
    assert outcome.rollback is not None and outcome.rollback.complete
    assert _state(sim) == before


def test_a_mismatch_met_during_the_apply_says_so(
        vpp_sim: SimHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the preflight, the failing operation still tells a definitions
    mismatch from a missing plugin."""
    import vppcfg.apply as apply_mod
    from vppcfg import config

    monkeypatch.setattr(apply_mod, "preflight", lambda *a, **k: [])
    with VppConnection.open(vpp_sim.socket, _wrong_crc(tmp_path)) as conn:
        outcome = apply_mod.apply_config(conn, config.load(str(ROUTER)))
    assert outcome.failed is not None and outcome.failed.obj == "sflow-interface"
    assert "VPP has sflow_enable_disable with CRC 0x" in outcome.error
    assert "(API definitions mismatch)" in outcome.error
    assert outcome.rollback is not None and outcome.rollback.complete


class _Recorder:
    """An executor context that records each call, over a real one."""

    def __init__(self, ctx: Any) -> None:
        self.ctx, self.calls = ctx, []

    def call(self, message: str, **args: Any) -> Any:
        self.calls.append(message)
        return self.ctx.call(message, **args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ctx, name)


@pytest.mark.parametrize("example", ["router.yaml", "acl.yaml", "l2xc.yaml", "routed-lcp.yaml"])
def test_every_message_an_operation_sends_is_declared(vpp_sim: SimHandle, example: str) -> None:
    """Create an example, change it, remove it: each call an operation makes
    is one its object type declares for that action (what the preflight checks)."""
    from vppcfg import config
    from vppcfg.commands.plan import fresh_dataplane
    from vppcfg.objects import descriptor, execute
    from vppcfg.planner import plan

    desired = config.load(str(EXAMPLES / example))
    changed = _changed(desired)
    seen: set[str] = set()
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        for target in (desired, changed, fresh_dataplane(desired)):
            ctx = conn.context()
            for op in plan(target, conn.dump()):
                rec = _Recorder(ctx)
                execute(op, rec)
                declared = {m for need in descriptor(op.obj).uses
                            if op.action in need.actions for m in need.messages}
                assert set(rec.calls) <= declared, (op, set(rec.calls) - declared)
                seen.add(f"{op.action} {op.obj}")
    assert any(s.startswith("delete") for s in seen) and any(s.startswith("update") for s in seen)


def _changed(dp: Any) -> Any:
    """Every interface's MTU lowered and sFlow settings changed: updates."""
    from dataclasses import replace

    from vppcfg.model import FrozenDict

    interfaces = FrozenDict({n: replace(i, mtu=1400, description="changed")
                             for n, i in dp.interfaces.items()})
    return replace(dp, interfaces=interfaces, sflow=replace(dp.sflow, sampling_rate=2000))


NEWEST = ("bond_create2", "bond_add_member", "bond_detach_member", "tap_create_v3",
          "vxlan_add_del_tunnel_v3", "lcp_itf_pair_add_del_v3", "lcp_itf_pair_add_del_v2",
          "bridge_domain_add_del_v2")


def test_an_older_vpp_gets_the_fallbacks(vpp_sim_factory: Callable[..., SimHandle]) -> None:
    """A VPP offering only the older message of each pair passes the preflight
    and is configured through those (each fallback is a declared choice)."""
    from vppcfg import config
    from vppcfg.apply import apply_config
    from vppcfg.commands.plan import fresh_dataplane
    from vppcfg.planner import plan

    model = SimDataplane(default_inventory())
    for name in NEWEST:
        del model.handlers[name]
    sent: list[str] = []
    handle = model.handle
    model.handle = lambda message, args: (sent.append(message), handle(message, args))[1]
    sim = vpp_sim_factory(handler=model)
    text = ROUTER.read_text() + ("taps:\n  tap1:\n    host:\n      name: vtap1\n")
    desired = config.loads(text, filename="router+tap.yaml")
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert not any(conn.has_message(m) for m in NEWEST)
        assert apply_config(conn, desired).ok
        assert plan(desired, conn.dump()) == []
        assert apply_config(conn, fresh_dataplane(desired)).ok  # and back: the deletes
    assert {"bond_create", "bond_enslave", "bond_detach_slave", "tap_create_v2",
            "vxlan_add_del_tunnel_v2", "lcp_itf_pair_add_del",
            "bridge_domain_add_del"} <= set(sent)
    assert not set(NEWEST) & set(sent)


def test_a_choice_vpp_has_under_another_crc_is_a_mismatch_not_absent() -> None:
    """Of a need's choices, VPP lacks the newest but has the older one under another
    CRC: our definitions are the problem (MISMATCH), not a missing plugin."""
    from vppcfg.objects.needs import Uses
    from vppcfg.vpp.preflight import ABSENT, MISMATCH, Offer, _finding

    need = Uses(("thing_add_v2", "thing_add"))
    offer = Offer(usable=frozenset(), vpp={"thing_add": "11111111"},
                  ours={"thing_add": "22222222", "thing_add_v2": "33333333"})
    assert _finding(need, offer).status == MISMATCH
    nowhere = Offer(usable=frozenset(), vpp={}, ours={"thing_add": "22222222"})
    assert _finding(need, nowhere).status == ABSENT
