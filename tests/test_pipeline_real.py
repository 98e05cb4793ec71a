"""Pipelined dump and apply on the real VPP give what one call at a time gives,
and a refusal in the middle of a wave is reported and rolled back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.apply_models import dp, loop, phy, sub
from vppcfg.apply import Engine, apply_config, format_outcome
from vppcfg.model import Dataplane
from vppcfg.vpp import VppConnection
from vppcfg.vpp.dump import build_dataplane, collect

pytestmark = pytest.mark.real

PHYS = ("host-ge0", "host-ge1", "host-hu0", "host-hu1")


def target() -> Dataplane:
    itfs = [phy(p, mtu=9000) for p in PHYS]
    itfs += [sub(p, v, mtu=1500, addresses=(f"10.{n}.{v}.1/24", f"2001:db8:{n}:{v}::1/64"))
             for n, p in enumerate(PHYS) for v in range(1, 6)]
    itfs += [loop(n, addresses=(f"192.0.2.{n}/32",)) for n in range(5)]
    return dp(*itfs)


def bare() -> Dataplane:
    return dp(*(phy(p, mtu=9000) for p in PHYS))


def test_pipelined_apply_and_dump_match_one_at_a_time(vpp_real_instance):
    vpp = vpp_real_instance
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        assert apply_config(conn, bare(), pipeline=False).ok
        results = []
        for pipeline in (False, True):
            outcome = apply_config(conn, target(), pipeline=pipeline)
            assert outcome.ok, format_outcome(outcome)
            results.append((outcome, conn.dump()))
            back = apply_config(conn, bare(), pipeline=pipeline)
            assert back.ok, format_outcome(back)
            results.append((back, conn.dump()))
        (one, one_live), (one_back, one_bare), (piped, piped_live), (piped_back, piped_bare) = \
            results
        assert piped.executed == one.executed == one.planned
        assert piped_back.executed == one_back.executed
        assert piped_live == one_live and piped_bare == one_bare
        assert (one.waves, piped.waves, piped_back.waves) == (0, 2, 1)

        assert apply_config(conn, target()).ok
        piped_dump = conn.dump()

        class OneAtATime:
            def __init__(self, conn: Any) -> None:
                self.conn = conn

            def __getattr__(self, name: str) -> Any:
                return getattr(self.conn, name)

            def call_many(self, requests: list[Any], *_: Any) -> list[Any]:
                return [self.conn._invoke(m, a) for m, a in requests]

        assert build_dataplane(collect(OneAtATime(conn))) == piped_dump == one_live


def test_refusal_mid_wave_is_reported_and_rolled_back(vpp_real_instance):
    vpp = vpp_real_instance
    real = Engine()
    bad = "interfaces/host-ge1.3"

    def execute(op: Any, ctx: Any) -> None:
        real.execute(op, ctx)
        if op.key == bad and op.obj == "sub-interface":  # VPP refuses an unknown index
            ctx.call("sw_interface_set_flags", sw_if_index=0xFFFFFFF0, flags=1)

    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        assert apply_config(conn, bare()).ok
        pre = conn.dump()
        outcome = apply_config(conn, target(), Engine(execute=execute))
        text = format_outcome(outcome)
        assert not outcome.ok and outcome.failed is not None and outcome.failed.key == bad, text
        assert "sw_interface_set_flags failed: retval -2 (INVALID_SW_IF_INDEX)" in outcome.error
        # the creates after it were in the same write: sent, answered, reported
        assert outcome.after_failure and all(line.endswith(": ok")
                                             for line in outcome.after_failure), text
        assert outcome.rollback is not None and outcome.rollback.complete, text
        assert conn.dump() == pre
