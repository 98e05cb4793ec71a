"""Fault injection: the k-th state-changing call of an apply fails, for every k.

The simulator's ``fail_after`` makes exactly one mutating call fail (retval -1,
nothing changed). After the rollback VPP must dump exactly as before the apply.
k runs from 1 until the apply makes fewer than k calls (then it must succeed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.apply_models import sample_a, sample_b
from vppcfg.apply import apply_config, format_outcome
from vppcfg.model import Dataplane
from vppcfg.vpp import VppConnection

MAX_CALLS = 500  # bound on k; the applies here make well under 200 calls
ROUTER = Path(__file__).resolve().parents[1] / "examples" / "router.yaml"


def fail_every_call(sim: Any, conn: Any, target: Dataplane) -> int:
    """Apply `target` once per k with the k-th call failing; returns the last k."""
    for k in range(1, MAX_CALLS):
        pre = conn.dump()
        sim.dataplane.fail_after = sim.dataplane.mutations + k
        outcome = apply_config(conn, target)
        sim.dataplane.fail_after = None
        if outcome.ok:  # the apply needed fewer than k calls
            assert outcome.calls < k
            return k
        assert outcome.calls == k, format_outcome(outcome)
        assert outcome.rollback is not None and outcome.rollback.complete, (
            f"k={k}: {format_outcome(outcome)}")
        assert conn.dump() == pre, f"k={k}: state after rollback differs"
        # the report adds up: never more undone than it says was needed
        assert len(outcome.rollback.executed) + len(outcome.rollback.errors) \
            <= outcome.rollback.planned, format_outcome(outcome)
    pytest.fail("the apply never completed")


@pytest.mark.parametrize(("start", "target"), [(sample_a, sample_b), (sample_b, sample_a),
                                               (Dataplane, sample_a)])
def test_every_failing_call_is_rolled_back(vpp_sim, start, target):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, start()).ok
        assert fail_every_call(vpp_sim, conn, target()) > 10


def test_every_failing_call_of_the_richest_example_is_rolled_back(vpp_sim):
    if not ROUTER.exists():
        pytest.skip("examples/router.yaml not available")
    from vppcfg import config

    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert fail_every_call(vpp_sim, conn, config.load(str(ROUTER))) > 10
