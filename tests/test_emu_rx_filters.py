"""Flow-statistics RX filters and latency-stream rates, as on the real T-Rex 3.08
(tests/test_real_trex.py runs the same sequences on trex-real).

A start arms the RX filters of its flow-statistics streams; they stay until the client's
remove_rx_filters (which stop() and wait_on_traffic() send). A run started while the
filters of an earlier run are still set gets no flow-statistics RX at all: its packets
arrive (port ipackets count them) but rx_pkts stays where it was.
"""

from __future__ import annotations

import pytest

pytest.importorskip("lbr_trex_client")

from loadtest.client import load_api
from tests.test_emu_client import connect
from tests.trex_checks import latency_stream_share, rx_filter_sequence

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
