"""The fleet example (examples/fleet) with ansible-core: three routers, each a
vppcfg-sim process; plan all in check mode, roll out one at a time, and stop
the rollout at a router that fails, which rolls itself back."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ansible_tools import fleet_playbook as playbook
from tests.ansible_tools import recap, sim_routers

ROUTERS = ["r1", "r2", "r3"]
LOOPBACKS = {"r1": "192.0.2.1/32", "r2": "192.0.2.2/32", "r3": "192.0.2.3/32"}


def loopback_addresses(dump) -> tuple[str, ...]:
    loop = dump.interfaces.get("loop0")
    return tuple(loop.addresses) if loop else ()


@pytest.fixture
def run_dir() -> Iterator[Path]:
    # Short: the sockets live here (AF_UNIX paths are limited to 107 bytes).
    path = Path(tempfile.mkdtemp(prefix="fleet-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_rollout_converges_and_check_mode_touches_nothing(run_dir: Path) -> None:
    with sim_routers(run_dir, ROUTERS) as routers:
        rollout = playbook(run_dir, "--limit", "r1,r2")  # r3 stays as it was
        before = {name: router.dump() for name, router in routers.items()}
        checked = playbook(run_dir, "--check", "--diff")
        after = {name: router.dump() for name, router in routers.items()}
    out = rollout.stdout + rollout.stderr
    assert rollout.returncode == 0, out
    for name in ("r1", "r2"):
        assert LOOPBACKS[name] in loopback_addresses(before[name])
        state = run_dir / f"{name}-state"
        assert not (state / "pending").exists()  # confirmed: no rollback pending
        assert list(state.glob("confirmed-*")), name
    assert "GigabitEthernet3/0/1.100" in before["r1"].interfaces
    assert "GigabitEthernet3/0/1.300" in before["r2"].interfaces
    assert loopback_addresses(before["r3"]) == ()
    # Check mode: a change per router where one is due (r3), none where the
    # rollout converged (r1, r2), the planned CLI shown, and nothing touched.
    out = checked.stdout + checked.stderr
    assert checked.returncode == 0, out
    counts = recap(out)
    assert counts["r1"]["changed"] == 0 and counts["r2"]["changed"] == 0, counts
    assert counts["r3"]["changed"] > 0, counts
    assert "set interface ip address loop0 192.0.2.3/32" in out
    assert "set interface ip address loop0 192.0.2.1/32" not in out
    assert after == before


def test_a_failing_router_stops_the_rollout_and_rolls_back(run_dir: Path) -> None:
    # r2's VPP fails its 6th changing API call: in the middle of its apply.
    with sim_routers(run_dir, ROUTERS, fail_after={"r2": 6}) as routers:
        before = {name: router.dump() for name, router in routers.items()}
        result = playbook(run_dir)
        after = {name: router.dump() for name, router in routers.items()}
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "Traceback" not in out
    counts = recap(out)
    assert counts["r2"]["failed"] == 1 and counts["r1"]["failed"] == 0, counts
    # r2's task reports the apply: what failed and that the rollback is complete.
    assert "apply FAILED" in out and "retval -1" in out
    assert "final state: VPP is back to the state before the apply" in out
    assert after["r2"] == before["r2"]  # rolled back
    assert after["r3"] == before["r3"]  # never reached
    # r1 went first: applied (verified by the apply), checked and confirmed.
    assert LOOPBACKS["r1"] in loopback_addresses(after["r1"])
    assert list((run_dir / "r1-state").glob("confirmed-*"))
    assert not (run_dir / "r3-state").exists()
