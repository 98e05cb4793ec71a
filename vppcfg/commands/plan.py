"""`vppcfg plan`: show what `vppcfg apply` would change, as VPP CLI or JSON.

The config is validated first; the live state comes from VPP, or with
``--novpp`` from a freshly started VPP holding just the config's PHYs.

With ``--detailed-exitcode`` the exit code tells drift apart, as terraform
plan does: 0 nothing to change, 2 changes pending, 1 any error.

When the connected VPP lacks what the plan needs (a plugin, or definitions
that are not the running VPP's: the preflight, vppcfg.vpp.preflight), the
plan is still printed, the findings go to stderr as warnings (and into each
affected operation's "preflight" with --format json), and the exit code is 3
(NEEDS_ATTENTION), with or without --detailed-exitcode: `apply` would refuse.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from vppcfg import exits
from vppcfg.apply.paths import DEFAULT_STATE_DIR
from vppcfg.commands.allow import (
    add_allow_option,
    add_strict_option,
    show_warnings,
    strict_refusal,
)
from vppcfg.commands.common import (
    add_config_argument,
    add_linux_options,
    add_output_options,
    add_timeout_option,
    add_vpp_options,
    config_path,
    json_pieces,
    linux_side,
    open_vpp,
    read_config,
    write_output,
)
from vppcfg.gcpause import gc_paused
from vppcfg.model import Dataplane, FrozenDict, InterfaceKind, phy_at_defaults
from vppcfg.objects.acl import acl_indexes

if TYPE_CHECKING:
    from vppcfg.ops import Operation
    from vppcfg.vpp.preflight import Finding, Offer

# --detailed-exitcode: 0 in sync, 2 changes pending, 1 any error (exits.FAILED).
DETAILED_CHANGES = 2
# exits.NEEDS_ATTENTION: the plan cannot be applied to this VPP as it runs (the
# preflight found a missing plugin or mismatched definitions), whatever
# --detailed-exitcode says.
NEEDS_ATTENTION = exits.NEEDS_ATTENTION


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plan", help="print the changes needed to reach the config",
        description="Compare a config with the running VPP and print the ordered changes.",
    )
    add_config_argument(parser)
    add_output_options(parser)
    parser.add_argument("--format", choices=("cli", "json"), default="cli",
                        help="VPP CLI commands (default), or JSON: the warnings and operations")
    parser.add_argument("--novpp", action="store_true",
                        help="do not contact VPP: plan against a fresh VPP with the config's PHYs")
    parser.add_argument("--linux-cp", metavar="WORDS", default=None,
                        help="with --novpp: the words of startup.conf's `linux-cp { }` stanza "
                             "the VPP will run with (e.g. \"lcp-sync lcp-auto-subint default "
                             "netns dataplane\"); the plan then includes the Linux side")
    add_detailed_exitcode(parser)
    add_allow_option(parser)
    add_strict_option(parser)
    add_timeout_option(parser)
    add_vpp_options(parser)
    add_linux_options(parser)
    parser.add_argument("--state-dir", default=DEFAULT_STATE_DIR, metavar="DIR",
                        help="where apply keeps its journal and `apply --confirm` its state: an "
                        "earlier apply that did not finish, and a pending rollback that can no "
                        f"longer happen, are reported first (default {DEFAULT_STATE_DIR})")
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
        return exits.FAILED
    return DETAILED_CHANGES if changes else 0


def fresh_dataplane(desired: Dataplane) -> Dataplane:
    """What a just-started VPP looks like: only the PHYs the config names."""
    phys = {
        name: phy_at_defaults(name)
        for name, itf in desired.interfaces.items()
        if itf.kind is InterfaceKind.PHY
    }
    return Dataplane(interfaces=FrozenDict(phys))


def _load(args: argparse.Namespace) -> tuple[Dataplane | None, list[Any], int]:
    """The checked config and its warnings (shown on stderr, once), or None and
    the exit code (problems on stderr, one a line; --strict: warnings refuse)."""
    from vppcfg import config

    path = config_path(args, "vppcfg plan")
    if path is None:
        return None, [], 2
    try:
        # args.config: the name problems are reported against; args.config_text: for the
        # preflight's line numbers (stdin cannot be read twice)
        args.config, args.config_text = read_config(path)
        options: dict[str, Any] = {}
        desired, warnings = config.check_text(args.config_text, args.config, args.allow,
                                              options)
        args.file_linux_side = options.get("linux-side")
    except config.ConfigError as err:
        for problem in err.problems:
            print(f"vppcfg plan: {problem}", file=sys.stderr)
        return None, [], 2 if isinstance(err, config.ConfigIOError) else 1
    except OSError as err:
        print(f"vppcfg plan: cannot read {path}: {err.strerror or err}", file=sys.stderr)
        return None, [], 2
    show_warnings(warnings)
    if strict_refusal(args, warnings, "vppcfg plan"):
        return None, warnings, 1
    return desired, warnings, 0


def _live(args: argparse.Namespace
          ) -> tuple[Dataplane | None, dict[str, int], Offer | None, int]:
    from vppcfg.linux import LinuxError
    from vppcfg.vpp import VppError

    try:
        with open_vpp(args) as conn:
            return conn.dump(), acl_indexes(conn), conn.offer(), 0
    except (VppError, LinuxError) as err:
        print(f"vppcfg plan: {err}", file=sys.stderr)
        return None, {}, None, 2


def _fresh(desired: Dataplane, args: argparse.Namespace) -> Dataplane | None:
    """--novpp's live side: a fresh VPP, with linux-cp's settings if given."""
    from dataclasses import replace

    from vppcfg.linux import parse_words
    from vppcfg.model import LinuxSide

    fresh = fresh_dataplane(desired)
    if args.linux_cp is None:
        return fresh
    try:
        settings = parse_words(args.linux_cp)
    except ValueError as err:
        print(f"vppcfg plan: --linux-cp: {err}", file=sys.stderr)
        return None
    return replace(fresh, linux=LinuxSide(settings, managed=linux_side(args) != "report"))


def run(args: argparse.Namespace) -> int:
    report_earlier_apply(args.state_dir, "vppcfg plan")
    # Checking, planning and rendering make millions of objects and no cycles:
    # once the collector ran again, its first pass would visit all the checked
    # config's (a tenth of a second at 100,000 objects).
    with gc_paused():
        code, changes = _plan(args)
    warn_pending(args.state_dir, "vppcfg plan")
    if code == NEEDS_ATTENTION:
        return code
    return detailed_exit(args, code, changes)


def warn_pending(state_dir: str, prog: str) -> None:
    """Say when an `apply --confirm` awaits confirmation and its rollback can
    no longer happen (its timer died, or the recorded state is unreadable)."""
    from vppcfg.apply.confirm import pending_trouble

    trouble = pending_trouble(state_dir)
    if trouble:
        print(f"{prog}: warning: {trouble}", file=sys.stderr)


def report_earlier_apply(state_dir: str, prog: str) -> None:
    """First, an earlier apply that did not finish (its journal in the state
    dir), since VPP may be half changed; an unreadable state dir says nothing."""
    from vppcfg.apply import journal

    entry = journal.earlier(state_dir)
    for line in journal.describe(entry) if entry is not None else ():
        print(f"{prog}: {line}", file=sys.stderr)


def preflight_warnings(ops: list[Operation], offer: Offer | None, config: str,
                       desired: Dataplane, prog: str = "vppcfg plan",
                       text: str | None = None) -> list[Finding]:
    """The preflight's findings for `ops`, printed on stderr as warnings."""
    from vppcfg.vpp.preflight import check, format_findings, locator

    if offer is None or not ops:
        return []
    findings = check(ops, offer, locator(config, desired.interfaces, text))
    for line in format_findings(findings):
        print(f"{prog}: warning: {line}" if not line.startswith(" ") else line,
              file=sys.stderr)
    if findings:
        print(f"{prog}: warning: `vppcfg apply` would refuse this plan before any change",
              file=sys.stderr)
    return findings


def _json_chunks(ops: Iterable[Operation], findings: list[Finding], warnings: list[Any],
                 counts: dict[str, int]) -> list[str]:
    """The config's warnings and the operations (``ops`` may be a stream) as
    one JSON document, in pieces, with an operation per line (json_pieces);
    `counts` gets the operations by action. An operation the preflight found
    lacking carries "preflight": the findings that name it."""
    from vppcfg.vpp.preflight import by_operation

    lacks = by_operation(findings)

    def items() -> Iterator[dict[str, Any]]:
        for op in ops:
            counts[op.action] += 1
            item = op.as_dict(plain=False)  # the encoder writes FrozenDicts (_frozen)
            lacking = lacks.get(op[:3]) if lacks else None
            if lacking:
                item["preflight"] = lacking
            yield item

    doc = {"warnings": [w.as_dict() for w in warnings], "operations": items()}
    return json_pieces(doc, ("operations",), _frozen)


def _frozen(value: object) -> dict[str, Any]:
    """What the JSON encoder writes for a FrozenDict (an operation's parameters)."""
    if isinstance(value, FrozenDict):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _plan(args: argparse.Namespace) -> tuple[int, int]:
    """(exit code, number of changes planned)."""
    from vppcfg.objects import RenderError
    from vppcfg.planner import PlanError

    desired, warnings, code = _load(args)
    if desired is None:
        return code, 0
    offer = None
    if args.linux_cp is not None and not args.novpp:
        print("vppcfg plan: --linux-cp goes with --novpp (a VPP says its own settings)",
              file=sys.stderr)
        return 2, 0
    if args.novpp:
        live, acl_indexes = _fresh(desired, args), {}
        if live is None:
            return 2, 0
    else:
        live, acl_indexes, offer, code = _live(args)
        if live is None:
            return code, 0
    deferred: list[str] = []
    counts = {"create": 0, "update": 0, "delete": 0}
    try:
        text, findings = _made(args, desired, live, offer, acl_indexes, warnings, deferred,
                               counts)
    except (PlanError, RenderError) as err:
        print(f"vppcfg plan: {err}", file=sys.stderr)
        return 1, 0
    code = write_output(text, args.output, "vppcfg plan", args.force)
    sys.stdout.flush()  # the summary follows the plan on a terminal, as the docs show it
    print(f"vppcfg plan: {counts['create']} to create, {counts['update']} to change, "
          f"{counts['delete']} to delete", file=sys.stderr)
    warn_deferred(deferred, "vppcfg plan")
    return (NEEDS_ATTENTION if findings and not code else code), sum(counts.values())


def _made(args: argparse.Namespace, desired: Dataplane, live: Dataplane, offer: Offer | None,
          acl_indexes: dict[str, int], warnings: list[Any], deferred: list[str],
          counts: dict[str, int]) -> tuple[list[str], list[Finding]]:
    """The plan's text (in pieces that join to it) and the preflight's findings;
    `counts` gets the operations by action. The CLI of a plan nothing else
    needs whole is rendered as the planner hands the operations out, so the
    operations and their text are never all in memory at once."""
    from vppcfg.commands.linuxside import warn_cli_linux, warn_unowned
    from vppcfg.objects import render_cli_chunks
    from vppcfg.planner import plan, plan_runs, plan_stream

    sync = live.linux is not None and live.linux.settings.sync
    warn_unowned(desired, live, "vppcfg plan")
    if offer is None and live.linux is None:
        if args.format == "json":
            return _json_chunks(plan_stream(desired, live), [], warnings, counts), []
        return render_cli_chunks(plan_runs(desired, live), acl_indexes, deferred, counts), []
    ops = plan(desired, live)
    findings = preflight_warnings(ops, offer, args.config, desired, text=args.config_text)
    if args.format == "json":
        return _json_chunks(ops, findings, warnings, counts), findings
    if args.output or args.format == "cli":
        warn_cli_linux(ops, live, "vppcfg plan")
    return render_cli_chunks(ops, acl_indexes, deferred, counts, sync), findings


def warn_deferred(deferred: list[str], prog: str) -> None:
    """Say that the printed CLI stops short of the file's state, and why."""
    if deferred:
        print(f"{prog}: warning: the printed CLI leaves {len(deferred)} ACL binding(s) to a "
              "second plan, run after it: VPP chooses a new ACL's index and its CLI binds "
              f"ACLs by index only ({', '.join(deferred[:3])}"
              f"{', ...' if len(deferred) > 3 else ''}); `vppcfg apply` binds them in one go",
              file=sys.stderr)
