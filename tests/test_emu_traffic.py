"""The traffic/device model on its own: counters, smoothing, virtual-time durations, loss."""

from __future__ import annotations

import base64

import pytest

from loadtest.emu.config import EmuConfig
from loadtest.emu.traffic import PortTraffic, Stream, multiplier_for

SPEED = 10e9


def make_stream(key: int = 0, pps: float = 100.0, size: int = 64, **mode) -> Stream:
    packet = base64.b64encode(b"\0" * (size - 4)).decode()
    js = {"packet": {"binary": packet}, "mode": {"type": "continuous",
                                                 "rate": {"type": "pps", "value": pps},
                                                 **mode}}
    return Stream.from_json(1, key, js, SPEED)


def port(**fields) -> PortTraffic:
    return PortTraffic(0, EmuConfig(**fields))


def test_counters_are_current_at_every_read_like_the_real_servers():
    # the real T-Rex 3.08: polled every 5-30 ms at 100 kpps, opackets moved on every read
    tr = port(off_by_one=False)
    tr.start(0.0, [make_stream()], 100.0, -1)  # 10 kpps
    assert [tr.totals(tr.visible(t))[0] for t in (0.01, 0.49, 0.74)] == [100, 4900, 7400]
    assert tr.totals(tr.visible(1.0))[:2] == (10000, 640000)


def test_counters_can_move_in_half_second_steps():
    tr = port(off_by_one=False, stats_tick=0.5)
    tr.start(0.0, [make_stream()], 100.0, -1)  # 10 kpps
    assert tr.totals(tr.visible(0.49))[0] == 0
    assert tr.totals(tr.visible(0.74))[0] == 5000
    assert tr.totals(tr.visible(1.0))[:2] == (10000, 640000)


def test_rates_follow_the_recorded_ewma_and_decay_after_stop():
    tr = port(off_by_one=False)
    tr.start(0.0, [make_stream()], 100.0, -1)
    seen = []
    for second in (1, 2, 3):
        tr.advance_rates(second + 0.1)
        seen.append(tr.tx_pps.value)
    assert seen == [5000.0, 7500.0, 8750.0]
    tr.stop(3.0)
    frozen = tr.totals(tr.visible(3.0))
    tr.advance_rates(4.1)
    tr.advance_rates(5.1)
    assert tr.tx_pps.value == pytest.approx(8750 / 4)  # halves each second, never jumps to 0
    assert tr.totals(tr.visible(5.1)) == frozen
    tr.advance_rates(500.0)  # long idle is bounded work
    assert tr.tx_pps.value < 1e-9


def test_duration_runs_in_virtual_time_when_the_generator_is_slower():
    tr = port(max_tx_pps=250_000)
    pct = multiplier_for({"type": "percentage", "value": 100.0}, [make_stream()], SPEED)
    t_end = tr.start(0.0, [make_stream()], pct, 0.05)
    assert t_end == pytest.approx(744_048 / 250_000)  # 2.98 s of traffic, not 0.05 s
    assert tr.totals(tr.counts_at(100.0))[0] == 744_048


def test_device_capacity_and_loss_ramp():
    sharp = port(capacity_pps=(1e6, None), off_by_one=False)
    sharp.start(0.0, [make_stream()], 15_000.0, 1.0)  # 1.5 Mpps offered
    op, _, ip, _ = sharp.totals(sharp.counts_at(2.0))
    assert (op, ip) == (1_500_000, 1_000_000)
    under = port(capacity_pps=(1e6, None), off_by_one=False)
    under.start(0.0, [make_stream()], 9_990.0, 1.0)  # 999 kpps: no loss below capacity
    op, _, ip, _ = under.totals(under.counts_at(2.0))
    assert op == ip == 999_000
    ramp = port(capacity_pps=(1e6, None), loss_ramp_width=0.02, loss_ramp_max=0.01,
                off_by_one=False)
    ramp.start(0.0, [make_stream()], 9_900.0, 1.0)  # 99 % of capacity: half the ramp
    op, _, ip, _ = ramp.totals(ramp.counts_at(2.0))
    assert 1 - ip / op == pytest.approx(0.005, rel=1e-3)


def test_multipliers():
    imix = [make_stream(0, 28, 60), make_stream(1, 16, 590), make_stream(2, 4, 1514)]
    assert multiplier_for({"type": "pps", "value": 20000}, imix, SPEED) == pytest.approx(416.6667)
    one = [make_stream(pps=1)]
    assert multiplier_for({"type": "raw", "value": 3}, one, SPEED) == 3
    assert multiplier_for({"type": "bpsl1", "value": 84 * 8 * 10}, one, SPEED) == 10
    assert multiplier_for({"type": "bps", "value": 64 * 8 * 10}, one, SPEED) == 10


def test_burst_limits_and_frame_sizes():
    tr = port()
    burst = make_stream(0, 1000, 128, type="single_burst", total_pkts=500)
    t_end = tr.start(0.0, [burst], 1.0, -1)
    assert t_end == pytest.approx(0.5)
    assert tr.totals(tr.counts_at(10.0))[:2] == (500, 500 * 128)


def test_counters_are_final_once_a_run_ends_between_ticks():
    tr = port(stats_tick=0.5)
    t_end = tr.start(0.2, [make_stream()], 100.0, 1.0)  # 10 kpps for 1 s from t=0.2
    assert t_end == pytest.approx(1.2001)
    assert tr.totals(tr.visible(1.19))[0] == 8001  # still sending: the 1.0 s tick
    assert tr.totals(tr.visible(1.21))[0] == 10_001  # done: complete before the 1.5 s tick
    tr.stop(t_end)
    # a new run starting before the next tick never shows the counters going back
    tr.start(1.3, [make_stream()], 100.0, 1.0)
    assert tr.totals(tr.visible(1.4))[0] == 10_001
    assert tr.totals(tr.visible(1.5))[0] == 10_001 + 2001


def test_an_update_keeps_the_counters_in_tick_steps():
    tr = port(off_by_one=False, stats_tick=0.5)
    tr.start(0.0, [make_stream()], 100.0, -1)  # 10 kpps
    tr.start(0.7, [make_stream()], 200.0, -1, first=False)  # update to 20 kpps at 0.7 s
    assert tr.totals(tr.visible(0.9))[0] == 5000  # still the 0.5 s tick
    assert tr.totals(tr.visible(1.0))[0] == 7000 + 6000


def test_packets_in_the_device_are_sent_but_not_yet_received():
    tr = port(off_by_one=False, dut_delay_ms=40.0)
    tr.start(0.0, [make_stream()], 1000.0, -1)  # 100 kpps
    op, _, ip, _ = tr.totals(tr.visible(1.0))
    assert (op, ip) == (100_000, 96_000)  # 40 ms of packets in flight
    tr.stop(2.0)
    op, _, ip, _ = tr.totals(tr.visible(2.02))
    assert (op, ip) == (200_000, 198_000)  # still arriving after the stop
    assert tr.totals(tr.visible(2.05))[2] == 200_000  # then all of them
