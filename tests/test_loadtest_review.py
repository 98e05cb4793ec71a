"""The review's loadtest loop against the emulator: the original command line, graph.rb's
input contract for every file of the matrix, the summary table, exact loss.

graph.rb (trex-loadtest-viz, Ruby) is not ours: its contract is checked here in
Python (see loadtest/graphrb.py for where it comes from). When `ruby` is installed
and GRAPH_RB names a graph.rb, it is also run on the matrix.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.trex_client import require_trex_api

# before the emulator imports zmq (the client brings its own binding); skips (CI: fails)
# when the client does not import
require_trex_api()

from loadtest.cli import main  # noqa: E402
from loadtest.ramp import summary_lines  # noqa: E402
from tests.graphrb_contract import graph_rb_problems, no_nan  # noqa: E402
from tests.trex_fixtures import start_emulator  # noqa: E402

pytest_plugins = ["tests.trex_fixtures"]

ROOT = Path(__file__).resolve().parents[1]
BENCH = str(ROOT / "examples" / "trex_bench.py")
# short and fast: the emulator runs 10x wall time and its counters are current at every read
FAST = ["-q", "-wd", "0.2", "-rd", "0.5", "-hd", "0.2", "--sample-interval", "0.1",
        "--stats-tick", "0.001", "--drain", "0.05", "--timeout", "2"]
MATRIX = [(d, size, vm) for d in ("uni", "bi") for size in ("1514", "imix", "64")
          for vm in ("var2", "none")]
REVIEW = [("1514", "var2"), ("imix", "var2"), ("64", "var2"), ("64", "none")]


def _ports(emu) -> list[str]:
    return ["--sync-port", str(emu.rpc_port), "--async-port", str(emu.pub_port)]


def _review_run(emu, out: Path, direction: str, size: str, vm: str, rate: str = "30") -> Path:
    """One iteration of the review's loop, in the original command line."""
    path = out / f"{direction}-{size}-{vm}.json"
    argv = ["-s", "127.0.0.1", *(["-u"] if direction == "uni" else []), "-p", BENCH,
            "-t", f"offset=10,vm={vm},size={size}", "-rd", "0.5", "-rt", rate, "-o", str(path)]
    assert main([*argv, *_ports(emu), *FAST]) == 0
    return path


@pytest.fixture(scope="module")
def matrix(tmp_path_factory) -> dict[tuple[str, str, str], Path]:
    """1514 / imix / 64 x many / one flow x uni / bi through a 3 Mpps router that also sends
    packets of its own."""
    out = tmp_path_factory.mktemp("matrix")
    emu = start_emulator(capacity_pps=(3e6, 3e6), dut_own_pps=2000.0)
    try:
        return {key: _review_run(emu, out, *key) for key in MATRIX}
    finally:
        emu.stop()


def test_every_file_of_the_matrix_meets_graph_rb_contract(matrix):
    runs = {p.stem: no_nan(p.read_text()) for p in matrix.values()}
    assert graph_rb_problems(runs) == []
    for (direction, size, vm), path in matrix.items():
        run = runs[path.stem]
        assert run["vars"]["unidirectional"] is (direction == "uni")
        assert run["vars"]["rampup_target"] == "30%" and run["vars"]["warmup_mult"] == "1%"
        assert run["vars"]["profile_file"] == f"{BENCH} offset=10,vm={vm},size={size}"
        assert run["status"] == "complete"
        # graph.rb's loss per second is the harness's: offered and forwarded per direction
        for second, sample in zip(run["stats"].values(), run["samples"], strict=True):
            got = sample["directions"]["0->1"]
            assert second["0"]["tx_pps"] == pytest.approx(got["offered_pps"])
            assert second["1"]["rx_pps"] == pytest.approx(got["forwarded_pps"])
            assert second["0"]["server_tx_pps"] >= 0  # the server's smoothed rate, kept


def test_contract_check_catches_what_graph_rb_chokes_on(matrix):
    path = matrix[("uni", "64", "var2")]
    run = json.loads(path.read_text())
    assert graph_rb_problems({"a": run}) == []
    # today's files before this change: no `unidirectional`, so 1->0 (tx 0) was graphed
    broken = json.loads(path.read_text())
    del broken["vars"]["unidirectional"]
    assert any("1->0 tx_pps 0" in p for p in graph_rb_problems({"a": broken}))
    broken = json.loads(path.read_text())
    broken["vars"]["rampup_target"] = "1488095pps"
    assert "differ" in graph_rb_problems({"a": run, "b": broken})[0]


def test_graph_rb_itself_renders_the_matrix(matrix, tmp_path):
    graph_rb = os.environ.get("GRAPH_RB")
    if not graph_rb or not Path(graph_rb).is_file():
        pytest.skip("set GRAPH_RB to a graph.rb (trex-loadtest-viz) to run it")
    if not shutil.which("ruby"):
        pytest.skip("ruby is not installed")
    out = tmp_path / "index.html"
    proc = subprocess.run(["ruby", graph_rb, "-o", str(out), *map(str, matrix.values())],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    assert "NaN" not in html and html.count('class="loadtest-graph"') == 2 * 6


class _Table(HTMLParser):
    """The review table of a report: header titles, and per row its cells' text and link."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = self.cell = False
        self.head: list[str] = []
        self.rows: list[list[tuple[str, str | None]]] = []
        self.ids: set[str] = set()
        self._text, self._href = "", None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table" and a.get("class") == "review":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell, self._text, self._href = True, "", None
        elif self.inside and tag == "a":
            self._href = a.get("href")

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th"):
            self.cell = False
            self.rows[-1].append((" ".join(self._text.split()), self._href))

    def handle_data(self, data):
        if self.cell:
            self._text += data + " "


def _review_table(paths: list[Path], out: Path) -> _Table:
    assert main(["report", *map(str, paths), "-o", str(out)]) == 0
    table = _Table()
    table.feed(out.read_text())
    return table


def test_report_has_the_reviews_summary_table(matrix, tmp_path):
    paths = [matrix[(d, size, vm)] for d in ("uni", "bi") for size, vm in REVIEW]
    table = _review_table(paths, tmp_path / "report.html")
    head, *rows = table.rows
    titles = [text for text, _ in head[1:]]
    assert titles == ["1514b 253 src x 253 dst", "imix 253 src x 253 dst",
                      "64b many flows 253 src x 253 dst", "64b one flow 1 flow"]
    assert [row[0][0] for row in rows] == ["unidirectional", "bidirectional"]
    for row, direction in zip(rows, ("uni", "bi"), strict=True):
        for (text, href), (size, vm) in zip(row[1:], REVIEW, strict=True):
            run = json.loads(matrix[(direction, size, vm)].read_text())
            worst = min(run["summary"]["directions"], key=lambda d: d["lossless_pps"])
            # "≥" and a note mark a run that never lost more than its threshold (issue 19)
            at_least, number, pct, note = re.fullmatch(
                r"(≥ )?([\d.]+[kMG]?) \(([\d.]+)%\)( not saturated: .*)?", text).groups()
            assert bool(at_least) == bool(note) == (worst["limit"] is not None)
            scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(number[-1], 1)
            assert float(number.rstrip("kMG")) * scale == pytest.approx(
                worst["lossless_pps"], rel=0.006)
            assert float(pct) == pytest.approx(worst["lossless_pct_line"], rel=0.006)
            assert href.lstrip("#") in table.ids and matrix[(direction, size, vm)].stem in href
    # the whole matrix: one flow and many flows of every size get their own column
    table = _review_table(list(matrix.values()), tmp_path / "all.html")
    assert len(table.rows[0]) == 1 + 6


def test_loss_is_exact_although_the_router_sends_its_own_packets(trex_emu_factory, tmp_path):
    # 1 Mpps router, asked 1.25 Mpps: 20 % of the test packets are lost, while the ports also
    # receive 50 kpps the router sends by itself, which hide a quarter of that in port counters
    emu = trex_emu_factory(capacity_pps=(1e6, 1e6), dut_own_pps=5e4)
    out = tmp_path / "loss.json"
    argv = ["ramp", "-p", BENCH, "-t", "size=64,vm=var2", "-b", "-wm", "1.25mpps",
            "--start-rate", "1.25mpps", "-rt", "1.25mpps", "-o", str(out), *_ports(emu), *FAST]
    assert main(argv) == 0
    run = json.loads(out.read_text())
    for label in ("0->1", "1->0"):
        total = run["summary"]["totals"][label]
        assert total["loss_ratio"] == pytest.approx(0.2, abs=1e-5)
        assert total["lost_packets"] == total["tx_packets"] - total["rx_packets"]
        assert total["port_rx_packets"] > total["rx_packets"]  # the router's own packets
        assert total["port_loss_ratio"] < 0.19  # what port counters alone would claim
        for sample in run["samples"][1:]:  # every sample at 1.25 Mpps
            assert sample["directions"][label]["loss_ratio"] == pytest.approx(0.2, abs=1e-3)
    lines = summary_lines(run)
    assert any(line.startswith("1->0: ") and " lost (20.0000%); port counters: " in line
               for line in lines), lines
    # a one-way run: port 0 receives only the router's packets, and no test packet
    assert main(["ramp", "-p", "64", "-rt", "1", "-o", str(out), *_ports(emu), *FAST]) == 0
    total = json.loads(out.read_text())["summary"]["totals"]["0->1"]
    assert total["loss_ratio"] == 0.0 and total["port_rx_packets"] > total["rx_packets"]


def test_ndr_takes_a_profile_file_and_counts_test_packets(trex_emu_factory, tmp_path):
    emu = trex_emu_factory(capacity_pps=(1e6, 1e6), dut_own_pps=5e4)
    out = tmp_path / "ndr.json"
    argv = ["ndr", "-p", BENCH, "-t", "size=64,vm=var2", "-q", "--trial-duration", "1",
            "--initial-duration", "0.2", "--drain", "0.02", "--stats-tick", "0.001",
            "--max-rate", "2mpps", "-o", str(out), *_ports(emu)]
    assert main(argv) == 0
    run = json.loads(out.read_text())
    ndr = run["goals"][0]
    # counted on port counters, the router's 50 kpps would have passed for forwarded traffic
    assert ndr["lower_bound_pps"] == pytest.approx(1e6, rel=0.006)
    for trial in run["trials"]:
        d = trial["directions"]["0->1"]
        assert d["port_rx_packets"] > d["rx_packets"]  # the router's own packets, not counted
