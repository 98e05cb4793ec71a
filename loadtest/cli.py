"""`trex-loadtest`: drive a T-Rex traffic generator through a device under test.

Sub-commands: `ramp` (warm-up, linear ramp, hold; per-second stats), `ndr`
(MLRsearch for NDR/PDR) and `report` (HTML page from run JSON files).
Without a sub-command the arguments are the original trex-loadtest command line
(`-s SERVER [-u] -p PROFILE.py -t TUNABLES -rd SECONDS -rt RATE -o FILE.json`),
run as `ramp` in both directions unless `-u` is given.
Exit codes: 0 ok, 1 the run failed, 2 usage or I/O error, 130 interrupted (Ctrl-C)
(vppcfg.exits; the table: docs/user-guide.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from loadtest.client import LoadtestError, TrexSession, UsageError, load_api
from loadtest.linerate import line_rate_pps, parse_rate
from loadtest.profiles import NAMED_MIXES, ProfileError, TrafficSpec, make_flows
from loadtest.profiles.pyfile import ProfileFileError, is_profile_file, load_profile
from loadtest.progress import Progress
from loadtest.stats import directions
from vppcfg import __version__, numbers
from vppcfg.exits import FAILED, INTERRUPTED, USAGE, guarded

PROG = "trex-loadtest"
COMMANDS = ("ramp", "ndr", "report")


def _add_common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("T-Rex")
    g.add_argument("-s", "--server", default="127.0.0.1",
                   help="T-Rex server (default %(default)s)")
    g.add_argument("--sync-port", type=numbers.port(1),
                   default=4501, help="JSON-RPC port (default 4501)")
    g.add_argument("--async-port", type=numbers.port(1),
                   default=4500, help="async PUB port (default 4500)")
    g.add_argument("--ports", type=numbers.count(0, 255), nargs=2,
                   default=[0, 1], metavar=("TX", "RX"),
                   help="the port pair; direction 0 sends TX->RX (default 0 1)")
    g.add_argument("--force", action="store_true", help="take the ports even if someone owns them")
    g.add_argument("--trex-client-path", metavar="DIR",
                   help="use the client of a T-Rex install instead of lbr-trex-client")
    g.add_argument("--timeout", type=numbers.seconds(3600),
                   default=5.0, help="RPC timeout in seconds")
    g.add_argument("--link-speed", type=numbers.Number("Gbit/s", 0, 10000, low_open=True),
                   metavar="GBPS",
                   help="line rate in Gbit/s (default: the port's reported speed)")
    t = p.add_argument_group("traffic")
    t.add_argument("-p", "--profile", default="64",
                   help=f"{', '.join(NAMED_MIXES)}, a frame size incl. FCS, or a T-Rex "
                   "stateless profile file (.py) (default 64)")
    t.add_argument("-t", "--tunables", metavar="K=V,...", default="",
                   help="tunables of a profile file, as T-Rex's console takes them "
                   "(e.g. size=64,vm=var2)")
    t.add_argument("--flows", choices=("one", "many"), default="one",
                   help="one flow, or many flows walking the ranges below")
    t.add_argument("--ipv6", action="store_true", help="IPv6/UDP instead of IPv4/UDP")
    t.add_argument("--src", metavar="FIRST-LAST", help="source address range of direction 0")
    t.add_argument("--dst", metavar="FIRST-LAST", help="destination address range")
    t.add_argument("--sport", metavar="FIRST-LAST", help="UDP source port range")
    t.add_argument("--dport", metavar="FIRST-LAST", help="UDP destination port range")
    d = t.add_mutually_exclusive_group()
    d.add_argument("-b", "--bidirectional", action="store_true", default=None,
                   help="send both ways (default: port TX to RX only; without a "
                   "sub-command: both ways)")
    d.add_argument("-u", "--unidirectional", action="store_true",
                   help="send port TX to RX only")
    t.add_argument("--latency", action="store_true",
                   help="add latency streams (min/avg/max/jitter)")
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", type=Path, help="write the run as JSON here")
    o.add_argument("--force-output", action="store_true",
                   help="with -o: replace the file even when another user owns it")
    o.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    o.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: at the end print the run on stdout, as -o writes it (its "
                   "JSON Schema: python -m loadtest.results_schema), whatever its status; "
                   "text (default): nothing on stdout")
    o.add_argument("--stats-tick", type=numbers.seconds(60), default=0.01,
                   help="seconds the server's counters may trail a read (default 0.01: the real"
                        " T-Rex's are current at every read)")
    o.add_argument("--drain", type=numbers.seconds(3600, zero_ok=True), default=1.0,
                   help="seconds to wait after traffic stops before the last read (default 1)")
    v = p.add_argument_group("device under test")
    v.add_argument("--dut-stats", metavar="SOCKET",
                   help="read VPP's stats segment at this socket (VPP's default: "
                        "/run/vpp/stats.sock) at every sample or trial, and attribute loss")
    v.add_argument("--dut-ports", metavar="IF0,IF1",
                   help="the VPP interfaces facing --ports TX,RX (default: VPP's first two "
                        "interfaces after local0)")


LEGACY_EPILOG = """\
the original trex-loadtest command line works too, run as `ramp` (both directions unless -u):
  trex-loadtest -s SERVER [-u] -p PROFILE.py -t TUNABLES -rd SECONDS -rt RATE -o FILE.json
  (-wm/-wd warm-up rate/seconds, -hd hold seconds; every `ramp` option is accepted)

exit codes: 0 ok, 1 the run failed, 2 usage or I/O error, 130 interrupted (Ctrl-C)"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                     epilog=LEGACY_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ramp = sub.add_parser("ramp", help="warm-up, linear ramp to a rate, hold")
    _add_common(ramp)
    r = ramp.add_argument_group("ramp")
    r.add_argument("-rt", "--rate", type=numbers.rate, default="100",
                   help="peak rate per direction: percent of line rate, or e.g. 1.5mpps")
    r.add_argument("--start-rate", type=numbers.rate,
                   help="rate the ramp starts from (default: the warm-up rate)")
    r.add_argument("-wm", "--warmup-rate", type=numbers.rate, default="1",
                   help="warm-up rate (default 1%% of line)")
    r.add_argument("-wd", "--warmup", type=numbers.seconds(zero_ok=True), default=5.0,
                   help="warm-up seconds (default 5)")
    r.add_argument("-rd", "--duration", type=numbers.seconds(), default=30.0,
                   help="ramp seconds (default 30)")
    r.add_argument("-hd", "--hold", type=numbers.seconds(zero_ok=True), default=5.0,
                   help="seconds at the peak (default 5)")
    r.add_argument("--sample-interval", type=numbers.seconds(3600), default=1.0,
                   help="seconds between stats samples (default 1)")
    r.add_argument("--loss-threshold", type=numbers.percent(), default=0.1,
                   help="loss %% a rate may have and still count as lossless (default 0.1)")
    ramp.set_defaults(func=cmd_ramp)

    ndr = sub.add_parser("ndr", help="search NDR/PDR with MLRsearch")
    _add_common(ndr)
    n = ndr.add_argument_group("search")
    n.add_argument("--pdr", type=numbers.percent(), action="append", metavar="LOSS%",
                   help="a PDR goal in percent (repeatable; default 0.5); NDR is always searched")
    n.add_argument("--precision", type=numbers.percent(zero_ok=False), default=0.5,
                   help="target width of the bounds, %% of the upper bound (default 0.5)")
    n.add_argument("--trial-duration", type=numbers.seconds(), default=10.0,
                   help="final trial duration in seconds (default 10)")
    n.add_argument("--initial-duration", type=numbers.seconds(), default=1.0,
                   help="duration of the first, coarse trials (default 1)")
    n.add_argument("--duration-sum", type=numbers.seconds(),
                   help="trial seconds needed per bound (default: one final trial)")
    n.add_argument("--exceed-ratio", type=numbers.fraction(), default=0.0,
                   help="share of bad trial seconds a lower bound may have (default 0)")
    n.add_argument("--min-rate", type=numbers.rate, default="0.1",
                   help="lowest rate to try (default 0.1%% of line)")
    n.add_argument("--max-rate", type=numbers.rate, default="100",
                   help="highest rate to try (default 100%% of line)")
    n.add_argument("--max-search-time", type=numbers.seconds(numbers.WEEK), default=3600.0,
                   help="give up after this many seconds (default 3600)")
    n.add_argument("--warmup", type=numbers.seconds(zero_ok=True), default=0.0,
                   help="seconds of one untracked trial at max rate first (default none)")
    ndr.set_defaults(func=cmd_ndr)

    report = sub.add_parser("report", help="render run JSON files as one HTML page")
    report.add_argument("runs", nargs="+", type=Path, metavar="RUN.json",
                        help="run files written by ramp or ndr -o (one or more)")
    report.add_argument("-o", "--output", type=Path, default=Path("report.html"),
                        help="the HTML page to write (default %(default)s)")
    report.add_argument("--force", action="store_true",
                        help="replace the page even when another user owns it")
    report.add_argument("--title", default="T-Rex loadtest report",
                        help="the page's title (default: %(default)s)")
    report.set_defaults(func=cmd_report)
    return parser


def traffic_spec(args: argparse.Namespace) -> TrafficSpec:
    _resolve_direction(args)
    if is_profile_file(args.profile):
        return _file_spec(args)
    if args.tunables:
        raise UsageError("-t/--tunables: only a profile file (.py) takes tunables")
    try:
        flows = make_flows(6 if args.ipv6 else 4, args.flows == "many",
                           args.src, args.dst, args.sport, args.dport)
        return TrafficSpec(args.profile, flows, args.bidirectional, args.latency)
    except ProfileError as err:
        raise UsageError(str(err)) from None


def _resolve_direction(args: argparse.Namespace) -> None:
    """Our sub-commands send one way unless -b; the original command line both ways
    unless -u. Both flags end up set, for the run's `vars`."""
    if args.bidirectional is None:
        args.bidirectional = getattr(args, "legacy", False) and not args.unidirectional
    args.unidirectional = not args.bidirectional


def _file_spec(args: argparse.Namespace) -> TrafficSpec:
    """A profile file: its streams decide sizes and flows, so our traffic options cannot."""
    ours = [opt for opt, value in (("--src", args.src), ("--dst", args.dst),
                                   ("--sport", args.sport), ("--dport", args.dport),
                                   ("--ipv6", args.ipv6), ("--flows many", args.flows == "many"))
            if value]
    if ours:
        raise UsageError(f"{', '.join(ours)}: the profile file {args.profile} decides the "
                         "traffic (give it tunables with -t)")
    try:
        profile = load_profile(load_api(args.trex_client_path), args.profile, args.tunables,
                               tuple(args.ports))
    except ProfileFileError as err:
        raise UsageError(str(err)) from None
    return TrafficSpec(args.profile, make_flows(), args.bidirectional, args.latency, profile)


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if value is None or not value > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive")


def _open(args: argparse.Namespace) -> TrexSession:
    api = load_api(args.trex_client_path)
    return TrexSession(api, args.server, tuple(args.ports), args.sync_port, args.async_port,
                       args.force, timeout=args.timeout)


def _line_pps(session: TrexSession, args: argparse.Namespace, spec: TrafficSpec) -> tuple:
    speed = args.link_speed * 1e9 if args.link_speed else session.speed_bps(args.ports[0])
    if not speed > 0:
        raise LoadtestError("the port reports no link speed; pass --link-speed")
    return speed, float(line_rate_pps(spec.mix, speed))


def _check_connection(args: argparse.Namespace) -> None:
    """The T-Rex options, before anything connects (a bad one would only show as a
    connection that never answers)."""
    for option, port in (("--sync-port", args.sync_port), ("--async-port", args.async_port)):
        if not 0 < port < 65536:
            raise UsageError(f"{option}: {port} is not a TCP port (1-65535)")
    if args.ports[0] == args.ports[1] or min(args.ports) < 0:
        raise UsageError(f"--ports: two different port numbers, not {args.ports[0]} "
                         f"{args.ports[1]}")
    _check_positive(timeout=args.timeout)
    if args.link_speed is not None:
        _check_positive(link_speed=args.link_speed)
    _check_output(args.output, args.force_output)


def _check_output(path: Path | None, force: bool = False) -> None:
    """-o: a file that can be written, known before traffic flows (the run writes it as
    it goes); not another user's file unless --force."""
    from vppcfg.safefile import UnsafePath, check_replaceable

    if path is None:
        return
    try:
        _check_writable(path)
        check_replaceable(path, force)
    except UnsafePath as err:
        raise UsageError(str(err)) from None
    except OSError as err:  # e.g. another user's directory on the way
        raise UsageError(f"-o {path}: {err.strerror}") from None


def _check_writable(path: Path) -> None:
    where = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"-o {path}: is a directory")
    if not where.is_dir():
        raise UsageError(f"-o {path}: no directory {where}")
    if not os.access(where, os.W_OK | os.X_OK) or (path.exists() and
                                                   not os.access(path, os.W_OK)):
        raise UsageError(f"-o {path}: permission denied")


def _check_rates(**rates: str | None) -> None:
    """Each rate option's form, before anything connects: a positive percentage of line
    rate up to 100, or an absolute rate (the line rate itself is known only from T-Rex)."""
    for name, text in rates.items():
        if text is None:
            continue
        option = f"--{name.replace('_', '-')}"
        if not math.isinf(_rate(text, math.inf, option)):  # absolute: checked on connecting
            continue
        try:  # a percentage: of a line of 100 pps, the rate is the percentage itself
            parse_rate(text, 100.0)
        except ValueError:
            raise UsageError(f"{option}: rate {text!r} is more than 100% of line rate") from None


def _rate(text: str, line: float, option: str) -> float:
    try:
        return parse_rate(text, line)
    except ValueError as err:
        raise UsageError(f"{option}: {err}") from None


def _base_vars(args: argparse.Namespace, spec: TrafficSpec, speed: float, line: float) -> dict:
    skip = {"func", "output", "quiet", "command", "dut_stats", "dut_ports"}  # see _dut
    opts = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
            if k not in skip}
    return {
        **opts,
        "mode": args.command,
        "traffic": spec.describe(),
        "speed_bps": speed,
        "line_rate_pps": line,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _dut(args: argparse.Namespace, run_vars: dict):
    """With --dut-stats: the DUT side of the run, opened now, before any traffic (a
    socket that is not VPP's stats socket, or --dut-ports VPP lacks: a usage error);
    its socket and port mapping go into the run's vars."""
    if not args.dut_stats:
        return None
    from loadtest.dut import DutMonitor, DutUnavailable, RunDut

    monitor = DutMonitor(args.dut_stats, _dut_ports(args))
    try:
        monitor.open(list(args.ports))
    except DutUnavailable as err:
        raise UsageError(f"--dut-stats {args.dut_stats}: {err}") from None
    run_vars["dut_stats"] = args.dut_stats
    run_vars["dut_ports"] = {str(p): n for p, n in (monitor.ports or {}).items()} or None
    return RunDut(monitor, directions(tuple(args.ports), args.bidirectional))


def _dut_ports(args: argparse.Namespace) -> dict[int, str] | None:
    """--dut-ports checked before anything connects."""
    from loadtest.dut import parse_dut_ports

    try:
        return parse_dut_ports(args.dut_ports, list(args.ports))
    except ValueError as err:
        raise UsageError(f"--dut-ports: {err}") from None


def _status(result: dict) -> int:
    status = result.get("status")
    if status == "interrupted":
        print(f"{PROG}: interrupted; traffic stopped, ports released", file=sys.stderr)
        return INTERRUPTED
    if status == "failed":
        print(f"{PROG}: error: {result.get('error')}", file=sys.stderr)
        return 1
    if status == "invalid":
        print(f"{PROG}: INVALID run: {result.get('error')}", file=sys.stderr)
        return 1
    return 0


def _finish(args: argparse.Namespace, result: dict, summary: list[str]) -> int:
    """The summary on stderr, the run on stdout with --format json; the exit code."""
    if not args.quiet:
        for text in summary:
            print(text, file=sys.stderr)
    if args.format == "json":
        json.dump(result, sys.stdout, indent=2)
        print()
    return _status(result)


def cmd_ramp(args: argparse.Namespace) -> int:
    from loadtest.graphrb import graph_vars
    from loadtest.ramp import RampPlan, RampRun, summary_lines

    spec = traffic_spec(args)
    _dut_ports(args)
    _check_connection(args)
    _check_rates(rate=args.rate, warmup_rate=args.warmup_rate, start_rate=args.start_rate)
    _check_positive(sample_interval=args.sample_interval, duration=args.duration,
                    stats_tick=args.stats_tick)
    if args.sample_interval < args.stats_tick:
        raise UsageError(f"--sample-interval must be at least --stats-tick ({args.stats_tick:g} s):"
                         " the server's counters move only that often")
    if args.warmup < 0 or args.hold < 0 or args.drain < 0 or not 0 <= args.loss_threshold < 100:
        raise UsageError("--warmup, --hold, --drain and --loss-threshold must not be negative")
    with _open(args) as session:
        speed, line = _line_pps(session, args, spec)
        peak = _rate(args.rate, line, "--rate")
        warm = _rate(args.warmup_rate, line, "--warmup-rate")
        start = _rate(args.start_rate, line, "--start-rate") if args.start_rate else warm
        plan = RampPlan(warm, start, peak, args.warmup, args.duration, args.hold,
                        args.sample_interval, args.drain, args.stats_tick)
        total = len(plan.steps()) * args.sample_interval
        run_vars = {**_base_vars(args, spec, speed, line),
                    **graph_vars(plan, spec, args.warmup_rate, args.rate)}
        dut = _dut(args, run_vars)
        run = RampRun(session, spec, plan, directions(tuple(args.ports), args.bidirectional),
                      line, args.loss_threshold / 100.0, run_vars,
                      args.output, Progress(total, quiet=args.quiet), dut=dut)
        result = run.run()
    return _finish(args, result, summary_lines(result))


def cmd_ndr(args: argparse.Namespace) -> int:
    from loadtest.ndr import NdrPlan, run_ndr, summary_lines

    spec = traffic_spec(args)
    _dut_ports(args)
    _check_connection(args)
    _check_rates(min_rate=args.min_rate, max_rate=args.max_rate)
    _check_positive(trial_duration=args.trial_duration, initial_duration=args.initial_duration,
                    precision=args.precision, stats_tick=args.stats_tick,
                    max_search_time=args.max_search_time)
    pdrs = args.pdr if args.pdr is not None else [0.5]
    if any(not 0 <= p < 100 for p in pdrs) or not args.precision < 100:
        raise UsageError("--pdr and --precision must be percentages below 100")
    goals = tuple(dict.fromkeys([0.0, *(p / 100.0 for p in pdrs)]))
    with _open(args) as session:
        speed, line = _line_pps(session, args, spec)
        lo = _rate(args.min_rate, line, "--min-rate")
        hi = _rate(args.max_rate, line, "--max-rate")
        if lo >= hi:
            raise UsageError("--min-rate must be below --max-rate")
        try:
            plan = NdrPlan(lo, hi, goals, args.precision / 100.0, args.trial_duration,
                           args.initial_duration, args.duration_sum, args.exceed_ratio,
                           args.drain, args.stats_tick, args.max_search_time, args.warmup)
            plan.config()
        except ValueError as err:
            raise UsageError(f"search settings: {err}") from None
        run_vars = _base_vars(args, spec, speed, line)
        dut = _dut(args, run_vars)
        result = run_ndr(session, spec, directions(tuple(args.ports), args.bidirectional), plan,
                         line, run_vars, args.output,
                         Progress(None, quiet=args.quiet, every=1.0), dut=dut)
    return _finish(args, result, summary_lines(result))


def cmd_report(args: argparse.Namespace) -> int:
    from loadtest.report import load_runs, render
    from vppcfg.safefile import UnsafePath, write_atomic

    runs = load_runs(args.runs)
    try:
        html = render(runs, args.title)
    except (TypeError, ValueError, AttributeError, KeyError):
        raise UsageError(_wrongly_typed(runs, args.title)) from None
    try:
        write_atomic(args.output, [html], force=args.force)
    except UnsafePath as err:
        raise UsageError(str(err)) from None
    except OSError as err:
        raise UsageError(f"cannot write {args.output}: {err.strerror}") from None
    noun = "run" if len(runs) == 1 else "runs"
    print(f"{PROG}: wrote {args.output} ({len(runs)} {noun})", file=sys.stderr)
    return 0


def _wrongly_typed(runs: list, title: str) -> str:
    """Which run file the report cannot be drawn from (a value of the wrong type, as in
    a hand-edited file: load_runs checks the layout, not every value's type), and why."""
    from loadtest.report import render

    for run in runs:
        try:
            render([run], title)
        except (TypeError, ValueError, AttributeError, KeyError) as err:
            return (f"{run.path}: not a {run.mode} run as trex-loadtest writes it (a value of "
                    f"the wrong type? {type(err).__name__}: {err})")
    return "the runs cannot be drawn together (a value of the wrong type in one of them?)"


def parse_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Our sub-commands, or the original trex-loadtest command line (no sub-command), which
    is a `ramp` in both directions unless -u."""
    if argv and argv[0] not in COMMANDS and argv[0].startswith("-") \
            and argv[0] not in ("-h", "--help", "--version"):
        args = parser.parse_args(["ramp", *argv])
        args.legacy = True
        return args
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, sys.argv[1:] if argv is None else list(argv))
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    return guarded(PROG, lambda: _run(args))


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; Ctrl-C and the unexpected: vppcfg.exits.guarded."""
    try:
        return int(args.func(args))
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return USAGE
    except LoadtestError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return FAILED


if __name__ == "__main__":
    sys.exit(main())
