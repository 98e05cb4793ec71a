"""`vppcfg apply` / `vppcfg confirm` end to end on the simulator (in-process CLI)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from vppcfg.apply.confirm import RESULT
from vppcfg.apply.lock import ApplyLock
from vppcfg.cli import main
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

CONFIG = """\
interfaces:
  GigabitEthernet3/0/0:
    mtu: 9000
    addresses: [192.0.2.1/24]
    sub-interfaces:
      100:
        mtu: 1500
        addresses: [10.0.0.1/24]
loopbacks:
  loop0:
    addresses: [198.51.100.1/32]
"""


@pytest.fixture
def setup(vpp_sim, tmp_path):
    cfg = tmp_path / "vppcfg.yaml"
    cfg.write_text(CONFIG)
    args = ["--vpp-api-socket", vpp_sim.socket, "--vpp-json-dir", str(vpp_sim.api_dir),
            "--lock-file", str(tmp_path / "apply.lock"), "--state-dir", str(tmp_path / "state")]
    return vpp_sim, cfg, args, tmp_path


def _desired(cfg: Path):
    from vppcfg import config

    return config.load(str(cfg))


def test_apply_then_nothing_to_do(setup, capsys):
    sim, cfg, args, _ = setup
    assert main(["apply", "-c", str(cfg), *args]) == 0
    assert "applied" in capsys.readouterr().out
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert plan(_desired(cfg), conn.dump()) == []
    assert main(["apply", "-c", str(cfg), *args]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_invalid_config_touches_nothing(setup, capsys):
    sim, cfg, args, _ = setup
    cfg.write_text("interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 12\n")
    assert main(["apply", "-c", str(cfg), *args]) == 1
    err = capsys.readouterr().err
    assert "nothing was changed" in err and str(cfg) in err and "Traceback" not in err
    assert sim.dataplane.mutations == 0
    assert main(["apply", "-c", str(cfg.with_name("missing.yaml")), *args]) == 2


def test_dry_run_prints_cli_and_changes_nothing(setup, capsys):
    sim, cfg, args, _ = setup
    assert main(["apply", "-c", str(cfg), "--dry-run", *args]) == 0
    out = capsys.readouterr().out
    assert "create loopback" in out and "10.0.0.1/24" in out
    assert sim.dataplane.mutations == 0


def test_second_apply_while_one_runs_is_refused(setup, capsys):
    sim, cfg, args, tmp = setup
    with ApplyLock(tmp / "apply.lock"):
        assert main(["apply", "-c", str(cfg), *args]) == 1
    assert "another vppcfg apply is running" in capsys.readouterr().err
    assert sim.dataplane.mutations == 0


def test_failed_apply_rolls_back_and_reports(setup, capsys):
    sim, cfg, args, _ = setup
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        pre = conn.dump()
    sim.dataplane.fail_after = 4
    assert main(["apply", "-c", str(cfg), *args]) == 1
    err = capsys.readouterr().err
    assert "apply FAILED" in err and "retval -1" in err
    assert "back to the state before the apply" in err
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert conn.dump() == pre


def test_confirm_keeps_the_change(setup, capsys):
    sim, cfg, args, _ = setup
    assert main(["apply", "-c", str(cfg), "--confirm", "30", *args]) == 0
    assert "vppcfg confirm" in capsys.readouterr().out
    # a new apply waits for the pending confirmation
    assert main(["apply", "-c", str(cfg), *args]) == 1
    assert "awaits confirmation" in capsys.readouterr().err
    state = args[args.index("--state-dir") + 1]
    assert main(["confirm", "--state-dir", state]) == 0
    assert main(["confirm", "--state-dir", state]) == 1
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert plan(_desired(cfg), conn.dump()) == []


def test_unconfirmed_apply_rolls_back(setup):
    sim, cfg, args, tmp = setup
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        pre = conn.dump()
    assert main(["apply", "-c", str(cfg), "--confirm", "0.5", *args]) == 0
    result = tmp / "state" / RESULT
    end = time.monotonic() + 30
    while not result.exists() and time.monotonic() < end:
        time.sleep(0.05)
    assert "back to the state before the apply" in result.read_text()
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert conn.dump() == pre


def test_pending_without_timer_is_explained(setup, capsys):
    from vppcfg.apply.confirm import Pending, record
    from vppcfg.model import Dataplane

    sim, cfg, args, tmp = setup
    record(tmp / "state", Pending(pre=Dataplane(), api_socket=sim.socket, json_dir="",
                                  lock_file="", deadline=time.time() + 60))
    assert main(["apply", "-c", str(cfg), *args]) == 1
    assert "rollback timer is no longer running" in capsys.readouterr().err
    assert sim.dataplane.mutations == 0


def test_config_naming_an_absent_phy_is_refused(setup, capsys):
    sim, cfg, args, _ = setup
    cfg.write_text("interfaces:\n  GigabitEthernet9/0/0:\n    mtu: 9000\n")
    for extra in ([], ["--dry-run"]):
        assert main(["apply", "-c", str(cfg), *extra, *args]) == 1
        err = capsys.readouterr().err
        assert "GigabitEthernet9/0/0" in err and "not present" in err
        assert "Traceback" not in err and err.count("\n") == 1
    assert sim.dataplane.mutations == 0


def test_unusable_state_dir_changes_nothing(setup, capsys):
    """The journal goes in the state dir before the first change: without it, no change."""
    sim, cfg, args, tmp = setup
    blocker = tmp / "not-a-dir"
    blocker.write_text("")
    args = [*args[:args.index("--state-dir")], "--state-dir", str(blocker / "state")]
    assert main(["apply", "-c", str(cfg), "--confirm", "30", *args]) == 2
    err = capsys.readouterr().err
    assert "cannot write the apply journal" in err and "nothing was changed" in err
    assert sim.dataplane.mutations == 0


def test_confirm_timer_that_cannot_start_leaves_no_pending_state(setup, capsys, monkeypatch):
    sim, cfg, args, tmp = setup
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        pre = conn.dump()
    monkeypatch.setattr("sys.executable", str(tmp / "no-python"))  # the timer cannot start
    assert main(["apply", "-c", str(cfg), "--confirm", "30", *args]) == 1
    err = capsys.readouterr().err
    assert "cannot arm the confirm timer" in err and "back to the state before" in err
    monkeypatch.undo()
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        assert conn.dump() == pre
    # Rolled back and nothing awaits confirmation: the next apply may run.
    assert main(["apply", "-c", str(cfg), *args]) == 0
    assert "applied" in capsys.readouterr().out


def test_apply_without_vpp_is_a_one_line_error(setup, capsys):
    _, cfg, args, tmp = setup
    args = [*args]
    args[args.index("--vpp-api-socket") + 1] = str(tmp / "gone.sock")
    assert main(["apply", "-c", str(cfg), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gone.sock does not exist" in err
