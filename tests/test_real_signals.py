"""`vppcfg apply` under signals on the real VPP (marker `real`), as an operator
sends them: by pid, in the middle of a pipelined apply of thousands of objects.

- SIGINT: exit 130; the text and the JSON give the same counts; VPP is back.
- SIGINT, then SIGTERM during the rollback: said on the terminal, not cut short.
- SIGKILL: the next `plan` says an earlier apply did not finish, and what it was.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_real_faults import _count_loopbacks, _loopbacks, apply_cmd
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

LOOPBACKS = 4000


def _started(vpp: Any, tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], Any]:
    """An apply of LOOPBACKS loopbacks, under way (VPP holds some of them), and VPP before."""
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        pre = conn.dump()
    cfg = tmp / "big.yaml"
    cfg.write_text(_loopbacks(LOOPBACKS))
    apply = subprocess.Popen([*apply_cmd(vpp, cfg, tmp), *extra], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while _count_loopbacks(vpp) < 20 and apply.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert apply.poll() is None, "the apply finished before it could be interrupted"
    return apply, pre


def _back(vpp: Any, pre: Any) -> bool:
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        return plan(pre, conn.dump()) == []


def test_sigint_mid_apply_counts_agree_and_exit_130(vpp_real_instance, tmp_path):
    vpp = vpp_real_instance
    apply, pre = _started(vpp, tmp_path, "--format", "json")
    os.kill(apply.pid, signal.SIGINT)
    out, err = apply.communicate(timeout=300)
    assert apply.returncode == 130, err
    doc = json.loads(out)
    assert doc["exit_code"] == 130 and doc["interrupted"] == "SIGINT"
    made = len(doc["executed"]) + len(doc["partial"])
    assert made > 0  # before: "0 of N change(s) were made" beside thousands undone
    rb = doc["rollback"]
    assert rb["complete"] and rb["planned"] == len(rb["executed"]) > 0
    part = f", {len(doc['partial'])} more in part" if doc["partial"] else ""
    assert (f"{len(doc['executed'])} of {len(doc['planned'])} change(s) were made{part}"
            in doc["report"])
    assert f"rollback: {len(rb['executed'])} change(s) undone of {rb['planned']} needed" \
        in doc["report"]
    assert doc["report"] in err
    assert _back(vpp, pre)
    assert not (tmp_path / "state" / "apply-journal.json").exists()


def test_a_signal_during_the_rollback_does_not_cut_it_short(vpp_real_instance, tmp_path):
    vpp = vpp_real_instance
    apply, pre = _started(vpp, tmp_path)
    os.kill(apply.pid, signal.SIGINT)
    time.sleep(0.3)  # stopping takes a reply boundary; the rollback reads VPP, then undoes
    os.kill(apply.pid, signal.SIGTERM)
    _, err = apply.communicate(timeout=300)
    assert apply.returncode == 130, err
    assert "not cut short" in err or "stopping after the calls in flight" in err, err
    assert "back to the state before the apply" in err, err
    assert _back(vpp, pre)


def test_sigkill_mid_apply_is_reported_by_the_next_plan(vpp_real_instance, tmp_path):
    vpp = vpp_real_instance
    apply, _ = _started(vpp, tmp_path)
    os.kill(apply.pid, signal.SIGKILL)
    apply.communicate(timeout=60)
    cfg = tmp_path / "big.yaml"
    proc = subprocess.run([sys.executable, "-m", "vppcfg", "plan", "-c", str(cfg),
                           *vpp.api_args(), "--state-dir", str(tmp_path / "state")],
                          capture_output=True, text=True, timeout=300)
    first = proc.stderr.splitlines()[0]
    assert first.startswith("vppcfg plan: an earlier apply did not finish"), proc.stderr
    assert str(cfg) in first and "change(s) planned" in first, first
    # a re-apply says it first too, makes VPP match, and the record goes
    proc = subprocess.run(apply_cmd(vpp, cfg, tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "an earlier apply did not finish" in proc.stderr.splitlines()[0]
    assert not list((tmp_path / "state").glob("*apply*.json"))
