"""The apply engine on the simulator: execute, verify, roll back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.apply_models import matches, sample_a, sample_b
from vppcfg.apply import Engine, apply_config, format_outcome, rollback
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection


def connect(handle: Any) -> Any:
    return VppConnection.open(handle.socket, handle.api_dir)


def test_apply_converges_and_verifies(vpp_sim):
    with connect(vpp_sim) as conn:
        outcome = apply_config(conn, sample_a())
        assert outcome.ok, format_outcome(outcome)
        assert outcome.executed == outcome.planned and outcome.executed
        live = conn.dump()
        assert plan(sample_a(), live) == []
        assert matches(sample_a(), live) == []
        again = apply_config(conn, sample_a())
        assert again.ok and again.executed == [] and again.calls == 0
        assert "nothing to do" in format_outcome(again)


def test_apply_a_then_b(vpp_sim):
    with connect(vpp_sim) as conn:
        assert apply_config(conn, sample_a()).ok
        outcome = apply_config(conn, sample_b())
        assert outcome.ok, format_outcome(outcome)
        live = conn.dump()
        assert matches(sample_b(), live) == []
        assert "loop1" not in live.interfaces and "bd10" not in live.bridge_domains


def test_failed_call_rolls_back_to_pre_state(vpp_sim):
    with connect(vpp_sim) as conn:
        assert apply_config(conn, sample_a()).ok
        pre = conn.dump()
        vpp_sim.dataplane.fail_after = vpp_sim.dataplane.mutations + 5
        outcome = apply_config(conn, sample_b())
        assert not outcome.ok and outcome.failed is not None
        assert outcome.calls == 5 and 0 < len(outcome.executed) < len(outcome.planned)
        assert "retval -1 (UNSPECIFIED)" in outcome.error
        assert outcome.rollback is not None and outcome.rollback.complete
        assert conn.dump() == pre
        report = format_outcome(outcome)
        assert "apply FAILED" in report and "back to the state before the apply" in report


def test_failed_verification_rolls_back(vpp_sim):
    """An executor that silently skips one operation: verification catches it."""
    real = Engine()
    skipped: list[Any] = []

    def lossy(op, ctx):
        if not skipped and op.action == "create" and op.obj == "address":
            skipped.append(op)
            return
        real.execute(op, ctx)

    with connect(vpp_sim) as conn:
        pre = conn.dump()
        outcome = apply_config(conn, sample_a(), Engine(real.plan, lossy))
        assert skipped and not outcome.ok
        assert outcome.unverified and "verification failed" in outcome.error
        assert outcome.rollback.complete and conn.dump() == pre


def test_interrupt_during_verification_rolls_back(vpp_sim):
    real = Engine()
    plans = {"n": 0}

    def interrupted_verify(desired, live):
        plans["n"] += 1
        if plans["n"] == 2:  # 1: the plan, 2: the verification
            raise KeyboardInterrupt
        return real.plan(desired, live)

    with connect(vpp_sim) as conn:
        pre = conn.dump()
        outcome = apply_config(conn, sample_a(), Engine(interrupted_verify, real.execute))
        assert not outcome.ok and "interrupted" in outcome.error
        assert outcome.rollback is not None and outcome.rollback.complete
        assert conn.dump() == pre


def test_rollback_is_best_effort_and_reports(vpp_sim):
    with connect(vpp_sim) as conn:
        pre = conn.dump()
        assert apply_config(conn, sample_a()).ok
        # every rollback call fails: the report must say so and list what is left
        vpp_sim.dataplane.fail_after = vpp_sim.dataplane.mutations + 1
        failing = Engine()
        count = {"n": 0}

        def always_fail(op, ctx):
            count["n"] += 1
            raise RuntimeError("boom")

        report = rollback(conn, pre, Engine(failing.plan, always_fail))
        assert not report.complete and report.remaining
        assert len(report.errors) == count["n"] and "boom" in report.errors[0]
        vpp_sim.dataplane.fail_after = None
        assert rollback(conn, pre).complete
        assert conn.dump() == pre


@pytest.mark.parametrize("desired", [sample_a, sample_b])
def test_apply_from_fresh_matches(vpp_sim, desired):
    with connect(vpp_sim) as conn:
        assert apply_config(conn, desired()).ok
        assert matches(desired(), conn.dump()) == []


def test_vpp_gone_mid_apply_is_reported(vpp_sim):
    real = Engine()
    seen: list[Any] = []

    def dying(op, ctx):
        seen.append(op)
        if len(seen) == 3:
            vpp_sim.server.stop()  # VPP crashes in the middle of the apply
        real.execute(op, ctx)

    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir, timeout=1) as conn:
        outcome = apply_config(conn, sample_a(), Engine(real.plan, dying))
    assert not outcome.ok and outcome.failed is seen[-1]
    assert outcome.rollback is not None and outcome.rollback.aborted
    assert "final state: UNKNOWN" in format_outcome(outcome)


class _Things:
    """A connection and engine of plain keys: the rollback's rounds, by themselves."""

    def __init__(self, have: set[str]) -> None:
        self.have = set(have)

    def dump(self) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(foreign=frozenset(), have=frozenset(self.have))

    def context(self) -> Any:
        return self


def test_rollback_takes_a_second_round_for_what_needed_a_later_op():
    """'b' must exist before 'a' can be made, but the plan lists 'a' first: the first
    round makes 'b' and fails 'a'; the second makes 'a' (ROLLBACK_ROUNDS = 2)."""
    from types import SimpleNamespace

    from vppcfg.ops import Operation

    def plan_things(target: Any, current: Any) -> list[Operation]:
        return [Operation("thing", "create", k) for k in ("a", "b")
                if k in target.have and k not in current.have]

    def make(op: Operation, ctx: Any) -> None:
        if op.key == "a" and "b" not in ctx.have:
            raise RuntimeError("a needs b")
        ctx.have.add(op.key)

    conn = _Things(set())
    report = rollback(conn, SimpleNamespace(have={"a", "b"}), Engine(plan_things, make))
    assert report.complete and conn.have == {"a", "b"}
    assert [op.key for op in report.executed] == ["b", "a"]
    assert report.errors == ["create thing a: a needs b"] and report.planned == 3
