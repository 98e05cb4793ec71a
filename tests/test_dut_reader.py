"""Reading VPP's stats segment for `--dut-stats` (loadtest.dut.StatsReader), and the run going
on without it when it cannot be read.

Fast tier: a socket that is not VPP's, a segment of another version (served here as VPP
serves one: a memory fd over a unix socket), and ramp/ndr runs against the T-Rex emulator
pointed at no VPP. Real tier (marker `real`): the reader against the real VPPs, with and
without per-node counters, and VPP going away under it.
"""

from __future__ import annotations

import array
import contextlib
import os
import socket
import struct
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loadtest.dut import DutUnavailable, StatsReader, diff

ROOT = Path(__file__).resolve().parents[1]


# ---- a stats socket that is not a VPP this reader knows ---------------------------------------

def _serve_segment(path: str, header: bytes, size: int = 4096) -> threading.Thread:
    """Serve one connection as VPP's stats socket does: hand over a memfd holding `header`."""
    fd = os.memfd_create("fake-statseg")
    os.ftruncate(fd, size)
    os.pwrite(fd, header, 0)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(path)
    server.listen(4)

    def run() -> None:
        for _ in range(2):  # the reader connects twice: once for VPP's pid, once for the fd
            conn, _ = server.accept()
            with contextlib.suppress(OSError):  # the pid probe hangs up at once, as VPP sees
                conn.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                       array.array("i", [fd]))])
            conn.close()
        server.close()
        os.close(fd)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def sock_dir(tmp_path_factory) -> Iterator[str]:
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="dutstats-")  # AF_UNIX paths are short
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_a_segment_of_another_version_is_refused_with_the_reason(sock_dir):
    path = os.path.join(sock_dir, "stats.sock")
    # VPP's shared header: version, base, epoch, in_progress, directory, error vector
    thread = _serve_segment(path, struct.pack("QPQQPP", 1, 0, 0, 0, 0, 0))
    reader = StatsReader(path)
    with pytest.raises(DutUnavailable, match=r"cannot open VPP's stats segment at .*stats.sock:"
                                             r" .*segment version 1"):
        reader.connect()
    thread.join(5)


def test_no_socket_and_not_a_socket(sock_dir):
    missing = os.path.join(sock_dir, "nothing.sock")
    with pytest.raises(DutUnavailable, match=r"nothing\.sock: No such file or directory"):
        StatsReader(missing).connect()
    plain = os.path.join(sock_dir, "plain")
    Path(plain).write_text("")
    with pytest.raises(DutUnavailable, match="plain: Connection refused"):
        StatsReader(plain).connect()


# ---- asked-for DUT counters are checked before traffic ---------------------------------------

from tests.trex_client import require_trex_api  # noqa: E402

# before the emulator imports zmq (the client brings its own binding); skips (CI: fails)
# when the client does not import
require_trex_api()
from loadtest.cli import main  # noqa: E402

pytest_plugins = ["tests.trex_fixtures"]


def _ports(emu) -> list[str]:
    return ["--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port), "--timeout", "2"]


def test_ramp_with_a_dut_stats_socket_that_is_not_there_is_refused(trex_emu_factory, tmp_path,
                                                                   capsys):
    """Asked-for DUT data is checked before traffic: no run, exit 2, one line."""
    emu = trex_emu_factory(capacity_pps=(1e6, 1e6), time_scale=1.0, stats_tick=0.001)
    out = tmp_path / "ramp.json"
    sock = str(tmp_path / "no-vpp" / "stats.sock")
    argv = ["ramp", *_ports(emu), "-q", "--warmup", "0.2", "--hold", "0.2", "--stats-tick",
            "0.001", "--sample-interval", "0.1", "--drain", "0.05", "--duration", "0.5",
            "--rate", "100kpps", "--dut-stats", sock, "-o", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"trex-loadtest: error: --dut-stats {sock}: cannot open VPP's stats "
                   f"segment at {sock}: No such file or directory"), err
    assert not out.exists()  # no run was written: none took place


def test_dut_stats_pointed_at_the_api_socket_names_both(tmp_path):
    """[Errno 91] Protocol wrong type for socket, before: now which socket it is."""

    path = str(tmp_path / "api.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(1)
        with pytest.raises(DutUnavailable) as refused:
            StatsReader(path).connect()
    assert str(refused.value) == (
        f"{path} is a stream socket: VPP's API socket (or vppcfg-sim's wire socket), not "
        "VPP's stats socket; give VPP's stats socket (VPP's default: /run/vpp/stats.sock)")


def test_ndr_without_a_vpp_is_refused_before_the_search(trex_emu_factory, tmp_path, capsys):
    emu = trex_emu_factory(capacity_pps=(1e6, 1e6), time_scale=1.0, stats_tick=0.001)
    out = tmp_path / "ndr.json"
    argv = ["ndr", *_ports(emu), "-q", "--trial-duration", "0.3", "--initial-duration", "0.1",
            "--drain", "0.02", "--stats-tick", "0.001", "--precision", "20", "--min-rate",
            "100kpps", "--max-rate", "2mpps", "--dut-stats", str(tmp_path / "x.sock"),
            "--dut-ports", "host-ge0,host-ge1", "-o", str(out)]
    assert main(argv) == 2
    assert "--dut-stats" in capsys.readouterr().err and not out.exists()


def _schema_errors(run: dict) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    from loadtest.results_schema import schema

    return [e.message for e in jsonschema.Draft202012Validator(schema()).iter_errors(run)]


def test_dut_ports_must_name_one_interface_per_port(capsys):
    assert main(["ramp", "--dut-stats", "/x", "--dut-ports", "host-ge0"]) == 2
    assert "--dut-ports: give 2 different VPP interface names" in capsys.readouterr().err


# ---- the real VPPs ----------------------------------------------------------------------------

SEND = """
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
# to a MAC that is not VPP's: ethernet-input drops every one
frame = bytes.fromhex("02fe00000001" "02fe00000002" "0800") + bytes(46)
for _ in range(int(sys.argv[2])):
    s.send(frame)
"""


def _settled(reader: Any, tries: int = 50) -> Any:
    """A read after VPP has counted every frame: one read is not atomic, and a
    frame the kernel sends on a fresh link (IPv6 ND) may be counted in `drops`
    after `rx` was read (seen once: drops 301, rx 300)."""
    import time

    last = reader.read()
    for _ in range(tries):
        time.sleep(0.1)
        now = reader.read()
        if now.interfaces["host-ge0"] == last.interfaces["host-ge0"]:
            return now
        last = now
    return last


@pytest.mark.real
@pytest.mark.parametrize("per_node", ["on", "off"])
def test_reader_on_the_real_vpp(vpp_real_factory, monkeypatch, per_node):
    monkeypatch.setenv("VPP_REAL_PER_NODE_COUNTERS", per_node)
    vpp = vpp_real_factory(("ge0", "ge1"))
    vpp.ctl("set", "interface", "state", "host-ge0", "up")
    reader = StatsReader(str(vpp.run_dir / "stats.sock"))
    reader.connect()
    before = reader.read()
    assert {"local0", "host-ge0", "host-ge1"} <= set(before.interfaces)
    assert before.workers == 0  # vpp-real runs VPP on its main thread
    vpp.netns.run(["ip", "link", "set", "p-ge0", "up"])
    vpp.netns.run([sys.executable, "-c", SEND, "p-ge0", "300"])
    after = _settled(reader)
    delta = diff(before, after)
    ge0 = delta.interfaces["host-ge0"]
    # the kernel adds its own frames on a fresh link (IPv6 ND, MLD): at least ours
    assert 300 <= ge0["rx_packets"] < 340 and ge0["rx_bytes"] >= 300 * 60
    assert 300 <= ge0["drops"] <= ge0["rx_packets"]
    assert delta.interfaces["host-ge1"]["rx_packets"] == 0
    # the reason VPP gives (`show errors`), with its count
    top = delta.errors[0]
    assert top[2] >= 300
    shown = vpp.ctl("show", "errors")
    assert any(top[0] in line and top[1] in line for line in shown.splitlines()), shown
    if per_node == "on":
        assert before.nodes and "af-packet-input" in before.nodes
    else:
        assert before.nodes is None and after.nodes is None


@pytest.mark.real
def test_vpp_going_away_under_the_reader(vpp_real_factory):
    vpp = vpp_real_factory(("ge0", "ge1"))
    reader = StatsReader(str(vpp.run_dir / "stats.sock"))
    reader.connect()
    reader.read()
    vpp.stop()
    with pytest.raises(DutUnavailable, match="VPP went away"):
        reader.read()
    vpp.start()  # a new VPP on the same socket: its counters begin again
    with pytest.raises(DutUnavailable, match=r"VPP restarted|VPP went away"):
        reader.read()
