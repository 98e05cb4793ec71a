"""`vppcfg apply` and `vppcfg confirm`.

apply: validate the config (touching nothing when invalid), take the apply
lock, dump, plan, execute through the API, verify, and roll back on any
failure. With --confirm N the change undoes itself after N seconds unless
`vppcfg confirm` runs first. --dry-run prints the plan as VPP CLI only
(with --detailed-exitcode: 0 nothing to change, 2 changes pending, 1 error).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from vppcfg.apply.paths import DEFAULT_LOCK_FILE, DEFAULT_STATE_DIR
from vppcfg.commands.allow import (
    add_allow_option,
    add_strict_option,
    show_warnings,
    strict_refusal,
)
from vppcfg.commands.common import add_vpp_options
from vppcfg.commands.plan import (
    NEEDS_ATTENTION,
    add_detailed_exitcode,
    detailed_exit,
    preflight_warnings,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "apply", help="make VPP match a config file (verified, rolled back on failure)",
        description="Apply a config to the running VPP through its binary API.",
    )
    parser.add_argument("-c", "--config", required=True, metavar="FILE", help="the config file")
    add_vpp_options(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the VPP CLI that would be run; change nothing")
    add_detailed_exitcode(parser)
    add_allow_option(parser)
    add_strict_option(parser)
    parser.add_argument("--confirm", type=_positive, metavar="SECONDS",
                        help="roll back after SECONDS unless `vppcfg confirm` runs first")
    _add_state_options(parser)
    parser.add_argument("--timeout", type=float, default=5.0, help=argparse.SUPPRESS)
    parser.set_defaults(func=run_apply)

    confirm = subparsers.add_parser(
        "confirm", help="keep the change of an `apply --confirm`; cancel its rollback",
        description="Confirm the last `vppcfg apply --confirm`, cancelling its rollback timer.",
    )
    _add_state_options(confirm, lock=False)
    confirm.set_defaults(func=run_confirm)


def _add_state_options(parser: argparse.ArgumentParser, lock: bool = True) -> None:
    if lock:
        parser.add_argument("--lock-file", default=DEFAULT_LOCK_FILE, metavar="PATH",
                            help=f"lock held while applying (default {DEFAULT_LOCK_FILE})")
    parser.add_argument("--state-dir", default=DEFAULT_STATE_DIR, metavar="DIR",
                        help=f"commit-confirmed state (default {DEFAULT_STATE_DIR})")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def _err(text: str) -> None:
    print(f"vppcfg apply: {text}", file=sys.stderr)


def load_desired(path: str, args: argparse.Namespace | None = None) -> tuple[Any, int]:
    """(desired model, 0) or (None, exit code) with the problems printed; the
    warnings are shown (stderr, once) and, with --strict, refuse."""
    from vppcfg import config

    try:
        desired, warnings = config.check_file(path, getattr(args, "allow", ()))
        show_warnings(warnings)
        if strict_refusal(args, warnings, "vppcfg apply"):
            return None, EXIT_FAILED
        return desired, EXIT_OK
    except config.ConfigIOError as err:
        _err(str(err))
        return None, EXIT_USAGE
    except config.ConfigError as err:
        for problem in err.problems:
            print(problem, file=sys.stderr)
        _err(f"{path} is invalid ({len(err.problems)} problem(s)); nothing was changed")
        return None, EXIT_FAILED


def run_apply(args: argparse.Namespace) -> int:
    from vppcfg.apply.confirm import ConfirmError, is_pending, timer_alive
    from vppcfg.apply.lock import ApplyLock, LockBusy, LockError
    from vppcfg.objects import RenderError
    from vppcfg.planner import PlanError
    from vppcfg.vpp import VppConnection, VppError

    if args.detailed_exitcode and not args.dry_run:
        _err("--detailed-exitcode needs --dry-run")
        return EXIT_USAGE
    desired, code = load_desired(args.config, args)
    if desired is None:
        return detailed_exit(args, code, 0)
    try:
        if args.dry_run:
            with VppConnection.open(args.vpp_api_socket, args.vpp_json_dir, args.timeout) as conn:
                return _dry_run(conn, desired, args)
        with ApplyLock(args.lock_file):
            if is_pending(args.state_dir):
                _err("an earlier `apply --confirm` awaits confirmation; run `vppcfg confirm` "
                     + ("(or wait for its rollback) first" if timer_alive(args.state_dir)
                        else "first (its rollback timer is no longer running)"))
                return EXIT_FAILED
            with VppConnection.open(args.vpp_api_socket, args.vpp_json_dir, args.timeout) as conn:
                return _apply(conn, desired, args)
    except (LockBusy, LockError) as err:
        _err(str(err))
        return EXIT_FAILED if isinstance(err, LockBusy) else EXIT_USAGE
    except VppError as err:
        _err(str(err))
        return detailed_exit(args, EXIT_USAGE, 0)
    except (ConfirmError, PlanError, RenderError) as err:
        _err(str(err))
        return detailed_exit(args, EXIT_FAILED, 0)


def _dry_run(conn: Any, desired: Any, args: argparse.Namespace) -> int:
    from vppcfg.objects import render_cli
    from vppcfg.planner import plan

    ops = plan(desired, conn.dump())
    findings = preflight_warnings(ops, conn.offer(), args.config, desired, "vppcfg apply")
    text = render_cli(ops, conn.acl_indexes())
    if text and not text.endswith("\n"):
        text += "\n"
    sys.stdout.write(text)
    print(f"# dry run: {len(ops)} change(s) would be made; nothing was changed", file=sys.stderr)
    if findings:
        return NEEDS_ATTENTION
    return detailed_exit(args, EXIT_OK, len(ops))


def _apply(conn: Any, desired: Any, args: argparse.Namespace) -> int:
    from vppcfg.apply import apply_config, format_outcome
    from vppcfg.vpp.preflight import locator

    started = time.perf_counter()
    outcome = apply_config(conn, desired, locate=locator(args.config, desired.interfaces))
    report = format_outcome(outcome)
    if not outcome.ok:
        print(report, file=sys.stderr)
        return EXIT_FAILED
    print(f"{report} ({time.perf_counter() - started:.2f}s)")
    if args.confirm and outcome.executed:
        return _arm_confirm(conn, outcome, args)
    return EXIT_OK


def _arm_confirm(conn: Any, outcome: Any, args: argparse.Namespace) -> int:
    """Record the pre-apply state and start the rollback timer; without a
    safety net the change is not kept: roll back at once."""
    from vppcfg.apply import Outcome, format_outcome, rollback
    from vppcfg.apply.confirm import ConfirmError, Pending, discard, record, start_timer

    pending = Pending(
        pre=outcome.pre, api_socket=os.path.abspath(args.vpp_api_socket),
        json_dir=os.path.abspath(args.vpp_json_dir), lock_file=os.path.abspath(args.lock_file),
        deadline=time.time() + args.confirm, timeout=args.timeout,
    )
    try:
        record(args.state_dir, pending)
        pid = start_timer(args.state_dir)
    except (ConfirmError, OSError) as err:
        _err(f"cannot arm the confirm timer ({err}); rolling back")
        discard(args.state_dir)  # no timer watches it; it would block every later apply
        failed = Outcome(ok=False, error="no confirm timer", rollback=rollback(conn, outcome.pre))
        print(format_outcome(failed), file=sys.stderr)
        return EXIT_FAILED
    print(f"run `vppcfg confirm` within {args.confirm:g}s to keep this change, "
          f"or it is rolled back (timer pid {pid})")
    return EXIT_OK


def run_confirm(args: argparse.Namespace) -> int:
    from vppcfg.apply.confirm import ConfirmError, confirm

    try:
        print(confirm(args.state_dir))
    except ConfirmError as err:
        print(f"vppcfg confirm: {err}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
