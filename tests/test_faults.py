"""Fault injection: the k-th state-changing call of an apply fails, for every k.

The simulator's ``fail_after`` makes exactly one mutating call fail (retval -1,
nothing changed). After the rollback VPP must dump exactly as before the apply.
k runs from 1 until the apply makes fewer than k calls (then it must succeed).
"""

from __future__ import annotations

import pytest

from tests.apply_models import sample_a, sample_b
from vppcfg.apply import apply_config, format_outcome
from vppcfg.model import Dataplane
from vppcfg.vpp import VppConnection

MAX_CALLS = 500  # bound on k; the sample applies make well under 100 calls


@pytest.mark.parametrize(("start", "target"), [(sample_a, sample_b), (sample_b, sample_a),
                                               (Dataplane, sample_a)])
def test_every_failing_call_is_rolled_back(vpp_sim, start, target):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, start()).ok
        for k in range(1, MAX_CALLS):
            pre = conn.dump()
            vpp_sim.dataplane.fail_after = vpp_sim.dataplane.mutations + k
            outcome = apply_config(conn, target())
            vpp_sim.dataplane.fail_after = None
            if outcome.ok:  # the apply needed fewer than k calls
                assert outcome.calls < k
                break
            assert outcome.calls == k, format_outcome(outcome)
            assert outcome.rollback is not None and outcome.rollback.complete, (
                f"k={k}: {format_outcome(outcome)}")
            assert conn.dump() == pre, f"k={k}: state after rollback differs"
        else:
            pytest.fail("the apply never completed")
        assert k > 10
