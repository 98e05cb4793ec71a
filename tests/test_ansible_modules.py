"""The collection's modules run by ansible-core (ad hoc, connection local)
against a simulated VPP: check and diff mode, invalid configs, failures with
the apply's report, commit-confirmed, facts."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.ansible_tools import COLLECTION, ansible_bin, ansible_env, module_result
from vppcfg.vpp import VppConnection

CONFIG = """\
loopbacks:
  loop0:
    description: "Router ID"
    addresses: [192.0.2.1/32]
"""


@pytest.fixture
def run(vpp_sim_factory, tmp_path: Path):
    """run(module, args, *flags, sim=None) -> the module's result (a dict) and stdout."""
    default_sim = vpp_sim_factory()
    calls = iter(range(1000))

    def module(name: str, args: dict[str, Any], *flags: str, sim: Any = None) -> dict:
        sim = sim or default_sim
        tree = tmp_path / f"tree-{next(calls)}"
        vpp = {"api_socket": sim.socket, "json_dir": str(sim.api_dir)}
        if name == "vppcfg":
            vpp.update(lock_file=str(tmp_path / "apply.lock"), state_dir=str(tmp_path / "state"))
        done = subprocess.run(
            [ansible_bin("ansible"), "localhost", "-i", "localhost,", "-c", "local",
             "-e", f"ansible_python_interpreter={sys.executable}",
             "-m", f"vppcfg.vppcfg.{name}", "-a", json.dumps({**vpp, **args}),
             "-t", str(tree), *flags],
            env=ansible_env(tmp_path / "ansible-home"), capture_output=True, text=True,
            timeout=120,
        )
        assert "Traceback" not in done.stdout + done.stderr
        # The tree callback keeps neither "diff" nor "failed"; the stdout shows both.
        failed = "localhost | FAILED!" in done.stdout
        assert failed == (done.returncode != 0), done.stdout
        return {**module_result(tree), "stdout": done.stdout, "failed": failed}

    module.sim = default_sim
    return module


def loopback(sim: Any) -> Any:
    with VppConnection.open(sim.socket, str(sim.api_dir)) as conn:
        return conn.dump().interfaces.get("loop0")


def test_plan_apply_confirm_and_facts(run) -> None:
    planned = run("vppcfg", {"config": CONFIG}, "--check", "--diff")
    assert planned["changed"] is True and not planned["failed"]
    assert "create loopback interface instance 0" in planned["plan"]
    assert "\nset interface ip address loop0 192.0.2.1/32\n" in planned["stdout"]
    assert planned["summary"]["create"] > 0
    assert run.sim.dataplane.mutations == 0  # check mode touches nothing

    armed = run("vppcfg", {"config": CONFIG, "confirm": 60})
    assert armed["changed"] is True and armed["rc"] == 0, armed
    assert armed["report"].startswith("applied ") and "vppcfg confirm" in armed["report"]
    checked = run("vppcfg", {"state": "confirmed"}, "--check")  # says it, does nothing
    assert checked["changed"] is True and "would be confirmed" in checked["msg"]
    kept = run("vppcfg", {"state": "confirmed"})
    assert kept["changed"] is True and kept["msg"].startswith("confirmed")
    checked = run("vppcfg", {"state": "confirmed"}, "--check")
    assert checked["changed"] is False and "no apply awaits" in checked["msg"]

    again = run("vppcfg", {"config": CONFIG})
    assert again["changed"] is False and again["plan"] == [] and "rc" not in again
    facts = run("vppcfg_facts", {})["ansible_facts"]
    assert facts["vppcfg_config"]["loopbacks"]["loop0"]["addresses"] == ["192.0.2.1/32"]
    assert facts["vppcfg_foreign"] == []

    emptied = run("vppcfg", {"config": "loopbacks: {}\n"})  # no loopbacks: loop0 goes
    assert emptied["changed"] is True and "delete loopback" in "\n".join(emptied["plan"])
    assert loopback(run.sim) is None


def test_bad_input_and_unreachable_vpp_fail_plainly(run, tmp_path: Path) -> None:
    result = run("vppcfg", {"config": "loopbacks:\n  loop0:\n    mtu: big\n"})
    assert result["failed"] is True
    assert "invalid" in result["msg"] and "nothing was changed" in result["msg"]
    assert any("3:10: loopbacks.loop0.mtu:" in p for p in result["problems"])
    assert run.sim.dataplane.mutations == 0
    result = run("vppcfg", {"config": CONFIG, "api_socket": str(tmp_path / "none.sock")})
    assert result["failed"] is True and result["msg"].startswith("cannot plan:")
    assert "exception" not in result
    result = run("vppcfg", {"config": CONFIG, "allow": ["no-such-rule"]})
    assert result["failed"] is True and "allow: no rule 'no-such-rule'" in result["msg"]
    assert "known rules: " in result["msg"] and "nothing was changed" in result["msg"]
    result = run("vppcfg", {"config": CONFIG, "confirm": 0})
    assert result["failed"] is True and "more than 0 seconds" in result["msg"]
    assert run.sim.dataplane.mutations == 0


def test_failed_apply_returns_the_report_and_rolls_back(run, vpp_sim_factory) -> None:
    sim = vpp_sim_factory(fail_after=2)
    result = run("vppcfg", {"config": CONFIG}, sim=sim)
    assert result["failed"] is True and result["rc"] == 1
    assert result["msg"].startswith("apply FAILED:")
    assert "final state: VPP is back to the state before the apply" in result["report"]
    assert result["changed"] is False  # fully rolled back
    assert loopback(sim) is None


def test_unconfirmed_change_rolls_itself_back(run, tmp_path: Path) -> None:
    armed = run("vppcfg", {"config": CONFIG, "confirm": 1})
    # not read back from VPP here: on a loaded machine the timer may already have run
    assert armed["changed"] is True and armed["report"].startswith("applied "), armed
    assert "create loopback interface instance 0" in armed["plan"]
    result = tmp_path / "state" / "last-rollback"
    end = time.monotonic() + 30
    while not result.exists() and time.monotonic() < end:
        time.sleep(0.1)
    assert "back to the state before" in result.read_text(encoding="utf-8")
    assert loopback(run.sim) is None
    late = run("vppcfg", {"state": "confirmed"})
    assert late["failed"] is True and "no apply is waiting" in late["msg"]


def test_collection_builds(tmp_path: Path) -> None:
    done = subprocess.run(
        [ansible_bin("ansible-galaxy"), "collection", "build", "--output-path", str(tmp_path)],
        cwd=COLLECTION, env=ansible_env(tmp_path / "home"), capture_output=True, text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with tarfile.open(tmp_path / "vppcfg-vppcfg-0.1.0.tar.gz") as built:
        files = set(built.getnames())
        manifest = json.load(built.extractfile("MANIFEST.json"))
    assert {"plugins/modules/vppcfg.py", "plugins/modules/vppcfg_facts.py",
            "plugins/module_utils/vpp.py", "plugins/doc_fragments/vpp.py"} <= files
    assert not any(name.startswith("tests/output") for name in files)
    assert manifest["collection_info"]["namespace"] == "vppcfg"


@pytest.mark.parametrize("module", sorted(
    (Path(__file__).resolve().parents[1] / "ansible/ansible_collections/vppcfg/vppcfg/plugins"
     / "modules").glob("*.py")), ids=lambda p: p.stem)
def test_module_documentation_is_yaml(module: Path) -> None:
    """ansible-doc and ansible-test read these blocks as YAML (a stray ': ' breaks them)."""
    import ast

    import yaml

    blocks = {node.targets[0].id: node.value.value for node in ast.parse(module.read_text()).body
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id in ("DOCUMENTATION", "EXAMPLES", "RETURN")}
    assert set(blocks) == {"DOCUMENTATION", "EXAMPLES", "RETURN"}
    for name, text in blocks.items():
        assert yaml.safe_load(text) is not None, name
