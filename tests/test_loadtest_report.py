"""The HTML report answers "how much, where does loss begin, how fast, and why" (issue 19).

Runs are real trex-loadtest runs against the T-Rex emulator (the real client, the real
ramp and ndr code). The DUT counters are added per the JSON contract of docs/loadtest.md
(a `dut` object per sample and `summary.dut`), built from each sample's own loss so the
attribution adds up as the contract requires. The page is also rendered by a real browser
(headless Chromium) into the tests' artefacts directory.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from tests.trex_client import require_trex_api

# before the emulator imports zmq (the client brings its own binding); skips (CI: fails)
# when the client does not import
require_trex_api()

from loadtest.cli import main  # noqa: E402
from loadtest.report import load_runs, render  # noqa: E402
from loadtest.report_dut import where_chart  # noqa: E402
from loadtest.stats import histogram_delta, latency_step, write_json  # noqa: E402
from tests.trex_fixtures import start_emulator  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ARTEFACTS = Path(os.environ.get("TEST_ARTEFACTS", ROOT / "out" / "test-artefacts"))
FAST = ["-q", "--stats-tick", "0.001", "--drain", "0.05", "--timeout", "2"]
VERDICT = ("VPP's CPU saturated in af-packet-input at 256 vectors/call from 1.23 Mpps; "
           "drops inside VPP; loss is mostly before VPP counted it")


def _ports(emu) -> list[str]:
    return ["--server", "127.0.0.1", "--sync-port", str(emu.rpc_port), "--async-port",
            str(emu.pub_port)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A 1.23 Mpps device: a 64-byte ramp past it (both ways), a 1514-byte ramp that never
    reaches it (and a copy of it), and an ndr search; all with latency."""
    out = tmp_path_factory.mktemp("report")
    emu = start_emulator(capacity_pps=(1.23e6, 1.23e6), stats_tick=0.001)
    ramp = ["ramp", "--latency", "-wd", "0.2", "-hd", "0.2", "--sample-interval", "0.1"]
    paths = {name: out / f"{name}.json" for name in ("r64", "r1514", "r1514b", "ndr")}
    try:
        assert main([*ramp, "-b", "-p", "64", "--start-rate", "0.8mpps", "-rt", "1.5mpps",
                     "-rd", "1.5", "-o", str(paths["r64"]), *_ports(emu), *FAST]) == 0
        assert main([*ramp, "-p", "1514", "-rt", "50", "-rd", "0.5",
                     "-o", str(paths["r1514"]), *_ports(emu), *FAST]) == 0
        # the same run twice, as a matrix run again gives it: its lines coincide
        shutil.copy(paths["r1514"], paths["r1514b"])
        assert main(["ndr", "--latency", "-p", "64", "--max-rate", "2mpps",
                     "--trial-duration", "0.5", "--initial-duration", "0.2",
                     "-o", str(paths["ndr"]), *_ports(emu), *FAST]) == 0
    finally:
        emu.stop()
    return paths


def _dut(sample: dict, vpc: float) -> dict:
    """A sample's DUT counters per the contract: its lost packets split over causes."""
    causes, interfaces = {}, {}
    for label, row in sample["directions"].items():
        # an ndr trial has no settled loss: its loss is what was sent and not received
        lost = int(row.get("lost_packets", row["tx_packets"] - row["rx_packets"]))
        drop, before = (max(1, lost // 8) if lost else 0), lost * 3 // 4
        parts = [("before-dut", before, {}),
                 ("dut-drop", drop, {"node": "ip4-input", "reason": "ip4 ttl <= 1"}),
                 ("unaccounted", lost - before - drop, {})]
        causes[label] = [{"cause": c, "packets": n, "evidence": f"test: {c}", **extra}
                         for c, n, extra in parts if n > 0]
        ingress = f"host-ge{label[0]}"
        interfaces[ingress] = {"rx_packets": row["tx_packets"] - before, "rx_bytes": 0,
                               "tx_packets": 0, "tx_bytes": 0, "drops": drop,
                               "rx_miss": before, "rx_error": 0, "punt": 0}
    drops = sum(c["packets"] for cs in causes.values() for c in cs if c["cause"] == "dut-drop")
    return {"interfaces": interfaces,
            "errors": [{"node": "ip4-input", "reason": "ip4 ttl <= 1", "packets": drops}]
            if drops else [],
            "nodes": [{"node": "af-packet-input", "calls": 1000, "vectors": int(vpc * 1000),
                       "clocks": 1, "vectors_per_call": vpc, "clocks_per_packet": 120.0}],
            "vector_rate": vpc, "workers": 0, "loss_attribution": causes}


def _with_dut(src: Path, dst: Path) -> dict:
    """The run with DUT counters: af-packet-input fills its vectors as the load nears
    1.23 Mpps; every sample's loss attributed."""
    data = json.loads(src.read_text())
    data["vars"]["dut_stats"] = "/run/vpp/stats.sock"
    data["vars"]["dut_ports"] = {"0": "host-ge0", "1": "host-ge1"}
    for sample in data["samples"]:
        offered = max(r["offered_pps"] for r in sample["directions"].values())
        sample["dut"] = _dut(sample, min(256.0, 256.0 * offered / 1.23e6))
    data["summary"]["dut"] = {"available": True, "reason": None, "verdict": VERDICT,
                              "saturation": {"node": "af-packet-input", "from_pps": 1.23e6,
                                             "vectors_per_call": 256.0, "direction": "0->1"}}
    write_json(dst, data)
    return data


def test_a_run_that_never_lost_is_a_lower_bound_with_its_reason(runs, tmp_path):
    data = json.loads(runs["r1514"].read_text())
    (d,) = data["summary"]["directions"]
    assert d["loss_threshold"] == 0.001  # the CLI's default 0.1 %, as the summary applied it
    assert not d["saturated"] and d["limit"] == "asked" and d["lossy_from_pps"] is None
    (run,) = load_runs([runs["r1514"]])
    (row,) = run.rows
    assert row.at_least and row.limit == "the run's peak rate"
    html = unescape(render([run]))
    assert re.search(r"≥ 0\.40\d\d<br><small>not saturated: the run's peak rate", html)
    # the 64-byte ramp lost: its figure is a result, and where loss began is given
    sat = load_runs([runs["r64"]])[0]
    for row in sat.rows:
        assert not row.at_least and row.lossy_from_pps > row.rate_pps
        assert row.rate_pps == pytest.approx(1.23e6, rel=0.03)


def test_review_table_marks_lower_bounds_and_interrupted_runs(runs, tmp_path):
    cut = tmp_path / "cut.json"
    data = json.loads(runs["r64"].read_text())
    data["status"] = "interrupted"
    write_json(cut, data)
    html = unescape(render(load_runs([runs["r1514"], cut])))
    review = html.split('<table class="review">')[1].split("</table>")[0]
    assert re.search(r"≥ 40\dk \(50%\)</a><br><small[^>]*>not saturated: the run's peak", review)
    assert re.search(r">1\.2\dM \(8\.\d+%\)</a><br><small class=\"status-interrupted\">"
                     r"interrupted</small>", review)
    # lossy from its first step: no rate to claim, and where loss began instead of "0 (0%)"
    for d in data["summary"]["directions"]:
        d.update(lossless_pps=0.0, lossless_pct_line=0.0, lossy_from_pps=1e5)
    data["status"] = "complete"
    write_json(cut, data)
    review = unescape(render(load_runs([runs["r1514"], cut]))).split("</table>")[0]
    assert ">none lossless</a><br><small class=\"status-complete\">loss from 100k</small>" \
        in review


def test_ndr_goals_keep_their_own_meaning(runs):
    (run,) = load_runs([runs["ndr"]])
    data = json.loads(runs["ndr"].read_text())
    ndr, pdr = run.rows
    goals = {g["name"]: g for g in data["goals"]}
    assert (ndr.allowed, pdr.allowed) == ("0", "≤ 0.5 %")
    # the rate within the goal is its lower bound; the upper bound is where loss was seen
    assert ndr.rate_pps == goals["NDR"]["lower_bound_pps"]
    assert pdr.lossy_from_pps == goals["PDR 0.5%"]["upper_bound_pps"]
    assert ndr.max_forwarded_pps is None and pdr.max_forwarded_pps is None
    assert "conditional throughput" in pdr.note
    html = render([run])
    assert "lossless Mpps" not in html and "max Mpps" not in html


def test_charts_are_against_the_offered_load_with_the_lossless_point(runs):
    data = json.loads(runs["r64"].read_text())
    (run,) = load_runs([runs["r64"]])
    for d in data["summary"]["directions"]:
        label = d["direction"]
        offered = sorted(s["directions"][label]["offered_pps"] / 1e6 for s in data["samples"]
                         if s["directions"][label]["tx_packets"] > 0)
        assert [x for x, _ in run.forwarded[label]] == pytest.approx(offered)
        view = next(v for v in run.views if v.label == label)
        titles = [t for t, _ in view.charts]
        assert titles[:2] == [f"Forwarded against offered, {label}",
                              f"Loss against offered, {label}"]
        fwd = str(view.charts[0][1])
        assert f"lossless {_k(d['lossless_pps'])}" in fwd
        assert f"loss from {_k(d['lossy_from_pps'])}" in fwd
        assert 'aria-label="forwarded Mpps against offered Mpps"' in fwd


def _k(pps: float) -> str:
    from loadtest.report import fmt_rate

    return fmt_rate(pps)


def test_identical_runs_and_directions_do_not_hide_each_other(runs):
    html = unescape(render(load_runs([runs["r64"], runs["r1514"], runs["r1514b"]])))
    chart = html.split("every ramp run and direction</h3>")[1].split("</svg>")[0]
    assert "r1514b 0->1 (≈ r1514 0->1)" in chart
    dashes = re.findall(r'<polyline [^>]*?(?:stroke-dasharray="([^"]+)")?/>', chart)
    series = dashes[1:]  # the first line is offered = forwarded
    assert len(series) == 4 and len(set(series)) == 4  # each its own dash pattern
    # per-direction charts: one set per direction, never both on one line
    (run,) = load_runs([runs["r64"]])
    assert [v.label for v in run.views] == ["0->1", "1->0"]


def test_latency_per_step_and_at_the_highest_lossless_rate(runs):
    data = json.loads(runs["r64"].read_text())
    (run,) = load_runs([runs["r64"]])
    d = data["summary"]["directions"][0]
    label = d["direction"]
    samples = data["samples"]
    best = max((i for i, s in enumerate(samples)
                if s["directions"][label]["tx_packets"] > 0
                and s["directions"][label]["loss_ratio"] <= d["loss_threshold"]),
               key=lambda i: samples[i]["directions"][label]["offered_pps"])
    assert samples[best]["directions"][label]["offered_pps"] == d["lossless_pps"]
    own = histogram_delta(samples[best]["latency"][label]["histogram"],
                          samples[best - 1]["latency"][label]["histogram"])
    step = latency_step(own)
    assert 0 < step["packets"] < sum(samples[best]["latency"][label]["histogram"].values())
    view = run.views[0]
    assert view.latency_words.startswith(f"p50 ≤ {step['p50_us']} µs")
    assert f"({step['packets']} probes)" in view.latency_words
    assert run.rows[0].latency == view.latency_words
    # overload is slower than the lossless step: the step where loss began says so
    first = min((s for s in samples if s["directions"][label]["loss_ratio"] > 0.001),
                key=lambda s: s["directions"][label]["offered_pps"])
    assert first["latency"][label]["max_us"] > step["p99_us"]
    assert any(t.startswith("Latency per step") for t, _ in view.charts)
    html = unescape(render([run]))
    assert "Latency at the highest lossless rate (0->1):" in html
    assert "Latency over the whole run (overload included" in html
    assert "test loss" not in html  # no whole-ramp loss percentage reads like a result


def test_without_latency_the_report_says_so(runs, tmp_path):
    data = json.loads(runs["r1514"].read_text())
    data["vars"]["latency"] = False
    for sample in data["samples"]:
        sample.pop("latency", None)
    path = tmp_path / "nolat.json"
    write_json(path, data)
    html = render(load_runs([path]))
    assert "Latency not measured: run with --latency" in html


def test_where_the_packets_went_and_vpp_at_the_telling_steps(runs, tmp_path):
    data = _with_dut(runs["r64"], tmp_path / "dut.json")
    (run,) = load_runs([tmp_path / "dut.json"])
    assert run.verdict == VERDICT
    label = "0->1"
    points = [(s["directions"][label]["offered_pps"] / 1e6, s["directions"][label]["tx_packets"],
               s["dut"]) for s in data["samples"] if s["directions"][label]["tx_packets"] > 0]
    chart = where_chart(points, label)
    names = [name for name, _, _ in chart.stack.layers]
    assert names == ["lost before VPP counted it", "dropped in VPP: ip4-input: ip4 ttl <= 1",
                     "unaccounted (no counter explains it)"]
    # one bar per step, at its offered load; a step's bars add up to its loss
    assert chart.stack.xs == [x for x, _, _ in points]
    lossy = 0
    for i, (_, sent, dut) in enumerate(points):
        lost = sum(c["packets"] for c in dut["loss_attribution"][label])
        assert sum(v[i] for _, _, v in chart.stack.layers) == pytest.approx(100 * lost / sent)
        lossy += lost > 0
    assert lossy >= 3
    view = run.views[0]
    assert any(t == f"Where the lost packets went, {label}" for t, _ in view.charts)
    lossless, lossy = view.steps
    assert lossless.title.startswith("At the highest lossless step (1.2")
    assert lossy.title.startswith("Where loss began (1.2")
    words = " ".join(lossy.words)
    assert "ip4-input: ip4 ttl <= 1" in words and "before VPP counted it" in words
    assert "rx-miss" in words
    assert "No test packet was dropped inside VPP." in lossless.words
    assert f"<b>Why:</b> {VERDICT}" in unescape(render([run]))


def test_missing_dut_data_is_said_once_with_the_reason(runs, tmp_path):
    data = json.loads(runs["r64"].read_text())
    data["vars"]["dut_stats"] = "/run/vpp/stats.sock"
    data["summary"]["dut"] = {"available": False, "reason": "VPP went away at 12.3 s"}
    path = tmp_path / "gone.json"
    write_json(path, data)
    html = render(load_runs([path]))
    assert html.count("DUT counters missing: VPP went away at 12.3 s.") == 1
    assert "run with --dut-stats" in render(load_runs([runs["r64"]]))


def _browser() -> str | None:
    return next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)),
                None)


def test_every_report_page_renders_in_a_real_browser(runs, tmp_path):
    browser = _browser()
    if browser is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    dut = tmp_path / "r64-dut.json"
    _with_dut(runs["r64"], dut)
    pages = {"report-ramp-dut": [dut], "report-ndr": [runs["ndr"]],
             "report-matrix": [runs["r64"], runs["r1514"], runs["r1514b"], runs["ndr"]]}
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for name, paths in pages.items():
        html = ARTEFACTS / f"{name}.html"
        html.write_text(render(load_runs(copy.copy(paths))), encoding="utf-8")
        png = ARTEFACTS / f"{name}.png"
        png.unlink(missing_ok=True)
        proc = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--screenshot={png}", "--window-size=1400,6000", html.as_uri()],
            capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        head = png.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(head[16:20], "big") == 1400  # the whole page width was drawn
        assert png.stat().st_size > 50_000, f"{png}: nearly empty"


@pytest.mark.parametrize("break_it, message", [
    (lambda d: d["summary"]["directions"][0].pop("lossless_pps"),
     "not a complete ramp run (no 'lossless_pps' where one is needed)"),
    (lambda d: d["samples"].__setitem__(0, "oops"), "not a ramp run as trex-loadtest writes it"),
])
def test_a_broken_run_file_is_one_line_naming_the_file(runs, tmp_path, capsys, break_it,
                                                       message):
    data = json.loads(runs["r64"].read_text())
    break_it(data)
    path = tmp_path / "broken.json"
    write_json(path, data)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"trex-loadtest: error: {path}: ") and message in err
    assert "\n" not in err and not out.exists()


def _set_first(data: dict, key: str, value: object) -> None:
    """Set the first `key` found in the run (depth first) to `value`."""
    stack = [data]
    while stack:
        node = stack.pop(0)
        if isinstance(node, dict):
            if key in node:
                node[key] = value
                return
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    raise AssertionError(f"no {key}")


@pytest.mark.parametrize(("run_name", "key"), [
    ("r64", "lossless_pps"), ("r64", "offered_pps"), ("r64", "rx_packets"),
    ("r64", "loss_ratio"), ("ndr", "load_pps"), ("ndr", "lower_bound_pps"),
    ("ndr", "loss_ratio"), ("ndr", "rx_packets"),
])
def test_a_string_where_a_number_belongs_is_one_line_naming_the_file(runs, tmp_path, capsys,
                                                                     run_name, key):
    data = json.loads(runs[run_name].read_text())
    _set_first(data, key, "12 Mpps")
    path = tmp_path / "typed.json"
    write_json(path, data)
    out = tmp_path / "r.html"
    code = main(["report", str(path), "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert "internal error" not in err
    if code:  # refused: one line naming the file, nothing written
        assert code == 2 and err.startswith(f"trex-loadtest: error: {path}: ") and "\n" not in err
        assert not out.exists()


def test_an_ndr_run_with_dut_counters_shows_vpp_at_its_bounds(runs, tmp_path):
    data = json.loads(runs["ndr"].read_text())
    data["vars"]["dut_stats"] = "/run/vpp/stats.sock"
    for trial in data["trials"]:
        trial["dut"] = _dut(trial, min(256.0, 256.0 * trial["load_pps"] / 1.23e6))
    path = tmp_path / "ndr-dut.json"
    write_json(path, data)
    (run,) = load_runs([path])
    (view,) = run.views
    assert "Where the lost packets went, 0->1" in [t for t, _ in view.charts]
    ndr = data["goals"][0]
    low, high = view.steps
    assert low.title == f"At the NDR lower bound ({_k(ndr['lower_bound_pps'])} offered)"
    assert high.title.startswith(f"At the NDR upper bound ({_k(ndr['upper_bound_pps'])} "
                                 "offered, ")
    assert "No test packet was dropped inside VPP." in low.words
    assert any("ip4-input: ip4 ttl <= 1" in w for w in high.words)


def test_an_invalid_run_is_said_at_the_top_and_claims_no_rate(runs, tmp_path):
    bad = tmp_path / "bad.json"
    data = json.loads(runs["r64"].read_text())
    data.update(status="invalid", error="link down on port 1: the device under test (or "
                "the generator's link to it) went away")
    write_json(bad, data)
    html = unescape(render(load_runs([runs["r1514"], bad])))
    top = html.split("<h1>")[1].split("<table")[0]
    assert "INVALID run" in top and "link down on port 1" in top
    review = html.split('<table class="review">')[1].split("</table>")[0]
    assert ">invalid</a>" in review
    every = html.split("<caption>Every run")[1].split("</table>")[0]
    bad_rows = [row for row in every.split("<tr>") if 'href="#' in row and "invalid" in row]
    assert bad_rows and all("no result" in row for row in bad_rows)
