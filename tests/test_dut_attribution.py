"""Loss attribution, saturation and the verdict of `--dut-stats` (loadtest.dut), on plain
data: every rule pinned at its boundary (just under, at, just over), and the causes of a
direction always adding up to its lost packets."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loadtest import dut
from loadtest.dut import (
    SATURATION_MIN_CALLS,
    SATURATION_VECTORS_PER_CALL,
    DirectionCounts,
    DutMonitor,
    DutUnavailable,
    NodeLoad,
    RunDut,
    Snapshot,
    attribute,
    attribute_all,
    diff,
    parse_dut_ports,
    refreshed_delta,
    saturated_node,
    saturation,
    split_errors,
    verdict,
)
from loadtest.stats import Direction


def counts(lost: int, sent: int = 1000, ingress_rx: int = 1000, egress_tx: int = 1000,
           received: int = 1000, drops: int = 0) -> DirectionCounts:
    return DirectionCounts("0->1", lost, sent, received, "host-ge0", "host-ge1", ingress_rx,
                           egress_tx, drops, 0)


def by_cause(causes: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in causes:
        key = c["cause"] if c["cause"] != "dut-drop" else f"dut-drop {c['node']}: {c['reason']}"
        out[key] = out.get(key, 0) + c["packets"]
    return out


# ---- attribution ------------------------------------------------------------------------------

def test_nothing_lost_nothing_attributed():
    assert attribute(counts(0, sent=1000, ingress_rx=900), []) == []


def test_negative_loss_is_no_loss():
    assert attribute(counts(-3), []) == []


@pytest.mark.parametrize(("gap", "expected"), [
    (0, {"unaccounted": 10}),  # a cause at zero does not appear
    (1, {"before-dut": 1, "unaccounted": 9}),
    (9, {"before-dut": 9, "unaccounted": 1}),  # just under the loss: the rest is unaccounted
    (10, {"before-dut": 10}),  # at: no unaccounted entry
    (11, {"before-dut": 10}),  # just over: never more than was lost
])
def test_before_dut_is_sent_minus_what_vpp_counted_in(gap, expected):
    causes = attribute(counts(10, sent=1000, ingress_rx=1000 - gap, egress_tx=1000 - gap,
                              received=1000 - gap), [])
    assert by_cause(causes) == expected
    assert sum(c["packets"] for c in causes) == 10


@pytest.mark.parametrize(("dropped", "inside", "expected"), [
    (0, 10, {"unaccounted": 10}),
    (9, 10, {"dut-drop ip4-input: ip4 ttl <= 1": 9, "unaccounted": 1}),
    (10, 10, {"dut-drop ip4-input: ip4 ttl <= 1": 10}),
    # a counter above what stayed inside VPP is bounded by it: the rest came from elsewhere
    (11, 10, {"dut-drop ip4-input: ip4 ttl <= 1": 10}),
    (10, 9, {"dut-drop ip4-input: ip4 ttl <= 1": 9, "unaccounted": 1}),
])
def test_dut_drop_named_by_counter_up_to_what_stayed_inside(dropped, inside, expected):
    errors = [("ip4-input", "ip4 ttl <= 1", dropped)] if dropped else []
    causes = attribute(counts(10, sent=1000, ingress_rx=1000, egress_tx=1000 - inside,
                              received=1000 - inside), errors)
    assert by_cause(causes) == expected


def test_dut_drops_one_entry_per_node_and_reason_in_the_order_given():
    errors = [("acl-plugin-in-ip4-l2", "ACL deny packets", 6), ("ip4-input", "ip4 ttl <= 1", 3)]
    causes = attribute(counts(10, egress_tx=990, received=990), errors)
    assert [(c["cause"], c.get("node"), c.get("reason"), c["packets"]) for c in causes] == [
        ("dut-drop", "acl-plugin-in-ip4-l2", "ACL deny packets", 6),
        ("dut-drop", "ip4-input", "ip4 ttl <= 1", 3),
        ("unaccounted", None, None, 1),
    ]
    assert "ACL deny packets +6" in causes[0]["evidence"]


def test_drop_counters_together_name_no_more_than_stayed_inside():
    """5 stayed inside VPP; two counters of 4: they name 4 and 1, not 8."""
    errors = [("a", "x", 4), ("b", "y", 4)]
    causes = attribute(counts(10, egress_tx=995, received=995), errors)
    assert [(c["cause"], c.get("node"), c["packets"]) for c in causes] == [
        ("dut-drop", "a", 4), ("dut-drop", "b", 1), ("unaccounted", None, 5)]


@pytest.mark.parametrize(("gap", "expected"), [
    (0, {"unaccounted": 10}),
    (1, {"after-dut": 1, "unaccounted": 9}),
    (10, {"after-dut": 10}),
    (11, {"after-dut": 10}),
])
def test_after_dut_is_what_vpp_sent_minus_what_came_back(gap, expected):
    causes = attribute(counts(10, egress_tx=1000, received=1000 - gap), [])
    assert by_cause(causes) == expected


TX_RING = ("host-ge1-tx", "tx ring overrun")


@pytest.mark.parametrize(("overrun", "tx_error", "expected"), [
    # af_packet: VPP counted them out (/if/tx), then its TX node found the ring full
    (6, 0, {"dut-drop host-ge1-tx: tx ring overrun": 6, "after-dut": 4}),
    (10, 0, {"dut-drop host-ge1-tx: tx ring overrun": 10}),
    (12, 0, {"dut-drop host-ge1-tx: tx ring overrun": 10}),  # never more than the gap
    # a driver that counts /if/tx-error only
    (0, 7, {"dut-drop host-ge1: tx-error": 7, "after-dut": 3}),
    # DPDK counts both for the same packets: tx-error adds only what the node did not name
    (6, 6, {"dut-drop host-ge1-tx: tx ring overrun": 6, "after-dut": 4}),
    (6, 8, {"dut-drop host-ge1-tx: tx ring overrun": 6, "dut-drop host-ge1: tx-error": 2,
            "after-dut": 2}),
])
def test_drops_of_the_egress_driver_are_inside_vpp_not_after_it(overrun, tx_error, expected):
    d = DirectionCounts("0->1", 10, 1000, 990, "host-ge0", "host-ge1", 1000, 1000,
                        egress_tx_error=tx_error)
    causes = attribute(d, [], [(*TX_RING, overrun)] if overrun else [])
    assert by_cause(causes) == expected
    assert sum(c["packets"] for c in causes) == 10


def test_tx_node_errors_go_to_their_direction_not_to_the_shared_drop_pool():
    """Both directions lost 10; only 1->0's egress (host-ge0) overran its ring."""
    d01 = DirectionCounts("0->1", 10, 1000, 990, "host-ge0", "host-ge1", 1000, 990)
    d10 = DirectionCounts("1->0", 10, 1000, 990, "host-ge1", "host-ge0", 1000, 1000)
    delta = diff(snap(), snap(errors={("host-ge0-tx", "tx ring overrun"): 10,
                                      ("ip4-input", "ip4 ttl <= 1"): 10}))
    out = attribute_all(delta, [d01, d10])
    assert by_cause(out["0->1"]) == {"dut-drop ip4-input: ip4 ttl <= 1": 10}
    assert by_cause(out["1->0"]) == {"dut-drop host-ge0-tx: tx ring overrun": 10}


def test_a_sub_interfaces_tx_node_is_its_parents():
    assert dut.tx_node_of("GigabitEthernet3/0/0.100") == "GigabitEthernet3/0/0-tx"
    assert dut.tx_node_of("host-ge1") == "host-ge1-tx"


def test_causes_are_taken_in_order_before_inside_after():
    # 4 before, 3 dropped inside, 2 after, 1 nobody counted: 10 lost
    causes = attribute(counts(10, sent=1000, ingress_rx=996, egress_tx=993, received=991),
                       [("ip4-input", "ip4 ttl <= 1", 3)])
    assert [(c["cause"], c["packets"]) for c in causes] == [
        ("before-dut", 4), ("dut-drop", 3), ("after-dut", 2), ("unaccounted", 1)]
    # fewer lost than the counters explain: the earlier causes come first
    causes = attribute(counts(5, sent=1000, ingress_rx=996, egress_tx=993, received=991),
                       [("ip4-input", "ip4 ttl <= 1", 3)])
    assert [(c["cause"], c["packets"]) for c in causes] == [("before-dut", 4), ("dut-drop", 1)]


def test_evidence_names_the_counters_used():
    causes = attribute(counts(10, sent=1000, ingress_rx=995, egress_tx=995, received=990), [])
    before, after = causes
    assert before["evidence"] == ("T-Rex port 0 sent 1000, VPP counted 995 in on host-ge0 "
                                  "(rx-miss 0)")
    assert after["evidence"] == "VPP sent 995 on host-ge1, T-Rex port 1 received 990"


@given(lost=st.integers(-5, 10**6), sent=st.integers(0, 10**6), rx=st.integers(0, 10**6),
       tx=st.integers(0, 10**6), received=st.integers(0, 10**6),
       drops=st.lists(st.integers(0, 10**6), max_size=4))
def test_causes_always_add_up_to_the_loss(lost, sent, rx, tx, received, drops):
    errors = [("node", f"reason {i}", n) for i, n in enumerate(drops)]
    causes = attribute(counts(lost, sent, rx, tx, received), errors)
    assert sum(c["packets"] for c in causes) == max(0, lost)
    assert all(c["packets"] > 0 for c in causes)
    assert [c["cause"] for c in causes].count("unaccounted") <= 1


@pytest.mark.parametrize(("node", "reason"), [
    # what the real VPP counts for every packet of an L2 cross-connect with an input ACL
    ("l2-input", "L2 input packets"), ("l2-output", "L2 output packets"),
    ("af-packet-input", "total received block"), ("af-packet-input", "timed out block"),
    ("acl-plugin-in-ip4-l2", "checked packets"), ("acl-plugin-in-ip4-l2", "ACL permit packets"),
    ("vxlan4-input", "good packets decapsulated"), ("sflow", "sflow packets processed"),
    ("ip4-input", "valid ip4 packets"), ("x", "no error"), ("ip4-input", "none"),
    # symbolic names, as the real VPP gives newer counters
    ("ip4-icmp-error", "ttl_expire_sent"), ("ip4-icmp-error", "echo_replies_sent"),
    ("ip4-input", "reass_success"), ("ip4-input", "reass_fragments_reassembled"),
    ("ip4-input", "reass_fragments_rcvd"),
])
def test_counters_of_passing_packets_are_not_drop_reasons(node, reason):
    errors = [(node, reason, 5), ("acl-plugin-in-ip4-l2", "ACL deny packets", 5)]
    assert split_errors(errors, {"0->1": 5}) == {
        "0->1": [("acl-plugin-in-ip4-l2", "ACL deny packets", 5)]}


@pytest.mark.parametrize("reason", ["ip4 ttl <= 1", "ACL deny packets", "l3 mac mismatch",
                                    "invalid ip4 packets", "no buffers", "time_expired",
                                    "dst_lookup_miss", "unsent", "send failed", "nonexistent",
                                    # negated passing words still name drops
                                    "L2 Output interface not valid", "no buffers received",
                                    "unknown packets sent", "invalid checksum processed"])
def test_drop_reasons_are_kept(reason):
    assert split_errors([("n", reason, 5)], {"0->1": 5}) == {"0->1": [("n", reason, 5)]}


@pytest.mark.parametrize(("extra", "kept"), [(-1, True), (0, True), (1, False)])
def test_a_counter_above_what_stayed_inside_counts_passing_packets(extra, kept):
    """It may exceed what stayed inside VPP by the slack of two reads, and no more."""
    inside = 1000
    bound = int(inside * (1 + dut.DROP_SLACK_RATIO)) + dut.DROP_SLACK_PACKETS
    errors = [("acl-plugin-in-ip4-l2", "ACL deny packets", bound + extra)]
    assert bool(split_errors(errors, {"0->1": inside})["0->1"]) is kept


def test_errors_split_between_directions_by_what_stayed_inside():
    errors = [("ip4-input", "ip4 ttl <= 1", 100)]
    assert split_errors(errors, {"0->1": 30, "1->0": 10}) == {
        "0->1": [("ip4-input", "ip4 ttl <= 1", 75)], "1->0": [("ip4-input", "ip4 ttl <= 1", 25)]}
    # one direction kept nothing inside: it gets nothing
    assert split_errors(errors, {"0->1": 0, "1->0": 1}) == {
        "0->1": [], "1->0": [("ip4-input", "ip4 ttl <= 1", 100)]}
    # nothing stayed inside: the counters explain no loss here
    assert split_errors(errors, {"0->1": 0, "1->0": 0}) == {"0->1": [], "1->0": []}
    # the shares add up to the counter (the remainder goes to the larger direction)
    shares = split_errors([("n", "r", 7)], {"0->1": 1, "1->0": 1})
    assert sum(p for v in shares.values() for *_, p in v) == 7


def test_each_direction_reads_its_own_interfaces():
    """0->1 enters VPP on host-ge0 and leaves on host-ge1; 1->0 the other way round."""
    a = snap({"host-ge0": (1000, 0, 500, 0, 0, 0, 0, 0, 0),
              "host-ge1": (500, 0, 990, 0, 0, 0, 0, 0, 0)})
    delta = diff(snap({"host-ge0": (0,) * 9, "host-ge1": (0,) * 9}), a)
    m = DutMonitor("x", {0: "host-ge0", 1: "host-ge1"})
    both = [m.counts(delta, "0->1", 0, 1, lost=20, sent=1010, received=980),
            m.counts(delta, "1->0", 1, 0, lost=10, sent=505, received=495)]
    assert (both[1].ingress, both[1].ingress_rx, both[1].egress, both[1].egress_tx) == (
        "host-ge1", 500, "host-ge0", 500)
    out = attribute_all(delta, both)
    assert by_cause(out["0->1"]) == {"before-dut": 10, "after-dut": 10}
    assert by_cause(out["1->0"]) == {"before-dut": 5, "after-dut": 5}


# ---- deltas ------------------------------------------------------------------------------------

def snap(interfaces=None, errors=None, nodes=None, heartbeat=0, t=0.0) -> Snapshot:
    return Snapshot(interfaces or {}, errors or {}, nodes, 0.0, 0, heartbeat, t)


def test_diff_counts_from_zero_after_a_clear_and_keeps_only_moved_errors():
    a = snap({"host-ge0": (100, 6400, 5, 320, 1, 0, 0, 0, 0)},
             {("ip4-input", "ip4 ttl <= 1"): 50, ("l2-input", "x"): 7})
    b = snap({"host-ge0": (30, 1920, 9, 576, 1, 2, 0, 0, 0),
              "host-ge1": (1, 64, 0, 0, 0, 0, 0, 0, 0)},
             {("ip4-input", "ip4 ttl <= 1"): 20, ("l2-input", "x"): 7, ("a", "b"): 3})
    d = diff(a, b)
    assert d.interfaces["host-ge0"] == {"rx_packets": 30, "rx_bytes": 1920, "tx_packets": 4,
                                        "tx_bytes": 256, "drops": 0, "rx_miss": 2,
                                        "rx_error": 0, "punt": 0, "tx_error": 0}
    assert d.interfaces["host-ge1"]["rx_packets"] == 1  # new since a
    assert d.errors == [("ip4-input", "ip4 ttl <= 1", 20), ("a", "b", 3)]


def test_node_counters_count_only_when_vpps_collector_ran():
    base = snap(nodes={"af-packet-input": (10, 2000, 10**6)}, heartbeat=4, t=1.0)
    same = snap(nodes={"af-packet-input": (10, 2000, 10**6)}, heartbeat=4, t=2.0)
    delta, refreshed = refreshed_delta(base, base, same)
    assert (delta.nodes, delta.nodes_seconds, refreshed) == (None, None, False)
    assert delta.to_json()["nodes_note"] == dut.NODES_NOT_YET
    moved = snap(nodes={"af-packet-input": (20, 4560, 3 * 10**6)}, heartbeat=5, t=11.0)
    delta, refreshed = refreshed_delta(base, same, moved)
    assert refreshed and delta.nodes_seconds == 10.0
    (node,) = delta.nodes
    assert (node.calls, node.vectors, node.vectors_per_call, node.clocks_per_packet) == (
        10, 2560, 256.0, 2 * 10**6 / 2560)
    assert "nodes_note" not in delta.to_json()
    off = snap(heartbeat=5)  # a stock VPP: no per-node counters at all
    delta = refreshed_delta(base, same, off)[0]
    assert delta.nodes is None and delta.to_json()["nodes_note"] == dut.NODES_OFF


# ---- saturation --------------------------------------------------------------------------------

def load(vpc: float, calls: int = 1000, name: str = "af-packet-input", clocks: int = 0
         ) -> NodeLoad:
    return NodeLoad(name, calls, round(vpc * calls), clocks)


@pytest.mark.parametrize(("vpc", "saturated"), [
    (SATURATION_VECTORS_PER_CALL - 0.01, False),
    (SATURATION_VECTORS_PER_CALL, True),
    (SATURATION_VECTORS_PER_CALL + 0.01, True),
])
def test_saturation_threshold(vpc, saturated):
    node = load(vpc, calls=10000)
    assert (saturated_node([node]) is node) is saturated


@pytest.mark.parametrize(("calls", "saturated"), [
    (SATURATION_MIN_CALLS - 1, False), (SATURATION_MIN_CALLS, True),
    (SATURATION_MIN_CALLS + 1, True)])
def test_saturation_needs_a_node_called_often(calls, saturated):
    node = NodeLoad("af-packet-input", calls, 256 * calls, 0)
    assert (saturated_node([node]) is node) is saturated


def test_threshold_is_near_a_full_frame():
    assert 200 <= SATURATION_VECTORS_PER_CALL < 256


def test_busiest_node_decides_by_vectors_per_call_then_clocks():
    a, b = load(250, name="ip4-lookup", clocks=5), load(250, name="ip4-rewrite", clocks=9)
    assert saturated_node([a, b]) is b
    # the busiest node called too rarely: the next one decides
    rare = NodeLoad("x", 1, 256, 0)
    assert saturated_node([rare, load(10)]) is None
    assert saturated_node([]) is None and saturated_node(None) is None


def test_saturation_reports_the_lowest_rate_a_node_ran_full():
    points = [(300e3, "0->1", [load(250)]), (200e3, "0->1", [load(100)]),
              (250e3, "0->1", [load(245)]), (400e3, "0->1", None)]
    assert saturation(points) == {"node": "af-packet-input", "vectors_per_call": 245.0,
                                  "from_pps": 250000.0, "direction": "0->1"}
    assert saturation([(200e3, "0->1", [load(100)])]) is None


# ---- verdict -----------------------------------------------------------------------------------

def summary(**kw) -> dict:
    base = {"available": True, "reason": None, "saturation": None,
            "nodes": [load(12.345).to_json()], "loss_attribution": {"0->1": []}}
    return {**base, **kw}


def test_verdict_saturated_with_loss_before_vpp():
    text = verdict(summary(
        saturation={"node": "af-packet-input", "vectors_per_call": 255.9, "from_pps": 310000.0,
                    "direction": "0->1"},
        loss_attribution={"0->1": [{"cause": "before-dut", "packets": 90, "evidence": ""},
                                   {"cause": "unaccounted", "packets": 10, "evidence": ""}]}))
    assert text == ("VPP's CPU saturated in af-packet-input at 256 vectors/call from 310 kpps; "
                    "0 drops inside VPP; loss is mostly before VPP counted it (link, host ring "
                    "or NIC) (90% of 100 lost)")


def test_verdict_names_the_drop_reason():
    drop = {"cause": "dut-drop", "packets": 60, "evidence": "", "node": "ip4-input",
            "reason": "ip4 ttl <= 1"}
    text = verdict(summary(loss_attribution={"0->1": [drop], "1->0": [
        {"cause": "after-dut", "packets": 40, "evidence": ""}]}))
    assert text == ("VPP's CPU not saturated (busiest af-packet-input at 12 vectors/call); "
                    "60 drops inside VPP (most: ip4-input: ip4 ttl <= 1); loss is mostly "
                    "inside VPP, ip4-input: ip4 ttl <= 1 (60% of 100 lost)")


def test_verdict_without_loss_or_node_counters_or_data():
    assert verdict(summary()).endswith("; 0 drops inside VPP; no loss")
    assert "CPU load unknown (no per-node counters" in verdict(summary(nodes=None))
    assert verdict(summary(nodes=None, nodes_note="why")).startswith(
        "VPP's CPU load unknown (why)")
    assert verdict({"available": False, "reason": "VPP went away at 3.0 s"}) == \
        "no DUT data: VPP went away at 3.0 s"


# ---- the monitor: one failure, said once ------------------------------------------------------

class ScriptedReader:
    """Snapshots from a list; an exception in the list is raised at that read."""

    def __init__(self, script: list):
        self.script = list(script)
        self.closed = False

    def connect(self) -> None:
        if self.script and isinstance(self.script[0], DutUnavailable):
            raise self.script.pop(0)

    def read(self) -> Snapshot:
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        self.closed = True


IFS = {"local0": (0,) * 9, "host-ge0": (0,) * 9, "host-ge1": (0,) * 9}


def monitor(script: list, ports=None, t=None) -> tuple[DutMonitor, io.StringIO]:
    err = io.StringIO()
    ticks = iter(t or [0.0] * 100)
    m = DutMonitor("/run/vpp/stats.sock", ports, stream=err,
                   reader_factory=lambda path: ScriptedReader(script),
                   clock=lambda: next(ticks))
    return m, err


def test_monitor_maps_ports_to_vpps_first_interfaces_by_default():
    m, err = monitor([snap(IFS)])
    m.open([0, 1])
    assert m.ports == {0: "host-ge0", 1: "host-ge1"} and m.available and not err.getvalue()


def test_monitor_refuses_an_interface_vpp_does_not_have():
    """Asked-for data is checked before traffic: the names VPP has are listed."""
    m, _ = monitor([snap(IFS)], ports={0: "host-ge0", 1: "host-ge9"})
    with pytest.raises(DutUnavailable) as refused:
        m.open([0, 1])
    assert str(refused.value) == ("VPP has no interface host-ge9 (--dut-ports); it has "
                                  "host-ge0, host-ge1")


def test_monitor_says_a_failure_once_and_when():
    m, err = monitor([snap(IFS), snap(IFS), DutUnavailable("VPP went away (x)"), snap(IFS)],
                     t=[100.0, 112.34, 120.0])
    m.open([0, 1])
    assert m.read() is not None
    assert m.read() is None and m.read() is None  # no more reads after a failure
    assert m.reason == "VPP went away (x) at 12.3 s"
    assert err.getvalue() == ("trex-loadtest: DUT stats: VPP went away (x) at 12.3 s; the run "
                              "is invalid from here\n")
    assert m.summary(None, {}, None) == {"available": False,
                                         "reason": "VPP went away (x) at 12.3 s",
                                         "verdict": "no DUT data: VPP went away (x) at 12.3 s",
                                         "read_ms": m.summary(None, {}, None)["read_ms"]}


def test_monitor_never_counts_a_deleted_interfaces_column_as_a_port():
    ifs = {"local0": (0,) * 9, "deleted": (0,) * 9, "host-ge0": (0,) * 9, "host-ge1": (0,) * 9}
    m, _ = monitor([snap(ifs)])
    m.open([0, 1])
    assert m.ports == {0: "host-ge0", 1: "host-ge1"}


def test_an_unexpected_fault_at_the_first_read_refuses_before_traffic():
    m, _ = monitor([AttributeError("'NoneType' object has no attribute 'sum'")])
    with pytest.raises(DutUnavailable) as refused:
        m.open([0, 1])
    assert str(refused.value) == ("cannot read VPP's stats segment (AttributeError: "
                                  "'NoneType' object has no attribute 'sum')")


def test_dut_ports_option():
    assert parse_dut_ports(None, [0, 1]) is None
    assert parse_dut_ports("host-ge0, host-ge1", [0, 1]) == {0: "host-ge0", 1: "host-ge1"}
    assert parse_dut_ports("a,b", [1, 0]) == {1: "a", 0: "b"}
    for bad in ("host-ge0", "a,b,c", "a,a", "a,"):
        with pytest.raises(ValueError, match="one per port"):
            parse_dut_ports(bad, [0, 1])


# ---- a whole ramp's DUT side -------------------------------------------------------------------

def row(tx: int, rx: int, lost: int, offered: float) -> dict:
    return {"tx_packets": tx, "rx_packets": rx, "port_tx_packets": tx, "port_rx_packets": rx,
            "lost_packets": lost, "offered_pps": offered}


def test_run_dut_fills_samples_and_summary():
    """Three reads: start, one sample (VPP's collector ran), end. 1000 sent, 900 in, 850 out
    of VPP (50 dropped by an ACL), 850 back: 150 lost."""
    def ifs(i_rx, e_tx):
        return {"local0": (0,) * 9, "host-ge0": (i_rx, 0, 0, 0, 0, 0, 0, 0, 0),
                "host-ge1": (0, 0, e_tx, 0, 0, 0, 0, 0, 0)}
    errors = {("acl-plugin-in-ip4-l2", "ACL deny packets"): 50,
              ("l2-input", "L2 input packets"): 900}
    nodes0 = {"af-packet-input": (0, 0, 0)}
    nodes1 = {"af-packet-input": (40, 250 * 40, 10**6)}
    start, end = snap(ifs(0, 0), {}, nodes0, 1, 0.0), snap(ifs(900, 850), errors, nodes1, 2, 1.0)
    script = [start, start, end, end]
    m, _ = monitor(script)
    m.open([0, 1])
    run = RunDut(m, [Direction(0, 0, 1)])
    run.begin()
    sample = {"directions": {"0->1": row(1000, 850, 150, 1000.0)}, "dut": run.step()}
    run.end()
    out = run.finish_ramp([sample], {"0->1": row(1000, 850, 150, 1000.0)})
    assert by_cause(sample["dut"]["loss_attribution"]["0->1"]) == {
        "before-dut": 100, "dut-drop acl-plugin-in-ip4-l2: ACL deny packets": 50}
    assert sample["dut"]["nodes"][0]["vectors_per_call"] == 250.0
    assert out["available"] and by_cause(out["loss_attribution"]["0->1"]) == by_cause(
        sample["dut"]["loss_attribution"]["0->1"])
    assert out["saturation"] == {"node": "af-packet-input", "vectors_per_call": 250.0,
                                 "from_pps": 1000.0, "direction": "0->1"}
    assert out["verdict"].startswith("VPP's CPU saturated in af-packet-input at 250 vectors/call")
    assert out["errors"][0] == {"node": "l2-input", "reason": "L2 input packets", "packets": 900}


def test_module_constants_documented_values():
    """docs/loadtest.md states these; a change must change the docs too."""
    assert (dut.SATURATION_VECTORS_PER_CALL, dut.SATURATION_MIN_CALLS, dut.TOP_ERRORS,
            dut.TOP_ERRORS_SUMMARY, dut.TOP_NODES, dut.DROP_SLACK_RATIO,
            dut.DROP_SLACK_PACKETS) == (240.0, 10, 5, 10, 5, 0.1, 100)


def test_a_run_shorter_than_vpps_collector_interval_says_so():
    start = snap(IFS, {}, {"af-packet-input": (0, 0, 0)}, 7, 0.0)
    m, _ = monitor([start, start, start])
    m.open([0, 1])
    run = RunDut(m, [Direction(0, 0, 1)])
    run.begin()
    run.end()
    out = run.finish_ramp([], {"0->1": row(0, 0, 0, 0.0)})
    assert out["nodes"] is None and out["nodes_note"] == dut.NODES_STALE
    assert out["verdict"].startswith(f"VPP's CPU load unknown ({dut.NODES_STALE})")


def test_a_fault_in_the_reader_ends_the_dut_side_not_the_run(monkeypatch):
    m, err = monitor([snap(IFS), snap(IFS), RuntimeError("boom")], t=[0.0, 2.0])
    m.open([0, 1])
    assert m.read() is not None and m.read() is None
    assert m.reason == "reading VPP's counters failed (RuntimeError: boom) at 2.0 s"
    assert err.getvalue().count("\n") == 1


def test_a_fault_in_the_dut_side_keeps_samples_and_summary_whole(monkeypatch):
    m, err = monitor([snap(IFS)] * 5)
    m.open([0, 1])
    run = RunDut(m, [Direction(0, 0, 1)])
    run.begin()
    monkeypatch.setattr(dut, "refreshed_delta", lambda *a: 1 / 0)
    assert run.step() is None and run.step() is None
    assert len(run.deltas) == 2  # still one per sample
    out = run.finish_ramp([{"directions": {"0->1": row(1, 1, 0, 1.0)}}] * 2,
                          {"0->1": row(2, 2, 0, 1.0)})
    assert out["available"] is False
    assert out["reason"].startswith("a ramp sample's DUT counters failed (ZeroDivisionError")
    assert err.getvalue().count("\n") == 1
