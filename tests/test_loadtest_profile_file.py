"""T-Rex profile files, `-t` tunables and the original trex-loadtest command line."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from loadtest.client import UsageError
from tests.trex_client import require_trex_api

API = require_trex_api()  # skips (CI: fails) when the client does not import

from loadtest.cli import build_parser, main, parse_args, traffic_spec  # noqa: E402
from loadtest.graphrb import multiplier_text  # noqa: E402
from loadtest.profiles.pyfile import (  # noqa: E402
    ProfileFileError,
    load_profile,
    tunable_args,
)
from loadtest.profiles.streams import FLOW_PG_BASE, build_streams  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BENCH = str(ROOT / "examples" / "trex_bench.py")


def test_tunables_are_handed_over_as_the_trex_console_does():
    from trex.utils.parsing_opts import convert_old_tunables_to_new_tunables, decode_tunables

    text = "offset=10,vm=var2,size=64"
    args = tunable_args(API, text)
    # old-style profiles get typed keyword arguments, 3.x profiles the argparse list
    assert {k: v for k, v in args.items() if k != "tunables"} == decode_tunables(text)
    assert args["offset"] == 10 and args["vm"] == "var2"
    assert args["tunables"] == convert_old_tunables_to_new_tunables(text)
    assert args["tunables"] == ["--offset", "10", "--vm", "var2", "--size", "64"]
    with pytest.raises(ProfileFileError, match="bad syntax"):
        tunable_args(API, "size")


@pytest.mark.parametrize(("tunables", "sizes", "ranges"), [
    ("size=64,vm=var2", [64], [("src", 253), ("dst", 253)]),
    ("size=imix,vm=var2,offset=10", [64, 594, 1518], [("src", 253), ("dst", 253)]),
    ("size=1514,vm=var1", [1514], [("src", 253)]),
    ("size=64", [64], []),
])
def test_example_profile_sizes_and_flows(tunables, sizes, ranges):
    profile = load_profile(API, BENCH, tunables)
    assert [size for size, _ in profile.mix] == sizes
    assert [(r.name, r.count) for r in profile.ranges] == ranges
    for direction, streams in enumerate(profile.streams):
        pkt = streams[0].get_pkt()
        assert len(pkt) + 4 == sizes[0]
        # direction 1 mirrors the networks: 48.0.x.1 -> 16.0.x.1
        src = ".".join(str(b) for b in pkt[26:30])
        assert src.startswith("16.0." if direction == 0 else "48.0.")
    if "offset=10" in tunables:
        assert profile.streams[0][0].get_pkt()[28] == 10  # third octet of the source


def test_profile_streams_count_in_flow_statistics():
    from loadtest.profiles import TrafficSpec

    profile = load_profile(API, BENCH, "size=imix,vm=var2")
    spec = TrafficSpec(BENCH, bidirectional=True, latency=True, file=profile)
    for direction in (0, 1):
        streams = build_streams(API, spec, direction)
        stats = [s.to_json()["flow_stats"] for s in streams]
        assert [f["stream_id"] for f in stats[:3]] == [FLOW_PG_BASE + direction] * 3
        assert stats[-1]["rule_type"] == "latency"  # ours, added after the profile's
        # the latency probe is the profile's first packet, so the router routes it alike
        assert streams[-1].get_pkt()[26:34] == streams[0].get_pkt()[26:34]
    assert spec.describe()["flows"] == 253 * 253
    assert spec.describe()["flow_ranges"] == [["src", 253], ["dst", 253]]


@pytest.mark.parametrize(("content", "message"), [
    ("def register():\n    raise RuntimeError('broken profile')\n", "broken profile"),
    ("import argparse\nclass P:\n    def get_streams(self, port_id=0, direction=0, "
     "tunables=(), **kw):\n        argparse.ArgumentParser().parse_args(list(tunables))\n"
     "        return []\ndef register():\n    return P()\n", "unrecognized arguments"),
])
def test_a_broken_profile_is_one_line_naming_the_file(tmp_path, capsys, content, message):
    path = tmp_path / "broken_profile.py"
    path.write_text(content)
    code = main(["ramp", "--profile", str(path), "-t", "size=64", "--sync-port", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(path) in err and message in err and len(err.strip().splitlines()) == 1


def test_profile_file_errors(tmp_path):
    args = parse_args(build_parser(), ["ramp", "-p", str(tmp_path / "missing.py")])
    with pytest.raises(UsageError, match="no such profile file"):
        traffic_spec(args)
    args = parse_args(build_parser(), ["ramp", "-p", BENCH, "--src", "10.0.0.1-10.0.0.9"])
    with pytest.raises(UsageError, match="--src: the profile file"):
        traffic_spec(args)
    args = parse_args(build_parser(), ["ramp", "-p", "64", "-t", "size=64"])
    with pytest.raises(UsageError, match="only a profile file"):
        traffic_spec(args)
    pct = tmp_path / "pct_profile.py"
    pct.write_text("from trex.stl.api import STLStream, STLTXCont, STLPktBuilder, Ether, IP\n"
                   "class P:\n    def get_streams(self, direction=0, **kw):\n"
                   "        return [STLStream(packet=STLPktBuilder(pkt=Ether()/IP()/('x'*30)),"
                   " mode=STLTXCont(percentage=10))]\n"
                   "def register():\n    return P()\n")
    with pytest.raises(ProfileFileError, match="percentage"):
        load_profile(API, str(pct))


def _parsed(argv: list[str]) -> argparse.Namespace:
    args = parse_args(build_parser(), argv)
    if args.command in ("ramp", "ndr"):
        traffic_spec(args)  # resolves the direction
    return args


def test_the_original_command_line_is_a_ramp_both_ways_unless_u():
    review = ["-s", "trex1", "-p", BENCH, "-t", "offset=10,vm=var2,size=64", "-rd", "60",
              "-rt", "10%", "-o", "out.json"]
    args = _parsed(review)
    assert (args.command, args.server, args.profile, args.tunables) == (
        "ramp", "trex1", BENCH, "offset=10,vm=var2,size=64")
    assert (args.duration, args.rate, str(args.output)) == (60.0, "10%", "out.json")
    assert args.bidirectional and not args.unidirectional
    uni = _parsed(["-s", "trex1", "-u", *review[2:]])
    assert not uni.bidirectional and uni.unidirectional
    # our sub-commands keep their default: one way unless -b
    assert not _parsed(["ramp", "-p", "64"]).bidirectional
    assert _parsed(["ramp", "-p", "64", "-b"]).bidirectional
    # our options work in the original form too
    ours = _parsed([*review, "--sync-port", "14501", "--loss-threshold", "0.5"])
    assert (ours.sync_port, ours.loss_threshold) == (14501, 0.5)


def test_help_still_works_without_a_subcommand(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "ramp" in capsys.readouterr().out


@pytest.mark.parametrize(("text", "expected"), [
    ("10", "10%"), ("10%", "10%"), ("1.5", "1.5%"), ("1.5mpps", "1.5mpps")])
def test_graph_rates_are_trex_multipliers(text, expected):
    assert multiplier_text(text) == expected
