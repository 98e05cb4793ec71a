"""End-to-end: trex-loadtest through the real T-Rex client against the emulator."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.trex_client import require_trex_api

# before the emulator imports zmq (the client brings its own binding); skips (CI: fails)
# when the client does not import
API = require_trex_api()

from loadtest.cli import main  # noqa: E402

pytest_plugins = ["tests.trex_fixtures"]

ROOT = Path(__file__).resolve().parents[1]


def _ports(emu) -> list[str]:
    return ["--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port), "--timeout", "2"]


def _ramp(emu, out: Path, *extra: str) -> dict:
    """A short ramp sampled every 0.1 s: the emulators here tick every 1 ms of wall time."""
    argv = ["ramp", *_ports(emu), "-q", "--warmup", "0.2", "--hold", "0.2", "--stats-tick", "0.001",
            "--sample-interval", "0.1", "--drain", "0.05", "-o", str(out), *extra]
    assert main(argv) == 0
    return json.loads(out.read_text())


def _ndr(emu, out: Path, tick: float, *extra: str) -> dict:
    argv = ["ndr", *_ports(emu), "-q", "--trial-duration", "1", "--initial-duration", "0.2",
            "--drain", "0.02", "--stats-tick", str(tick), "-o", str(out), *extra]
    assert main(argv) == 0
    return json.loads(out.read_text())


def _traffic_stopped_and_released(emu) -> None:
    """Seen from another client: the ports are free (no force) and counters stand still."""
    client = API.STLClient(username="checker", server="127.0.0.1", sync_port=emu.rpc_port,
                           async_port=emu.pub_port, verbose_level="error")
    client.connect()
    try:
        client.acquire(ports=[0, 1])  # raises if someone still owns them
        first = client.get_stats(ports=[0, 1])
        time.sleep(0.3)
        second = client.get_stats(ports=[0, 1])
        assert first[0]["opackets"] == second[0]["opackets"]
        assert first[1]["opackets"] == second[1]["opackets"]
        client.release(ports=[0, 1])
    finally:
        client.disconnect()


def test_ramp_finds_the_lossless_rate_of_a_1_23_mpps_device(trex_emu_factory, tmp_path):
    # time runs at wall speed so per-second rates are real; counters tick finely
    emu = trex_emu_factory(capacity_pps=(1.23e6, 1.23e6), time_scale=1.0, stats_tick=0.001)
    # 30 steps of 10 kpps (0.8 %): the result is one step below capacity, or two at worst
    run = _ramp(emu, tmp_path / "ramp.json", "--start-rate", "1.1mpps", "--rate", "1.4mpps",
                "--duration", "3")
    (d0,) = run["summary"]["directions"]
    assert run["status"] == "complete"
    assert d0["lossless_pps"] == pytest.approx(1.23e6, rel=0.02)
    assert d0["max_forwarded_pps"] == pytest.approx(1.23e6, rel=0.02)
    assert d0["lossless_pct_line"] == pytest.approx(100 * d0["lossless_pps"] / 14880952.38,
                                                    rel=1e-6)
    # graph.rb layout: per-second stats with the ports' get_stats() dicts and global
    first = run["stats"]["0.1"]
    assert {"0", "1", "global"} <= set(first) and "opackets" in first["0"]
    assert run["vars"]["rate"] == "1.4mpps" and run["vars"]["traffic"]["profile"] == "64"
    # what graph.rb reads: these vars (it aborts without them), and per port and second
    # tx_pps, rx_pps and tx_util of both channels
    graph_keys = ("warmup_mult", "warmup_duration", "rampup_target", "rampup_duration",
                  "hold_duration", "profile_file")
    # rates as the options gave them, in T-Rex multiplier syntax (a bare number is a percent)
    assert [run["vars"][k] for k in graph_keys] == ["1%", 0.2, "1.4mpps", 3.0, 0.2, "64"]
    assert run["vars"]["unidirectional"] is True
    for sample in run["stats"].values():
        for port in ("0", "1"):
            assert isinstance(sample[port]["tx_util"], float | int)
            assert {"tx_pps", "rx_pps"} <= set(sample[port])
    # unidirectional: only port 0 sends, only port 1 receives
    totals = run["summary"]["totals"]
    assert list(totals) == ["0->1"] and totals["0->1"]["tx_packets"] > 0
    last = run["stats"][list(run["stats"])[-1]]
    assert last["1"]["opackets"] == 0 and last["0"]["ipackets"] == 0


def test_packets_in_flight_through_a_slow_device_are_not_loss(trex_emu_factory, tmp_path):
    # like the real VPP on af_packet: ~40 ms of packets in the device, none lost. Each
    # sample reads some of them as sent and not received; the drained totals show they all
    # arrived, so no sample lost anything and the peak is lossless
    emu = trex_emu_factory(dut_delay_ms=40.0, time_scale=1.0)
    run = _ramp(emu, tmp_path / "flight.json", "--start-rate", "0.2mpps", "--rate", "0.5mpps",
                "--duration", "1", "--sample-interval", "0.2")
    rows = [s["directions"]["0->1"] for s in run["samples"]]
    assert max(r["instant_loss_ratio"] for r in rows) > 0.05  # what one sample sees
    assert all(r["loss_ratio"] == 0 for r in rows)
    assert run["summary"]["totals"]["0->1"]["lost_packets"] == 0
    (d0,) = run["summary"]["directions"]
    assert d0["lossless_pps"] == pytest.approx(0.5e6, rel=0.05)


def test_the_drain_waits_for_packets_still_in_the_device(trex_emu_factory, tmp_path):
    # flow statistics count a packet only while the RX filters are set, and the client
    # removes them 100 ms after a stop unless told otherwise: with 300 ms of packets in
    # the device, the drain must keep them, or the last 200 ms would count as lost
    emu = trex_emu_factory(dut_delay_ms=300.0, time_scale=1.0)
    run = _ramp(emu, tmp_path / "drain.json", "--start-rate", "0.1mpps", "--rate", "0.2mpps",
                "--duration", "0.5", "--sample-interval", "0.25", "--drain", "0.5")
    total = run["summary"]["totals"]["0->1"]
    assert total["tx_packets"] > 0 and total["lost_packets"] == 0, total


def test_bidirectional_ramp_loses_per_direction(trex_emu_factory, tmp_path):
    emu = trex_emu_factory(capacity_pps=(0.87e6, 0.53e6), time_scale=1.0, stats_tick=0.001)
    # 30 steps of 20 kpps: each direction's result is within a step or two of its capacity
    run = _ramp(emu, tmp_path / "bi.json", "-b", "--profile", "imix", "--flows", "many",
                "--start-rate", "0.4mpps", "--rate", "1.0mpps", "--duration", "3")
    dirs = {d["direction"]: d for d in run["summary"]["directions"]}
    assert 0.83e6 <= dirs["0->1"]["lossless_pps"] <= 0.87e6
    assert 0.49e6 <= dirs["1->0"]["lossless_pps"] <= 0.53e6
    assert dirs["0->1"]["max_forwarded_pps"] == pytest.approx(0.87e6, rel=0.02)
    assert dirs["1->0"]["max_forwarded_pps"] == pytest.approx(0.53e6, rel=0.02)
    # at a rate between the two capacities only direction 1->0 loses
    mid = [s for s in run["samples"] if 0.6e6 <= s["intended_pps"] <= 0.8e6]
    assert mid and all(s["directions"]["0->1"]["loss_ratio"] == 0 for s in mid)
    assert all(s["directions"]["1->0"]["loss_ratio"] > 0.1 for s in mid)


@pytest.mark.parametrize(
    "capacity, profile, extra",
    [
        (1.23e6, "64", []),
        (3.1e6, "imix", ["--flows", "many"]),
        (0.45e6, "1514", ["--ipv6"]),
        (6.5e6, "64", ["-b"]),
    ],
)
def test_ndr_lands_within_half_a_percent(trex_emu_factory, tmp_path, capacity, profile, extra):
    emu = trex_emu_factory(capacity_pps=(capacity, capacity), time_scale=10.0)
    run = _ndr(emu, tmp_path / "ndr.json", 0.05, "--profile", profile, *extra)
    ndr, pdr = run["goals"]
    assert ndr["name"] == "NDR" and pdr["loss_ratio"] == 0.005
    assert ndr["lower_bound_pps"] == pytest.approx(capacity, rel=0.005)
    assert ndr["lower_bound_pps"] <= capacity * 1.0001 <= ndr["upper_bound_pps"] * 1.0001
    assert ndr["conditional_throughput_pps"] == pytest.approx(capacity, rel=0.005)
    assert ndr["trials"] == len(run["trials"]) > 3
    # each trial: stats cleared, fixed duration; T-Rex sends rate x duration (+1)
    for trial in run["trials"]:
        assert 0 <= trial["tx_packets"] - trial["intended_packets"] <= 2 * len(trial["directions"])


def test_a_generator_that_cannot_keep_up_is_flagged(trex_emu_factory, tmp_path):
    # like T-Rex in software mode: it sends 0.8 Mpps whatever it is asked, without an error
    emu = trex_emu_factory(max_tx_pps=0.8e6, time_scale=1.0, stats_tick=0.001)
    # 0.2 s samples: a sample's rate is measured to within a get_stats round trip
    run = _ramp(emu, tmp_path / "gen.json", "--start-rate", "0.5mpps", "--rate", "1.5mpps",
                "--duration", "2", "--sample-interval", "0.2")
    (d0,) = run["summary"]["directions"]
    assert d0["generator_limited"] and d0["max_asked_pps"] == 1.5e6
    # what was sent, not what was asked, and never above the highest rate measured
    assert 0.75e6 < d0["lossless_pps"] <= 0.9e6, d0
    assert d0["lossless_pps"] <= d0["max_offered_pps"]
    # approximate: per-sample rates of a short window, see docs/loadtest.md
    assert d0["max_forwarded_pps"] == pytest.approx(0.8e6, rel=0.12)


def test_ndr_sees_a_stretched_duration_as_loss(trex_emu_factory, tmp_path):
    # the real T-Rex counts a duration in packets: a generator that manages only 2 Mpps
    # sends a 1 s trial at 4 Mpps in 2 s, without loss and without an error
    emu = trex_emu_factory(max_tx_pps=2e6, time_scale=1.0, stats_tick=0.05)
    run = _ndr(emu, tmp_path / "stretch.json", 0.05, "--min-rate", "1mpps", "--max-rate",
               "4mpps", "--initial-duration", "1", "--precision", "2")
    ndr = run["goals"][0]
    # counting packets alone would call 4 Mpps lossless. A stretch shows beyond 2 % + the
    # allowance (one 0.05 s tick, the RPCs, 70 ms) or above the rate a stretched trial
    # showed the generator cannot exceed: coarse for 1 s trials
    assert 1.9e6 <= ndr["lower_bound_pps"] <= 2.3e6
    first = run["trials"][0]
    assert first["load_pps"] == 4e6 and first["stretched"] and first["loss_ratio"] == 0
    assert first["traffic_seconds"] == pytest.approx(2.0, abs=0.3)


def test_ndr_with_latency_reports_latency(trex_emu_factory, tmp_path):
    emu = trex_emu_factory(capacity_pps=(2e6, 2e6), time_scale=10.0)
    run = _ndr(emu, tmp_path / "lat.json", 0.05, "--latency", "--pdr", "1")
    assert [g["loss_ratio"] for g in run["goals"]] == [0.0, 0.01]
    lat = run["trials"][-1]["directions"]["0->1"]["latency"]
    assert lat and lat["min_us"] <= lat["avg_us"] <= lat["max_us"]
    # and the report renders it: goals table with the latency at each goal's rate, charts of
    # forwarded, loss and latency per trial against the offered load
    html = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "lat.json"), "-o", str(html)]) == 0
    page = html.read_text()
    assert "NDR" in page and "PDR 1%" in page and "p99 ≤" in page
    assert "Latency per trial, 0-&gt;1" in page
    assert page.count("<svg") == 3


def _start_cli(emu, out: Path, *extra: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "loadtest.cli", "ramp", *_ports(emu), "--warmup", "0",
            "--duration", "60", "--hold", "0", "--rate", "1mpps", "--sample-interval", "0.1",
            "--drain", "0.05", "--stats-tick", "0.01", "-o", str(out), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)


def _wait_first_sample(proc: subprocess.Popen) -> None:
    """The first progress line means traffic runs and samples are being taken."""
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stderr.readline()), daemon=True)
    reader.start()
    reader.join(20)
    assert line and "%" in line[0], f"no progress from the CLI: {line}"


def test_ctrl_c_stops_traffic_releases_ports_keeps_json(trex_emu_factory, tmp_path):
    emu = trex_emu_factory(capacity_pps=(5e5, 5e5), time_scale=1.0, stats_tick=0.01)
    out = tmp_path / "partial.json"
    proc = _start_cli(emu, out)
    try:
        _wait_first_sample(proc)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130  # Ctrl-C: vppcfg.exits.INTERRUPTED
    assert "interrupted" in err and "Traceback" not in err
    run = json.loads(out.read_text())
    assert run["status"] == "interrupted"
    assert 3 <= len(run["samples"]) < 100 and run["summary"]["directions"]
    _traffic_stopped_and_released(emu)


def test_losing_the_server_keeps_partial_json(trex_emu_factory, tmp_path):
    emu = trex_emu_factory(capacity_pps=(5e5, 5e5), time_scale=1.0, stats_tick=0.01)
    out = tmp_path / "lost.json"
    proc = _start_cli(emu, out, "--timeout", "1")
    try:
        _wait_first_sample(proc)
        time.sleep(0.3)
        emu.stop()
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 1
    lines = [line for line in err.splitlines() if "error" in line]
    assert lines and "Traceback" not in err
    run = json.loads(out.read_text())
    assert run["status"] == "failed" and run["error"] and run["samples"]


def test_ports_owned_by_someone_else(trex_emu_factory, capsys):
    emu = trex_emu_factory()
    other = API.STLClient(username="intruder", server="127.0.0.1", sync_port=emu.rpc_port,
                          async_port=emu.pub_port, verbose_level="error")
    other.connect()
    try:
        other.acquire(ports=[0, 1])
        assert main(["ramp", *_ports(emu), "-q"]) == 1
        err = capsys.readouterr().err.strip()
        assert "already taken by 'intruder'" in err and "\n" not in err
    finally:
        other.disconnect()


def test_impossible_rate_and_missing_port(trex_emu_factory, capsys):
    emu = trex_emu_factory()
    assert main(["ramp", *_ports(emu), "-q", "--sample-interval", "0.1",
                 "--stats-tick", "0.5"]) == 2
    assert "--sample-interval must be at least --stats-tick" in capsys.readouterr().err
    assert main(["ramp", *_ports(emu), "-q", "--rate", "15mpps"]) == 2
    assert "at most 100% is possible" in capsys.readouterr().err
    assert main(["ndr", *_ports(emu), "-q", "--ports", "0", "7"]) == 1
    assert "has no port 7" in capsys.readouterr().err
    _traffic_stopped_and_released(emu)


def test_unreachable_server_is_one_line(capsys, tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = signal.getsignal(signal.SIGINT)
    assert main(["ramp", "--sync-port", str(port), "--async-port", str(port), "--timeout",
                 "0.5", "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("trex-loadtest: error: cannot connect") and "\n" not in err
    # the session's Ctrl-C handler (which only sets a flag) must not outlive a failed connect
    assert signal.getsignal(signal.SIGINT) is before


def test_ramp_is_not_fooled_by_late_stats_replies(trex_emu_factory):
    # on a loaded machine a get_stats reply can come back long after the server read its
    # counters; that skews the sample times by up to the round trip, not the generator
    from loadtest.client import TrexSession
    from loadtest.profiles import TrafficSpec
    from loadtest.progress import Progress
    from loadtest.ramp import RampPlan, RampRun
    from loadtest.stats import directions

    emu = trex_emu_factory(time_scale=1.0, stats_tick=0.001)  # an ideal device
    plan = RampPlan(2e5, 2e5, 1e6, warmup=0, duration=1.0, hold=0.5, sample_interval=0.1,
                    drain=0.05, stats_tick=0.001)
    with TrexSession(API, "127.0.0.1", (0, 1), emu.rpc_port, emu.pub_port,
                     timeout=2) as session:
        read, calls = session.client.get_stats, []

        def late_reply(*args, **kwargs):
            stats = read(*args, **kwargs)
            calls.append(1)
            if len(calls) % 2:
                time.sleep(0.04)  # the reply is late, the counters were read on time
            return stats

        session.client.get_stats = late_reply
        run = RampRun(session, TrafficSpec("64"), plan, directions((0, 1), False),
                      14880952.38, 0.001, {}, progress=Progress(1.0, quiet=True)).run()
    assert run["status"] == "complete" and len(run["samples"]) == 15
    rows = [(s["intended_pps"], s["directions"]["0->1"]) for s in run["samples"]]
    assert all(row["offered_pps"] <= asked for asked, row in rows)
    (d0,) = run["summary"]["directions"]
    assert not d0["generator_limited"] and d0["lossless_pps"] == 1e6


@pytest.mark.parametrize("command", ["ramp", "ndr"])
def test_format_json_prints_the_run_as_the_file_holds_it(trex_emu_factory, tmp_path, capsys,
                                                         command):
    import jsonschema

    from loadtest.results_schema import schema

    emu = trex_emu_factory(capacity_pps=(1e6, 1e6), time_scale=10.0, stats_tick=0.001)
    out = tmp_path / f"{command}.json"
    capsys.readouterr()
    run = (_ramp(emu, out, "--format", "json") if command == "ramp"
           else _ndr(emu, out, 0.05, "--format", "json"))
    printed = json.loads(capsys.readouterr().out)
    assert printed == run and printed["status"] == "complete"
    jsonschema.validate(printed, schema())
