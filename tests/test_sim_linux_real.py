"""The simulator's Linux side agrees with a real VPP's: one short scenario through
the API on both, with linux-cp's defaults and with lcp-sync, lcp-auto-subint and
a default netns; the real Linux read with `ip -j`, the sim's through its Linux
socket. Names, admin state, MTU and addresses must agree (not ifindexes, nor
IPv6 link-local addresses, which the sim does not model, nor a VLAN's parent:
the real machines have no 802.1q and put a tap where the VLAN would be)."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import subprocess
from typing import Any

import pytest

from tests.test_sim_linux import Linux
from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory
from vppcfg.sim.linux_server import LinuxServer
from vppcfg.sim.plugins._util import linux

pytestmark = pytest.mark.real

NAMES = ("e0", "e0.100", "e0.200")
Snapshot = dict[str, tuple[str, int, list[str]]]


def client(socket_path: str, api_dir: str) -> Any:
    from vpp_papi import VPPApiClient

    api = VPPApiClient(apifiles=sorted(glob.glob(f"{api_dir}/**/*.api.json", recursive=True)),
                       use_socket=True, server_address=socket_path, read_timeout=10)
    api.connect("test-sim-linux")
    return api


def scenario(api: Any, snapshot: Any) -> tuple[list[int], list[Snapshot]]:
    """The calls' retvals, and the Linux side before and after `lcp lcp-sync on`."""
    retvals: list[int] = []
    snaps = []

    def call(message: str, **args: Any) -> Any:
        reply = getattr(api.api, message)(**args)
        retvals.append(int(getattr(reply, "retval", 0)))
        return reply

    def pair(index: int, name: str) -> None:
        call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=index, host_if_name=name,
             host_if_type=0, netns="")

    def flags(index: int, up: bool) -> None:
        call("sw_interface_set_flags", sw_if_index=index, flags=int(up))

    pair(1, "e0")
    call("sw_interface_add_del_address", sw_if_index=1, is_add=True, prefix="192.0.2.1/24")
    sub100 = call("create_vlan_subif", sw_if_index=1, vlan_id=100).sw_if_index
    pair(sub100, "e0.100")  # -81 where lcp-auto-subint made it already
    sub200 = call("create_vlan_subif", sw_if_index=1, vlan_id=200).sw_if_index
    call("sw_interface_set_mtu", sw_if_index=sub200, mtu=[1400, 0, 0, 0])
    pair(sub200, "e0.200")
    for index, up in ((1, True), (sub100, True), (1, False), (1, True), (sub200, True),
                      (sub100, False)):
        flags(index, up)
    call("sw_interface_set_mtu", sw_if_index=1, mtu=[1500, 0, 0, 0])
    call("sw_interface_add_del_address", sw_if_index=sub100, is_add=True,
         prefix="2001:db8::1/64")
    for is_add in (True, False):
        call("sw_interface_add_del_address", sw_if_index=sub200, is_add=is_add,
             prefix="10.0.0.1/24")
    snaps.append(snapshot())
    call("cli_inband", cmd="lcp lcp-sync on")
    snaps.append(snapshot())
    return retvals, snaps


def _ip(ns: str, what: str) -> list[dict[str, Any]]:
    out = subprocess.run(["ip", "-n", ns, "-j", what, "show"], capture_output=True, text=True,
                         check=True).stdout
    return list(json.loads(out))


def real_linux(ns: str) -> Snapshot:
    links = {row["ifname"]: row for row in _ip(ns, "link") if row["ifname"] in NAMES}
    addrs: dict[str, list[str]] = {name: [] for name in links}
    for row in _ip(ns, "addr"):
        for info in row.get("addr_info", []):
            if row["ifname"] in addrs and not info["local"].startswith("fe80:"):
                addrs[row["ifname"]].append(f"{info['local']}/{info['prefixlen']}")
    return {name: ("up" if "UP" in row["flags"] else "down", row["mtu"], sorted(addrs[name]))
            for name, row in links.items()}


def sim_linux(lx: Linux, ns: str) -> Snapshot:
    return {name: (row["state"], row["mtu"], sorted(row["addresses"]))
            for name, row in lx.links(ns).items() if name in NAMES}


@pytest.mark.parametrize("settings", ["", "lcp-sync lcp-auto-subint"],
                         ids=["defaults", "sync-autosubint-netns"])
def test_sim_linux_side_agrees_with_real_vpp(vpp_real_factory: Any, vpp_sim_factory: Any,
                                            monkeypatch: pytest.MonkeyPatch,
                                            settings: str) -> None:
    netns = f"vppcfg-lcp-{os.getpid()}" if settings else ""
    words = f"{settings} default netns {netns}" if settings else ""
    monkeypatch.setenv("VPP_REAL_LINUX_CP", words)
    if netns:  # made here, not by vpp-real: a netns it adds under `ip netns exec`
        # (where tests/real.py runs it) is mounted where this process cannot see it
        subprocess.run(["ip", "netns", "add", netns], check=True, capture_output=True)
    try:
        vpp = vpp_real_factory(("ge0", "ge1"))
        api = client(vpp.socket, vpp.api_dir)
        try:
            real = scenario(api, lambda: real_linux(netns or vpp.netns.name))
        finally:
            api.disconnect()
    finally:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            if netns:
                subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=30)
    model = SimDataplane(default_inventory(), linux_cp=words)
    handle = vpp_sim_factory(handler=model)
    server = LinuxServer(linux(model.state), handle.socket + ".linux", handle.server.lock).start()
    lx = Linux(server.path)
    try:
        sim = scenario(handle.client(), lambda: sim_linux(lx, netns))
    finally:
        lx.close()
        server.stop()
    assert set(real[1][-1]) == set(NAMES)  # the scenario made all three on the real VPP
    assert real[1][-1]["e0.100"][2] == ["2001:db8::1/64"]  # and lcp-sync on carried it
    assert sim == real
