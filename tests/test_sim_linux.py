"""The simulator's Linux side: linux-cp's settings, what pairs and lcp-sync make
of Linux, the kernel's rules, and the Linux socket (vppcfg.sim.linux_server),
each through the client path: the API over vpp_papi, Linux over a plain socket."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SimHandle
from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory
from vppcfg.sim.linux_server import MAX_LINE, LinuxServer
from vppcfg.sim.plugins._util import linux

SETTINGS = "lcp-sync lcp-auto-subint default netns dataplane"
NS = "dataplane"


class Linux:
    """A client of the Linux socket: one request, one reply, per line."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.reader = self.sock.makefile("rb")

    def raw(self, line: bytes) -> dict[str, Any]:
        self.sock.sendall(line)
        return dict(json.loads(self.reader.readline()))

    def __call__(self, **request: Any) -> dict[str, Any]:
        return self.raw(json.dumps(request).encode() + b"\n")

    def links(self, ns: str = NS) -> dict[str, dict[str, Any]]:
        reply = self(op="links", netns=ns)
        assert reply["ok"], reply
        return {row["name"]: row for row in reply["links"]}

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


class Box:
    """A simulator (API + Linux socket) and a client of each."""

    def __init__(self, factory: Any, settings: str) -> None:
        self.model = SimDataplane(default_inventory(), linux_cp=settings)
        self.handle: SimHandle = factory(handler=self.model)
        self.server = LinuxServer(linux(self.model.state), self.handle.socket + ".linux",
                                  self.handle.server.lock).start()
        self.api = self.handle.client()
        self.linux = Linux(self.server.path)

    def call(self, message: str, **args: Any) -> Any:
        reply = getattr(self.api.api, message)(**args)
        assert getattr(reply, "retval", 0) == 0, reply
        return reply

    def cli(self, cmd: str) -> str:
        reply = self.api.api.cli_inband(cmd=cmd)
        assert reply.retval == 0, reply.reply
        return str(reply.reply)

    def state(self, itf: int, up: bool) -> None:
        self.call("sw_interface_set_flags", sw_if_index=itf, flags=1 if up else 0)

    def mtu(self, itf: int, mtu: int) -> None:
        self.call("sw_interface_set_mtu", sw_if_index=itf, mtu=[mtu, 0, 0, 0])

    def address(self, itf: int, prefix: str, is_add: bool = True) -> None:
        self.call("sw_interface_add_del_address", sw_if_index=itf, is_add=is_add,
                  prefix=prefix)

    def pair(self, itf: int, name: str, netns: str = "") -> Any:
        return self.call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=itf,
                         host_if_name=name, host_if_type=0, netns=netns)

    def sub(self, itf: int, vlan: int) -> int:
        return int(self.call("create_vlan_subif", sw_if_index=itf, vlan_id=vlan).sw_if_index)

    def vpp_mtu(self, itf: int) -> int:
        return int(next(iter(self.api.api.sw_interface_dump(sw_if_index=itf))).mtu[0])

    def close(self) -> None:
        self.linux.close()
        self.server.stop()


@pytest.fixture
def box_factory(vpp_sim_factory: Any) -> Any:
    boxes: list[Box] = []

    def make(settings: str = SETTINGS) -> Box:
        boxes.append(Box(vpp_sim_factory, settings))
        return boxes[-1]

    yield make
    for box in boxes:
        box.close()


def brief(links: dict[str, dict[str, Any]]) -> dict[str, tuple[str, int, list[str]]]:
    return {n: (r["state"], r["mtu"], r["addresses"]) for n, r in links.items() if n != "lo"}


# -- settings ---------------------------------------------------------------------------------


def test_vpp_defaults_and_show_lcp(box_factory: Any) -> None:
    box = box_factory("")
    assert box.linux(op="netns") == {"ok": True, "netns": [""]}
    box.pair(1, "e0")
    name = box.model.state.interfaces[1].name
    assert box.cli("show lcp") == (
        "lcp default netns '<unset>'\nlcp lcp-auto-subint off\nlcp lcp-sync off\n"
        "lcp lcp-sync-unnumbered on\nlcp del-static-on-link-down off\n"
        "lcp del-dynamic-on-link-down off\n"
        f"itf-pair: [0] {name} tap4096 e0\0 100 type tap\n")


def test_settings_words_and_run_time_cli(box_factory: Any) -> None:
    box = box_factory()
    assert box.linux(op="netns") == {"ok": True, "netns": ["", NS]}
    assert box.cli("show lcp").startswith(
        "lcp default netns 'dataplane'\nlcp lcp-auto-subint on\nlcp lcp-sync on\n")
    box.cli("lcp lcp-sync off")
    box.cli("lcp lcp-auto-subint off")
    assert box.cli("lcp default netns other") == "lcp set default netns 'other'\n"
    assert box.cli("show lcp").startswith(
        "lcp default netns 'other'\nlcp lcp-auto-subint off\nlcp lcp-sync off\n")
    assert box.cli("lcp default clear netns") == "lcp set default netns '(nil)'\n"
    assert box.cli("show lcp").startswith("lcp default netns '<unset>'\n")
    bad = box.api.api.cli_inband(cmd="lcp lcp-sync maybe")
    assert (bad.retval, bad.reply) == (-1, "lcp lcp-sync: unknown input `maybe'\n")


def test_lcp_auto_subint_flag_is_the_word() -> None:
    from vppcfg.sim.plugins.lcp import pairs

    model = SimDataplane(default_inventory(), lcp_auto_subint=True)
    assert (pairs(model.state).auto_subint, pairs(model.state).sync) == (True, False)
    with pytest.raises(ValueError, match="unknown input `bogus'"):
        SimDataplane(default_inventory(), linux_cp="bogus")


# -- what pairs and lcp-sync make of Linux ------------------------------------------------------


def test_pair_takes_l3_mtu_and_admin_state_but_no_address(box_factory: Any) -> None:
    box = box_factory("")
    box.mtu(1, 1500)
    box.address(1, "192.0.2.1/24")
    box.state(1, True)
    box.pair(1, "e0")
    sub = box.sub(1, 200)
    box.mtu(sub, 1400)
    box.state(sub, True)
    box.pair(sub, "e0.200")
    box.mtu(2, 0)
    box.pair(2, "e1")  # no L3 MTU: the kernel's 1500 (VPP's side of the tap: 9216)
    links = box.linux.links("")
    assert brief(links) == {"e0": ("up", 1500, []), "e0.200": ("up", 1500, []),
                            "e1": ("down", 1500, [])}
    assert (links["e0.200"]["parent"], links["e0"]["parent"]) == ("e0", None)
    assert links["lo"] == {"name": "lo", "ifindex": 1, "state": "down", "mtu": 65536,
                           "addresses": [], "parent": None}


def test_without_lcp_sync_nothing_reaches_linux_until_it_is_turned_on(box_factory: Any) -> None:
    box = box_factory("")
    box.pair(1, "e0")
    sub = box.sub(1, 100)
    box.pair(sub, "e0.100")
    box.state(1, True)
    box.state(sub, True)
    box.mtu(1, 1500)
    box.address(1, "2001:db8::1/64")
    assert brief(box.linux.links("")) == {"e0": ("down", 9000, []), "e0.100": ("down", 9000, [])}
    assert box.vpp_mtu(sub) == 0
    box.cli("lcp lcp-sync on")  # every pair synced at once
    assert brief(box.linux.links("")) == {"e0": ("up", 1500, ["2001:db8::1/64"]),
                                          "e0.100": ("up", 1500, [])}
    assert box.vpp_mtu(sub) == 1500  # a sub at 0 takes its parent's MTU, in VPP too


def test_lcp_sync_carries_state_mtu_and_addresses(box_factory: Any) -> None:
    box = box_factory()
    box.mtu(1, 1500)
    box.pair(1, "e0")
    box.address(1, "192.0.2.1/24")
    sub = box.sub(1, 100)  # lcp-auto-subint: e0.100 in the parent's netns
    box.state(1, True)
    box.state(sub, True)
    box.address(sub, "2001:db8::1/64")
    assert brief(box.linux.links()) == {"e0": ("up", 1500, ["192.0.2.1/24"]),
                                        "e0.100": ("up", 1500, ["2001:db8::1/64"])}
    box.state(1, False)  # the sub, up in VPP, is forced down with its parent
    assert brief(box.linux.links())["e0.100"] == ("down", 1500, ["2001:db8::1/64"])
    box.state(1, True)
    box.mtu(sub, 1600)  # above the parent's: clamped, in VPP too
    assert brief(box.linux.links())["e0.100"] == ("up", 1500, ["2001:db8::1/64"])
    assert box.vpp_mtu(sub) == 1500
    box.mtu(1, 1300)
    box.address(1, "192.0.2.1/24", is_add=False)
    assert brief(box.linux.links()) == {"e0": ("up", 1300, []),
                                        "e0.100": ("up", 1300, ["2001:db8::1/64"])}
    assert box.model.state.interfaces[1].link_mtu == 9000  # no linux_nl: no mirror


def test_deleting_a_pair_or_its_interface_removes_the_netdev(box_factory: Any) -> None:
    box = box_factory()
    box.pair(1, "e0")
    sub = box.sub(1, 100)
    box.call("delete_subif", sw_if_index=sub)
    assert set(box.linux.links()) == {"lo", "e0"}
    box.call("lcp_itf_pair_add_del_v3", is_add=False, sw_if_index=1)
    assert set(box.linux.links()) == {"lo"}


# -- the kernel's rules through the socket ------------------------------------------------------


def test_kernel_rules(box_factory: Any) -> None:
    box = box_factory()
    box.pair(1, "e0")
    box.sub(1, 100)
    lx = box.linux

    def refused(number: int, **request: Any) -> None:
        assert lx(**request) == {"ok": False, "errno": number, "error": os.strerror(number)}

    base = {"op": "set", "netns": NS}
    refused(100, **base, name="e0.100", state="up")  # ENETDOWN: its parent is down
    assert lx(**base, name="e0", state="up", mtu=1500) == {"ok": True}
    refused(34, **base, name="e0.100", mtu=1600)  # ERANGE: above its parent's
    assert lx(**base, name="e0.100", state="up") == {"ok": True}
    assert lx(**base, name="e0", mtu=1400) == {"ok": True}  # clamps the VLAN
    assert brief(lx.links())["e0.100"] == ("up", 1400, [])
    add = {"op": "addr", "action": "add", "netns": NS, "name": "e0.100"}
    assert lx(**add, address="2001:db8:0::1/64") == {"ok": True}
    refused(17, **add, address="2001:db8::1/64")  # EEXIST
    refused(99, **{**add, "action": "del"}, address="192.0.2.9/24")  # EADDRNOTAVAIL
    assert lx(**base, name="e0", state="down") == {"ok": True}  # takes its VLANs down
    assert brief(lx.links())["e0.100"] == ("down", 1400, [])  # IPv6 gone with the link
    refused(19, **base, name="nosuch", state="up")  # ENODEV
    refused(2, op="links", netns="nosuch")  # ENOENT
    assert lx(op="del_link", netns=NS, name="e0") == {"ok": True}  # its VLAN goes too
    assert set(lx.links()) == {"lo"}
    # linux-cp's pairs stay in VPP (no linux_nl)
    assert len(box.api.api.lcp_itf_pair_get(cursor=0)[1]) == 2


def test_bad_requests_answer_einval_and_the_connection_goes_on(box_factory: Any) -> None:
    box = box_factory()
    einval = {"ok": False, "errno": 22, "error": os.strerror(22)}
    for line in (b"not json\n", b"[1]\n", b'{"op": "fly"}\n', b'{"op": "links"}\n',
                 b'{"op": "set", "netns": "", "name": "lo", "mtu": "big"}\n',
                 b'{"op": "addr", "action": "add", "netns": "", "name": "lo", '
                 b'"address": "nonsense/99"}\n', b"\xff\xfe\n"):
        assert box.linux.raw(line) == einval, line
    assert box.linux(op="netns")["ok"]
    # a line over 64 KiB: EINVAL, then the connection is closed
    other = Linux(box.server.path)
    try:
        assert other.raw(b"x" * (MAX_LINE + 10) + b"\n") == einval
        assert other.reader.readline() == b""
    finally:
        other.close()
    assert box.linux(op="netns")["ok"]


def test_clients_in_parallel_with_the_api(box_factory: Any) -> None:
    box = box_factory()
    box.pair(1, "e0")
    errors: list[BaseException] = []

    def flap() -> None:
        client = Linux(box.server.path)
        try:
            for n in range(50):
                assert client(op="set", netns=NS, name="e0", mtu=1400 + n)["ok"]
        except BaseException as err:  # reported below, in the test thread
            errors.append(err)
        finally:
            client.close()

    threads = [threading.Thread(target=flap) for _ in range(3)]
    for thread in threads:
        thread.start()
    for n in range(50):
        box.mtu(1, 1400 + n)
    for thread in threads:
        thread.join(10)
    assert not errors


# -- vppcfg-sim's options -----------------------------------------------------------------------


def test_vppcfg_sim_serves_the_linux_socket() -> None:
    directory = Path(tempfile_dir())
    api = directory / "api.sock"
    ready = directory / "ready"
    proc = subprocess.Popen(
        [sys.executable, "-m", "vppcfg.sim", "--socket", str(api), "--no-stats",
         "--linux-cp", SETTINGS, "--ready-file", str(ready)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    try:
        deadline = time.monotonic() + 30
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), proc.communicate()[0] if proc.poll() is not None else "no start"
        client = Linux(f"{api}.linux")
        assert client(op="netns") == {"ok": True, "netns": ["", NS]}
        client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    assert proc.returncode == 0, out
    assert f"Linux side on {api}.linux" in out
    assert not Path(f"{api}.linux").exists()


def tempfile_dir() -> str:
    """A short directory (AF_UNIX paths are limited to 107 bytes)."""
    import tempfile

    return tempfile.mkdtemp(prefix="vppsim-")
