"""The review's loop, unchanged, against a real T-Rex (../shared/trex-real), ports back to back.

Short runs at 1 % of line: T-Rex busy-polls a core and the machine is shared.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.graphrb_contract import graph_rb_problems, no_nan

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parents[1]
BENCH = str(ROOT / "examples" / "trex_bench.py")
TREX_LOADTEST = str(Path(sys.executable).with_name("trex-loadtest"))


def test_the_reviews_loop_runs_unchanged_on_a_real_trex(trex_real_factory, tmp_path):
    trex = trex_real_factory()
    files = []
    for direction in ("uni", "bi"):
        for size in ("1514", "imix", "64"):
            out = tmp_path / f"{direction}-{size}.json"
            # the review's command line, plus short warm-up and hold (-wd/-hd, also original)
            cmd = [TREX_LOADTEST, "-s", "127.0.0.1", *(["-u"] if direction == "uni" else []),
                   "-p", BENCH, "-t", f"offset=10,vm=var2,size={size}", "-rd", "1", "-rt", "1",
                   "-o", str(out), "-wd", "1", "-hd", "0", "-q"]
            proc = trex.run(cmd, timeout=120)
            assert proc.returncode == 0, proc.stderr
            files.append(out)
    runs = {p.stem: no_nan(p.read_text()) for p in files}
    assert graph_rb_problems(runs) == []
    for name, run in runs.items():
        assert run["vars"]["unidirectional"] is name.startswith("uni")
        totals = run["summary"]["totals"]
        assert len(totals) == (1 if name.startswith("uni") else 2)
        for label, total in totals.items():
            # back to back: nothing lost; flow statistics counted every test packet
            assert total["tx_packets"] > 0 and total["loss_ratio"] == 0.0, (name, label, total)
            assert total["rx_packets"] <= total["port_rx_packets"]
        for d in run["summary"]["directions"]:
            # asked 1 % of line, lost nothing: lossless is what was sent, 1 % unless the
            # software T-Rex on a busy machine could not send that much (and says so)
            assert 0 < d["lossless_pct_line"] <= 1.0 + 1e-9, (name, d)
            assert d["generator_limited"] or d["lossless_pct_line"] >= 0.95, (name, d)
    report = tmp_path / "report.html"
    proc = trex.run([TREX_LOADTEST, "report", *map(str, files), "-o", str(report)])
    assert proc.returncode == 0, proc.stderr
    html = report.read_text()
    assert 'class="review"' in html and "253 src x 253 dst" in html
    assert json.loads(files[0].read_text())["vars"]["traffic"]["tunables"].endswith("size=1514")


INJECT = '''
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
frame = b"\\xff" * 6 + b"\\x02\\x00\\x00\\x00\\x00\\x99" + b"\\x08\\x06" + b"\\x00" * 46
for _ in range(int(sys.argv[2])):
    s.send(frame)
    time.sleep(0.002)
'''


def test_packets_of_the_router_itself_do_not_count_as_test_traffic(trex_real_factory, tmp_path):
    """Linux sends ARP-like broadcasts out of T-Rex port 0's veth, as a router sends its
    own packets: port 1's counters see them, the flow statistics count test packets only."""
    trex = trex_real_factory()
    injector = tmp_path / "inject.py"
    injector.write_text(INJECT)
    out = tmp_path / "run.json"
    sender = subprocess.Popen([*trex.netns.prefix(), sys.executable, str(injector),
                               trex.ports[0], "2000"])
    try:
        proc = trex.run([TREX_LOADTEST, "-s", "127.0.0.1", "-u", "-p", BENCH, "-t",
                         "offset=10,vm=var2,size=64", "-rd", "2", "-rt", "1", "-o", str(out),
                         "-wd", "1", "-hd", "1", "-q"], timeout=120)
    finally:
        sender.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr
    total = json.loads(out.read_text())["summary"]["totals"]["0->1"]
    assert total["loss_ratio"] == 0.0 and total["rx_packets"] == total["tx_packets"]
    assert total["port_tx_packets"] == total["tx_packets"]
    # the extra packets: as many real losses would go unseen in port counters alone
    assert 0 < total["port_rx_packets"] - total["rx_packets"] <= 2000
