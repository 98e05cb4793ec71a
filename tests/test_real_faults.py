"""Faults on the real VPP (marker `real`): `vppcfg apply` as an operator runs it.

- A config that passes check but that VPP refuses: apply exits 1, names the
  operation and VPP's answer, and VPP is back exactly where it was.
- VPP killed in the middle of an apply: apply exits non-zero and says the
  final state is unknown; after VPP restarts, a re-apply converges.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from vppcfg import config
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

VPPCFG = [sys.executable, "-m", "vppcfg"]


def apply_cmd(vpp: Any, cfg: Path, tmp: Path) -> list[str]:
    return [*VPPCFG, "apply", "-c", str(cfg), *vpp.api_args(), "--lock-file", str(tmp / "lock"),
            "--state-dir", str(tmp / "state")]


def test_a_refusal_rolls_back_to_the_state_before(vpp_real_instance, tmp_path):
    vpp = vpp_real_instance
    before = tmp_path / "before.yaml"
    before.write_text("loopbacks:\n  loop0: {addresses: [192.0.2.1/32]}\n"
                      "interfaces:\n  host-ge0: {mtu: 1500}\n")
    proc = subprocess.run(apply_cmd(vpp, before, tmp_path), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        pre = conn.dump()
    # Valid for check, but Linux already has a device named e0 in VPP's namespace.
    vpp.netns.run(["ip", "link", "add", "e0", "type", "veth", "peer", "name", "e0-peer"])
    after = tmp_path / "after.yaml"
    after.write_text("loopbacks:\n  loop1: {mtu: 9000}\n"
                     "interfaces:\n  host-ge0: {mtu: 9000, lcp: e0, addresses: [10.0.0.1/24]}\n")
    config.load(str(after))
    proc = subprocess.run(apply_cmd(vpp, after, tmp_path), capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "apply FAILED" in out and "interfaces/host-ge0/lcp" in out, out
    assert "retval" in out and "is its name taken" in out, out
    assert "back to the state before the apply" in out, out
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        assert plan(pre, conn.dump()) == []


def _loopbacks(n: int) -> str:
    lines = ["loopbacks:"]
    lines += [f"  loop{i}: {{mtu: 9000, addresses: [10.{i // 250}.{i % 250}.1/32]}}"
              for i in range(n)]
    return "\n".join([*lines, "interfaces: {}", ""])


def _count_loopbacks(vpp: Any) -> int:
    try:
        return vpp.ctl("show", "interface").count("\nloop")
    except RuntimeError:
        return 0


def test_vpp_killed_mid_apply_is_reported_and_a_reapply_converges(vpp_real_instance, tmp_path):
    vpp = vpp_real_instance
    cfg = tmp_path / "big.yaml"
    cfg.write_text(_loopbacks(4000))
    apply = subprocess.Popen(apply_cmd(vpp, cfg, tmp_path), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while _count_loopbacks(vpp) < 20 and apply.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert apply.poll() is None, "the apply finished before VPP could be killed"
    os.kill(vpp.pid(), 9)
    out, _ = apply.communicate(timeout=120)
    assert apply.returncode != 0, out
    assert "FAILED" in out or "vppcfg apply:" in out, out
    if "apply FAILED" in out:  # the apply was under way: it cannot claim a known state
        assert "final state: UNKNOWN" in out, out
        # and it does not hide what may have been made (VPP had over 20 loopbacks)
        assert "got no reply before VPP went away" in out or re.search(
            r"\b([2-9]\d|\d{3,}) of \d+ change\(s\) were made", out), out
    vpp.restart()  # what systemd does: a fresh VPP
    proc = subprocess.run(apply_cmd(vpp, cfg, tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        assert plan(config.load(str(cfg)), conn.dump()) == []
