"""The results JSON Schema (loadtest.results_schema) against what ramp and ndr write with
`--dut-stats`: files of real runs pass it, and it refuses what breaks the DUT contract."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from loadtest.dut import DutMonitor, RunDut, Snapshot
from loadtest.results_schema import schema
from loadtest.stats import Direction

jsonschema = pytest.importorskip("jsonschema", reason="the jsonschema package (test extra)")


@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema.Draft202012Validator.check_schema(schema())
    return jsonschema.Draft202012Validator(schema())


class Reader:
    def __init__(self, snaps: list[Snapshot]):
        self.snaps = snaps

    def connect(self) -> None:
        pass

    def read(self) -> Snapshot:
        return self.snaps.pop(0)

    def close(self) -> None:
        pass


def _ifs(i_rx: int, e_tx: int) -> dict:
    return {"local0": (0,) * 9, "host-ge0": (i_rx, 60 * i_rx, 0, 0, 0, 0, 0, 0, 0),
            "host-ge1": (0, 0, e_tx, 60 * e_tx, 0, 0, 0, 0, 0)}


def ramp_run(per_node: bool = True) -> dict:
    """A ramp file as RampRun writes it, its DUT side built by RunDut from three reads."""
    nodes = ({"af-packet-input": (0, 0, 0)}, {"af-packet-input": (40, 10000, 10**6)}) \
        if per_node else (None, None)
    start = Snapshot(_ifs(0, 0), {}, nodes[0], 0.0, 0, 1, 0.0)
    end = Snapshot(_ifs(900, 850), {("acl-plugin-in-ip4-l2", "ACL deny packets"): 50},
                   nodes[1], 250.0, 0, 2, 1.0)
    monitor = DutMonitor("/run/vpp/stats.sock", stream=sys.stderr,
                         reader_factory=lambda path: Reader([start, start, end, end]))
    monitor.open([0, 1])
    dut = RunDut(monitor, [Direction(0, 0, 1)])
    dut.begin()
    row = {"tx_packets": 1000, "rx_packets": 850, "port_tx_packets": 1000,
           "port_rx_packets": 850, "lost_packets": 150, "offered_pps": 1000.0}
    sample = {"second": "1", "directions": {"0->1": row}, "dut": dut.step()}
    dut.end()
    summary = dut.finish_ramp([sample], {"0->1": row})
    return {"vars": {"dut_stats": "/run/vpp/stats.sock", "dut_ports": {"0": "host-ge0",
                                                                      "1": "host-ge1"}},
            "stats": {}, "samples": [sample], "summary": {"dut": summary},
            "status": "complete"}


@pytest.mark.parametrize("per_node", [True, False])
def test_a_ramp_with_dut_data_passes(validator, per_node):
    run = json.loads(json.dumps(ramp_run(per_node)))
    assert list(validator.iter_errors(run)) == []
    assert run["samples"][0]["dut"]["loss_attribution"]["0->1"]


def _broken(run: dict, path: str, value: Any) -> dict:
    run = copy.deepcopy(run)
    *parents, last = path.split("/")
    node = run
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    if value is KeyError:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return run


@pytest.mark.parametrize(("path", "value"), [
    ("summary/dut/loss_attribution/0->1/0/cause", "somewhere"),  # not a cause
    ("summary/dut/loss_attribution/0->1/0/packets", 0),  # a cause at zero is left out
    ("samples/0/dut/loss_attribution/0->1/1/node", KeyError),  # dut-drop names its node
    ("samples/0/dut/loss_attribution/zero", []),  # directions are "0->1"
    ("samples/0/dut/interfaces/host-ge0/rx_miss", KeyError),
    ("samples/0/dut/interfaces/host-ge0/drops", -1),  # deltas are counts
    ("summary/dut/verdict", KeyError),
    ("summary/dut/reason", "unavailable"),  # available with a reason
    ("summary/dut/saturation", {"node": "x"}),
    ("vars/dut_ports", {"zero": "host-ge0"}),
])
def test_breaking_the_contract_fails(validator, path, value):
    run = json.loads(json.dumps(ramp_run()))
    assert list(validator.iter_errors(run)) == []
    assert list(validator.iter_errors(_broken(run, path, value)))


def test_unavailable_needs_its_reason(validator):
    ok = {"vars": {}, "status": "complete",
          "summary": {"dut": {"available": False, "reason": "VPP went away at 3.0 s",
                              "verdict": "no DUT data: VPP went away at 3.0 s"}}}
    assert list(validator.iter_errors(ok)) == []
    assert list(validator.iter_errors(_broken(ok, "summary/dut/reason", None)))


def test_the_schema_prints_as_json():
    out = subprocess.run([sys.executable, "-m", "loadtest.results_schema"], capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == schema()
