"""Flow-statistics RX filters, as the real T-Rex 3.08 keeps them (measured on trex-real).

A start arms the RX filters of its flow-statistics streams; they stay until the client's
remove_rx_filters (which stop() and wait_on_traffic() send). A run started while the
filters of an earlier run are still set gets no flow-statistics RX at all: its packets
arrive (port ipackets count them) but rx_pkts stays where it was.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("lbr_trex_client")

from trex.stl.api import STLFlowStats

from tests.test_emu_client import connect, stream

pytest_plugins = ["tests.trex_fixtures"]

PG = 20


def _run_and_poll_until_done(client, mult: str = "10000") -> None:
    """A 0.2 s run, waited for by polling, as a harness may: nothing removes the filters."""
    client.clear_stats(ports=[0, 1])
    client.start(ports=[0], mult=mult, duration=0.2)
    deadline = time.monotonic() + 10
    while client.is_traffic_active(ports=[0]) and time.monotonic() < deadline:
        time.sleep(0.01)


def _flow(client) -> tuple[int, int, int]:
    stats = client.get_stats(ports=[0, 1])
    flow = stats["flow_stats"][PG]
    return flow["tx_pkts"]["total"], flow["rx_pkts"]["total"], stats[1]["ipackets"]


def test_a_run_over_stale_rx_filters_counts_no_flow_rx(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0, 1])
        client.add_streams(stream(pps=1, flow_stats=STLFlowStats(pg_id=PG)), ports=[0])
        _run_and_poll_until_done(client)
        assert _flow(client) == (2001, 2001, 2001)  # the first run counts
        _run_and_poll_until_done(client)
        assert _flow(client) == (2001, 0, 2001)  # its filters are still set: no flow RX
        client.stop(ports=[0])  # the client removes the RX filters
        _run_and_poll_until_done(client)
        assert _flow(client) == (2001, 2001, 2001)
        client.wait_on_traffic(ports=[0])  # removes them too
        _run_and_poll_until_done(client)
        assert _flow(client) == (2001, 2001, 2001)
    finally:
        client.disconnect()
