"""`vppcfg plan`: show what `vppcfg apply` would change, as VPP CLI or JSON.

The config is validated first; the live state comes from VPP, or with
``--novpp`` from a freshly started VPP holding just the config's PHYs.

With ``--detailed-exitcode`` the exit code tells drift apart, as terraform
plan does: 0 nothing to change, 2 changes pending, 1 any error.
"""

from __future__ import annotations

import argparse
import json
import sys

from vppcfg.commands.common import add_vpp_options, write_output
from vppcfg.model import Dataplane, FrozenDict, Interface, InterfaceKind

# A PHY in a VPP that was just started: admin down, hw and packet MTU 9000.
FRESH_PHY_MTU = 9000
# --detailed-exitcode: 0 in sync, 2 changes pending, 1 any error.
DETAILED_CHANGES, DETAILED_ERROR = 2, 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plan", help="print the changes needed to reach the config",
        description="Compare a config with the running VPP and print the ordered changes.",
    )
    parser.add_argument("-c", "--config", required=True, metavar="FILE", help="the config file")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument("--format", choices=("cli", "json"), default="cli")
    parser.add_argument("--novpp", action="store_true",
                        help="do not contact VPP: plan against a fresh VPP with the config's PHYs")
    add_detailed_exitcode(parser)
    parser.add_argument("--timeout", type=float, default=5.0, help=argparse.SUPPRESS)
    add_vpp_options(parser)
    parser.set_defaults(func=run)


def add_detailed_exitcode(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--detailed-exitcode", action="store_true",
        help="exit 0 when there is nothing to change, 2 when changes are pending, 1 on error",
    )


def detailed_exit(args: argparse.Namespace, code: int, changes: int) -> int:
    """The exit code: `code` as is, or with --detailed-exitcode 1 for any
    error, else 2 when `changes` are pending and 0 when there are none."""
    if not getattr(args, "detailed_exitcode", False):
        return code
    if code:
        return DETAILED_ERROR
    return DETAILED_CHANGES if changes else 0


def fresh_dataplane(desired: Dataplane) -> Dataplane:
    """What a just-started VPP looks like: only the PHYs the config names."""
    phys = {
        name: Interface(name=name, kind=InterfaceKind.PHY, mtu=FRESH_PHY_MTU, state="down")
        for name, itf in desired.interfaces.items()
        if itf.kind is InterfaceKind.PHY
    }
    return Dataplane(interfaces=FrozenDict(phys))


def _load(path: str) -> tuple[Dataplane | None, int]:
    """The checked config, or None and the exit code (problems on stderr, one a line)."""
    from vppcfg import config

    try:
        return config.load(path), 0
    except config.ConfigError as err:
        for problem in err.problems:
            print(f"vppcfg plan: {problem}", file=sys.stderr)
        return None, 2 if isinstance(err, config.ConfigIOError) else 1
    except OSError as err:
        print(f"vppcfg plan: cannot read {path}: {err.strerror or err}", file=sys.stderr)
        return None, 2


def _live(args: argparse.Namespace) -> tuple[Dataplane | None, dict[str, int], int]:
    from vppcfg.vpp import VppConnection, VppError

    try:
        with VppConnection.open(args.vpp_api_socket, args.vpp_json_dir, args.timeout) as conn:
            return conn.dump(), conn.acl_indexes(), 0
    except VppError as err:
        print(f"vppcfg plan: {err}", file=sys.stderr)
        return None, {}, 2


def run(args: argparse.Namespace) -> int:
    code, changes = _plan(args)
    return detailed_exit(args, code, changes)


def _plan(args: argparse.Namespace) -> tuple[int, int]:
    """(exit code, number of changes planned)."""
    from vppcfg.objects import RenderError, render_cli
    from vppcfg.planner import PlanError, plan, summary

    desired, code = _load(args.config)
    if desired is None:
        return code, 0
    if args.novpp:
        live, acl_indexes = fresh_dataplane(desired), {}
    else:
        live, acl_indexes, code = _live(args)
        if live is None:
            return code, 0
    try:
        ops = plan(desired, live)
        if args.format == "json":
            text = json.dumps([op.as_dict() for op in ops], indent=2) + "\n"
        else:
            text = render_cli(ops, acl_indexes)
    except (PlanError, RenderError) as err:
        print(f"vppcfg plan: {err}", file=sys.stderr)
        return 1, 0
    counts = summary(ops)
    print(f"vppcfg plan: {counts['create']} to create, {counts['update']} to change, "
          f"{counts['delete']} to delete", file=sys.stderr)
    return write_output(text, args.output, "vppcfg plan"), len(ops)
