"""`plan --detailed-exitcode` and `apply --dry-run --detailed-exitcode`:
0 in sync, 2 changes pending, 1 any error (terraform's convention)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vppcfg.cli import main

CONFIG = """\
loopbacks:
  loop0:
    addresses: [198.51.100.1/32]
"""


@pytest.fixture
def setup(vpp_sim, tmp_path: Path):
    cfg = tmp_path / "vppcfg.yaml"
    cfg.write_text(CONFIG, encoding="utf-8")
    vpp = ["--vpp-api-socket", vpp_sim.socket, "--vpp-json-dir", str(vpp_sim.api_dir)]
    state = ["--lock-file", str(tmp_path / "apply.lock"), "--state-dir", str(tmp_path / "state")]
    return vpp_sim, cfg, vpp, state


def test_plan_pending_then_in_sync(setup, capsys: pytest.CaptureFixture[str]) -> None:
    sim, cfg, vpp, state = setup
    assert main(["plan", "-c", str(cfg), *vpp, "--detailed-exitcode"]) == 2
    assert "create loopback" in capsys.readouterr().out
    assert main(["plan", "-c", str(cfg), *vpp]) == 0  # without the option: plain success
    assert main(["apply", "-c", str(cfg), *vpp, "--dry-run", "--detailed-exitcode", *state]) == 2
    assert sim.dataplane.mutations == 0
    assert main(["apply", "-c", str(cfg), *vpp, *state]) == 0
    capsys.readouterr()
    assert main(["plan", "-c", str(cfg), *vpp, "--detailed-exitcode"]) == 0
    assert main(["apply", "-c", str(cfg), *vpp, "--dry-run", "--detailed-exitcode", *state]) == 0
    assert capsys.readouterr().out == ""


def test_every_error_is_one(setup, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, cfg, vpp, state = setup
    missing = str(tmp_path / "absent.yaml")
    bad_socket = ["--vpp-api-socket", str(tmp_path / "no.sock"), vpp[2], vpp[3]]
    # Without the option these are 2 (I/O); with it every error is 1, so 2 means drift only.
    assert main(["plan", "-c", missing, *vpp]) == 2
    assert main(["plan", "-c", missing, *vpp, "--detailed-exitcode"]) == 1
    assert main(["plan", "-c", str(cfg), *bad_socket]) == 2
    assert main(["plan", "-c", str(cfg), *bad_socket, "--detailed-exitcode"]) == 1
    assert main(["apply", "-c", missing, "--dry-run", "--detailed-exitcode", *vpp, *state]) == 1
    assert main(["apply", "-c", str(cfg), "--dry-run", "--detailed-exitcode",
                 *bad_socket, *state]) == 1
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("loopbacks:\n  loop0:\n    mtu: 12\n", encoding="utf-8")
    assert main(["plan", "-c", str(invalid), "--novpp", "--detailed-exitcode"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_novpp_counts_as_pending(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(CONFIG, encoding="utf-8")
    assert main(["plan", "-c", str(cfg), "--novpp", "--detailed-exitcode"]) == 2
    cfg.write_text("interfaces: {}\n", encoding="utf-8")
    assert main(["plan", "-c", str(cfg), "--novpp", "--detailed-exitcode"]) == 0


def test_apply_needs_dry_run_for_it(setup, capsys: pytest.CaptureFixture[str]) -> None:
    sim, cfg, vpp, state = setup
    assert main(["apply", "-c", str(cfg), "--detailed-exitcode", *vpp, *state]) == 2
    assert "needs --dry-run" in capsys.readouterr().err
    assert sim.dataplane.mutations == 0
