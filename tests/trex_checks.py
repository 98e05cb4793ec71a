"""Client-side checks shared by the emulator tests and the real-T-Rex tier.

The real T-Rex listens on 127.0.0.1 inside its own network namespace, so the real tier runs
these as a script there (``python tests/trex_checks.py CHECK SYNC_PORT ASYNC_PORT``, which
prints JSON); the emulator tests call the functions with a client of their own.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

FLOW_PG = 20


def rx_filter_sequence(client, api) -> list[list[float]]:
    """(flow rx, port 1 ipackets) per flow tx of four 0.2 s runs at 10 kpps: the first two
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
        sent = flow["tx_pkts"]["total"]  # 2000, or 2001 (the server's one more, not always)
        assert sent >= 2000, sent
        seen.append([round(flow["rx_pkts"]["total"] / sent, 3),
                     round(stats[1]["ipackets"] / sent, 3)])
    return seen


def latency_stream_share(client, api) -> float:
    """Packets of a 100 pps latency stream per packet of a 1000 pps test stream, both
    started with multiplier 3 for about a second: 1/30 when the multiplier skips the
    latency stream (as on the real server), 1/10 if it applied to both."""
    from scapy.all import IP, UDP, Ether

    client.reset(ports=[0, 1])
    pkt = api.STLPktBuilder(pkt=Ether() / IP(src="16.0.0.1", dst="48.0.0.1") / UDP()
                            / (b"x" * 18))
    client.add_streams([
        api.STLStream(packet=pkt, mode=api.STLTXCont(pps=1000),
                      flow_stats=api.STLFlowStats(pg_id=FLOW_PG)),
        api.STLStream(packet=pkt, mode=api.STLTXCont(pps=100),
                      flow_stats=api.STLFlowLatencyStats(pg_id=FLOW_PG + 1)),
    ], ports=[0])
    client.clear_stats(ports=[0, 1])
    client.start(ports=[0], mult="3")
    time.sleep(1.0)
    client.stop(ports=[0])
    flow = client.get_stats(ports=[0, 1])["flow_stats"]
    return flow[FLOW_PG + 1]["tx_pkts"]["total"] / flow[FLOW_PG]["tx_pkts"]["total"]


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
        if check in ("rx-filters", "latency-share"):
            client.acquire(ports=[0, 1], force=True)
            run = rx_filter_sequence if check == "rx-filters" else latency_stream_share
            result = run(client, api)
            client.release(ports=[0, 1])
        else:
            result = port_counters(client)
    finally:
        client.disconnect()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
