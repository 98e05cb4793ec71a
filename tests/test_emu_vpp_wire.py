"""The virtual wire: the T-Rex emulator's packets move the VPP simulator's counters."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import pytest

from tests.trex_client import require_trex_api

# before the emulator imports zmq (the client brings its own binding); skips (CI: fails)
# when the client does not import
API = require_trex_api()

from vpp_papi.vpp_stats import VPPStats  # noqa: E402

from loadtest.cli import main  # noqa: E402
from loadtest.emu.config import EmuConfig  # noqa: E402
from loadtest.emu.vppsim import VppSimLink  # noqa: E402
from tests.conftest import short_socket_dir  # noqa: E402
from tests.trex_fixtures import start_emulator  # noqa: E402
from vppcfg.sim.dataplane import SimDataplane  # noqa: E402
from vppcfg.sim.inventory import Phy  # noqa: E402
from vppcfg.sim.stats_service import StatsService  # noqa: E402
from vppcfg.sim.stats_traffic import (  # noqa: E402
    StreamOffer,
    TrafficModel,
    parse_ttl,
    vectors_per_call,
)


def make_dataplane(dev_type: str = "dpdk", mode: str = "xconnect") -> SimDataplane:
    dataplane = SimDataplane([Phy("Gi0", "02:00:00:00:00:01", 9000, dev_type),
                              Phy("Gi1", "02:00:00:00:00:02", 9000, dev_type)])
    for index in (1, 2):
        dataplane.handle("sw_interface_set_flags", {"sw_if_index": index, "flags": 1})
    if mode == "xconnect":
        for rx, tx in ((1, 2), (2, 1)):
            dataplane.handle("sw_interface_set_l2_xconnect",
                             {"rx_sw_if_index": rx, "tx_sw_if_index": tx, "enable": True})
    elif mode == "l3":
        for index, prefix in ((1, "10.0.0.1/24"), (2, "10.0.1.1/24")):
            dataplane.handle("sw_interface_add_del_address",
                             {"sw_if_index": index, "is_add": True, "prefix": prefix})
    return dataplane


class Bench:
    """The traffic model on its own, driven like the wire drives it."""

    def __init__(self, dev_type: str = "dpdk", mode: str = "xconnect",
                 capacity: float | None = 100000.0) -> None:
        from vppcfg.sim.stats_model import InterfaceInfo, StatsModel

        self.dataplane = make_dataplane(dev_type, mode)
        self.model = StatsModel()
        self.model.sync([InterfaceInfo(i.sw_if_index, i.name, i.hw_if_index, i.is_sub,
                                       i.dev_type)
                         for i in self.dataplane.state.interfaces.values()])
        self.traffic = TrafficModel(self.model, capacity)

    def offer(self, *streams: StreamOffer) -> tuple[float, float]:
        return self.traffic.offer(self.dataplane.state, 0, 1, 2, list(streams))

    def rx(self, index: int, counter: str = "rx") -> int:
        return self.model.interface(index).combined[counter][0]

    def simple(self, index: int, counter: str) -> int:
        return self.model.interface(index).simple[counter]


IP4_TTL64 = bytes(12) + b"\x08\x00" + bytes([0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17]) + bytes(10)


def test_over_capacity_the_excess_is_rx_miss_and_the_input_node_runs_full():
    bench = Bench()
    fwd, load, each = bench.offer(StreamOffer(150000.0, 64))
    assert (fwd, load, each) == (pytest.approx(2 / 3), 1.5, [pytest.approx(2 / 3)])
    assert bench.traffic.count(0, 1.0, (150000, 9600000, 100000, 6400000)) == 100000
    assert bench.simple(1, "rx-miss") == 50000
    assert bench.rx(1) == 100000
    assert bench.model.interface(1).combined["rx"][1] == 6400000
    assert bench.model.interface(2).combined["tx"] == [100000, 6400000]
    node = bench.model.nodes["dpdk-input"]
    assert node.vectors == 100000 and node.calls == round(100000 / 256)
    assert bench.model.nodes["Gi1-tx"].vectors == 100000
    assert bench.model.gauges["vector_rate"] == 256
    assert bench.simple(1, "drops") == 0


def test_both_directions_over_capacity_make_the_shared_input_node_the_busiest():
    bench = Bench()
    bench.offer(StreamOffer(150000.0, 64))
    bench.traffic.offer(bench.dataplane.state, 1, 2, 1, [StreamOffer(150000.0, 64)])
    bench.traffic.count(0, 1.0, (150000, 9600000, 100000, 6400000), dispatch=False)
    bench.traffic.count(1, 1.0, (150000, 9600000, 100000, 6400000), dispatch=False)
    bench.traffic.dispatch()
    nodes = bench.model.nodes
    # one main loop polls both interfaces: the input node's calls carry both directions
    assert nodes["dpdk-input"].vectors == 200000
    assert nodes["dpdk-input"].calls == nodes["Gi1-tx"].calls == round(100000 / 256)
    per_call = {n: c.vectors / c.calls for n, c in nodes.items() if c.calls}
    assert max(per_call, key=per_call.get) == "dpdk-input"
    assert per_call["Gi1-tx"] == pytest.approx(256, rel=0.01)
    assert bench.model.gauges["vector_rate"] == 512


def test_a_node_both_directions_share_takes_at_most_a_full_frame_a_call():
    """VPP's frames hold 256 vectors: ip4-rewrite fed by both ports at full load showed
    512 a call, and was then named the saturated node. Only the device input node
    (one call reads every queue) goes above 256."""
    bench = Bench(mode="l3")
    streams = [StreamOffer(150000.0, 64, 64)]
    bench.offer(*streams)
    bench.traffic.offer(bench.dataplane.state, 1, 2, 1, streams)
    bench.traffic.count(0, 1.0, (150000, 9600000, 100000, 6400000), dispatch=False)
    bench.traffic.count(1, 1.0, (150000, 9600000, 100000, 6400000), dispatch=False)
    bench.traffic.dispatch()
    per_call = {n: c.vectors / c.calls for n, c in bench.model.nodes.items() if c.calls}
    assert per_call["dpdk-input"] == pytest.approx(512, rel=0.01)
    over = {n: v for n, v in per_call.items() if v > 256.5 and n != "dpdk-input"}
    assert not over, over


def test_under_capacity_nothing_is_missed_and_vectors_are_small():
    bench = Bench()
    assert bench.offer(StreamOffer(50000.0, 64)) == (1.0, 0.5, [1.0])
    bench.traffic.count(0, 1.0, (50000, 3200000, 50000, 3200000))
    assert bench.simple(1, "rx-miss") == 0
    assert bench.model.nodes["dpdk-input"].calls == 50000  # one vector per call at half load


def test_af_packet_does_not_count_what_the_kernel_ring_dropped():
    bench = Bench(dev_type="af-packet")
    bench.offer(StreamOffer(200000.0, 64))
    bench.traffic.count(0, 1.0, (200000, 12800000, 100000, 6400000))
    assert bench.rx(1) == 100000
    assert bench.simple(1, "rx-miss") == 0  # as on the real af_packet VPP: invisible loss
    assert bench.model.nodes["af-packet-input"].vectors == 100000


def test_ttl_1_is_dropped_in_ip4_input_and_counted_by_reason():
    bench = Bench(mode="l3", capacity=None)
    expired = IP4_TTL64[:22] + b"\x01" + IP4_TTL64[23:]
    fwd, _, each = bench.offer(StreamOffer(1000.0, 64, parse_ttl(IP4_TTL64)),
                               StreamOffer(3000.0, 64, parse_ttl(expired)))
    assert (fwd, each) == (0.25, [1.0, 0.0])  # the emulator delivers stream by stream
    bench.traffic.count(0, 1.0, (4000, 256000, 1000, 64000))
    assert bench.model.errors[("ip4-input", "time_expired")] == 3000
    assert bench.model.errors[("ip4-icmp-error", "ttl_expire_sent")] == 3000
    assert bench.simple(1, "drops") == 3000
    assert bench.simple(1, "ip4") == 4000
    assert bench.model.nodes["ip4-rewrite"].vectors == 1000
    assert bench.model.interface(2).combined["tx"][0] == 1000


def test_counts_in_many_small_steps_add_up_exactly():
    bench = Bench(mode="l3", capacity=None)
    expired = IP4_TTL64[:22] + b"\x01" + IP4_TTL64[23:]
    bench.offer(StreamOffer(1000.0, 64, 64), StreamOffer(2000.0, 64, parse_ttl(expired)))
    for step in range(1, 301):  # 3 packets at a time: the shares never drift
        sent = 3 * step
        bench.traffic.count(0, step / 1000, (sent, 64 * sent, sent // 3, 64 * (sent // 3)))
    assert bench.model.errors[("ip4-input", "time_expired")] == 600
    assert bench.model.nodes["ip4-lookup"].vectors == 300


def test_an_interface_that_is_down_counts_nothing():
    bench = Bench()
    bench.dataplane.handle("sw_interface_set_flags", {"sw_if_index": 1, "flags": 0})
    assert bench.offer(StreamOffer(1000.0, 64))[0] == 0.0
    bench.traffic.count(0, 1.0, (1000, 64000, 0, 0))
    assert bench.rx(1) == 0 and bench.model.nodes["dpdk-input"].vectors == 0


def test_egress_down_drops_in_its_output_node():
    bench = Bench()
    bench.dataplane.handle("sw_interface_set_flags", {"sw_if_index": 2, "flags": 0})
    assert bench.offer(StreamOffer(1000.0, 64))[0] == 0.0
    bench.traffic.count(0, 1.0, (1000, 64000, 0, 0))
    assert bench.model.errors[("Gi1-output", "interface is down")] == 1000
    assert bench.simple(1, "drops") == 1000


def test_unconfigured_interface_drops_without_a_reason():
    bench = Bench(mode="none")
    assert bench.offer(StreamOffer(1000.0, 64, 64))[0] == 0.0
    bench.traffic.count(0, 1.0, (1000, 64000, 0, 0))
    assert bench.model.nodes["ip4-not-enabled"].vectors == 1000
    assert bench.simple(1, "drops") == 1000
    assert not any(bench.model.errors.values())


def udp(dport: int, ttl: int = 64) -> bytes:
    """Ether/IPv4/UDP 16.0.0.1:1025 -> 48.0.0.1:dport."""
    ip = bytes([0x45, 0, 0, 46, 0, 0, 0, 0, ttl, 17, 0, 0, 16, 0, 0, 1, 48, 0, 0, 1])
    return bytes(12) + b"\x08\x00" + ip + (1025).to_bytes(2, "big") + dport.to_bytes(2, "big")


def add_acl(bench: Bench, *rules: dict) -> None:
    index = bench.dataplane.handle("acl_add_replace", {"acl_index": 0xFFFFFFFF, "tag": "t",
                                                       "r": list(rules)}).reply["acl_index"]
    answer = bench.dataplane.handle("acl_interface_set_acl_list",
                                    {"sw_if_index": 1, "count": 1, "n_input": 1,
                                     "acls": [index]})
    assert answer.reply["retval"] == 0


RULE = {"src_prefix": "0.0.0.0/0", "dst_prefix": "48.0.0.0/8", "proto": 17,
        "srcport_or_icmptype_first": 0, "srcport_or_icmptype_last": 65535}


@pytest.mark.parametrize("mode", ["l3", "xconnect"])
def test_an_input_acl_denies_by_rule_and_permits_the_rest(mode):
    bench = Bench(mode=mode, capacity=None)
    add_acl(bench, {**RULE, "is_permit": 0, "dstport_or_icmpcode_first": 53,
                    "dstport_or_icmpcode_last": 53}, {**RULE, "is_permit": 1,
                                                      "dstport_or_icmpcode_first": 0,
                                                      "dstport_or_icmpcode_last": 65535})
    node = "acl-plugin-in-ip4-fa" if mode == "l3" else "acl-plugin-in-ip4-l2"
    fwd, _, each = bench.offer(StreamOffer.of_packet(1000.0, 64, udp(53)),
                               StreamOffer.of_packet(1000.0, 64, udp(4000)))
    assert (fwd, each) == (0.5, [0.0, 1.0])
    bench.traffic.count(0, 1.0, (2000, 128000, 1000, 64000))
    assert bench.model.errors[(node, "ACL deny packets")] == 1000
    assert bench.model.errors[(node, "ACL permit packets")] == 1000
    assert bench.simple(1, "drops") == 1000
    assert bench.model.nodes[node].vectors == 2000


def test_a_packet_no_acl_rule_matches_is_denied():
    bench = Bench(mode="l3", capacity=None)
    add_acl(bench, {**RULE, "is_permit": 1, "dstport_or_icmpcode_first": 80,
                    "dstport_or_icmpcode_last": 80})
    assert bench.offer(StreamOffer.of_packet(1000.0, 64, udp(81)))[2] == [0.0]


def test_ttl_expires_before_the_acl_runs():
    bench = Bench(mode="l3", capacity=None)
    add_acl(bench, {**RULE, "is_permit": 0, "dstport_or_icmpcode_first": 0,
                    "dstport_or_icmpcode_last": 65535})
    bench.offer(StreamOffer.of_packet(1000.0, 64, udp(53, ttl=1)))
    bench.traffic.count(0, 1.0, (1000, 64000, 0, 0))
    assert bench.model.errors[("ip4-input", "time_expired")] == 1000
    assert bench.model.errors[("acl-plugin-in-ip4-fa", "ACL deny packets")] == 0


@pytest.mark.parametrize(("load", "expected"), [
    (0.0, 1.0), (0.5, 1.0), (0.9, 9.0), (1 - 1 / 256, 256.0), (1.5, 256.0),
])
def test_vectors_per_call_model(load, expected):
    assert vectors_per_call(load) == pytest.approx(expected)


def test_vectors_per_call_just_under_full_is_not_full():
    assert 254 < vectors_per_call(1 - 1 / 256 - 1e-6) < 256


def test_parse_ttl():
    assert parse_ttl(IP4_TTL64) == 64
    tagged = IP4_TTL64[:12] + b"\x81\x00\x00\x64" + IP4_TTL64[12:]
    assert parse_ttl(tagged) == 64
    assert parse_ttl(bytes(12) + b"\x86\xdd" + bytes(40)) is None  # IPv6: no TTL here
    assert parse_ttl(IP4_TTL64[:20]) is None


# -- the emulator and the simulator together -------------------------------------------------

@contextmanager
def wired(mode: str = "xconnect", on_vpp_loss: str = "link-down",
          **service_options: Any) -> Iterator[Wired]:
    """A simulator serving its stats segment and wire, and trex-emu on that wire."""
    directory = short_socket_dir()
    dataplane = make_dataplane("dpdk", mode)
    service = StatsService(dataplane.state, threading.Lock(), f"{directory}/stats.sock",
                           f"{directory}/wire.sock", **service_options).start()
    emu = start_emulator(vpp_sim=f"{directory}/wire.sock", on_vpp_loss=on_vpp_loss)
    try:
        yield Wired(dataplane, service, f"{directory}/stats.sock", emu)
    finally:
        emu.stop()
        service.stop()  # a test may have stopped it already: stopping again is harmless
        with suppress(FileNotFoundError):
            os.rmdir(directory)


@dataclass
class Wired:
    dataplane: SimDataplane
    service: StatsService
    stats_path: str
    emu: Any


@contextmanager
def client_of(emu: Any) -> Iterator[Any]:
    """The real T-Rex client connected to the emulator, port 0 reset."""
    client = API.STLClient(server="127.0.0.1", sync_port=emu.rpc_port,
                           async_port=emu.pub_port, verbose_level="error")
    try:
        client.connect()
        client.reset(ports=[0])
        yield client
    finally:
        client.disconnect()


@pytest.fixture
def coupled() -> Iterator[tuple[SimDataplane, str, object]]:
    with wired(capacity_pps=30000.0, node_interval=0) as w:
        yield w.dataplane, w.stats_path, w.emu


def _emu_totals(emu, port: int) -> tuple[int, int, int, int]:
    traffic = emu.state.ports[port].traffic
    return traffic.totals(traffic.counts_at(emu.state.clock()))


def test_a_ramp_through_the_simulator_agrees_with_the_generator(coupled, tmp_path):
    _, stats_path, emu = coupled
    out = tmp_path / "ramp.json"
    argv = ["ramp", "--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port),
            "--timeout", "2", "-q", "--rate", "50kpps", "--warmup", "0.2", "--duration", "3",
            "--hold", "0.2", "--stats-tick", "0.001", "--sample-interval", "0.2",
            "--drain", "0.05", "-o", str(out)]
    assert main(argv) == 0
    result = json.loads(out.read_text())
    assert result["samples"]
    sent, _, received, received_bytes = _emu_totals(emu, 0)
    assert sent > received > 0  # 50 kpps into a 30 kpps interface: loss
    stats = VPPStats(stats_path)
    stats.connect()
    try:
        time.sleep(0.1)
        rx = stats["/if/rx"][:, 1].sum_packets()
        miss = stats["/if/rx-miss"][:, 1].sum()
        assert received <= rx <= sent  # what VPP counted in lies between sent and received
        assert rx + miss == sent  # every packet sent is either read or missed
        assert stats["/if/tx"][:, 2].sum_packets() == received
        assert stats["/if/tx"][:, 2].sum_octets() == received_bytes
        assert stats["/nodes/dpdk-input/vectors"][0] == rx
        calls = stats["/nodes/dpdk-input/calls"][0]
        assert rx / calls > 200  # the overloaded input node ran nearly full vectors
    finally:
        stats.disconnect()


def test_node_counters_reach_the_segment_each_collector_interval():
    directory = short_socket_dir()
    service = StatsService(make_dataplane().state, threading.Lock(), f"{directory}/stats.sock",
                           capacity_pps=1e6, node_interval=0.5).start()
    stats = VPPStats(f"{directory}/stats.sock")
    try:
        stats.connect()
        offer = {"op": "offer", "port": 0, "t": 0, "counts": [0, 0, 0, 0],
                 "streams": [{"pps": 1000, "frame_len": 64, "packet": ""}]}
        assert service.answer(json.dumps(offer).encode())["ok"]
        count = {"op": "count", "t": 1, "ports": {"0": [1000, 64000, 1000, 64000]}}
        assert service.answer(json.dumps(count).encode())["ok"]
        # interface counters move at once, as in VPP; node counters at the next collection
        assert stats["/if/rx"][:, 1].sum_packets() == 1000
        assert stats["/nodes/dpdk-input/vectors"] == [0]
        deadline = time.monotonic() + 5
        while stats["/nodes/dpdk-input/vectors"] != [1000]:
            assert time.monotonic() < deadline, "the node counters never arrived"
            time.sleep(0.05)
    finally:
        stats.disconnect()
        service.stop()
        os.rmdir(directory)


def test_streams_with_ttl_1_are_dropped_in_the_simulator(tmp_path):
    from scapy.all import IP, UDP, Ether

    with wired("l3") as w, client_of(w.emu) as client:
        streams = [API.STLStream(packet=API.STLPktBuilder(
            pkt=Ether() / IP(src="16.0.0.1", dst="48.0.0.1", ttl=ttl) / UDP() / ("x" * 18)),
            mode=API.STLTXSingleBurst(pps=pps, total_pkts=pps),
            flow_stats=API.STLFlowStats(pg_id=ttl)) for ttl, pps in ((64, 300), (1, 100))]
        client.add_streams(streams, ports=[0])
        client.start(ports=[0])
        client.wait_on_traffic(ports=[0], timeout=30)
        port_stats = client.get_stats(ports=[0, 1])
        sent, received = port_stats[0]["opackets"], port_stats[1]["ipackets"]
        flows = client.get_pgid_stats([64, 1])["flow_stats"]
        assert (flows[64]["rx_pkts"][1], flows[1]["rx_pkts"][1]) == (300, 0)  # per stream
        stats = VPPStats(w.stats_path)
        stats.connect()
        dropped = stats["/err/ip4-input/time_expired"].sum()
        assert sent == 400 and received == 300 and dropped == 100
        assert stats.set_errors() == {"/err/ip4-input/time_expired": 100,
                                      "/err/ip4-icmp-error/ttl_expire_sent": 100}
        assert stats["/if/drops"][:, 1].sum() == 100
        stats.disconnect()


def test_the_emulator_refuses_its_own_capacity_with_the_simulator():
    with pytest.raises(ValueError, match="drop --capacity-pps"):
        EmuConfig(capacity_pps=1e6, vpp_sim="/nonexistent")


def test_no_simulator_at_the_path_is_an_error_naming_it():
    with pytest.raises(OSError, match=r"--vpp-sim /nonexistent/wire\.sock: cannot connect"):
        VppSimLink("/nonexistent/wire.sock", 2)


@pytest.mark.parametrize(("extra", "message"), [
    ([], "trex-emu: error: --vpp-sim /nonexistent/wire.sock: cannot connect"),
    (["--capacity-pps", "1e6"], "drop --capacity-pps/--loss-ramp"),
])
def test_trex_emu_with_a_bad_vpp_sim_exits_2_saying_why(extra, message):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "loadtest.emu", "--rpc-port", "0",
                           "--pub-port", "0", "--vpp-sim", "/nonexistent/wire.sock", *extra],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr


def _burst_after_the_simulator_went_away(w: Wired, client: Any) -> int:
    """500 packets from port 0 once the simulator is gone: what port 1 received."""
    w.service.stop()
    os.rmdir(os.path.dirname(w.stats_path))
    from scapy.all import IP, UDP, Ether

    client.add_streams([API.STLStream(packet=API.STLPktBuilder(
        pkt=Ether() / IP() / UDP() / ("x" * 18)),
        mode=API.STLTXSingleBurst(pps=1000, total_pkts=500))], ports=[0])
    client.start(ports=[0])
    client.wait_on_traffic(ports=[0], timeout=30)
    return client.get_stats(ports=[1])[1]["ipackets"]


def test_a_simulator_that_goes_away_takes_the_links_down(capsys):
    """Before: the emulator quietly became an ideal device, and a ramp through a stopped
    simulator ended 'complete'. Now the links go down and nothing is forwarded."""
    with wired() as w, client_of(w.emu) as client:
        assert _burst_after_the_simulator_went_away(w, client) == 0
        client.ports[0].sync()
        assert client.get_port_attr(0)["link"] == "DOWN"
        err = capsys.readouterr().err
        assert err.count("--vpp-sim") == 1 and "links go down" in err


def test_the_ideal_device_after_the_simulator_is_asked_for(capsys):
    with wired(on_vpp_loss="ideal") as w, client_of(w.emu) as client:
        assert _burst_after_the_simulator_went_away(w, client) == 500
        assert client.get_port_attr(0)["link"] == "UP"
        err = capsys.readouterr().err
        assert err.count("--vpp-sim") == 1 and "going on as an ideal device" in err



def test_a_ramp_through_a_simulator_that_stops_is_invalid(tmp_path, capsys):
    """Issue 31: the simulator stopped mid-ramp, and the ramp ended `complete`, exit 0,
    certifying a rate through a device that was gone. Now the links go down, the run is
    invalid, says so first, exits 1, and claims no lossless rate."""
    with wired(capacity_pps=1e6, node_interval=0) as w:
        emu = w.emu
        out = tmp_path / "ramp.json"
        argv = ["ramp", "--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port),
                "--timeout", "2", "-q", "--rate", "50kpps", "--warmup", "0.2", "--duration",
                "3", "--hold", "0.2", "--stats-tick", "0.001", "--sample-interval", "0.2",
                "--drain", "0.05", "-o", str(out)]
        stopper = threading.Timer(1.0, w.service.stop)  # mid-ramp
        stopper.start()
        try:
            assert main(argv) == 1
        finally:
            stopper.join()
    result = json.loads(out.read_text())
    assert result["status"] == "invalid" and "link down" in result["error"]
    err = capsys.readouterr().err
    assert "INVALID run: link down" in err
    from loadtest.ramp import summary_lines

    lines = summary_lines(result)
    assert lines[0].startswith("INVALID run:") and not any("lossless" in x for x in lines)
