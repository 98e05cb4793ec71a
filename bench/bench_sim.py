#!/usr/bin/env python3
"""Figures for the VPP simulator's wire side, measured with the real vpp_papi client.

    .venv/bin/python bench/bench_sim.py [--interfaces 2000] [--calls 2000] [--clients 4]

Prints: definition load time, connect time, request/reply and dump round trips per
second, the cost of creating N interfaces and dumping them, CLI lines per second, and
the throughput of several concurrent clients. Uses the behaviour model when it is
importable, else a trivial one (then only the wire figures mean anything).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import socket
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vpp_papi import VPPApiClient  # noqa: E402

from vppcfg.sim.codec import DEFAULT_API_DIR, ApiDefinitions, frame  # noqa: E402
from vppcfg.sim.inventory import default_inventory  # noqa: E402
from vppcfg.sim.server import run_in_thread  # noqa: E402


def model() -> Any:
    from vppcfg.sim.dataplane import SimDataplane

    return SimDataplane(default_inventory())


def timed(label: str, count: int, fn: Any) -> float:
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    rate = f"{count / elapsed:10.0f}/s" if count else ""
    print(f"{label:<48}{elapsed * 1000:10.1f} ms {rate}")
    return elapsed


def connect(socket_path: str, name: str) -> VPPApiClient:
    files = sorted(str(p) for p in DEFAULT_API_DIR.rglob("*.api.json"))
    client = VPPApiClient(apifiles=files, use_socket=True, server_address=socket_path,
                          read_timeout=30)
    client.connect(name)
    return client


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interfaces", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    timed("load our API definitions", 0, ApiDefinitions)
    directory = tempfile.mkdtemp(prefix="vppsim-bench-")
    server = run_in_thread(model(), str(Path(directory) / "api.sock"))
    try:
        holder: dict[str, VPPApiClient] = {}
        timed("vpp_papi connect (load JSON + sockclnt_create)", 0,
              lambda: holder.setdefault("c", connect(server.socket_path, "bench")))
        client = holder["c"]
        n = args.calls
        timed(f"show_version x{n}", n, lambda: [client.api.show_version() for _ in range(n)])
        timed(f"control_ping x{n}", n, lambda: [client.api.control_ping() for _ in range(n)])
        timed(f"sw_interface_dump (5 interfaces) x{n // 4}", n // 4,
              lambda: [client.api.sw_interface_dump() for _ in range(n // 4)])
        k = args.interfaces
        timed(f"create_loopback x{k}", k,
              lambda: [client.api.create_loopback(mac_address="00:00:00:00:00:00")
                       for _ in range(k)])
        timed(f"sw_interface_dump ({k + 5} interfaces) x10", 10,
              lambda: [client.api.sw_interface_dump() for _ in range(10)])
        lines = "\n".join(f"set interface state loop{i} up" for i in range(min(k, 500)))
        count = lines.count("\n") + 1
        reply = {}
        timed(f"cli_inband, {count} lines in one call", count,
              lambda: reply.setdefault("r", client.api.cli_inband(cmd=lines)))
        assert reply["r"].retval == 0, reply["r"].reply
        raw_round_trips(server, n)
        concurrent(server.socket_path, args.clients, n // args.clients)
        client.disconnect()
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{'peak RSS (server and clients, one process)':<48}"
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:10.1f} MB")
    return 0


def raw_round_trips(server: Any, count: int) -> None:
    """The server alone: pre-encoded requests over a bare socket, no vpp_papi queues."""
    api = server.api
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(server.socket_path)
    request = frame(api.encode("show_version", {"context": 1}))
    header = struct.Struct(">QII")

    def read_one() -> None:
        _, length, _ = header.unpack(sock.recv(header.size, socket.MSG_WAITALL))
        sock.recv(length, socket.MSG_WAITALL)

    sock.sendall(frame(api.encode("sockclnt_create", {"name": "raw", "context": 1})))
    read_one()

    def run_all() -> None:
        for _ in range(count):
            sock.sendall(request)
            read_one()

    timed(f"raw socket show_version x{count} (server only)", count, run_all)
    sock.close()


def concurrent(socket_path: str, clients: int, calls: int) -> None:
    conns = [connect(socket_path, f"bench{i}") for i in range(clients)]

    def work(c: VPPApiClient) -> None:
        for _ in range(calls):
            c.api.show_version()

    def run_all() -> None:
        threads = [threading.Thread(target=work, args=(c,)) for c in conns]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)

    timed(f"{clients} concurrent clients, show_version x{calls} each", clients * calls, run_all)
    for c in conns:
        c.disconnect()


if __name__ == "__main__":
    sys.exit(main())
