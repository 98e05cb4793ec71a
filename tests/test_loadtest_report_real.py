"""The report of a real run: the real T-Rex ramped through the real VPP with --dut-stats

    T-Rex port 0 -> host-ge0 [VPP, L2 cross-connect] host-ge1 -> T-Rex port 1

past VPP's break point, rendered as a user would (`trex-loadtest report`): the page names
where the lost packets went and VPP's state at the step where loss began, in the words and
with the counters the run's JSON carries.
"""

from __future__ import annotations

import json
import re
import sys
from html import unescape
from pathlib import Path

import pytest

from tests.real import L2XC_GE0_GE1

pytestmark = pytest.mark.real

BIN = Path(sys.executable).parent
TREX_LOADTEST = str(BIN / "trex-loadtest")
L2XC = L2XC_GE0_GE1


def test_report_of_a_real_run_names_where_the_packets_went(vpp_real_factory,
                                                           trex_real_factory, tmp_path):
    vpp = vpp_real_factory(("ge0", "ge1"))
    vpp.exec_text(L2XC)
    trex = trex_real_factory(ports=("p-ge0", "p-ge1"), netns=vpp.netns)
    run_json, page = tmp_path / "ramp.json", tmp_path / "report.html"
    # both ways, 100 to 400 kpps each: VPP's one thread forwards less than the 800 kpps asked
    # at the top (one way, the software T-Rex itself tops out first, near 370 kpps)
    proc = trex.run([TREX_LOADTEST, "ramp", "-b", "--latency", "--warmup", "1", "--duration",
                     "5", "--hold", "1", "--start-rate", "100kpps", "--rate", "400kpps",
                     "--dut-stats", str(vpp.run_dir / "stats.sock"), "-o", str(run_json)],
                    timeout=180)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(run_json.read_text())
    assert run["summary"]["dut"]["available"], run["summary"]["dut"]
    proc = trex.run([TREX_LOADTEST, "report", str(run_json), "-o", str(page)])
    assert proc.returncode == 0, proc.stderr
    html = re.sub(r"</?b>", "", unescape(page.read_text()))
    assert f"Why: {run['summary']['dut']['verdict']}" in html
    # every sample's causes are on the stacked chart: their legend names them
    causes = {c["cause"] for s in run["samples"] for c in s["dut"]["loss_attribution"]["0->1"]}
    d = run["summary"]["directions"][0]
    if not causes:  # the generator ran out first: the page must say so, not claim a limit
        assert d["limit"] == "generator", d
        assert re.search(r"≥ [\d.]+<br><small>not saturated: the generator's limit", html)
        return
    words = {"before-dut": "lost before VPP counted it", "after-dut": "lost after VPP sent it",
             "unaccounted": "unaccounted (no counter explains it)"}
    chart = html.split("Where the lost packets went, 0->1")[1].split("</svg>")[0]
    for cause in causes - {"dut-drop"}:
        assert words[cause] in chart
    # VPP at the step where loss began: its share of each cause, in words, as the JSON has it
    first = min((s for s in run["samples"]
                 if s["directions"]["0->1"]["loss_ratio"] > d["loss_threshold"]
                 and s["directions"]["0->1"]["tx_packets"] > 0),
                key=lambda s: s["directions"]["0->1"]["offered_pps"])
    lost = sum(c["packets"] for c in first["dut"]["loss_attribution"]["0->1"])
    assert lost == first["directions"]["0->1"]["lost_packets"]
    block = html.split("VPP: Where loss began")[1].split("</ul>")[0]
    assert f"{lost:,} test packets lost:" in block
    if first["dut"]["nodes"]:
        assert f"busiest node is {first['dut']['nodes'][0]['node']}" in block
    # and how fast, at the highest lossless rate when there was one
    if d["lossless_pps"]:
        assert "Latency at the highest lossless rate (0->1): p50 ≤" in html
