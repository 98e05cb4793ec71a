"""Commit-confirmed against the simulator: the detached timer really rolls back."""

from __future__ import annotations

import time

from tests.apply_models import sample_a, wait_for
from vppcfg.apply import apply_config
from vppcfg.apply.confirm import RESULT, Pending, confirm, is_pending, record, start_timer
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection


def _arm(sim, tmp_path, seconds: float):
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        outcome = apply_config(conn, sample_a())
        assert outcome.ok
        record(tmp_path, Pending(pre=outcome.pre, api_socket=sim.socket,
                                 json_dir=str(sim.api_dir), lock_file=str(tmp_path / "lock"),
                                 deadline=time.time() + seconds))
        start_timer(tmp_path)
        return outcome.pre


def test_unconfirmed_apply_is_rolled_back(vpp_sim, tmp_path):
    pre = _arm(vpp_sim, tmp_path, 0.5)
    assert wait_for(lambda: (tmp_path / RESULT).exists(), timeout=30.0)
    assert "back to the state before the apply" in (tmp_path / RESULT).read_text()
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert conn.dump() == pre
    assert not is_pending(tmp_path)


def test_confirmed_apply_stays(vpp_sim, tmp_path):
    _arm(vpp_sim, tmp_path, 1.0)
    confirm(tmp_path)
    time.sleep(1.5)  # past the deadline: the timer must have done nothing
    assert not (tmp_path / RESULT).exists()
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert plan(sample_a(), conn.dump()) == []
