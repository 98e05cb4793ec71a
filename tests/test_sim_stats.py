"""The simulator's stats segment, read by vpp_papi's own stats client (VPPStats)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from vpp_papi.vpp_stats import VPPStats

from tests.conftest import short_socket_dir
from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import Phy
from vppcfg.sim.stats_model import IF_COMBINED, IF_SIMPLE
from vppcfg.sim.stats_segment import (
    COMBINED,
    GAUGE,
    NAME_VECTOR,
    SCALAR,
    SIMPLE,
    SYMLINK,
    Entry,
    StatsSegment,
    layout,
)
from vppcfg.sim.stats_service import StatsService, default_path

ROOT = Path(__file__).resolve().parents[1]


def phys(dev_type: str = "af-packet") -> list[Phy]:
    return [Phy("host-ge0", "02:00:00:00:00:01", 9000, dev_type),
            Phy("host-ge1", "02:00:00:00:00:02", 9000, dev_type)]


@pytest.fixture
def sim() -> Iterator[tuple[SimDataplane, StatsService, str]]:
    directory = short_socket_dir()
    dataplane = SimDataplane(phys())
    service = StatsService(dataplane.state, threading.Lock(), f"{directory}/stats.sock",
                           f"{directory}/wire.sock", capacity_pps=100000.0).start()
    yield dataplane, service, f"{directory}/stats.sock"
    service.stop()
    os.rmdir(directory)


def connect(path: str) -> VPPStats:
    stats = VPPStats(path)
    stats.connect()
    return stats


def wait_for(predicate, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_vppstats_reads_interfaces_counters_and_their_shapes(sim):
    _, _, path = sim
    stats = connect(path)
    try:
        assert stats["/if/names"] == ["local0", "host-ge0", "host-ge1"]
        for name in IF_SIMPLE:
            assert stats.directory[f"/if/{name}"].type == SIMPLE
            assert stats[f"/if/{name}"] == [[0, 0, 0]]  # one thread, one column per interface
        for name in IF_COMBINED:
            assert stats.directory[f"/if/{name}"].type == COMBINED
            assert stats[f"/if/{name}"][:, 2].sum_packets() == 0
        link = stats.directory["/interfaces/host-ge1/rx-miss"]
        assert link.type == SYMLINK
        assert stats["/interfaces/host-ge1/rx"][0]["bytes"] == 0
        assert stats.directory["/sys/num_worker_threads"].type == GAUGE
        assert stats["/sys/num_worker_threads"] == 0
        assert stats.directory["/sys/boottime"].type == SCALAR
        assert stats.directory["/if/names"].type == NAME_VECTOR
        nodes = stats["/sys/node/names"]
        assert {"af-packet-input", "ethernet-input", "l2-input", "ip4-input",
                "host-ge0-output", "host-ge0-tx"} <= set(nodes)
        assert len(stats["/sys/node/vectors"][0]) == len(nodes)
        assert stats["/nodes/host-ge1-tx/calls"] == [0]
        assert "/err/ip4-input/time_expired" in stats.ls("/err/ip4-input/")
        assert "/err/host-ge0-tx/tx ring overrun" in stats.directory  # af_packet's tx errors
        assert stats.set_errors() == {}
    finally:
        stats.disconnect()


def test_a_stock_vpp_has_no_per_node_counters():
    directory = short_socket_dir()
    service = StatsService(SimDataplane(phys()).state, threading.Lock(),
                           f"{directory}/stats.sock", per_node_counters=False).start()
    stats = connect(f"{directory}/stats.sock")
    try:
        assert stats.ls(["/sys/node/", "/nodes/"]) == []
        assert stats["/if/names"] == ["local0", "host-ge0", "host-ge1"]
        assert stats.ls("/err/ip4-input/")  # error counters are there all the same
    finally:
        stats.disconnect()
        service.stop()
        os.rmdir(directory)


def test_interfaces_created_and_deleted_through_the_api_follow(sim):
    dataplane, _, path = sim
    stats = connect(path)
    try:
        epoch = stats.epoch
        index = dataplane.handle("create_loopback", {}).reply["sw_if_index"]
        wait_for(lambda: stats.epoch != epoch)
        assert stats["/if/names"] == ["local0", "host-ge0", "host-ge1", "loop0"]
        assert stats.ls("/nodes/loop0-tx/") and stats.ls("/interfaces/loop0/")
        assert len(stats["/if/rx"][0]) == 4
        epoch = stats.epoch
        assert dataplane.handle("delete_loopback", {"sw_if_index": index}).reply["retval"] == 0
        wait_for(lambda: stats.epoch != epoch)
        # VPP keeps the column and calls it "deleted"; the nodes are renamed, the links go
        assert stats["/if/names"] == ["local0", "host-ge0", "host-ge1", "deleted"]
        assert not stats.ls("/interfaces/loop0/") and not stats.ls("/nodes/loop0-")
        assert stats.ls(f"/nodes/interface-{index}-tx-deleted/")
    finally:
        stats.disconnect()


def test_a_client_connecting_right_after_a_change_sees_it(sim):
    dataplane, _, path = sim
    dataplane.handle("create_loopback", {})
    stats = connect(path)  # no wait: the socket brings the segment up to date first
    try:
        assert stats["/if/names"][-1] == "loop0"
    finally:
        stats.disconnect()


def test_counter_updates_keep_the_epoch_and_a_new_directory_bumps_it():
    segment = StatsSegment(size=1 << 20)
    try:
        entries = [Entry("/x/simple", SIMPLE, [[1, 2]]), Entry("/x/scalar", SCALAR, 7)]
        segment.publish(entries)
        epoch = struct.unpack_from("<Q", segment.map, 16)[0]
        segment.publish([Entry("/x/simple", SIMPLE, [[5, 6]]), Entry("/x/scalar", SCALAR, 8)])
        assert struct.unpack_from("<Q", segment.map, 16)[0] == epoch  # values in place
        segment.publish([*entries, Entry("/x/more", GAUGE, 1)])
        assert struct.unpack_from("<Q", segment.map, 16)[0] == epoch + 1
        assert struct.unpack_from("<Q", segment.map, 24)[0] == 0  # not left in progress
    finally:
        segment.close()


def test_layout_is_vpp_version_2_with_144_byte_entries():
    image = layout([Entry("/a", SCALAR, 3), Entry("/b", SYMLINK, ("/a", 5))])
    version, base, _, _, directory, _ = struct.unpack_from("<QQQQQQ", image)
    assert version == 2
    start = directory - base
    assert struct.unpack_from("<I", image, start - 8)[0] == 2  # vec_len before the data
    kind, value, name = struct.unpack_from("<I4xQ128s", image, start + 144)
    assert (kind, value & 0xFFFFFFFF, value >> 32) == (SYMLINK, 0, 5)
    assert name.rstrip(b"\0") == b"/b"


def test_segment_too_small_is_refused_not_corrupted():
    from vppcfg.sim.stats_segment import SegmentFull

    segment = StatsSegment(size=4096)
    try:
        with pytest.raises(SegmentFull):
            segment.publish([Entry(f"/n/{i}", SCALAR, i) for i in range(100)])
    finally:
        segment.close()


@pytest.mark.parametrize(("api", "kind", "expected"), [
    ("/run/vpp/api.sock", "stats", "/run/vpp/stats.sock"),
    ("/tmp/demo.x1.sock", "wire", "/tmp/demo.x1-wire.sock"),
    ("/tmp/vppapi", "stats", "/tmp/vppapi-stats.sock"),
])
def test_default_socket_paths(api, kind, expected):
    assert default_path(api, kind) == expected


def test_wire_requests_that_make_no_sense_are_answered_with_why(sim):
    _, service, _ = sim
    assert "unknown op" in service.answer(b'{"op": "fly"}')["error"]
    assert "JSONDecodeError" in service.answer(b"{")["error"]
    bad_port = service.answer(json.dumps({"op": "offer", "port": 7, "t": 0,
                                          "counts": [0, 0, 0, 0], "streams": []}).encode())
    assert "ports 0..1 (host-ge0, host-ge1)" in bad_port["error"]
    assert service.answer(b'{"op": "hello", "ports": 2}')["interfaces"] == ["host-ge0",
                                                                            "host-ge1"]


def test_wire_ports_naming_a_missing_interface_say_which(tmp_path):
    directory = short_socket_dir()
    dataplane = SimDataplane(phys())
    service = StatsService(dataplane.state, threading.Lock(), f"{directory}/s.sock",
                           None, wire_ports=["host-ge0", "host-xx"])
    try:
        answer = service.answer(json.dumps({"op": "offer", "port": 0, "t": 0,
                                            "counts": [0, 0, 0, 0], "streams": []}).encode())
        assert answer == {"ok": False, "error": "port 0: no interface 'host-xx' in the simulator"}
    finally:
        service.segment.close()
        os.rmdir(directory)


def _run_sim(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vppcfg.sim", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_vppcfg_sim_serves_stats_beside_its_api_socket():
    directory = short_socket_dir()
    proc = _run_sim("--socket", f"{directory}/api.sock", "--phy", "Gi0", "--phy", "Gi1")
    try:
        line = proc.stdout.readline()
        assert "listening on" in line
        line = proc.stdout.readline()
        assert f"stats on {directory}/stats.sock, wire on {directory}/wire.sock" in line
        assert "(T-Rex ports: Gi0, Gi1)" in line
        stats = connect(f"{directory}/stats.sock")
        assert stats["/if/names"] == ["local0", "Gi0", "Gi1"]
        stats.disconnect()
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert not os.path.exists(f"{directory}/stats.sock")  # cleaned up on the way out
    assert not os.path.exists(f"{directory}/wire.sock")
    os.rmdir(directory)  # nothing else left in it either


@pytest.mark.parametrize(("option", "message"), [
    (["--wire-ports", "Gi0"], "--wire-ports wants an even number"),
    (["--capacity-pps", "0"], "argument --capacity-pps: '0' is out of range: more than 0"),
    (["--node-stats-interval", "-1"],
     "argument --node-stats-interval: '-1' is out of range: at least 0"),
])
def test_bad_stats_options_exit_2_and_say_which(option, message):
    directory = short_socket_dir()
    proc = _run_sim("--socket", f"{directory}/api.sock", *option)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 2
    assert message in err
    os.rmdir(directory)  # no API socket (nor any other) left behind
