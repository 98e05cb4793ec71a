"""The real T-Rex client (lbr-trex-client, unchanged) against the emulator."""

from __future__ import annotations

import time

import pytest

from tests.trex_client import require_trex_api

require_trex_api()  # the client as trex-loadtest imports it; skips (CI: fails) if it does not

from trex.stl.api import (  # noqa: E402
    STLClient,
    STLFlowLatencyStats,
    STLFlowStats,
    STLPktBuilder,
    STLStream,
    STLTXCont,
    STLTXSingleBurst,
    TRexError,
)

pytest_plugins = ["tests.trex_fixtures"]


def udp_packet(size: int = 64) -> STLPktBuilder:
    """An Ether/IPv4/UDP frame of `size` bytes including the 4-byte FCS."""
    from scapy.all import IP, UDP, Ether

    base = Ether() / IP(src="16.0.0.1", dst="48.0.0.1") / UDP(sport=1025, dport=12)
    return STLPktBuilder(pkt=base / ("x" * (size - 4 - len(base))))


def connect(emu) -> STLClient:
    client = STLClient(server="127.0.0.1", sync_port=emu.rpc_port, async_port=emu.pub_port,
                       verbose_level="error")
    client.connect()
    return client


def stream(pps: float = 100, size: int = 64, **kwargs) -> STLStream:
    return STLStream(packet=udp_packet(size), mode=STLTXCont(pps=pps), **kwargs)


@pytest.mark.parametrize("trex_emu", [{"capacity_pps": (50_000, None)}], indirect=True)
def test_duration_run_counts_and_device_capacity(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0, 1])
        client.add_streams(stream(), ports=[0])
        client.clear_stats()
        client.start(ports=[0], mult="100kpps", duration=3)
        client.wait_on_traffic(ports=[0], timeout=30)
        stats = client.get_stats()
        # a duration ends after rate×duration packets, plus the real server's extra one
        assert stats[0]["opackets"] == 300_001
        assert stats[0]["obytes"] == 300_001 * 64
        # the device forwards at most its capacity
        assert stats[1]["ipackets"] == pytest.approx(150_000, abs=2)
        assert stats[1]["ibytes"] == stats[1]["ipackets"] * 64
        assert stats["total"]["opackets"] == 300_001
        client.release(ports=[0, 1])
        owners = [trex_emu.state.ports[p].owner for p in (0, 1)]
        assert owners == ["", ""]
    finally:
        client.disconnect()


@pytest.mark.parametrize("trex_emu", [{"capacity_pps": (20_000, 80_000)}], indirect=True)
def test_bidirectional_directions_lose_independently(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0, 1])
        client.add_streams(stream(), ports=[0])
        client.add_streams(stream(size=128), ports=[1])
        client.clear_stats()
        client.start(ports=[0, 1], mult="50kpps", duration=2)
        client.wait_on_traffic(ports=[0, 1], timeout=30)
        stats = client.get_stats()
        assert stats[0]["opackets"] == stats[1]["opackets"] == 100_001
        assert stats[1]["ipackets"] == pytest.approx(40_000, abs=2)  # 0→1 capped at 20 kpps
        assert stats[0]["ipackets"] == 100_001  # 1→0 has room for 80 kpps
        assert stats[0]["ibytes"] == 100_001 * 128
    finally:
        client.disconnect()


def test_unidirectional_run_touches_one_direction(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0, 1])
        client.add_streams(stream(), ports=[0])
        client.clear_stats()
        client.start(ports=[0], mult="10kpps", duration=1)
        client.wait_on_traffic(ports=[0], timeout=30)
        stats = client.get_stats()
        assert stats[0]["opackets"] == 10_001 and stats[1]["ipackets"] == 10_001
        assert stats[1]["opackets"] == 0 and stats[0]["ipackets"] == 0
    finally:
        client.disconnect()


def test_percent_of_line_rate_and_virtual_time_duration(trex_emu_factory):
    # the generator can only do 1 Mpps: 100 % of 10GbE for 0.05 s still sends
    # floor(0.05 × 14 880 952.38) + 1 = 744 048 packets, as the real server did, and so
    # takes 0.74 emulated seconds, not 0.05
    emu = trex_emu_factory(max_tx_pps=1e6, time_scale=10)
    client = connect(emu)
    try:
        client.reset(ports=[0])
        client.add_streams(stream(), ports=[0])
        client.clear_stats()
        t0 = time.monotonic()
        client.start(ports=[0], mult="100%", duration=0.05)
        assert emu.state.ports[0].mult == pytest.approx(148809.5238, rel=1e-6)
        client.wait_on_traffic(ports=[0], timeout=30)
        elapsed = time.monotonic() - t0
        assert client.get_stats()[0]["opackets"] == 744_048
        assert elapsed > 0.05  # 0.74 emulated s at time scale 10
    finally:
        client.disconnect()


def test_rates_are_smoothed_and_decay_after_stop(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0, 1])
        client.add_streams(stream(), ports=[0])
        client.start(ports=[0], mult="10kpps")
        started = trex_emu.state.clock()
        seen = []
        # sample until 4 whole seconds have been folded in whatever the start's phase within
        # a second (3 s of samples, as before, left 7 625-8 000 pps for a late start phase)
        for _ in range(500):
            time.sleep(0.01)
            seen.append(client.get_stats()[0]["tx_pps"])
            if trex_emu.state.clock() - started > 4.05:
                break
        client.stop(ports=[0])
        assert seen[0] < 6000  # the first second shows at most half the rate
        assert 8000 < seen[-1] <= 10_001
        stopped = client.get_stats()[0]
        time.sleep(0.25)  # 2.5 emulated seconds
        later = client.get_stats()[0]
        assert 0 < later["tx_pps"] < stopped["tx_pps"]  # decays, does not drop to 0
        assert later["opackets"] == stopped["opackets"] or later["opackets"] > 0
    finally:
        client.disconnect()


def test_update_pause_resume(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0])
        client.add_streams(stream(), ports=[0])
        client.start(ports=[0], mult="10kpps")
        client.update(ports=[0], mult="20kpps")
        assert trex_emu.state.ports[0].mult == pytest.approx(200)
        client.pause(ports=[0])
        assert client.get_port_info(ports=[0])[0]["status"] == "PAUSE"
        time.sleep(0.1)
        frozen = client.get_stats()[0]["opackets"]
        time.sleep(0.1)
        assert client.get_stats()[0]["opackets"] == frozen
        client.resume(ports=[0])
        time.sleep(0.15)
        assert client.get_stats()[0]["opackets"] > frozen
        client.stop(ports=[0])
        with pytest.raises(TRexError, match="are not active"):
            client.update(ports=[0], mult="5kpps")
    finally:
        client.disconnect()


def test_single_burst_finishes_by_itself(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0])
        burst = STLStream(packet=udp_packet(), mode=STLTXSingleBurst(total_pkts=5000, pps=1000))
        client.add_streams(burst, ports=[0])
        client.start(ports=[0])
        client.wait_on_traffic(ports=[0], timeout=30)
        assert client.get_stats()[0]["opackets"] == 5000
    finally:
        client.disconnect()


def test_ownership_between_two_clients(trex_emu):
    owner = connect(trex_emu)
    owner.acquire(ports=[0, 1])
    # connect after the acquire, as in the recording: events still queued from before
    # a client's own acquire would otherwise take the port away from it again
    intruder = STLClient(username="intruder", server="127.0.0.1", sync_port=trex_emu.rpc_port,
                         async_port=trex_emu.pub_port, verbose_level="error")
    intruder.connect()
    try:
        with pytest.raises(TRexError, match="port is already taken by"):
            intruder.acquire(ports=[0])
        intruder.acquire(ports=[0], force=True)
        deadline = time.monotonic() + 5
        while owner.get_acquired_ports() != [1] and time.monotonic() < deadline:
            time.sleep(0.02)  # the owner learns it lost port 0 through the event channel
        assert owner.get_acquired_ports() == [1]
        assert trex_emu.state.ports[0].owner == "intruder"
        intruder.release(ports=[0])
        assert trex_emu.state.ports[0].owner == ""
    finally:
        intruder.disconnect()
        owner.disconnect()


@pytest.mark.parametrize("trex_emu", [{"capacity_pps": (1e6, 1e6), "latency_us": 20}],
                         indirect=True)
def test_flow_stats_and_latency_streams(trex_emu):
    client = connect(trex_emu)
    try:
        client.reset(ports=[0, 1])
        client.add_streams([stream(pps=1000, flow_stats=STLFlowLatencyStats(pg_id=5)),
                            stream(pps=10_000, flow_stats=STLFlowStats(pg_id=7))], ports=[0])
        assert client.get_active_pgids() == {"latency": [5], "flow_stats": [7]}
        client.start(ports=[0], mult="1", duration=2)
        client.wait_on_traffic(ports=[0], timeout=30)
        pg = client.get_pgid_stats([5, 7])
        assert pg["flow_stats"][7]["tx_pkts"][0] == 20_001
        assert pg["flow_stats"][7]["rx_pkts"][1] == 20_001
        assert pg["flow_stats"][5]["tx_pkts"]["total"] == 2001
        lat = pg["latency"][5]["latency"]
        assert 20 <= lat["average"] < 100
        assert lat["total_min"] <= lat["average"] <= lat["total_max"]
        assert sum(lat["histogram"].values()) == 2001
        assert pg["latency"][5]["err_cntrs"]["dropped"] == 0
    finally:
        client.disconnect()


def test_overload_raises_latency(trex_emu_factory):
    emu = trex_emu_factory(capacity_pps=(1000, 1000), latency_us=10)
    client = connect(emu)
    try:
        client.reset(ports=[0])
        client.add_streams(stream(pps=5000, flow_stats=STLFlowLatencyStats(pg_id=1)),
                           ports=[0])
        client.start(ports=[0], duration=1)
        client.wait_on_traffic(ports=[0], timeout=30)
        pg = client.get_pgid_stats([1])
        assert pg["flow_stats"][1]["rx_pkts"]["total"] == pytest.approx(1000, abs=2)
        assert pg["latency"][1]["latency"]["average"] > 1000
        assert pg["latency"][1]["err_cntrs"]["dropped"] == pytest.approx(4000, abs=3)
    finally:
        client.disconnect()


def test_trex_client_fixture_reports_the_emulated_server(trex_client, trex_emu):
    version = trex_client.get_server_version()
    assert version["version"] == "v3.08" and version["mode"] == "STL"
    info = trex_client.get_server_system_info()
    assert info["port_count"] == 2 and info["dp_core_count"] == 1
    assert trex_client.get_port_attr(port=0)["speed"] == 10.0
