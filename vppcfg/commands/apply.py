"""`vppcfg apply` and `vppcfg confirm`.

apply: validate the config (touching nothing when invalid), take the apply
lock, dump, plan, execute through the API, verify, and roll back on any
failure. With --confirm N the change undoes itself after N seconds unless
`vppcfg confirm` runs first. --dry-run prints the plan as VPP CLI only
(with --detailed-exitcode: 0 nothing to change, 2 changes pending, 1 error).
--format json prints one JSON document on stdout whatever happens (its schema:
schema/apply-result.schema.json, documented in docs/backend-and-apply.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from dataclasses import replace
from typing import Any

from vppcfg import exits, numbers
from vppcfg.apply.paths import DEFAULT_LOCK_FILE, DEFAULT_STATE_DIR
from vppcfg.commands.allow import (
    add_allow_option,
    add_strict_option,
    show_warnings,
    strict_refusal,
)
from vppcfg.commands.common import (
    add_config_argument,
    add_linux_options,
    add_timeout_option,
    add_vpp_options,
    config_path,
    json_pieces,
    open_vpp,
    read_config,
)
from vppcfg.commands.plan import (
    NEEDS_ATTENTION,
    add_detailed_exitcode,
    detailed_exit,
    preflight_warnings,
    report_earlier_apply,
    warn_deferred,
)
from vppcfg.objects.acl import acl_indexes

EXIT_OK, EXIT_FAILED, EXIT_USAGE = exits.OK, exits.FAILED, exits.USAGE
RESULT_VERSION = 1  # of the --format json document (schema/apply-result.schema.json)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "apply", help="make VPP match a config file (verified, rolled back on failure)",
        description="Apply a config to the running VPP through its binary API.",
    )
    add_config_argument(parser)
    add_vpp_options(parser)
    add_linux_options(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default), or one JSON document on stdout with what was "
                        "planned, made, undone (schema/apply-result.schema.json)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the VPP CLI that would be run; change nothing")
    add_detailed_exitcode(parser)
    add_allow_option(parser)
    add_strict_option(parser)
    # at most a week: the timer's own bound (vppcfg.apply.timer.MAX_WAIT)
    parser.add_argument("--confirm", type=numbers.seconds(numbers.WEEK), metavar="SECONDS",
                        help="roll back after SECONDS unless `vppcfg confirm` runs first")
    _add_state_options(parser)
    add_timeout_option(parser)
    parser.set_defaults(func=run_apply)

    confirm = subparsers.add_parser(
        "confirm", help="keep the change of an `apply --confirm`; cancel its rollback",
        description="Confirm the last `vppcfg apply --confirm`, cancelling its rollback timer.",
    )
    _add_state_options(confirm, lock=False)
    confirm.add_argument("--format", choices=("text", "json"), default="text",
                         help='text (default), or JSON: {"confirmed": bool, "message": str}')
    confirm.set_defaults(func=run_confirm)


def _add_state_options(parser: argparse.ArgumentParser, lock: bool = True) -> None:
    if lock:
        parser.add_argument("--lock-file", default=DEFAULT_LOCK_FILE, metavar="PATH",
                            help=f"lock held while applying (default {DEFAULT_LOCK_FILE})")
    parser.add_argument("--state-dir", default=DEFAULT_STATE_DIR, metavar="DIR",
                        help=f"commit-confirmed state (default {DEFAULT_STATE_DIR})")


def _err(text: str, args: argparse.Namespace | None = None) -> None:
    print(f"vppcfg apply: {text}", file=sys.stderr)
    result = getattr(args, "result", None)
    if result is not None:  # --format json: the document says it too
        result["errors"].append(text)


def load_desired(path: str, args: argparse.Namespace | None = None) -> tuple[Any, int]:
    """(desired model, 0) or (None, exit code) with the problems printed; the
    warnings are shown (stderr, once) and, with --strict, refuse. `-` is stdin:
    args.config becomes the name problems name, args.config_text its text."""
    from vppcfg import config

    result = getattr(args, "result", None)
    try:
        name, text = read_config(path)
        if args is not None:
            args.config, args.config_text = name, text
        options: dict[str, Any] = {}
        desired, warnings = config.check_text(text, name, getattr(args, "allow", ()), options)
        args.file_linux_side = options.get("linux-side")
        show_warnings(warnings)
        if result is not None:
            result["warnings"] = [w.as_dict() for w in warnings]
        if strict_refusal(args, warnings, "vppcfg apply"):
            return None, EXIT_FAILED
        return desired, EXIT_OK
    except config.ConfigIOError as err:
        _note_problems(result, err.problems)
        _err(str(err), args)
        return None, EXIT_USAGE
    except config.ConfigError as err:
        for problem in err.problems:
            print(problem, file=sys.stderr)
        _note_problems(result, err.problems)
        _err(f"{name} is invalid ({len(err.problems)} problem(s)); nothing was changed", args)
        return None, EXIT_FAILED


def _note_problems(result: dict[str, Any] | None, problems: list[Any]) -> None:
    if result is not None:
        result["problems"] = [p.as_dict() for p in problems]


def run_apply(args: argparse.Namespace) -> int:
    """`vppcfg apply`; with --format json its result as one document on stdout."""
    path = config_path(args, "vppcfg apply")
    if path is None:
        return EXIT_USAGE
    args.config, args.config_text = path, None  # load_desired names stdin <stdin>
    if args.format != "json":
        args.result = None
        return _run_apply(args, path)
    args.result = new_result(path, args.dry_run)
    try:
        code = _run_apply(args, path)
    except BaseException as err:
        # a document whatever happens (Ctrl-C, a bug): the caller (Ansible) must not
        # read "unchanged" from a missing one; `guarded` then says it in one line
        interrupted = isinstance(err, KeyboardInterrupt)
        args.result["error"] = "interrupted" if interrupted else f"{type(err).__name__}: {err}"
        args.result["changed"] = not args.dry_run  # not known: say "may have changed"
        finish_result(args.result, exits.INTERRUPTED if interrupted else exits.INTERNAL,
                      args.config)
        _print_result(args.result)
        raise
    finish_result(args.result, code, args.config)
    _print_result(args.result)
    return code


# The result's lists of operations: an operation per line (see json_pieces)
OPERATION_LISTS = ("planned", "executed", "partial", "unverified")


def _print_result(result: dict[str, Any]) -> None:
    sys.stdout.writelines(json_pieces(result, OPERATION_LISTS))
    sys.stdout.flush()


def new_result(config: str, dry_run: bool) -> dict[str, Any]:
    """The --format json document before anything happened (every key present)."""
    return {
        "version": RESULT_VERSION, "config": config, "dry_run": dry_run, "ok": False,
        "changed": False, "exit_code": None, "errors": [], "problems": [], "warnings": [],
        "planned": [], "executed": [], "partial": [], "failed": None, "error": "", "unverified": [],
        "after_failure": [], "unanswered": 0, "preflight": [], "rollback": None,
        "confirm": None, "seconds": None, "report": "", "interrupted": "",
        "earlier_apply": None,
    }


def finish_result(result: dict[str, Any], code: int, config: str) -> None:
    result["exit_code"] = code
    result["config"] = config
    # --detailed-exitcode 2 (changes pending) and 3 (preflight) are plans, not errors
    result["ok"] = not result["errors"] and not result["error"] and code in (0, 2, 3)


def outcome_result(result: dict[str, Any], outcome: Any) -> None:
    """An apply's Outcome into the JSON document."""
    from vppcfg.apply import format_outcome

    ops = lambda items: [op.as_dict() for op in items]  # noqa: E731 - four uses below
    rb = outcome.rollback
    result.update(
        planned=ops(outcome.planned), executed=ops(outcome.executed),
        partial=ops(outcome.partial),
        failed=outcome.failed.as_dict() if outcome.failed is not None else None,
        error=outcome.error, unverified=ops(outcome.unverified),
        after_failure=list(outcome.after_failure), unanswered=outcome.unanswered,
        preflight=[f.as_dict() for f in outcome.preflight],
        report=format_outcome(outcome), interrupted=outcome.interrupted,
        rollback=None if rb is None else {
            "planned": rb.planned, "executed": ops(rb.executed), "errors": list(rb.errors),
            "remaining": ops(rb.remaining), "aborted": rb.aborted, "complete": rb.complete,
            "forced": rb.forced,
        },
    )
    # VPP stays changed unless nothing was made or a rollback undid all of it
    undone = rb is not None and rb.complete
    made = outcome.executed or outcome.partial or outcome.unanswered
    result["changed"] = bool(made) and not undone


def _run_apply(args: argparse.Namespace, path: str) -> int:
    from vppcfg.apply.confirm import ConfirmError, is_pending, pending_trouble
    from vppcfg.apply.lock import ApplyLock, LockBusy, LockError
    from vppcfg.apply.signals import Interrupted, SignalGuard
    from vppcfg.linux import LinuxError
    from vppcfg.objects import RenderError
    from vppcfg.planner import PlanError
    from vppcfg.safefile import UnsafePath
    from vppcfg.vpp import VppError

    if args.detailed_exitcode and not args.dry_run:
        _err("--detailed-exitcode needs --dry-run", args)
        return EXIT_USAGE
    desired, code = load_desired(path, args)
    if desired is None:
        return detailed_exit(args, code, 0)
    try:
        if args.dry_run:
            with open_vpp(args) as conn:
                return _dry_run(conn, desired, args)
        with ApplyLock(args.lock_file):
            if is_pending(args.state_dir):
                trouble = pending_trouble(args.state_dir)
                _err("an earlier `apply --confirm` awaits confirmation; run `vppcfg confirm` "
                     + (f"first: {trouble}" if trouble else "(or wait for its rollback) first"),
                     args)
                return EXIT_FAILED
            _report_earlier(args)
            with SignalGuard("vppcfg apply") as guard, open_vpp(args) as conn:
                return _apply(conn, desired, args, guard)
    except Interrupted as err:  # before the first change (the guard's READ phase)
        if args.result is not None:
            args.result["interrupted"] = str(err)
        _err(f"interrupted by {err} before any change; nothing was changed", args)
        return exits.INTERRUPTED
    except JournalError as err:
        _err(f"{err}; nothing was changed", args)
        return EXIT_USAGE
    except (LockBusy, LockError) as err:
        _err(str(err), args)
        return EXIT_FAILED if isinstance(err, LockBusy) else EXIT_USAGE
    except UnsafePath as err:  # a state directory that is not ours alone
        _err(str(err), args)
        return EXIT_USAGE
    except (VppError, LinuxError) as err:
        _err(str(err), args)
        return detailed_exit(args, EXIT_USAGE, 0)
    except (ConfirmError, PlanError, RenderError) as err:
        _err(str(err), args)
        return detailed_exit(args, EXIT_FAILED, 0)


def _dry_run(conn: Any, desired: Any, args: argparse.Namespace) -> int:
    from vppcfg.commands.linuxside import warn_unowned
    from vppcfg.objects import render_cli
    from vppcfg.planner import plan

    live = conn.dump()
    ops = plan(desired, live)
    findings = preflight_warnings(ops, conn.offer(), args.config, desired, "vppcfg apply",
                                  text=args.config_text)
    warn_unowned(desired, live, "vppcfg apply")
    deferred: list[str] = []
    sync = live.linux is not None and live.linux.settings.sync
    text = render_cli(ops, acl_indexes(conn), deferred, sync)
    if text and not text.endswith("\n"):
        text += "\n"
    if args.result is None:
        sys.stdout.write(text)
    else:  # the plan, as operations and as the CLI lines a text dry run prints
        args.result.update(planned=[op.as_dict() for op in ops],
                           preflight=[f.as_dict() for f in findings], report=text)
    print(f"# dry run: {len(ops)} change(s) would be made; nothing was changed", file=sys.stderr)
    if args.result is None:
        warn_deferred(deferred, "vppcfg apply")
    if findings:
        return NEEDS_ATTENTION
    return detailed_exit(args, EXIT_OK, len(ops))


class JournalError(Exception):
    """The apply journal cannot be written: no change is made without it."""


def _report_earlier(args: argparse.Namespace) -> None:
    """Say first that an earlier apply did not finish (and keep its record
    aside until an apply makes VPP match a config)."""
    from vppcfg.apply import journal

    entry = journal.earlier(args.state_dir)
    if entry is None:
        return
    report_earlier_apply(args.state_dir, "vppcfg apply")
    if args.result is not None:
        args.result["earlier_apply"] = entry
    journal.set_aside(args.state_dir)


def _journal(args: argparse.Namespace, entry: dict[str, Any]) -> Any:
    """The engine's note(state, ops): the journal written before the first
    change (JournalError when it cannot be) and updated when rolling back."""
    from vppcfg.apply import journal

    def note(state: str, ops: Any) -> None:
        if state == "applying":
            try:
                entry.update(journal.start(args.state_dir, {
                    "config": os.path.abspath(args.config), "planned": len(ops),
                    "api_socket": args.vpp_api_socket}))
            except OSError as err:
                raise JournalError(f"cannot write the apply journal in {args.state_dir}: "
                                   f"{err.strerror or err}") from None
        else:
            entry.update(journal.update(args.state_dir, entry, state=state))
    return note


def _apply(conn: Any, desired: Any, args: argparse.Namespace, guard: Any) -> int:
    from vppcfg.apply import apply_config, format_outcome
    from vppcfg.apply.signals import FINISH
    from vppcfg.vpp.preflight import locator

    started = time.perf_counter()
    entry: dict[str, Any] = {}
    outcome = apply_config(conn, desired,
                           locate=locator(args.config, desired.interfaces, args.config_text),
                           guard=guard, note=_journal(args, entry))
    guard.enter(FINISH)
    _close_journal(args, outcome, entry)
    report = format_outcome(outcome)
    seconds = time.perf_counter() - started
    if args.result is not None:
        outcome_result(args.result, outcome)
        args.result["seconds"] = round(seconds, 3)
    if not outcome.ok:
        print(report, file=sys.stderr)
        if outcome.interrupted and args.confirm:
            _err("the confirm timer was not armed yet: rolled back at once", args)
        return exits.INTERRUPTED if outcome.interrupted else EXIT_FAILED
    _say(args, f"{report} ({seconds:.2f}s)")
    if conn.linux is not None and not conn.linux.managed:
        from vppcfg.commands.linuxside import warn_unowned

        warn_unowned(desired, conn.dump(), "vppcfg apply")
    if args.confirm and outcome.executed:
        return _arm_confirm(conn, outcome, args, guard)
    return EXIT_OK


def _close_journal(args: argparse.Namespace, outcome: Any, entry: dict[str, Any]) -> None:
    """Remove the journal when the apply ended cleanly; else leave in it what
    is left undone (a forced exit, a rollback that did not complete)."""
    from vppcfg.apply import describe, journal

    if not entry:  # nothing was changed: no journal was written
        return
    rb = outcome.rollback
    if outcome.ok or (rb is not None and rb.complete):
        journal.finish(args.state_dir, clean_slate=outcome.ok)
    elif outcome.forced:
        journal.update(args.state_dir, entry, state=f"applying (forced exit by {outcome.forced})",
                       made=[describe(op) for op in outcome.executed],
                       unanswered=outcome.unanswered)
    elif rb is not None:
        state = (f"rolling back (forced exit by {rb.forced})" if rb.forced
                 else "rolled back in part")
        journal.update(args.state_dir, entry, state=state,
                       left_undone=None if rb.aborted else [describe(op) for op in rb.remaining])


def _arm_confirm(conn: Any, outcome: Any, args: argparse.Namespace, guard: Any) -> int:
    """Record the pre-apply state and start the rollback timer; without a
    safety net the change is not kept: roll back at once."""
    from vppcfg.apply import Outcome, format_outcome, rollback
    from vppcfg.apply.confirm import ConfirmError, Pending, discard, record, start_timer
    from vppcfg.safefile import UnsafePath

    pending = Pending(
        pre=outcome.pre, api_socket=os.path.abspath(args.vpp_api_socket),
        json_dir=os.path.abspath(args.vpp_json_dir), lock_file=os.path.abspath(args.lock_file),
        deadline=time.time() + args.confirm, timeout=args.timeout,
        linux_socket=conn.linux.socket if conn.linux is not None else "",
    )
    try:
        record(args.state_dir, pending)
        pid = start_timer(args.state_dir)
    except (ConfirmError, OSError, UnsafePath) as err:
        _err(f"cannot arm the confirm timer ({err}); rolling back", args)
        discard(args.state_dir)  # no timer watches it; it would block every later apply
        failed = Outcome(ok=False, error="no confirm timer",
                         rollback=rollback(conn, outcome.pre, guard=guard))
        if args.result is not None:
            outcome_result(args.result, replace(failed, planned=outcome.planned,
                                                executed=outcome.executed))
        print(format_outcome(failed), file=sys.stderr)
        return EXIT_FAILED
    if args.result is not None:
        args.result["confirm"] = {"seconds": args.confirm, "deadline": pending.deadline,
                                  "timer_pid": pid}
    again = ("" if args.state_dir == DEFAULT_STATE_DIR
             else f" --state-dir {shlex.quote(args.state_dir)}")
    _say(args, f"run `vppcfg confirm{again}` within {args.confirm:g}s to keep this change, "
         f"or it is rolled back (timer pid {pid})")
    if guard.stopping:  # a signal came once the change was made: the timer decides
        _err(f"{guard.stopping} after the change was made: the confirm timer stays armed", args)
        return exits.INTERRUPTED
    return EXIT_OK


def _say(args: argparse.Namespace, text: str) -> None:
    """A line of the text report on stdout (with --format json: stderr, stdout is the JSON)."""
    print(text, file=sys.stdout if args.result is None else sys.stderr)


def run_confirm(args: argparse.Namespace) -> int:
    from vppcfg.apply.confirm import ConfirmError, confirm
    from vppcfg.safefile import UnsafePath

    try:
        message, code = confirm(args.state_dir), EXIT_OK
    except (ConfirmError, UnsafePath) as err:
        message = str(err)
        code = EXIT_USAGE if isinstance(err, UnsafePath) else EXIT_FAILED
        print(f"vppcfg confirm: {err}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps({"confirmed": code == EXIT_OK, "message": message}))
    elif code == EXIT_OK:
        print(message)
    return code
