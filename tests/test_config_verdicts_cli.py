"""The language's refusals on the command line: plan and apply refuse what
check refuses, --allow and the file's `vppcfg:` section make a refusal a
warning that plan and apply print (stderr, once, before the plan) and carry in
JSON, --strict makes any warning a refusal that changes nothing, and a dump of
a VPP holding an allowed state checks and plans to nothing (simulator)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.ansible_tools import ansible_bin, ansible_env, module_result
from tests.test_config_rules import REFUSED
from vppcfg import config
from vppcfg.cli import main

BOND_ADDRESS = REFUSED["bond member with addresses"][0]


def vpp_args(sim: Any) -> list[str]:
    return ["--vpp-api-socket", sim.socket, "--vpp-json-dir", str(sim.api_dir)]


def apply_args(sim: Any, tmp_path: Path) -> list[str]:
    return [*vpp_args(sim), "--lock-file", str(tmp_path / "lock"),
            "--state-dir", str(tmp_path / "state")]


@pytest.fixture
def bond_file(tmp_path: Path) -> Path:
    path = tmp_path / "bond.yaml"
    path.write_text(BOND_ADDRESS, encoding="utf-8")
    return path


def test_plan_refuses_what_check_refuses(bond_file: Path, capsys) -> None:
    assert main(["plan", "-c", str(bond_file), "--novpp"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"vppcfg plan: {bond_file}:5:" in err and "--allow bond-member-address" in err


def test_plan_prints_the_warnings_once_before_the_plan(bond_file: Path, capsys) -> None:
    assert main(["plan", "-c", str(bond_file), "--novpp", "--allow", "bond-member-address"]) == 0
    out, err = capsys.readouterr()
    warning = "warning: member GigabitEthernet3/0/0 has addresses"
    assert err.count(warning) == 1
    assert err.index(warning) < err.index("vppcfg plan: ")  # before the summary
    assert f"{bond_file}:5:" in err and "(allowed: bond-member-address)" in err
    assert "create bond" in out or "bond add" in out or out  # the plan itself is printed


def test_plan_json_carries_the_warnings(bond_file: Path, tmp_path: Path, capsys) -> None:
    out_file = tmp_path / "plan.json"
    assert main(["plan", "-c", str(bond_file), "--novpp", "--allow", "bond-member-address",
                 "--format", "json", "-o", str(out_file)]) == 0
    doc = json.loads(out_file.read_text(encoding="utf-8"))
    [warning] = doc["warnings"]
    assert warning["rule"] == "bond-member-address" and warning["line"] == 5
    assert warning["file"] == str(bond_file)
    assert doc["operations"] and all("action" in op for op in doc["operations"])


def test_the_file_can_allow_the_rule(bond_file: Path, capsys) -> None:
    bond_file.write_text("vppcfg: {allow: [bond-member-address]}\n" + BOND_ADDRESS)
    assert main(["plan", "-c", str(bond_file), "--novpp"]) == 0
    assert "(allowed: bond-member-address)" in capsys.readouterr().err


def test_plan_strict_refuses_a_warning(bond_file: Path, capsys) -> None:
    assert main(["plan", "-c", str(bond_file), "--novpp", "--allow", "bond-member-address",
                 "--strict"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "warning: member GigabitEthernet3/0/0 has addresses" in err
    assert "--strict: 1 warning(s) refuse" in err


def test_apply_refuses_then_allows_then_strict(vpp_sim, bond_file: Path, tmp_path: Path,
                                                capsys) -> None:
    args = apply_args(vpp_sim, tmp_path)
    before = vpp_sim.dataplane.mutations
    assert main(["apply", "-c", str(bond_file), *args]) == 1
    err = capsys.readouterr().err
    assert "--allow bond-member-address" in err and "nothing was changed" in err
    assert main(["apply", "-c", str(bond_file), *args, "--allow", "bond-member-address",
                 "--strict"]) == 1
    assert "--strict: 1 warning(s) refuse" in capsys.readouterr().err
    assert vpp_sim.dataplane.mutations == before  # neither touched VPP
    assert main(["apply", "-c", str(bond_file), *args, "--allow", "bond-member-address"]) == 0
    out, err = capsys.readouterr()
    assert err.count("warning: member GigabitEthernet3/0/0 has addresses") == 1
    assert out.startswith("applied ")


# States the simulator holds after an allowed apply, each dumped back; the rest
# of REFUSED are written in the language's own spelling by the emitter
# (test_config_rules.SPELLED_OUT) and checked there.
DUMPABLE = sorted(case for case, (_, rule, _) in REFUSED.items()
                  if rule not in ("sub-empty", "bond-interface"))
# Applied, but not held by VPP as written: the dump has no such state to allow.
NOT_HELD = {
    "bridge mtu above the language's": "VPP bridges have no MTU; a dump writes none",
    "icmp type without icmp": "VPP keeps an ICMP type in the source-port field: a dump "
                              "reads the tcp rule's as its source port",
}


@pytest.mark.parametrize("case", DUMPABLE)
def test_dump_of_an_allowed_state_checks_and_plans_to_nothing(
        case: str, vpp_sim_factory, tmp_path: Path, capsys) -> None:
    text, rule, _ = REFUSED[case]
    sim = vpp_sim_factory()
    wanted = tmp_path / "wanted.yaml"
    wanted.write_text(text, encoding="utf-8")
    assert main(["apply", "-c", str(wanted), *apply_args(sim, tmp_path), "--allow", rule]) == 0
    dumped = tmp_path / "dump.yaml"
    assert main(["dump", *vpp_args(sim), "-o", str(dumped)]) == 0
    capsys.readouterr()
    written = dumped.read_text(encoding="utf-8")
    assert main(["check", str(dumped)]) == 0, capsys.readouterr().err  # no --allow needed
    header = "# This dataplane holds states that the vppcfg language refuses"
    if case in NOT_HELD:
        assert header not in written and "vppcfg:" not in written
    else:
        assert header in written
        assert rule in config.to_dict(config.load(str(dumped)))["vppcfg"]["allow"]
    capsys.readouterr()
    assert main(["plan", "-c", str(dumped), *vpp_args(sim), "--detailed-exitcode"]) == 0


def ansible_module(sim: Any, tmp_path: Path, args: dict[str, Any]) -> tuple[dict, str]:
    """The vppcfg module run by ansible-core (ad hoc, connection local) against
    `sim`: its result and everything ansible printed (warnings go to stderr)."""
    tree = tmp_path / f"tree-{len(list(tmp_path.glob('tree-*')))}"
    vpp = {"api_socket": sim.socket, "json_dir": str(sim.api_dir),
           "lock_file": str(tmp_path / "apply.lock"), "state_dir": str(tmp_path / "state")}
    done = subprocess.run(
        [ansible_bin("ansible"), "localhost", "-i", "localhost,", "-c", "local",
         "-e", f"ansible_python_interpreter={sys.executable}",
         "-m", "vppcfg.vppcfg.vppcfg", "-a", json.dumps({**vpp, **args}), "-t", str(tree)],
        env=ansible_env(tmp_path / "ansible-home"), capture_output=True, text=True, timeout=120,
    )
    printed = done.stdout + done.stderr
    assert "Traceback" not in printed
    return {**module_result(tree), "failed": done.returncode != 0}, printed


def test_ansible_module_refuses_allows_warns_and_strict(vpp_sim, tmp_path: Path) -> None:
    refused, _ = ansible_module(vpp_sim, tmp_path, {"config": BOND_ADDRESS})
    assert refused["failed"] is True and "nothing was changed" in refused["msg"]
    assert any("--allow bond-member-address" in p for p in refused["problems"])
    allow = {"config": BOND_ADDRESS, "allow": ["bond-member-address"]}
    strict, _ = ansible_module(vpp_sim, tmp_path, {**allow, "strict": True})
    assert strict["failed"] is True and strict["msg"].startswith("strict: 1 warning(s)")
    assert vpp_sim.dataplane.mutations == 0
    applied, printed = ansible_module(vpp_sim, tmp_path, allow)
    assert applied["failed"] is False and applied["changed"] is True, applied
    [warning] = applied["config_warnings"]
    assert warning.startswith("config:5:") and "(allowed: bond-member-address)" in warning
    assert "[WARNING]: config:5:" in printed  # shown where Ansible users look
    assert applied["report"].startswith("applied ")  # apply's repeat of it left out
    assert vpp_sim.dataplane.mutations > 0
