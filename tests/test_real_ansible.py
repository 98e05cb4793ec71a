"""The fleet playbook (examples/fleet) on three real VPP 26.10 instances, each
in its own network namespace: check mode touches nothing, a run converges all
three, a second plan finds nothing to change."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.ansible_tools import fleet_playbook, recap
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

ROUTERS = ("r1", "r2", "r3")
# The real instances' PHYs are af_packet ports on veths (host-ge0 ...).
PHYS = ("-e", "uplink_phy=host-ge0", "-e", "customer_phy=host-ge1")


def test_fleet_playbook_on_three_real_vpps(vpp_real_factory) -> None:
    vpps = {name: vpp_real_factory() for name in ROUTERS}
    api_dir = vpps["r1"].api_dir
    run_dir = Path(tempfile.mkdtemp(prefix="fleet-real-"))
    try:
        for name, vpp in vpps.items():  # the inventory's socket paths
            os.symlink(vpp.socket, run_dir / f"{name}.sock")

        def dumps():
            out = {}
            for name, vpp in vpps.items():
                with VppConnection.open(vpp.socket, api_dir) as conn:
                    out[name] = conn.dump()
            return out

        def play(*args: str):
            return fleet_playbook(run_dir, *PHYS, *args, VPPCFG_JSON_DIR=api_dir)

        before = dumps()
        checked = play("--check", "--diff")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert all(c["changed"] > 0 for c in recap(checked.stdout).values()), checked.stdout
        assert "lcp create host-ge1.300 host-if e1.300" in checked.stdout
        assert dumps() == before

        applied = play()
        assert applied.returncode == 0, applied.stdout + applied.stderr
        after = dumps()
        for index, name in enumerate(ROUTERS, start=1):
            assert f"192.0.2.{index}/32" in after[name].interfaces["loop0"].addresses
        again = play("--tags", "plan")
        assert again.returncode == 0, again.stdout
        assert all(c["changed"] == 0 for c in recap(again.stdout).values()), again.stdout
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def test_a_router_that_refuses_stops_the_rollout_on_real_vpps(vpp_real_factory) -> None:
    """r2's Linux already has an interface named e0, so its VPP refuses the
    uplink's lcp pair (host-if e0): r2 rolls back, r3 is never reached."""
    vpps = {name: vpp_real_factory() for name in ROUTERS}
    vpps["r2"].netns.run(["ip", "link", "add", "e0", "type", "veth", "peer", "name", "e0-peer"])
    api_dir = vpps["r1"].api_dir
    run_dir = Path(tempfile.mkdtemp(prefix="fleet-real-"))
    try:
        for name, vpp in vpps.items():
            os.symlink(vpp.socket, run_dir / f"{name}.sock")

        def dump(name: str):
            with VppConnection.open(vpps[name].socket, api_dir) as conn:
                return conn.dump()

        before = {name: dump(name) for name in ROUTERS}
        result = fleet_playbook(run_dir, *PHYS, VPPCFG_JSON_DIR=api_dir)
        out = result.stdout + result.stderr
        assert result.returncode != 0, out
        assert "Traceback" not in out
        assert "apply FAILED: create lcp interfaces/host-ge0" in out, out
        assert "final state: VPP is back to the state before the apply" in out
        assert dump("r2") == before["r2"]
        assert dump("r3") == before["r3"]
        assert "192.0.2.1/32" in dump("r1").interfaces["loop0"].addresses
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
