"""Apply: make the live VPP equal to a desired model, or leave it as it was.

    pre = dump; ops = plan(desired, pre); execute ops; verify: plan(desired, dump) == []

Before the first change, the preflight (vppcfg.vpp.preflight) checks that
VPP offers every message the plan needs; if not, nothing is sent at all.
Any failed call or failed verification rolls back to `pre` the same way:
plan(pre, current) and execute it (best effort, reported). Rollback needs no
undo log because the planner can reach any model from any state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from vppcfg.apply.signals import CHANGE, ROLLBACK, ForcedExit, NoGuard, signal_name
from vppcfg.gcpause import gc_paused
from vppcfg.linux import linux_refusals
from vppcfg.model import Dataplane
from vppcfg.ops import Operation, VppContext

if TYPE_CHECKING:
    from vppcfg.apply.signals import SignalGuard
    from vppcfg.vpp.preflight import Finding, Locate

    Guard = SignalGuard | NoGuard

ROLLBACK_ROUNDS = 2  # a second round fixes what failed for lack of an earlier op


@dataclass
class RollbackReport:
    planned: int = 0
    executed: list[Operation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    remaining: list[Operation] = field(default_factory=list)  # still differs from pre
    aborted: str = ""  # why the rollback could not even be planned (VPP gone, ...)
    reconnected: bool = False  # the apply's socket had failed: a new one was opened
    forced: str = ""  # the signal that cut the rollback short (remaining: what it left)

    @property
    def complete(self) -> bool:
        return not self.remaining and not self.aborted and not self.forced


@dataclass
class Outcome:
    ok: bool
    planned: list[Operation] = field(default_factory=list)
    executed: list[Operation] = field(default_factory=list)
    # pipelined: operations some of whose calls were made, not all (VPP has them in part)
    partial: list[Operation] = field(default_factory=list)
    failed: Operation | None = None
    error: str = ""
    unverified: list[Operation] = field(default_factory=list)  # left after a "successful" run
    rollback: RollbackReport | None = None
    pre: Dataplane | None = None  # the state before the apply (for commit-confirmed)
    timings: dict[str, float] = field(default_factory=dict)
    # mutating API calls made by the apply proper, up to and including the first failure
    calls: int = 0
    waves: int = 0  # pipelined writes-then-reads the execution needed (0: one call at a time)
    # pipelined: calls already sent when the failure came back ("op: message: result")
    after_failure: list[str] = field(default_factory=list)
    # pipelined: calls that got no reply because VPP went away (any may have been made)
    unanswered: int = 0
    # what VPP lacks for the plan: the apply was refused before any change
    preflight: list[Finding] = field(default_factory=list)
    interrupted: str = ""  # the signal that stopped the apply (SIGINT, ...)
    forced: str = ""  # the signal that forced exit during the apply itself: no rollback


def describe(op: Operation) -> str:
    return f"{op.action} {op.obj} {op.key}"


class Engine:
    """The planner and executor in use (swappable for tests of the engine only)."""

    def __init__(
        self,
        plan: Callable[[Dataplane, Dataplane], list[Operation]] | None = None,
        execute: Callable[[Operation, VppContext], None] | None = None,
    ) -> None:
        # the plan with its ordering edges, which pipelining needs (default planner only)
        self.graph: Callable[[Dataplane, Dataplane], tuple[list[Operation], Graph]] | None = None
        if plan is None:
            from vppcfg.planner import plan, plan_graph

            self.graph = plan_graph
        if execute is None:
            from vppcfg.objects import execute
        self.plan = plan
        self.execute = execute


Graph = list[tuple[int, ...]]  # per operation, the earlier ones it must follow


Note = Callable[[str, Sequence[Operation]], None]  # (state, ops): the journal


def apply_config(conn: Any, desired: Dataplane, engine: Engine | None = None,
                 pipeline: bool = True, locate: Locate | None = None,
                 guard: Guard | None = None, note: Note | None = None) -> Outcome:
    """Apply `desired` through `conn` (a VppConnection); roll back on failure.

    With `pipeline` (and a connection and engine that support it) the calls
    go out in waves without waiting for each reply: same plan, same replies
    checked, same rollback; see `run_pipelined`. `locate` names the config
    lines behind an operation, for the preflight's refusal. `guard` (a
    SignalGuard) turns signals into an orderly stop (see vppcfg.apply.signals);
    `note("applying", ops)` runs just before the first change and
    `note("rolling back", ops)` before a rollback (the journal).
    """
    with gc_paused():  # many small objects per call, no cycles
        return _apply(conn, desired, engine or Engine(), pipeline, locate,
                      guard or NoGuard(), note or (lambda state, ops: None))


def _apply(conn: Any, desired: Dataplane, engine: Engine, pipeline: bool,
           locate: Locate | None, guard: Guard, note: Note) -> Outcome:
    pipelined = pipeline and engine.graph is not None and hasattr(conn, "pipelined_context")
    t0 = time.perf_counter()
    pre = conn.dump()
    t1 = time.perf_counter()
    graph: Graph = []
    if pipelined and engine.graph is not None:
        ops, graph = engine.graph(desired, pre)
    else:
        ops = engine.plan(desired, pre)
    t2 = time.perf_counter()
    outcome = Outcome(ok=False, planned=list(ops), pre=pre)
    outcome.timings.update(dump=t1 - t0, plan=t2 - t1)
    if not ops:  # already verified: the plan against the fresh dump is empty
        outcome.ok = True
        return outcome
    outcome.preflight = preflight(conn, ops, locate)
    if outcome.preflight:
        outcome.error = "refused before any change: this VPP cannot carry out the plan"
        return outcome
    refused = linux_refusals(getattr(conn, "linux", None), pre.linux, ops, locate)
    if refused:
        outcome.error = ("refused before any change: Linux cannot take the plan's lcp pairs:\n"
                         + "\n".join(f"  {line}" for line in refused))
        return outcome
    guard.enter(CHANGE)  # from here a signal stops at a reply boundary: counts stay exact
    try:
        note("applying", ops)
        _execute(conn, ops, graph, engine, outcome, guard, pipelined)
        t3 = time.perf_counter()
        outcome.timings["execute"] = t3 - t2
        if not outcome.error:
            _verify_into(conn, desired, engine, outcome, guard)
            outcome.timings["verify"] = time.perf_counter() - t3
            if not outcome.error:
                outcome.ok = True
                return outcome
        note("rolling back", ops)
    except ForcedExit as forced:  # the user's order: no rollback, nothing more sent
        outcome.forced = signal_name(forced.signum)
        outcome.interrupted = outcome.interrupted or outcome.forced
        outcome.error = f"forced exit by {outcome.forced} during the apply; no rollback"
        return outcome
    outcome.rollback = rollback(conn, pre, engine, guard)
    return outcome


def _verify_into(conn: Any, desired: Dataplane, engine: Engine, outcome: Outcome,
                 guard: Guard) -> None:
    """Verify, still under the CHANGE phase: a signal meanwhile undoes the change too."""
    try:
        outcome.error = _verify(conn, desired, engine, outcome)
    except KeyboardInterrupt as err:  # no guard: the change is made but unchecked
        outcome.interrupted = _signal_of(err)
    if guard.signum is not None:
        outcome.interrupted = signal_name(guard.signum)
    if outcome.interrupted:
        outcome.error = f"interrupted by {outcome.interrupted} during verification"


def _execute(conn: Any, ops: Sequence[Operation], graph: Graph, engine: Engine,
             outcome: Outcome, guard: Guard, pipelined: bool) -> None:
    """Run the plan into `outcome` (executed, failed, error); a signal stops
    it between replies (the guard's CHANGE phase), so what was made is known."""
    ctx = conn.pipelined_context(after_dump=True) if pipelined else _context(conn)
    if pipelined:
        ctx.stop_requested = lambda: bool(guard.stopping)
    try:
        if pipelined:
            failed, error = run_pipelined(ops, graph, ctx, engine, outcome)
        else:
            failed, error = run_ops(ops, ctx, engine, outcome.executed, guard)
    except KeyboardInterrupt as err:  # no guard: stop, but still leave VPP as it was
        failed, error = None, ""
        outcome.interrupted = _signal_of(err)
    finally:
        outcome.calls = getattr(ctx, "changes", 0)
    if guard.signum is not None:
        outcome.interrupted = signal_name(guard.signum)
    outcome.failed = failed
    outcome.error = error or (f"interrupted by {outcome.interrupted}" if outcome.interrupted
                              else "")


def _signal_of(err: BaseException) -> str:
    """The signal behind a KeyboardInterrupt (Python's own Ctrl-C: SIGINT)."""
    return signal_name(getattr(err, "signum", 2))


def _verify(conn: Any, desired: Dataplane, engine: Engine, outcome: Outcome) -> str:
    """"" when VPP now plans to nothing against `desired`, else why not."""
    from vppcfg.vpp import VppError

    try:
        outcome.unverified = engine.plan(desired, conn.dump())
    except (VppError, ValueError) as err:  # VPP gone, or the planner refuses
        return f"verification impossible: {err}"
    if outcome.unverified:
        return (f"verification failed: VPP still differs from the config in "
                f"{len(outcome.unverified)} place(s) after the apply")
    return ""


def preflight(conn: Any, ops: Sequence[Operation], locate: Locate | None = None
              ) -> list[Finding]:
    """What VPP lacks for `ops` (nothing to check on a connection that cannot
    say what it offers, such as a test's)."""
    from vppcfg.vpp.preflight import check

    offer = getattr(conn, "offer", None)
    return check(ops, offer(), locate) if offer is not None else []


def run_ops(
    ops: Sequence[Operation], ctx: VppContext, engine: Engine, done: list[Operation],
    guard: Guard | None = None,
) -> tuple[Operation | None, str]:
    """Execute in order; stop at the first failure: (failed op, why) or (None, "");
    or at a signal the guard noted (None, "", the caller asks the guard why)."""
    for op in ops:
        if guard is not None and guard.stopping:
            break
        try:
            engine.execute(op, ctx)
        except Exception as err:  # any failure of one op stops the apply
            return op, f"{describe(op)}: {_why(err)}"
        done.append(op)
    return None, ""


def run_pipelined(ops: Sequence[Operation], graph: Graph, ctx: Any, engine: Engine,
                  outcome: Outcome) -> tuple[Operation | None, str]:
    """Execute in order into the waves of `ctx` (a PipelinedContext), then send them.

    Each operation's calls start no earlier than the last wave of the
    operations it must follow (`graph`); within a wave, calls go out in plan
    order. A failure is reported as in `run_ops` (the first in sending order;
    an operation that raises by itself counts after everything queued before
    it), and every call already sent after it is reported too. When
    `ctx.stop_requested()` (a signal) nothing more is sent, and the replies
    to what was sent are read: (None, "") with `outcome` exact. Whatever
    stops it, even a KeyboardInterrupt, `outcome` says what was made.
    """
    from vppcfg.vpp.context import PipelineFailure, PipelineStopped

    last: list[tuple[int, int]] = []
    progress = [0, len(ops)]  # operations queued; position of the failed one
    error = ""
    try:
        error = _queue_and_send(ops, graph, ctx, engine, last, progress)
    except PipelineFailure as failure:
        progress[1] = failure.call.op
        error = f"{describe(ops[progress[1]])}: {_why(failure.call.error or failure)}"
    except PipelineStopped:
        pass
    finally:
        _pipelined_outcome(ops, ctx, outcome, *progress)
    stop = progress[1]
    return (ops[stop] if stop < len(ops) else None), error


def _queue_and_send(ops: Sequence[Operation], graph: Graph, ctx: Any, engine: Engine,
                    last: list[tuple[int, int]], progress: list[int]) -> str:
    """The loop of run_pipelined; `progress` kept up to date as it goes."""
    from vppcfg.vpp.context import PipelineFailure, PipelineStopped

    for i, op in enumerate(ops):
        if ctx.stop_requested():
            raise PipelineStopped
        epoch = ctx.epoch
        ctx.begin(i, max((w for e, w in (last[j] for j in graph[i]) if e == epoch),
                         default=0))
        progress[0] = i + 1
        try:
            if _pipelines(op):
                engine.execute(op, ctx)
            else:
                with ctx.immediate():
                    engine.execute(op, ctx)
        except (PipelineFailure, PipelineStopped):
            raise
        except Exception as err:  # this op fails, unless something queued before it does
            progress[:] = [i, i]
            error = f"{describe(op)}: {_why(err)}"
            ctx.drain()
            return error
        last.append(ctx.last_wave())
    ctx.drain()
    return ""


def _pipelined_outcome(ops: Sequence[Operation], ctx: Any, outcome: Outcome,
                       reached: int, stop: int) -> None:
    """What the pipelined run made, from the replies read (only those count)."""
    outcome.waves = ctx.waves_sent
    # queued calls without a reply: VPP may have carried out any of them
    outcome.unanswered = ctx.unanswered + ctx.unread()
    outcome.executed.extend(op for i, op in enumerate(ops[:reached])
                            if ctx.completed(i) and (i < stop or ctx.queued.get(i)))
    outcome.partial.extend(op for i, op in enumerate(ops[:reached])
                           if ctx.done.get(i) and not ctx.completed(i))
    outcome.after_failure = [
        f"{describe(ops[c.op])}: {c.message}: {c.error or 'ok'}" for c in ctx.after_failure()]


def _pipelines(op: Operation) -> bool:
    """Whether the object type's executor may have its calls queued."""
    from vppcfg.objects import descriptor

    try:
        return descriptor(op.obj).pipelined
    except ValueError:  # an object type of a test engine
        return True


def rollback(conn: Any, target: Dataplane, engine: Engine | None = None,
             guard: Guard | None = None) -> RollbackReport:
    """Bring VPP back to `target` (a dump), best effort, and say how far it got.
    Under a `guard`, signals do not cut it short, but for a forced exit
    (`forced`; `remaining` then lists what it had yet to do, as far as known)."""
    from vppcfg.vpp import VppError

    report = RollbackReport()
    (guard or NoGuard()).enter(ROLLBACK)
    try:
        if not getattr(conn, "connected", True):  # the socket failed mid-apply
            conn.reconnect()
            report.reconnected = True
        _roll_back(conn, target, engine or Engine(), report)
    except VppError as err:  # cannot even read VPP: say so instead of crashing the report
        report.aborted = str(err)
    except ValueError as err:  # the planner refuses (PlanError)
        report.aborted = f"cannot plan the rollback: {err}"
    except ForcedExit as forced:
        report.forced = signal_name(forced.signum)
        if not report.remaining:  # between rounds: what is left was not worked out
            report.aborted = (f"forced exit by {report.forced} before the rollback knew "
                              "what was left")
    return report


def _roll_back(conn: Any, target: Dataplane, engine: Engine, report: RollbackReport) -> None:
    for _ in range(ROLLBACK_ROUNDS):
        ops = engine.plan(target, claim_new(conn.dump(), target))
        report.planned += len(ops)  # over both rounds, so "undone of needed" adds up
        if not ops:
            break
        ctx = _context(conn)
        for i, op in enumerate(ops):
            try:
                engine.execute(op, ctx)
                report.executed.append(op)
            except ForcedExit:  # the one in hand may be half done: it counts as left
                report.remaining = list(ops[i:])
                raise
            except Exception as err:  # best effort: note it and go on
                report.errors.append(f"{describe(op)}: {_why(err)}")
    report.remaining = engine.plan(target, claim_new(conn.dump(), target))


def claim_new(current: Dataplane, before: Dataplane) -> Dataplane:
    """`current` with the objects that did not exist `before` counted as ours.

    An apply that fails between creating an object and tagging it leaves an
    untagged (so "foreign") object behind; it is still the apply's to undo.
    """
    if not current.foreign:
        return current
    existed = {f"{c}/{k}" for c, objects in before.collections() for k in objects}
    keep = frozenset(k for k in current.foreign if k in existed)
    return current if keep == current.foreign else replace(current, foreign=keep)


def _context(conn: Any) -> VppContext:
    """The executor context, reusing the index map of the dump just made."""
    try:
        return conn.context(after_dump=True)
    except TypeError:  # a connection without that option
        return conn.context()


def _why(err: BaseException) -> str:
    if isinstance(err, KeyError):
        return f"unknown interface {err.args[0]!r}" if err.args else "unknown object"
    return str(err) or type(err).__name__


def format_outcome(outcome: Outcome) -> str:
    """A short human report of an apply."""
    lines: list[str] = []
    if outcome.ok:
        n = len(outcome.executed)
        lines.append(f"applied {n} change(s); VPP matches the config" if n
                     else "nothing to do; VPP already matches the config")
        return "\n".join(lines)
    lines.append(f"apply {'STOPPED' if outcome.interrupted else 'FAILED'}: {outcome.error}")
    if outcome.preflight:
        from vppcfg.vpp.preflight import format_findings

        lines += [f"  {line}" for line in format_findings(outcome.preflight)]
        lines.append(f"nothing was changed ({len(outcome.planned)} change(s) planned)")
        return "\n".join(lines)
    if outcome.planned:
        part = f", {len(outcome.partial)} more in part" if outcome.partial else ""
        lines.append(f"  {len(outcome.executed)} of {len(outcome.planned)} change(s) were made"
                     f"{part}")
    if outcome.failed is not None:
        lines.append(f"  failed: {describe(outcome.failed)}")
    if outcome.unanswered:
        lines.append(f"  {outcome.unanswered} more call(s) got no reply before VPP went away: "
                     "VPP may have carried out any of them")
    if outcome.after_failure:
        errors = [line for line in outcome.after_failure if not line.endswith(": ok")]
        lines.append(f"  {len(outcome.after_failure)} call(s) were already sent after it "
                     f"(pipelined), {len(errors)} of them failed too:")
        lines.extend(f"    {line}" for line in (errors or outcome.after_failure)[:10])
    if outcome.unverified:
        for op in outcome.unverified[:10]:
            lines.append(f"  still different: {describe(op)}")
    if outcome.forced:
        lines.append(f"final state: VPP keeps the {len(outcome.executed)} change(s) made "
                     "(and any of the calls without a reply); it was not rolled back")
    rb = outcome.rollback
    if rb is not None:
        again = " (on a new connection: the first one failed)" if rb.reconnected else ""
        lines.append(f"rollback: {len(rb.executed)} change(s) undone of {rb.planned} needed"
                     f"{again}")
        for err in rb.errors[:10]:
            lines.append(f"  rollback error: {err}")
        if rb.aborted:
            lines.append(f"final state: UNKNOWN, the rollback stopped: {rb.aborted}")
        elif rb.forced:
            lines.append(f"final state: the rollback was cut short (forced exit by {rb.forced});"
                         f" left undone ({len(rb.remaining)}, the first maybe half done):")
            lines += [f"  {describe(op)}" for op in rb.remaining[:10]]
        elif rb.complete:
            lines.append("final state: VPP is back to the state before the apply")
        else:
            lines.append(f"final state: VPP differs from the pre-apply state in "
                         f"{len(rb.remaining)} place(s):")
            for op in rb.remaining[:10]:
                lines.append(f"  {describe(op)}")
    return "\n".join(lines)
