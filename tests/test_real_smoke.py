"""The real-system tier starts, answers and cleans up after itself."""

from __future__ import annotations

import subprocess

import pytest

from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real


def test_vpp_real_answers_and_leaves_nothing_behind(vpp_real_factory):
    vpp = vpp_real_factory()
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        names = set(conn.dump().interfaces)
    assert set(vpp.phy_names) <= names
    assert "host-ge0" in vpp.ctl("show", "interface")
    netns = vpp.netns.name
    vpp.stop()
    vpp.netns.close()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert netns not in listed
