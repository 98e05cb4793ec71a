"""Client-side checks shared by the emulator tests and the real-T-Rex tier.

The real T-Rex listens on 127.0.0.1 inside its own network namespace, so the real tier runs
these as a script there (``python -m tests.trex_checks CHECK SYNC_PORT ASYNC_PORT``, which
prints JSON); the emulator tests call the functions with a client of their own.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

FLOW_PG = 20


def rx_filter_sequence(client, api) -> list[list[int]]:
    """(flow tx, flow rx, port 1 ipackets) of four 0.2 s runs at 10 kpps: the first two
    waited for by polling (nothing removes the RX filters), the third after stop() and
    the fourth after wait_on_traffic() (both remove them)."""
    from scapy.all import IP, UDP, Ether

    client.reset(ports=[0, 1])
    pkt = Ether() / IP(src="16.0.0.1", dst="48.0.0.1") / UDP(sport=1025, dport=12) / (b"x" * 18)
    client.add_streams(api.STLStream(packet=api.STLPktBuilder(pkt=pkt),
                                     mode=api.STLTXCont(pps=1),
                                     flow_stats=api.STLFlowStats(pg_id=FLOW_PG)), ports=[0])
    seen = []
    for before in (None, None, "stop", "wait_on_traffic"):
        if before == "stop":
            client.stop(ports=[0])
        elif before == "wait_on_traffic":
            client.wait_on_traffic(ports=[0])
        _run_polling(client)
        stats = client.get_stats(ports=[0, 1])
        flow = stats["flow_stats"][FLOW_PG]
        seen.append([flow["tx_pkts"]["total"], flow["rx_pkts"]["total"], stats[1]["ipackets"]])
    return seen


def _run_polling(client) -> None:
    client.clear_stats(ports=[0, 1])
    client.start(ports=[0], mult="10000", duration=0.2)
    deadline = time.monotonic() + 10
    while client.is_traffic_active(ports=[0]) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # let the last packets arrive


def port_counters(client) -> dict:
    """The server's own counters since it started: the raw RPC, since the client's
    get_stats() counts from a baseline it takes at connect."""
    out = {}
    for port in (0, 1):
        rc = client._transmit("get_port_stats", {"port_id": port})
        if not rc:
            raise RuntimeError(f"get_port_stats {port}: {rc.err()}")
        out[str(port)] = {k: rc.data()[k] for k in ("opackets", "ipackets", "ierrors")}
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from loadtest.client import load_api

    check, sync_port, async_port = argv[0], int(argv[1]), int(argv[2])
    api = load_api()
    client = api.STLClient(username="checker", server="127.0.0.1", sync_port=sync_port,
                           async_port=async_port, verbose_level="error")
    client.connect()
    try:
        if check == "rx-filters":
            client.acquire(ports=[0, 1], force=True)
            result = rx_filter_sequence(client, api)
            client.release(ports=[0, 1])
        else:
            result = port_counters(client)
    finally:
        client.disconnect()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
