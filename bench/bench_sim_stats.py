#!/usr/bin/env python3
"""Figures for the simulator's stats segment and virtual wire.

    .venv/bin/python bench/bench_sim_stats.py [--interfaces 10000] [--steps 2000]

Prints: the time to lay out and publish the segment with N loopbacks (the
directory grows by 17 links and 2 nodes per interface), its size, a full read
of it through vpp_papi's VPPStats, and the cost of one wire count step (what
the emulator triggers at every request it answers) with a small config.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vpp_papi.vpp_stats import VPPStats  # noqa: E402

from vppcfg.sim.dataplane import SimDataplane  # noqa: E402
from vppcfg.sim.inventory import Phy, default_inventory  # noqa: E402
from vppcfg.sim.stats_segment import layout  # noqa: E402
from vppcfg.sim.stats_service import StatsService  # noqa: E402


def big_segment(count: int) -> None:
    dataplane = SimDataplane(default_inventory())
    for _ in range(count):
        dataplane.handle("create_loopback", {})
    directory = tempfile.mkdtemp(prefix="bench-stats-")
    service = StatsService(dataplane.state, threading.Lock(), f"{directory}/stats.sock").start()
    started = time.perf_counter()
    service.want()  # what the first stats client's connect does
    publish = time.perf_counter() - started
    entries = service.model.entries()
    size = len(layout(entries))
    stats = VPPStats(f"{directory}/stats.sock")
    started = time.perf_counter()
    stats.connect()
    values = stats.dump(["/if/names", "/if/rx", "/if/drops", "/sys/node/vectors"])
    read = time.perf_counter() - started
    assert len(values["/if/names"]) == count + 5
    stats.disconnect()
    service.stop()
    print(f"{count} loopbacks: {len(entries)} directory entries, segment {size / 2**20:.1f} MiB, "
          f"laid out and published in {publish:.2f} s; VPPStats connect + read of "
          f"/if/names, /if/rx, /if/drops, /sys/node/vectors {read * 1000:.0f} ms")


def wire_steps(steps: int) -> None:
    dataplane = SimDataplane([Phy("Gi0", "02:00:00:00:00:01", 9000, "dpdk"),
                              Phy("Gi1", "02:00:00:00:00:02", 9000, "dpdk")])
    for index in (1, 2):
        dataplane.handle("sw_interface_set_flags", {"sw_if_index": index, "flags": 1})
    for rx, tx in ((1, 2), (2, 1)):
        dataplane.handle("sw_interface_set_l2_xconnect",
                         {"rx_sw_if_index": rx, "tx_sw_if_index": tx, "enable": True})
    directory = tempfile.mkdtemp(prefix="bench-stats-")
    service = StatsService(dataplane.state, threading.Lock(), f"{directory}/stats.sock",
                           capacity_pps=1e6).start()
    stream = '{"pps": 1500000, "frame_len": 64, "packet": ""}'
    for port in (0, 1):
        service.answer(f'{{"op": "offer", "port": {port}, "t": 0, "counts": [0, 0, 0, 0], '
                       f'"streams": [{stream}]}}'.encode())
    started = time.perf_counter()
    for step in range(1, steps + 1):
        sent, got = 1500 * step, 1000 * step
        counts = f"[{sent}, {64 * sent}, {got}, {64 * got}]"
        answer = service.answer(f'{{"op": "count", "t": {step / 1000}, '
                                f'"ports": {{"0": {counts}, "1": {counts}}}}}'.encode())
        assert answer["ok"], answer
    elapsed = time.perf_counter() - started
    service.stop()
    print(f"wire: {steps} count steps (2 ports, L2 cross-connect) in {elapsed:.2f} s, "
          f"{elapsed / steps * 1e6:.0f} us per step")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interfaces", type=int, default=10000)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    wire_steps(args.steps)
    big_segment(args.interfaces)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
