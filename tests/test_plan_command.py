"""`vppcfg plan`: exit codes, output formats, --novpp and a live (simulated) VPP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli_plan_acl import CONFIG as ACL_CONFIG
from vppcfg.cli import main

pytest.importorskip("vppcfg.config", reason="the config loader is not available yet")

CONFIG = """\
interfaces:
  GigabitEthernet3/0/0:
    mtu: 9000
    lcp: e0
    addresses: [192.0.2.1/30]
    sub-interfaces:
      100:
        mtu: 1500
        addresses: [10.0.0.1/24]
  GigabitEthernet3/0/1:
    mtu: 1500
loopbacks:
  loop0:
    mtu: 1500
    addresses: [10.1.0.1/24]
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_novpp_cli_output(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "-c", str(config_file), "--novpp"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert "create sub-interfaces GigabitEthernet3/0/0 100 dot1q 100 exact-match" in lines
    assert "set interface mtu 1500 GigabitEthernet3/0/1" in lines
    assert "set interface ip address GigabitEthernet3/0/0.100 10.0.0.1/24" in lines
    # up before its lcp pair (linux-cp copies the state then) and its addresses
    up = lines.index("set interface state GigabitEthernet3/0/0 up")
    assert up < lines.index("lcp create GigabitEthernet3/0/0 host-if e0")
    assert up < lines.index("set interface ip address GigabitEthernet3/0/0 192.0.2.1/30")
    assert "to create" in err


def test_json_output_to_file(config_file: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "plan.json"
    assert main(["plan", "-c", str(config_file), "--novpp", "--format", "json",
                 "-o", str(out_file)]) == 0
    doc = json.loads(out_file.read_text(encoding="utf-8"))
    assert doc["warnings"] == []
    ops = doc["operations"]
    assert {"obj": "loopback", "action": "create", "key": "interfaces/loop0",
            "params": {"name": "loop0", "instance": 0}, "reason": ""} in ops
    err = capsys.readouterr().err
    counts = {op["action"]: 0 for op in ops}
    for op in ops:
        counts[op["action"]] += 1
    assert f"{counts.get('create', 0)} to create" in err


def test_json_is_one_operation_per_line_in_plan_order(
        config_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON plan is the planner's operations, in order, each on a line of
    its own (written in pieces of JSON_CHUNK operations: 3 here, so several)."""
    from vppcfg import config
    from vppcfg.commands import common
    from vppcfg.commands import plan as plan_command
    from vppcfg.planner import plan

    monkeypatch.setattr(common, "JSON_CHUNK", 3)
    out_file = tmp_path / "plan.json"
    assert main(["plan", "-c", str(config_file), "--novpp", "--format", "json",
                 "-o", str(out_file)]) == 0
    text = out_file.read_text(encoding="utf-8")
    desired = config.load(str(config_file))
    expected = [op.as_dict() for op in plan(desired, plan_command.fresh_dataplane(desired))]
    assert len(expected) > 6
    assert json.loads(text) == {"warnings": [], "operations": expected}
    lines = text.splitlines()
    start = lines.index('  "operations": [')
    assert lines[start + 1:start + 1 + len(expected)] == [
        "    " + json.dumps(op) + ("," if i < len(expected) - 1 else "")
        for i, op in enumerate(expected)]
    assert lines[start + 1 + len(expected):] == ["  ]", "}"]


def test_json_of_nothing_to_do(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("interfaces: {}\n", encoding="utf-8")
    out_file = tmp_path / "plan.json"
    assert main(["plan", "-c", str(path), "--novpp", "--format", "json",
                 "-o", str(out_file)]) == 0
    text = out_file.read_text(encoding="utf-8")
    assert text == '{\n  "warnings": [],\n  "operations": []\n}\n'


def test_missing_file_is_an_io_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "-c", str(tmp_path / "absent.yaml"), "--novpp"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absent.yaml" in err


def test_invalid_config_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("interfaces:\n  GigabitEthernet3/0/0:\n    mtu: lots\n", encoding="utf-8")
    assert main(["plan", "-c", str(path), "--novpp"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "bad.yaml" in err


def test_unreachable_vpp_is_exit_2(config_file: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "-c", str(config_file), "--vpp-api-socket", str(tmp_path / "no.sock")])
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_plan_against_the_simulator(config_file: Path, vpp_sim,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    args = ["plan", "-c", str(config_file), "--vpp-api-socket", vpp_sim.socket,
            "--vpp-json-dir", str(vpp_sim.api_dir)]
    assert main(args) == 0
    text = capsys.readouterr().out
    client = vpp_sim.client()
    for line in text.splitlines():
        client.api.cli_inband(cmd=line)
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "0 to create, 0 to change, 0 to delete" in err


@pytest.mark.parametrize("bad", ['"e0; reboot"', '"e0 x"', '"e0\\nshow"', '"lo{0}"'])
def test_injection_is_stopped_before_rendering(tmp_path: Path, bad: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "inject.yaml"
    path.write_text(f"interfaces:\n  GigabitEthernet3/0/0:\n    lcp: {bad}\n", encoding="utf-8")
    assert main(["plan", "-c", str(path), "--novpp"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "inject.yaml" in err and "Traceback" not in err




def test_a_binding_left_to_the_next_plan_is_said(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The printed CLI cannot bind an ACL it creates where VPP's choice of
    index is unknown: stderr says so, with the binding, and how to get it in
    one go; JSON carries every operation and needs no such warning."""
    path = tmp_path / "acl.yaml"
    path.write_text(ACL_CONFIG)
    assert main(["plan", "--novpp", "-c", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "run vppcfg plan again to bind it" in out
    assert ("vppcfg plan: warning: the printed CLI leaves 1 ACL binding(s) to a second plan"
            in err)
    assert "interfaces/host-ge0/acls (ACL ssh-in)" in err
    assert main(["plan", "--novpp", "--format", "json", "-c", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err
    assert any(op["obj"] == "interface-acls" for op in json.loads(out)["operations"])
