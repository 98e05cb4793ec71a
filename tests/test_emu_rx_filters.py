"""Flow-statistics RX filters, as the real T-Rex 3.08 keeps them (tests/test_real_trex.py
runs the same sequence on trex-real).

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
from tests.trex_checks import rx_filter_sequence

pytest_plugins = ["tests.trex_fixtures"]

# per run: flow-stats tx, flow-stats rx, port 1 ipackets (10 kpps x 0.2 s + T-Rex's one more)
EXPECTED = [[2001, 2001, 2001], [2001, 0, 2001], [2001, 2001, 2001], [2001, 2001, 2001]]


def test_a_run_over_stale_rx_filters_counts_no_flow_rx(trex_emu):
    client = connect(trex_emu)
    try:
        assert rx_filter_sequence(client, load_api()) == EXPECTED
    finally:
        client.disconnect()
