"""Flow-statistics RX filters and latency-stream rates, as on the real T-Rex 3.08
(tests/test_real_trex.py runs the same sequences on trex-real).

A start arms the RX filters of its flow-statistics streams; they stay until the client's
remove_rx_filters (which stop() and wait_on_traffic() send). A run started while the
filters of an earlier run are still set gets no flow-statistics RX at all: its packets
arrive (port ipackets count them) but rx_pkts stays where it was.
"""

from __future__ import annotations

import time

from tests.trex_client import require_trex_api

require_trex_api()  # the client as trex-loadtest imports it; skips (CI: fails) if it does not

from loadtest.client import load_api  # noqa: E402
from loadtest.emu.stats import flow_entry  # noqa: E402
from tests.test_emu_client import connect, udp_packet  # noqa: E402
from tests.trex_checks import latency_stream_share, rx_filter_sequence  # noqa: E402

pytest_plugins = ["tests.trex_fixtures"]

# per run: flow-stats rx and port 1 ipackets, per packet sent (flow-stats tx)
EXPECTED = [[1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]]


def test_a_run_over_stale_rx_filters_counts_no_flow_rx(trex_emu):
    client = connect(trex_emu)
    try:
        assert rx_filter_sequence(client, load_api()) == EXPECTED
    finally:
        client.disconnect()


def test_the_multiplier_skips_latency_streams(trex_emu_factory):
    client = connect(trex_emu_factory(time_scale=1.0))
    try:
        assert 0.025 < latency_stream_share(client, load_api()) < 0.045  # 1/30, not 1/10
    finally:
        client.disconnect()


def _server_flow(emu, pg_id: int) -> tuple[int, int]:
    """(tx, rx) of a pg_id as the server counts them (the client rebases per run)."""
    entry = flow_entry(emu.state.ports, pg_id, emu.state.clock())
    return entry["tp"]["0"], entry["rp"]["1"]


def test_what_arrives_after_the_filters_are_gone_is_not_counted(trex_emu_factory):
    # 300 ms of packets in the device; stop() removes the filters 100 ms after the stop
    emu = trex_emu_factory(time_scale=1.0, dut_delay_ms=300.0)
    client = connect(emu)
    api = load_api()
    try:
        client.reset(ports=[0, 1])
        pkt = udp_packet()
        client.add_streams(api.STLStream(packet=pkt, mode=api.STLTXCont(pps=10_000),
                                         flow_stats=api.STLFlowStats(pg_id=20)), ports=[0])
        client.clear_stats(ports=[0, 1])
        client.start(ports=[0])
        time.sleep(0.5)
        client.stop(ports=[0])
        time.sleep(0.4)  # everything has arrived by now
        stats = client.get_stats(ports=[0, 1])
        flow = stats["flow_stats"][20]
        sent, counted = flow["tx_pkts"]["total"], flow["rx_pkts"]["total"]
        assert stats[1]["ipackets"] == sent  # the port saw every packet
        assert 1000 < sent - counted < 3000  # flow statistics missed the last ~200 ms
        gap = _server_flow(emu, 20)
        client.start(ports=[0], duration=0.1)  # fresh filters: counting goes on, the gap stays
        client.wait_on_traffic(ports=[0], rx_delay_ms=500)
        after = _server_flow(emu, 20)
        assert after[0] > gap[0] and after[0] - after[1] == gap[0] - gap[1] == sent - counted
    finally:
        client.disconnect()
