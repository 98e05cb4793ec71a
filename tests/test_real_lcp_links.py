"""An lcp pair's Linux interface comes up with its VPP interface.

linux-cp copies the VPP interface's admin state to the host interface when the
pair is made; a later state change of a sub-interface or loopback does not
reach Linux (seen on 26.06 and 26.10). So the plan sets interfaces up before it
makes their pairs (and adds addresses, which also costs VPP half the time on
an up interface: bench/bench_real_scale.py). Planned the other way round, the
Linux side of a sub-interface and a loopback stayed down while VPP had them up.
Both ways of applying are checked: the API and the printed CLI."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from tests.apply_models import run_cli_plan
from vppcfg import config
from vppcfg.apply import apply_config
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

CONFIG = """\
interfaces:
  host-ge0:
    lcp: e0
    addresses: [192.0.2.1/24]
    sub-interfaces:
      100:
        lcp: e0.100
        addresses: [10.0.0.1/24]
  host-ge1:
    lcp: e1
    state: down
loopbacks:
  loop0:
    lcp: lo0
    addresses: [198.51.100.1/32]
"""
WANTED = {"e0": True, "e0.100": True, "e1": False, "lo0": True}  # Linux link up


def linux_up(vpp: Any, device: str) -> bool:
    out = subprocess.run(["ip", "-n", vpp.netns.name, "-br", "link", "show", device],
                         capture_output=True, text=True, check=True).stdout
    return "UP" in out.split()[-1].strip("<>").split(",")


@pytest.mark.parametrize("how", ["api", "cli"])
def test_host_interfaces_come_up_with_their_vpp_interface(vpp_real_factory: Any,
                                                          how: str) -> None:
    vpp = vpp_real_factory()
    desired = config.loads(CONFIG)
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        if how == "api":
            assert apply_config(conn, desired).ok
        else:
            run_cli_plan(conn, desired, vpp.exec_text)
        live = conn.dump()
    assert {name: live.interfaces[name].state for name in ("host-ge0.100", "loop0")} == {
        "host-ge0.100": "up", "loop0": "up"}
    assert {device: linux_up(vpp, device) for device in WANTED} == WANTED
