"""When a duration ends: at start + duration on the wall clock (time scale 1), as the real
T-Rex does (06-duration-and-overload: 10 kpps × 3 s ended 3.0 s after the start), not at the
emulator's next stats tick; later only when the generator cannot keep up."""

from __future__ import annotations

import time

import pytest

from tests.trex_client import require_trex_api

require_trex_api()  # the client as trex-loadtest imports it; skips (CI: fails) if it does not

from trex.stl.api import STLClient, STLPktBuilder, STLStream, STLTXCont  # noqa: E402

pytest_plugins = ["tests.trex_fixtures"]

TICK = 0.5  # a stats tick the emulator can be given (the real counters have none)


def _client(emu) -> STLClient:
    client = STLClient(server="127.0.0.1", sync_port=emu.rpc_port, async_port=emu.pub_port,
                       verbose_level="error")
    client.connect()
    client.reset(ports=[0, 1])
    packet = STLPktBuilder(pkt_buffer=b"\x00" * 60)
    client.add_streams(STLStream(packet=packet, mode=STLTXCont(pps=100)), ports=[0])
    return client


def _at_tick_phase(emu, phase: float) -> None:
    """Sleep until the emulator's clock is `phase` seconds past one of its stats ticks."""
    now = emu.state.clock()
    wait = (phase - now % TICK) % TICK
    time.sleep(wait)


def _timed_run(client: STLClient, mult: str, duration: float) -> float:
    client.clear_stats(ports=[0, 1])
    client.start(ports=[0], mult=mult, duration=duration)
    started = time.monotonic()
    client.wait_on_traffic(ports=[0], timeout=30)
    return time.monotonic() - started


@pytest.mark.parametrize("phase", [0.02, 0.1])
def test_duration_ends_on_time_whatever_the_tick_phase(trex_emu_factory, phase):
    emu = trex_emu_factory(time_scale=1.0, stats_tick=TICK)
    client = _client(emu)
    try:
        _at_tick_phase(emu, phase)
        seconds = _timed_run(client, "100kpps", 1.0)
        # the old emulator reported the end at the next tick: 1.5 s - phase here
        assert 0.97 <= seconds <= 1.25, seconds
        # the job is done: the counters are final at once, although no tick has passed
        stats = client.get_stats(ports=[0, 1])
        assert stats[0]["opackets"] == 100_001 and stats[1]["ipackets"] == 100_001
        assert client.get_stats(ports=[0, 1])[0]["opackets"] == 100_001
    finally:
        client.disconnect()


def test_duration_stretches_only_when_the_generator_cannot_keep_up(trex_emu_factory):
    emu = trex_emu_factory(time_scale=1.0, max_tx_pps=1e6)
    client = _client(emu)
    try:
        # 2 Mpps asked of a generator that does 1 Mpps: 2 000 001 packets take 2 s
        seconds = _timed_run(client, "2mpps", 1.0)
        assert 1.95 <= seconds <= 2.25, seconds  # the old emulator: 2.5 s (next tick)
        assert client.get_stats(ports=[0])[0]["opackets"] == 2_000_001
    finally:
        client.disconnect()
