"""vppcfg-sim: run the VPP simulator on a unix socket until SIGTERM/SIGINT.

    vppcfg-sim --print-api-dir [--release 24.10]
    vppcfg-sim --socket /tmp/vpp-api.sock [--inventory phys.yaml] [--phy NAME[,mac=..][,mtu=..]]
               [--fail-after N] [--api-dir DIR] [--ready-file PATH] [--keepalive SECONDS]
               [--no-kernel-vlan] [--lcp-auto-subint] [--linux-cp WORDS] [--linux-socket PATH]
               [--stats-socket PATH | --no-stats] [--wire-socket PATH] [--wire-ports IF0,IF1]
               [--capacity-pps N] [--node-stats-interval SECONDS] [--no-per-node-counters]
               [--release 24.10] [--disable-plugin NAME ...]
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from vppcfg import __version__, numbers
from vppcfg.exits import FAILED, INTERRUPTED, OK, USAGE, describe_os_error, guarded
from vppcfg.sim.inventory import (
    InventoryError,
    Phy,
    check_inventory,
    default_inventory,
    load_inventory,
    parse_phy_option,
)
from vppcfg.sim.releases import LATEST, RELEASES, ReleaseError, dress, plugin_models
from vppcfg.sim.releases import get as get_release

PROG = "vppcfg-sim"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="A VPP simulator serving the VPP binary API on a unix socket."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--socket", metavar="PATH",
                        help="API socket to create (required, but for --print-api-dir)")
    parser.add_argument(
        "--print-api-dir", action="store_true",
        help="print the directory of the *.api.json definitions this simulator serves "
        "(for vppcfg --vpp-json-dir or $VPPCFG_JSON_DIR), and exit")
    parser.add_argument(
        "--inventory", metavar="FILE", help="YAML list of physical ports (default: 4 ports)"
    )
    parser.add_argument(
        "--phy",
        action="append",
        default=[],
        metavar="NAME[,mac=MAC][,mtu=N][,dev_type=T]",
        help="add a physical port (repeatable; replaces the default ports)",
    )
    parser.add_argument(
        "--fail-after",
        type=numbers.count(),
        metavar="N",
        help="make the N-th state-changing call fail (retval -1, no change): tests rollback",
    )
    parser.add_argument(
        "--api-dir", metavar="DIR", help="*.api.json definitions to serve (default: built in)"
    )
    parser.add_argument(
        "--ready-file", metavar="PATH", help="write this file once the socket accepts clients"
    )
    parser.add_argument(
        "--keepalive",
        type=numbers.seconds(),
        metavar="SECONDS",
        help="send memclnt_keepalive to clients silent this long (default: never)",
    )
    parser.add_argument(
        "--no-kernel-vlan",
        dest="kernel_vlan",
        action="store_false",
        help="model a Linux without 802.1q: lcp pairs on sub-interfaces fail (-73)",
    )
    parser.add_argument(
        "--lcp-auto-subint",
        action="store_true",
        help="linux-cp pairs new sub-interfaces of paired interfaces by itself "
        "(VPP's lcp-auto-subint; vppcfg wants it off, the default)",
    )
    parser.add_argument(
        "--linux-cp", default="", metavar="WORDS",
        help="the words of startup.conf's linux-cp { ... } stanza, e.g. \"lcp-sync "
        "lcp-auto-subint default netns dataplane\" (default: VPP's defaults: no sync, "
        "no auto-subint, no default netns); a netns named there is made in the sim's Linux")
    parser.add_argument(
        "--linux-socket", metavar="PATH",
        help="serve the sim's Linux side (netdevs, addresses) as newline-delimited JSON "
        "here (default: the API socket's path with .linux appended)")
    add_stats_options(parser)
    add_release_options(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return parser


def add_release_options(parser: argparse.ArgumentParser) -> None:
    """Which VPP release to play, and what its startup.conf leaves out (vppcfg.sim.releases)."""
    parser.add_argument(
        "--release", default=LATEST, choices=list(RELEASES),
        help=f"the VPP release to play: its API definitions and plugins (default {LATEST})")
    parser.add_argument(
        "--disable-plugin", action="append", default=[], metavar="NAME",
        help="present a VPP without this plugin (linux_cp, sflow, acl, vxlan; tap from "
        "26.02), as a startup.conf that does not enable it (repeatable)")


def add_stats_options(parser: argparse.ArgumentParser) -> None:
    """The stats segment and the virtual wire (vppcfg.sim.stats_service)."""
    parser.add_argument(
        "--stats-socket", metavar="PATH",
        help="VPP stats socket to serve (default: stats.sock beside an api.sock, "
        "else the API socket's name with -stats.sock)")
    parser.add_argument("--no-stats", action="store_true",
                        help="serve no stats segment and no wire")
    parser.add_argument(
        "--wire-socket", metavar="PATH",
        help="virtual wire for trex-emu --vpp-sim (default: like --stats-socket, -wire.sock)")
    parser.add_argument(
        "--wire-ports", metavar="IF0,IF1",
        help="the interfaces T-Rex ports 0, 1 face (default: the first two PHYs)")
    parser.add_argument(
        "--node-stats-interval", type=numbers.seconds(zero_ok=True),
        default=10.0, metavar="SECONDS",
        help="how often per-node counters reach the segment (VPP's statseg update-interval, "
        "default 10; 0: as they move)")
    parser.add_argument(
        "--no-per-node-counters", dest="per_node_counters", action="store_false",
        help="a stock VPP: no per-node counters in the stats segment "
        "(statseg { per-node-counters off })")
    parser.add_argument(
        "--capacity-pps", type=numbers.rate_pps(), metavar="N",
        help="packets per second each interface's input can take from the wire "
        "(default: no limit)")


def start_stats(args: argparse.Namespace, dataplane: Any, lock: Any) -> Any:
    """The stats service, started, or None with --no-stats."""
    if args.no_stats:
        return None
    from vppcfg.sim.stats_service import StatsService, default_path

    if args.capacity_pps is not None and args.capacity_pps <= 0:
        raise ValueError("--capacity-pps must be positive")
    if args.node_stats_interval < 0:
        raise ValueError("--node-stats-interval must not be negative")
    ports = [p.strip() for p in args.wire_ports.split(",")] if args.wire_ports else None
    if ports is not None and (len(ports) < 2 or len(ports) % 2 or not all(ports)):
        raise ValueError("--wire-ports wants an even number of interface names (IF0,IF1)")
    service = StatsService(
        dataplane.state, lock, args.stats_socket or default_path(args.socket, "stats"),
        args.wire_socket or default_path(args.socket, "wire"),
        capacity_pps=args.capacity_pps, wire_ports=ports, node_interval=args.node_stats_interval,
        per_node_counters=args.per_node_counters)
    return service.start()


def start_linux(args: argparse.Namespace, dataplane: Any, lock: Any) -> Any:
    """The Linux socket (vppcfg.sim.linux_server), started under the API's lock."""
    from vppcfg.sim.linux_server import LinuxServer, default_path
    from vppcfg.sim.plugins._util import linux

    path = args.linux_socket or default_path(args.socket)
    return LinuxServer(linux(dataplane.state), path, lock).start()


def inventory_from_args(args: argparse.Namespace) -> list[Phy]:
    phys = load_inventory(args.inventory) if args.inventory else []
    phys += [parse_phy_option(spec, len(phys) + i) for i, spec in enumerate(args.phy)]
    return check_inventory(phys, "inventory") if phys else default_inventory()


def make_dataplane(phys: list[Phy], fail_after: int | None, kernel_vlan: bool = True,
                   lcp_auto_subint: bool = False, plugins: list[str] | None = None,
                   linux_cp: str = "") -> Any:
    """The behaviour model (vppcfg.sim.dataplane.SimDataplane); `plugins`: the
    plugin models to load (default: all of them)."""
    from vppcfg.sim.dataplane import PLUGINS, SimDataplane

    return SimDataplane(phys, fail_after=fail_after, kernel_vlan=kernel_vlan,
                        lcp_auto_subint=lcp_auto_subint, linux_cp=linux_cp,
                        plugins=PLUGINS if plugins is None else plugins)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.print_api_dir:
        print(args.api_dir or get_release(args.release).api_dir)
        return OK
    if not args.socket:
        parser.error("the following arguments are required: --socket")
    # a stray OSError or a bug: one line and a documented code (vppcfg.exits)
    return guarded(PROG, lambda: _serve(args))


def _serve(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format=f"{PROG}: %(levelname)s: %(message)s",
    )
    if args.fail_after is not None and args.fail_after < 0:
        print(f"{PROG}: --fail-after must be >= 0", file=sys.stderr)
        return USAGE
    if args.keepalive is not None and not args.keepalive > 0:
        print(f"{PROG}: --keepalive must be a positive number of seconds", file=sys.stderr)
        return USAGE
    try:
        phys = inventory_from_args(args)
    except InventoryError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        # a file that cannot be read is an I/O error (2), a wrong one a failure (1)
        return USAGE if isinstance(err.__cause__, OSError) else FAILED
    except UnicodeDecodeError as err:  # a binary file given as the inventory
        print(f"{PROG}: {args.inventory}: not a YAML inventory (not UTF-8 text: byte "
              f"0x{err.object[err.start]:02x} at offset {err.start})", file=sys.stderr)
        return USAGE
    release = get_release(args.release)
    try:
        plugins = plugin_models(release, args.disable_plugin)
    except ReleaseError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return USAGE
    server, stats = _start(args, phys, release, plugins)
    if server is None:
        return USAGE
    return _run_until_signalled(args, release, server, stats)


def _start(args: argparse.Namespace, phys: list[Phy], release: Any, plugins: list[str]
           ) -> tuple[Any, Any]:
    """(server, stats service or None), started; (None, None) with the error said."""
    from vppcfg.sim.server import SimServer

    api_dir = args.api_dir or release.api_dir
    started = None
    try:
        dataplane = dress(make_dataplane(phys, args.fail_after, args.kernel_vlan,
                                         args.lcp_auto_subint, plugins, args.linux_cp), release)
        server = SimServer(dataplane, args.socket, api_dir=api_dir, keepalive=args.keepalive)
        # only a server that bound its socket may remove it: a failed bind leaves
        # whatever is at that path (someone else's socket) alone
        started = server.start()
        started.linux = start_linux(args, dataplane, server.lock)
        return started, start_stats(args, dataplane, server.lock)
    except UnicodeDecodeError as err:
        print(f"{PROG}: --api-dir {api_dir}: a definition file is not UTF-8 JSON ({err.reason})",
              file=sys.stderr)
    except OSError as err:
        print(f"{PROG}: {_os_error(err, args.socket)}", file=sys.stderr)
    except ValueError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
    if started is not None:
        _stop_linux(started)
        started.stop()
    return None, None


def _stop_linux(server: Any) -> None:
    linux_server = getattr(server, "linux", None)
    if linux_server is not None:
        linux_server.stop()


def _os_error(err: OSError, socket_path: str) -> str:
    """One line for an OSError of the start: a bind's carries no file name (the
    socket's), our own messages (no errno) say it all."""
    if err.filename:
        return describe_os_error(err)
    if err.errno is None:
        return str(err)
    return f"{socket_path}: {err.strerror}"


def _run_until_signalled(args: argparse.Namespace, release: Any, server: Any, stats: Any
                         ) -> int:
    """Serve until SIGTERM (exit 0: a service manager's stop) or SIGINT (Ctrl-C: 130,
    as every command of vppcfg exits on it)."""
    stop = threading.Event()
    got: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: (got.append(signum), stop.set()))
    try:
        if args.ready_file:
            Path(args.ready_file).write_text(f"{args.socket}\n", encoding="utf-8")
        # the definitions too: what vppcfg's --vpp-json-dir wants for this simulator
        print(f"{PROG}: listening on {args.socket} (VPP {release.name}; API definitions: "
              f"{server.api.api_dir})", flush=True)
        if stats is not None:
            print(f"{PROG}: stats on {stats.stats_socket.path}, wire on {stats.wire_path} "
                  f"(T-Rex ports: {', '.join(stats.wire_ports)})", flush=True)
        print(f"{PROG}: Linux side on {server.linux.path}", flush=True)
        while not stop.wait(0.5):
            pass
    finally:
        if stats is not None:
            stats.stop()
        _stop_linux(server)
        server.stop()
        if args.ready_file:
            Path(args.ready_file).unlink(missing_ok=True)
    print(f"{PROG}: stopped", flush=True)
    return INTERRUPTED if got and got[0] == signal.SIGINT else OK


if __name__ == "__main__":
    sys.exit(main())
