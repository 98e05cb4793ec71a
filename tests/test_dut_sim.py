"""`trex-loadtest --dut-stats` in the emulated loop: the T-Rex emulator's packets cross the VPP
simulator on its virtual wire (a capacity, ACLs), and the loadtest reads the simulator's
stats segment as it reads a real VPP's. The same path as the real tier
(tests/test_real_dut_stats.py), fast and without root."""

from __future__ import annotations

import inspect
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.trex_client import require_trex_api

# before the emulator imports zmq (the client brings its own binding); skips (CI: fails)
# when the client does not import
require_trex_api()

from loadtest.cli import main  # noqa: E402
from loadtest.results_schema import schema  # noqa: E402
from tests.conftest import short_socket_dir  # noqa: E402
from tests.graphrb_contract import graph_rb_problems  # noqa: E402
from tests.trex_fixtures import start_emulator  # noqa: E402
from vppcfg.sim.dataplane import SimDataplane  # noqa: E402
from vppcfg.sim.inventory import Phy  # noqa: E402
from vppcfg.sim.stats_service import StatsService  # noqa: E402

CAPACITY = 30000.0  # pps the simulated VPP forwards in all


def dataplane() -> SimDataplane:
    """Two DPDK PHYs (they count rx-miss) cross-connected, up."""
    dp = SimDataplane([Phy("Gi0", "02:00:00:00:00:01", 9000, "dpdk"),
                       Phy("Gi1", "02:00:00:00:00:02", 9000, "dpdk")])
    for index in (1, 2):
        dp.handle("sw_interface_set_flags", {"sw_if_index": index, "flags": 1})
    for rx, tx in ((1, 2), (2, 1)):
        dp.handle("sw_interface_set_l2_xconnect",
                  {"rx_sw_if_index": rx, "tx_sw_if_index": tx, "enable": True})
    return dp


@pytest.fixture
def loop() -> Iterator[tuple[SimDataplane, str, object]]:
    directory = short_socket_dir()
    dp = dataplane()
    # VPP's collector copies node counters into the segment every update-interval (10 s by
    # default); the simulator's, where it has one, every half second here
    extra = {"node_interval": 0.5} if "node_interval" in inspect.signature(
        StatsService).parameters else {}
    service = StatsService(dp.state, threading.Lock(), f"{directory}/stats.sock",
                           f"{directory}/wire.sock", capacity_pps=CAPACITY, **extra).start()
    emu = start_emulator(vpp_sim=f"{directory}/wire.sock")
    yield dp, f"{directory}/stats.sock", emu
    emu.stop()
    service.stop()
    os.rmdir(directory)


def ramp(emu, stats: str, out: Path, *extra: str) -> dict:
    argv = ["ramp", "--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port),
            "--timeout", "2", "--warmup", "0.2", "--stats-tick", "0.001",
            "--sample-interval", "0.2", "--drain", "0.05", "--dut-stats", stats,
            "-o", str(out), *extra]
    assert main(argv) == 0
    run = json.loads(out.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    assert [e.message for e in jsonschema.Draft202012Validator(schema()).iter_errors(run)] == []
    assert graph_rb_problems({"ramp": run}) == []
    return run


def sums(causes: list[dict]) -> int:
    return sum(c["packets"] for c in causes)


def test_over_capacity_the_loss_is_rx_miss_and_the_input_node_saturates(loop, tmp_path,
                                                                         capsys):
    _, stats, emu = loop
    # 1.6 s held over capacity hold whole refreshes of the node counters
    run = ramp(emu, stats, tmp_path / "ramp.json", "--start-rate", "10kpps",
               "--rate", "60kpps", "--duration", "2", "--hold", "1.6", "--warmup-rate", "10kpps")
    err = capsys.readouterr().err
    dut = run["summary"]["dut"]
    assert dut["available"], dut
    assert run["vars"]["dut_ports"] == {"0": "Gi0", "1": "Gi1"}
    t = run["summary"]["totals"]["0->1"]
    assert t["lost_packets"] > 0
    gi0 = dut["interfaces"]["Gi0"]
    assert t["rx_packets"] <= gi0["rx_packets"] <= t["port_tx_packets"]
    assert gi0["rx_miss"] > 0
    causes = dut["loss_attribution"]["0->1"]
    assert sums(causes) == t["lost_packets"]
    assert causes[0]["cause"] == "before-dut" and causes[0]["packets"] > 0.9 * t["lost_packets"]
    assert f"rx-miss {gi0['rx_miss']}" in causes[0]["evidence"]
    for sample in run["samples"]:
        row = sample["directions"]["0->1"]
        assert sums(sample["dut"]["loss_attribution"]["0->1"]) == row["lost_packets"]
    # below capacity the input node runs small vectors, above it full ones
    sat = dut["saturation"]
    assert sat["node"] == "dpdk-input" and sat["vectors_per_call"] >= 240
    assert CAPACITY < sat["from_pps"] <= 60000
    assert dut["verdict"].startswith("VPP's CPU saturated in dpdk-input")
    assert "loss is mostly before VPP counted it" in dut["verdict"]
    assert f"DUT: {dut['verdict']}" in err


def test_an_acl_drop_is_named_in_its_direction(loop, tmp_path):
    """Both ways; an input ACL on Gi0 denies everything that enters there: 0->1 loses all of
    it inside VPP, 1->0 nothing."""
    dp, stats, emu = loop
    index = dp.handle("acl_add_replace", {"acl_index": 0xFFFFFFFF, "tag": "deny-all", "r": [
        {"is_permit": 0, "src_prefix": "0.0.0.0/0", "dst_prefix": "0.0.0.0/0", "proto": 0,
         "srcport_or_icmptype_first": 0, "srcport_or_icmptype_last": 65535,
         "dstport_or_icmpcode_first": 0, "dstport_or_icmpcode_last": 65535}]}
                      ).reply["acl_index"]
    answer = dp.handle("acl_interface_set_acl_list", {"sw_if_index": 1, "count": 1,
                                                      "n_input": 1, "acls": [index]})
    assert answer.reply["retval"] == 0
    run = ramp(emu, stats, tmp_path / "ramp.json", "-b", "--start-rate", "5kpps",
               "--rate", "5kpps", "--duration", "1", "--hold", "0.4", "--warmup-rate", "5kpps")
    dut = run["summary"]["dut"]
    totals = run["summary"]["totals"]
    assert totals["0->1"]["rx_packets"] == 0 and totals["1->0"]["lost_packets"] == 0
    (drop,) = dut["loss_attribution"]["0->1"]
    assert (drop["cause"], drop["node"], drop["reason"], drop["packets"]) == (
        "dut-drop", "acl-plugin-in-ip4-l2", "ACL deny packets", totals["0->1"]["lost_packets"])
    assert dut["loss_attribution"]["1->0"] == []
    assert "(most: acl-plugin-in-ip4-l2: ACL deny packets)" in dut["verdict"]


def test_ndr_trials_carry_the_dut_side(loop, tmp_path):
    _, stats, emu = loop
    out = tmp_path / "ndr.json"
    argv = ["ndr", "--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port),
            "--timeout", "2", "-q", "--trial-duration", "0.5", "--initial-duration", "0.2",
            "--drain", "0.05", "--stats-tick", "0.001", "--precision", "10", "--min-rate",
            "10kpps", "--max-rate", "60kpps", "--dut-stats", stats, "-o", str(out)]
    assert main(argv) == 0
    run = json.loads(out.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    assert [e.message for e in jsonschema.Draft202012Validator(schema()).iter_errors(run)] == []
    assert run["status"] == "complete"
    lossy = 0
    for trial in run["trials"]:
        row = trial["directions"]["0->1"]
        causes = trial["dut"]["loss_attribution"]["0->1"]
        assert sums(causes) == row["tx_packets"] - row["rx_packets"]
        lossy += bool(causes)
        gi0 = trial["dut"]["interfaces"]["Gi0"]
        assert row["rx_packets"] <= gi0["rx_packets"] <= row["port_tx_packets"]
    assert lossy  # the search tried rates above the capacity
    dut = run["summary"]["dut"]
    lost = sum(t["directions"]["0->1"]["tx_packets"] - t["directions"]["0->1"]["rx_packets"]
               for t in run["trials"])
    assert sums(dut["loss_attribution"]["0->1"]) == lost
    assert dut["loss_attribution"]["0->1"][0]["cause"] == "before-dut"
    assert 0.9 * CAPACITY <= run["goals"][0]["lower_bound_pps"] <= CAPACITY
