"""Unit tests of the loadtest harness parts that need no T-Rex server."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest
from MLRsearch import AbstractMeasurer, MeasurementResult, MultipleLossRatioSearch

from loadtest.cli import main
from loadtest.linerate import average_frame_size, line_rate_pps, parse_rate
from loadtest.ndr import NdrPlan, goal_results
from loadtest.profiles import ProfileError, TrafficSpec, make_flows, size_mix
from loadtest.progress import Progress
from loadtest.ramp import RampPlan, summarize
from loadtest.report import load_runs, render
from loadtest.stats import dir_sample, directions, write_json
from tests.trex_client import require_trex_api

TEN_G = 10_000_000_000


def test_line_rate_is_exact():
    assert line_rate_pps(size_mix("64"), TEN_G) == Fraction(TEN_G, 84 * 8)
    assert round(float(line_rate_pps(size_mix("64"), TEN_G)) / 1e6, 6) == 14.880952
    assert float(line_rate_pps(size_mix("1514"), TEN_G)) == pytest.approx(10e9 / (1534 * 8))
    # imix 7:4:1 of 64/594/1518 averages 4342/12 bytes
    assert average_frame_size(size_mix("imix")) == Fraction(4342, 12)
    assert float(line_rate_pps(size_mix("imix"), TEN_G)) == pytest.approx(
        10e9 / ((4342 / 12 + 20) * 8)
    )


def test_parse_rate_percent_and_units():
    line = 14_880_952.38
    assert parse_rate("50", line) == pytest.approx(line / 2)
    assert parse_rate("50%", line) == pytest.approx(line / 2)
    assert parse_rate("1.23mpps", line) == pytest.approx(1.23e6)
    assert parse_rate("300kpps", line) == pytest.approx(3e5)
    for bad in ("0", "-1", "101", "20mpps", "fast"):
        with pytest.raises(ValueError):
            parse_rate(bad, line)


def test_profiles_validate_names_and_sizes():
    assert size_mix("imix") == ((64, 7), (594, 4), (1518, 1))
    assert size_mix("128") == ((128, 1),)
    assert size_mix("imix", 6)[0] == (78, 7)  # IPv6/UDP does not fit 64 bytes
    for bad in ("foo", "63", "9217"):
        with pytest.raises(ProfileError):
            size_mix(bad)
    with pytest.raises(ProfileError):
        TrafficSpec("65", make_flows(6))
    with pytest.raises(ProfileError):
        make_flows(4, True, src="10.0.0.9-10.0.0.1")
    with pytest.raises(ProfileError):
        make_flows(4, True, src="2001:db8::1-2001:db8::2")


def test_flows_one_or_many_and_mirrored():
    many = make_flows(4, True, "10.0.0.1-10.0.0.10", "10.1.0.1-10.1.0.2", "1000-1001", "53")
    assert many.count == 10 * 2 * 2 * 1
    assert make_flows(4, False, "10.0.0.1-10.0.0.10").count == 1
    back = many.mirrored()
    assert (back.src, back.dst, back.sport, back.dport) == (many.dst, many.src, many.dport,
                                                            many.sport)


def test_streams_have_exact_frame_sizes_and_vm():
    api = require_trex_api()  # skips (CI: fails) when the client does not import
    from loadtest.profiles.streams import base_pps, build_streams, multiplier

    for version in (4, 6):
        spec = TrafficSpec("imix", make_flows(version, True), bidirectional=True, latency=True)
        streams = build_streams(api, spec, 1)
        sizes = [len(s.get_pkt()) + 4 for s in streams]
        assert sizes[:3] == [size for size, _ in spec.mix]
        vm = streams[0].to_json()["vm"]["instructions"]
        assert {i.get("name") for i in vm if i["type"] == "flow_var"} == {
            "src", "dst", "sport", "dport"}
        assert streams[-1].to_json()["flow_stats"]["rule_type"] == "latency"
    spec = TrafficSpec("imix")
    assert base_pps(spec) == 12
    assert multiplier(spec, 1.2e6) == pytest.approx(1e5)
    one = build_streams(api, TrafficSpec("64"), 0)
    assert len(one) == 1 and one[0].to_json()["vm"]["instructions"] == []


@pytest.mark.parametrize("pps", [1.5e-7, 3.3e-5, 1.0, 14880952.380952, 2.5e12])
def test_mult_arg_is_text_the_client_accepts(pps):
    require_trex_api()  # skips (CI: fails) when the client does not import
    from trex.utils.parsing_opts import decode_multiplier

    from loadtest.profiles.streams import mult_arg

    spec = TrafficSpec("imix")  # base 12 pps: a multiplier of pps / 12
    decoded = decode_multiplier(mult_arg(spec, pps))
    assert decoded is not None and decoded["type"] == "raw"
    assert decoded["value"] == pytest.approx(pps / 12, rel=1e-11)


def test_dir_sample_uses_counter_deltas():
    d0, d1 = directions((0, 1), True)
    prev = {0: {"opackets": 100, "ipackets": 50}, 1: {"opackets": 50, "ipackets": 100}}
    cur = {0: {"opackets": 1100, "ipackets": 550, "tx_pps": 1.0},
           1: {"opackets": 550, "ipackets": 1090}}
    s0 = dir_sample(prev, cur, d0, 0.5, 1500.0)
    assert (s0.tx_packets, s0.rx_packets, s0.tx_pps) == (1000, 990, 2000.0)
    assert s0.loss_ratio == pytest.approx(0.01)
    assert s0.offered_pps == 1500.0  # never above the asked rate: a late counter step
    short = dir_sample(prev, cur, d0, 0.5, 1500.0, sent_pps=1200.0)
    assert short.offered_pps == 1200.0  # nor above what the counters prove was sent
    s1 = dir_sample(prev, cur, d1, 0.5, 1500.0)
    assert (s1.tx_packets, s1.rx_packets, s1.loss_ratio) == (500, 500, 0.0)


def test_ramp_plan_steps_and_summary():
    plan = RampPlan(10.0, 100.0, 200.0, warmup=1, duration=4, hold=2, sample_interval=1)
    steps = plan.steps()
    assert [s.phase for s in steps] == ["warmup"] + ["ramp"] * 4 + ["hold"] * 2
    assert [s.pps for s in steps] == [10.0, 125.0, 150.0, 175.0, 200.0, 200.0, 200.0]
    d0 = directions((0, 1), False)[0]
    rows = [(125, 0.0), (150, 0.0005), (175, 0.05), (200, 0.2)]
    samples = [{"directions": {"0->1": {"tx_packets": 1, "offered_pps": r, "intended_pps": r,
                                        "loss_ratio": lr, "forwarded_pps": r * (1 - lr)}}}
               for r, lr in rows]
    (summary,) = summarize(samples, [d0], 1000.0, 0.001)
    assert summary["lossless_pps"] == 150
    assert summary["max_forwarded_pps"] == pytest.approx(175 * 0.95)
    assert summary["lossless_pct_line"] == pytest.approx(15.0)


class IdealDevice(AbstractMeasurer):
    """Search-logic check only: a device forwarding at most `capacity` pps."""

    def __init__(self, capacity: float) -> None:
        self.capacity = capacity
        self.trials: list[dict] = []

    def measure(self, intended_duration, intended_load):
        sent = round(intended_duration * intended_load)
        got = min(sent, round(intended_duration * self.capacity))
        self.trials.append({"load_pps": intended_load, "duration": intended_duration})
        return MeasurementResult(intended_duration, intended_load, offered_count=sent,
                                 forwarding_count=got)


@pytest.mark.parametrize("capacity", [0.7e6, 1.23e6, 9.5e6])
def test_mlrsearch_goals_bracket_capacity(capacity):
    plan = NdrPlan(min_pps=1e4, max_pps=14.88e6, goals=(0.0, 0.005), trial_duration=2,
                   initial_duration=0.5)
    search = MultipleLossRatioSearch(config=plan.config())
    device = IdealDevice(capacity)
    search.search(measurer=device, debug=lambda _: None)
    ndr, pdr = goal_results(search, plan, device.trials, 14.88e6)
    assert ndr["lower_bound_pps"] <= capacity <= ndr["upper_bound_pps"]
    assert ndr["relative_width"] <= 0.005 + 1e-9
    assert pdr["lower_bound_pps"] >= ndr["lower_bound_pps"]
    assert ndr["trials"] == len(device.trials)


def _ramp_json(path, lossless):
    samples = [{"second": str(i + 1), "elapsed": float(i + 1), "phase": "ramp",
                "intended_pps": 1e5 * (i + 1),
                "directions": {"0->1": {"tx_pps": 1e5 * (i + 1), "rx_pps": min(1e5 * (i + 1),
                                                                               lossless),
                                        "loss_ratio": max(0, 1 - lossless / (1e5 * (i + 1)))}}}
               for i in range(10)]
    write_json(path, {"vars": {"mode": "ramp", "traffic": {"profile": "64"}}, "stats": {},
                      "samples": samples, "status": "complete",
                      "summary": {"directions": [{
                          "direction": "0->1", "lossless_pps": lossless,
                          "lossless_pct_line": 5.0, "max_forwarded_pps": lossless,
                          "max_forwarded_pct_line": 5.0, "generator_limited": False}]}})


def test_report_is_self_contained_and_compares_runs(tmp_path):
    a, b = tmp_path / "dut-a.json", tmp_path / "dut-<b>.json"
    _ramp_json(a, 4e5)
    _ramp_json(b, 7e5)
    html = render(load_runs([a, b]))
    assert "dut-a" in html and "dut-&lt;b&gt;" in html and "<b>" not in html
    assert html.count("<svg") == 5  # 2 per run + the comparison chart
    assert "0.4000" in html and "0.7000" in html
    for needle in ("<script", "src=", "href=\"http", "@import", "url("):
        assert needle not in html


def test_report_plots_the_forwarded_rate_the_table_reports(tmp_path):
    # per-sample rx_pps jitters with the counters' 0.5 s steps (x0.5 / x1.5 here); the chart
    # shows forwarded_pps, whose maximum is the table's "max Mpps"
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path, top in zip(paths, (4e5, 7e5), strict=True):
        _ramp_json(path, top)
        data = json.loads(path.read_text())
        for i, sample in enumerate(data["samples"]):
            row = sample["directions"]["0->1"]
            row["forwarded_pps"] = row["rx_pps"]
            row["rx_pps"] *= 1.5 if i % 2 else 0.5
        write_json(path, data)
    runs = load_runs(paths)
    for run, top in zip(runs, (0.4, 0.7), strict=True):
        assert max(y for _, y in run.forwarded["0->1"]) == pytest.approx(top)
        assert run.rows[0].max_forwarded_pps / 1e6 == pytest.approx(top)
        # plotted against the offered load (0.1 .. 1 Mpps here), not against time
        assert [x for x, _ in run.forwarded["0->1"]] == pytest.approx([0.1 * (i + 1)
                                                                       for i in range(10)])
    html = render(runs)
    assert html.count("<svg") == 5
    # no chart is scaled to the 1.05 Mpps of rx_pps: every axis tops at the 1 Mpps offered
    assert ">1</text>" in html and ">1.2</text>" not in html


def test_report_cli_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"vars": {}\n  oops')
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.json:2" in err
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    odd = tmp_path / "odd.json"
    odd.write_text('{"vars": ["not", "an", "object"], "stats": {}}')
    assert main(["report", str(odd), "-o", str(tmp_path / "r.html")]) == 2
    assert "odd.json: not a trex-loadtest run" in capsys.readouterr().err
    good = tmp_path / "good.json"
    _ramp_json(good, 1e5)
    out = tmp_path / "r.html"
    assert main(["report", str(good), "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    json.loads(good.read_text())


@pytest.mark.parametrize(
    "argv, message",
    [
        (["ramp", "--profile", "jumbo"], "unknown profile 'jumbo'"),
        (["ramp", "--profile", "65", "--ipv6"], "at least 66 bytes"),
        (["ndr", "--src", "10.0.0.5-10.0.0.1"], "address range"),
    ],
)
def test_bad_input_is_one_line_usage_error(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_tty_and_plain_lines_elsewhere():
    tty = _Tty()
    bar = Progress(10.0, stream=tty)
    bar.update(5.0, "ramp 1.000 Mpps")
    bar.close()
    assert "\r" in tty.getvalue() and "[############------------]  50% ramp" in tty.getvalue()
    plain = io.StringIO()
    lines = Progress(10.0, stream=plain, every=60.0)
    for t in (1.0, 2.0, 3.0, 10.0):
        lines.update(t, f"t={t}")
    assert plain.getvalue().splitlines() == [" 10% t=1.0", "100% t=10.0"]  # throttled
    quiet = io.StringIO()
    Progress(None, stream=quiet, quiet=True).update(1.0, "x")
    assert quiet.getvalue() == ""


def test_client_path_without_a_client_is_one_line_error(tmp_path, capsys):
    assert main(["ndr", "--trex-client-path", str(tmp_path), "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert "no trex/stl/api.py found" in err and "\n" not in err


def test_client_path_accepts_an_install_layout(tmp_path):
    from loadtest.client import _client_dirs

    api = tmp_path / "automation/trex_control_plane/interactive/trex/stl"
    api.mkdir(parents=True)
    (api / "api.py").write_text("")
    assert _client_dirs(tmp_path) == [tmp_path / "automation/trex_control_plane/interactive"]


def test_loading_the_client_keeps_our_pyyaml():
    """The T-Rex client bundles a PyYAML 3.11 that breaks on Python 3.11; importing
    the client must not make later `import yaml` in the same process return it."""
    import subprocess
    import sys

    require_trex_api()  # skips (CI: fails) when the client does not import
    code = (
        "from loadtest.client import load_api; load_api(); import yaml; "
        "print(yaml.__file__); yaml.safe_load('a: [1, 2]')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "lbr_trex_client" not in out


def test_chart_ticks_are_round_numbers():
    from loadtest.charts import nice_ticks as _nice_ticks

    assert _nice_ticks(1.002, 10.002) == [2, 4, 6, 8, 10]
    assert _nice_ticks(0, 1) == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ticks = _nice_ticks(3.3, 127.9)
    assert ticks[0] >= 3.3 and ticks[-1] <= 127.9 and len(ticks) >= 4
