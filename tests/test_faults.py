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


class _FailingSocket:
    """The apply's socket, but its `fail_at`-th send fails (as a VPP that
    stopped reading for longer than the timeout makes it)."""

    def __init__(self, sock: Any, fail_at: int | None) -> None:
        self._sock, self.fail_at, self.sent = sock, fail_at, 0

    def sendall(self, data: bytes) -> None:
        self.sent += 1
        if self.sent == self.fail_at:
            raise TimeoutError("timed out")
        self._sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


@pytest.mark.parametrize("write", [1, 2, 3])
def test_a_socket_failing_mid_apply_is_reopened_for_the_rollback(vpp_sim, write: int):
    """The `write`-th write of the apply's changes fails: the rollback opens a
    new connection and puts VPP back."""
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, sample_a()).ok
        transport = conn._client.transport
        transport.socket = counting = _FailingSocket(transport.socket, None)
        pre = conn.dump()
        counting.fail_at = 2 * counting.sent + write  # after the apply's own dump
        outcome = apply_config(conn, sample_b())
        assert not outcome.ok and "send failed" in str(outcome.error)
        assert outcome.rollback is not None and outcome.rollback.reconnected
        assert outcome.rollback.complete, format_outcome(outcome)
        assert "on a new connection" in format_outcome(outcome)
        assert conn.connected and conn.dump() == pre
