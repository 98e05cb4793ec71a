"""The simulator's stats segment against a real VPP's (marker `real`): for the same
interfaces, made by the same API calls, vpp_papi's VPPStats finds the same names,
indexes, paths and counter types in both."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from vpp_papi.vpp_stats import VPPStats

from tests.conftest import short_socket_dir
from vppcfg.sim.inventory import Phy
from vppcfg.sim.stats_service import StatsService
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

PHYS = ("ge0", "ge1")


@pytest.fixture
def sim(vpp_sim_factory: Any) -> Iterator[tuple[Any, str]]:
    handle = vpp_sim_factory(phys=[Phy(f"host-{name}", f"02:fe:00:00:00:0{i}", 9000,
                                       "af-packet") for i, name in enumerate(PHYS)])
    directory = short_socket_dir()
    service = StatsService(handle.dataplane.state, handle.server.lock,
                           f"{directory}/stats.sock").start()
    yield handle, f"{directory}/stats.sock"
    service.stop()
    os.rmdir(directory)


def build(socket: str, api_dir: Any) -> None:
    """Two loopbacks, a dot1q sub-interface, then the first loopback deleted."""
    with VppConnection.open(socket, str(api_dir), requests=None) as conn:
        first = conn.call("create_loopback").sw_if_index
        conn.call("create_loopback")
        conn.call("create_vlan_subif", sw_if_index=1, vlan_id=100)
        conn.call("delete_loopback", sw_if_index=first)


def read(path: str) -> tuple[dict[str, int], dict[str, Any]]:
    stats = VPPStats(path)
    stats.connect()
    try:
        types = {name: entry.type for name, entry in stats.directory.items()}
        wanted = ["/if/names", "/if/rx", "/if/drops", "/sys/node/names", "/node/errors",
                  "/sys/num_worker_threads"]
        return types, stats.dump([name for name in wanted if name in types])
    finally:
        stats.disconnect()


def test_the_simulators_segment_has_the_real_vpps_structure(sim, vpp_real_factory):
    handle, sim_path = sim
    real = vpp_real_factory(PHYS)
    build(real.socket, real.api_dir)
    build(handle.socket, handle.api_dir)
    # VPP's stats collector process adds new nodes to the segment every few seconds;
    # the simulator follows its interfaces within 0.1 s
    real_path = str(real.run_dir / "stats.sock")
    deadline = time.monotonic() + 30
    while not {"loop1-tx", "host-ge0-output"} <= set(read(real_path)[1]["/sys/node/names"]):
        assert time.monotonic() < deadline, "the real VPP never listed the new nodes"
        time.sleep(0.5)
    real_types, real_values = read(real_path)
    sim_types, sim_values = read(sim_path)

    assert sim_values["/if/names"] == real_values["/if/names"]
    assert "deleted" in sim_values["/if/names"]
    width = len(real_values["/if/names"])
    for counter in ("/if/rx", "/if/drops"):  # one thread, one column per sw_if_index
        assert [len(row) for row in sim_values[counter]] == [width]
        assert [len(row) for row in real_values[counter]] == [width]
    assert sim_values["/sys/num_worker_threads"] == real_values["/sys/num_worker_threads"]

    # every path the simulator shows, the real VPP shows too, with the same type
    missing = sorted(set(sim_types) - set(real_types))
    assert missing == []
    differ = {p: (t, real_types[p]) for p, t in sim_types.items() if real_types[p] != t}
    assert differ == {}
    # the paths a loadtest reads are all there, per interface too
    for name in ("host-ge0", "host-ge0.100", "loop1"):
        assert {p for p in real_types if p.startswith(f"/interfaces/{name}/")} == \
            {p for p in sim_types if p.startswith(f"/interfaces/{name}/")}
    for node in ("af-packet-input", "host-ge1-tx", "ethernet-input", "l2-input", "ip4-input"):
        assert {p for p in real_types if p.startswith(f"/nodes/{node}/")} == \
            {p for p in sim_types if p.startswith(f"/nodes/{node}/")}
    for node in ("ip4-input", "l2-output", "host-ge1-output", "host-ge1-tx"):
        assert {p for p in real_types if p.startswith(f"/err/{node}/")} == \
            {p for p in sim_types if p.startswith(f"/err/{node}/")}
    # a deleted interface's nodes: renamed alike, its links gone alike
    assert not any(p.startswith("/interfaces/loop0/") for p in real_types)
    assert not any(p.startswith("/interfaces/loop0/") for p in sim_types)
    deleted = {n for n in real_values["/sys/node/names"] if n.endswith("-deleted")}
    assert deleted and deleted <= set(sim_values["/sys/node/names"])


def test_without_per_node_counters_neither_has_node_paths(vpp_sim_factory, vpp_real_factory,
                                                          monkeypatch):
    # a stock VPP: statseg { per-node-counters off } (vpp-real's switch for it)
    monkeypatch.setenv("VPP_REAL_PER_NODE_COUNTERS", "off")
    real = vpp_real_factory(PHYS)
    handle = vpp_sim_factory(phys=[Phy(f"host-{name}", f"02:fe:00:00:00:0{i}", 9000,
                                       "af-packet") for i, name in enumerate(PHYS)])
    directory = short_socket_dir()
    service = StatsService(handle.dataplane.state, handle.server.lock,
                           f"{directory}/stats.sock", per_node_counters=False).start()
    try:
        real_types, _ = read(str(real.run_dir / "stats.sock"))
        sim_types, _ = read(f"{directory}/stats.sock")
    finally:
        service.stop()
        os.rmdir(directory)

    def node_paths(types: dict[str, int]) -> list[str]:
        return [p for p in types if p.startswith(("/sys/node/", "/nodes/"))]

    assert node_paths(real_types) == [] and node_paths(sim_types) == []
    assert set(sim_types) - set(real_types) == set()
    assert "/err/af-packet-input/total received block" in sim_types


# ---- traffic: the nodes the simulator's model sends packets through -----------------------

L2XC = """set interface state host-ge0 up
set interface state host-ge1 up
set interface l2 xconnect host-ge0 host-ge1
set interface l2 xconnect host-ge1 host-ge0"""


def _errors(path: str) -> dict[str, int]:
    stats = VPPStats(path)
    stats.connect()
    try:
        return stats.set_errors()
    finally:
        stats.disconnect()


def _busy_nodes(path: str) -> dict[str, int]:
    stats = VPPStats(path)
    stats.connect()
    try:
        names = stats["/sys/node/names"]
        vectors = stats["/sys/node/vectors"][0]
        return {name: vectors[i] for i, name in enumerate(names) if i < len(vectors)}
    finally:
        stats.disconnect()


def _sim_run(acl_rules: list[dict[str, Any]]) -> tuple[Any, set[str]]:
    """The simulator's path for 16.0.0.1 -> 48.0.0.1 UDP into host-ge0 (L2 cross-connect
    to host-ge1, with these rules as host-ge0's input ACL, if any), and the error
    counters 40,000 such packets move."""
    from vppcfg.sim.dataplane import SimDataplane
    from vppcfg.sim.stats_model import InterfaceInfo, StatsModel
    from vppcfg.sim.stats_traffic import StreamOffer, TrafficModel, trace

    sim = SimDataplane([Phy(f"host-{n}", f"02:fe:00:00:00:0{i}", 9000, "af-packet")
                        for i, n in enumerate(PHYS)])
    for index in (1, 2):
        sim.handle("sw_interface_set_flags", {"sw_if_index": index, "flags": 1})
    for rx, tx in ((1, 2), (2, 1)):
        sim.handle("sw_interface_set_l2_xconnect",
                   {"rx_sw_if_index": rx, "tx_sw_if_index": tx, "enable": True})
    if acl_rules:
        acl = sim.handle("acl_add_replace", {"acl_index": 0xFFFFFFFF, "r": acl_rules})
        sim.handle("acl_interface_set_acl_list", {"sw_if_index": 1, "count": 1, "n_input": 1,
                                                  "acls": [acl.reply["acl_index"]]})
    model = StatsModel()
    model.sync([InterfaceInfo(i.sw_if_index, i.name, i.hw_if_index, i.is_sub, i.dev_type)
                for i in sim.state.interfaces.values()])
    ip = bytes([0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 16, 0, 0, 1, 48, 0, 0, 1])
    stream = StreamOffer.of_packet(20000.0, 64, bytes(12) + b"\x08\x00" + ip + bytes(8))
    traffic = TrafficModel(model)
    fwd, _, _ = traffic.offer(sim.state, 0, 1, 2, [stream])
    received = round(40000 * fwd)
    traffic.count(0, 2.0, (40000, 40000 * 64, received, received * 64))
    moved = {f"/err/{node}/{reason}" for (node, reason), n in model.errors.items() if n}
    return trace(model, sim.state, 1, 2, stream.ttl, stream.headers), moved


PERMIT_ALL = """set acl-plugin acl permit
set acl-plugin interface host-ge0 input acl 0"""
DENY_ALL_FROM_16_0_0_1 = """set acl-plugin acl deny src 16.0.0.1/32, permit
set acl-plugin interface host-ge0 input acl 0"""


@pytest.mark.parametrize(("cli", "rules"), [
    ((L2XC,), []),
    ((L2XC, DENY_ALL_FROM_16_0_0_1),
     [{"is_permit": 0, "src_prefix": "16.0.0.1/32", "dst_prefix": "0.0.0.0/0", "proto": 0},
      {"is_permit": 1, "src_prefix": "0.0.0.0/0", "dst_prefix": "0.0.0.0/0", "proto": 0}]),
    ((L2XC, PERMIT_ALL), [{"is_permit": 1, "src_prefix": "0.0.0.0/0",
                           "dst_prefix": "0.0.0.0/0", "proto": 0}]),
], ids=["l2xc", "l2xc-acl-deny", "l2xc-acl-permit"])
def test_the_real_vpp_counts_vectors_in_the_nodes_of_the_simulators_path(
        vpp_real_factory, trex_real_factory, tmp_path, cli, rules):
    """T-Rex port 0 -> host-ge0 [real VPP, L2 cross-connect] host-ge1 -> T-Rex port 1 (one
    flow, 16.0.0.1 -> 48.0.0.1): the nodes busy in VPP are those of the simulator's path."""
    import sys
    from pathlib import Path

    vpp = vpp_real_factory(PHYS)
    for text in cli:
        vpp.exec_text(text)
    trex = trex_real_factory(ports=("p-ge0", "p-ge1"), netns=vpp.netns)
    stats_path = str(vpp.run_dir / "stats.sock")
    before, errors_before = _busy_nodes(stats_path), _errors(stats_path)
    loadtest = str(Path(sys.executable).parent / "trex-loadtest")
    proc = trex.run([loadtest, "ramp", "-u", "-q", "--warmup", "0", "--duration", "2",
                     "--hold", "0", "--start-rate", "20kpps", "--rate", "20kpps",
                     "-o", str(tmp_path / "ramp.json")], timeout=180)
    assert proc.returncode == 0, proc.stderr
    # VPP's collector copies the node counters into the segment every 10 s
    deadline = time.monotonic() + 30
    while (after := _busy_nodes(stats_path)).get("l2-input", 0) == before.get("l2-input", 0):
        assert time.monotonic() < deadline, "VPP's per-node counters never moved"
        time.sleep(1)
    path, moved = _sim_run(rules)
    assert path.egress == (None if rules and not rules[0]["is_permit"] else 2)
    # 2 s at 20 kpps: ~40,000 packets through each node of the path, and no other node
    # busy (VPP's own few packets on the veths stay far below)
    busy = {n for n in after if after[n] - before.get(n, 0) >= 20000}
    assert busy == {"af-packet-input", *path.nodes}
    # and the error counters that count them are the ones the simulator moves
    errors = _errors(stats_path)
    counted = {k for k, v in errors.items() if v - errors_before.get(k, 0) >= 20000}
    assert counted == moved
