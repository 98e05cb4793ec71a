"""The executor's view of VPP: `vppcfg.ops.VppContext` over a VppConnection."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

from vppcfg.vpp.errors import VppError
from vppcfg.vpp.plain import plain_list
from vppcfg.vpp_numbers import NONE_INDEX

# Messages that only read; everything else counts as a change (for fault
# injection, audit and "touching nothing" checks).
READ_ONLY_SUFFIXES = ("_dump", "_get", "_get_v2")
READ_ONLY = {"cli_inband", "control_ping", "show_version", "show_threads"}


@cache
def is_mutating(message: str) -> bool:
    return not (message in READ_ONLY or message.endswith(READ_ONLY_SUFFIXES))


class ApiContext:
    """Calls with retval checking, plus the name -> sw_if_index map.

    The map is read from VPP once, then kept up to date by the executor
    (`learn` after a create, `forget` after a delete), so executing a plan
    needs no extra dumps.
    """

    def __init__(self, conn: Any, index: dict[str, int] | None = None) -> None:
        self.conn = conn
        self._index: dict[str, int] = {}
        # name -> the known names that start with it and a dot (its sub-interfaces):
        # a delete forgets them too, without a walk over every name (a plan
        # deleting tens of thousands of interfaces made that quadratic)
        self._under: dict[str, set[str]] = {}
        self.changes = 0  # mutating calls made through this context
        self.refresh(index)

    def refresh(self, index: dict[str, int] | None = None) -> None:
        """(Re-)read the name -> index maps from VPP, unless `index` is given."""
        if index is None:
            details = plain_list(self.conn.call("sw_interface_dump", sw_if_index=NONE_INDEX))
            index = {d["interface_name"]: d["sw_if_index"] for d in details}
        self._index, self._under = {}, {}
        for name, sw_if_index in index.items():
            self.learn(name, sw_if_index)

    # -- VppContext ---------------------------------------------------------

    def call(self, message: str, **args: Any) -> Any:
        if is_mutating(message):
            self.changes += 1
        return self.conn.call(message, **args)

    def has_message(self, message: str) -> bool:
        return self.conn.has_message(message)

    def sw_if_index(self, name: str) -> int:
        return self._index[name]

    def learn(self, name: str, sw_if_index: int) -> None:
        self._index[name] = sw_if_index
        for prefix in _dotted_prefixes(name):
            self._under.setdefault(prefix, set()).add(name)

    def forget(self, name: str) -> None:
        """A deleted interface: its name and those of its sub-interfaces (VPP
        deletes them with it) are no longer known."""
        for known in {name, *self._under.pop(name, ())}:
            self._index.pop(known, None)
            for prefix in _dotted_prefixes(known):
                under = self._under.get(prefix)
                if under is not None:
                    under.discard(known)

    def names(self) -> dict[str, int]:
        return dict(self._index)


def _dotted_prefixes(name: str) -> Iterator[str]:
    """Each part of `name` before one of its dots: "a.1.2" -> "a", "a.1"."""
    at = name.find(".")
    while at >= 0:
        yield name[:at]
        at = name.find(".", at + 1)


# -- pipelined execution ---------------------------------------------------------

WAVE_WINDOW = 1024  # requests per write within a wave (bounds socket buffers)


@dataclass(slots=True, eq=False)
class QueuedCall:
    """One mutating call of a pipelined apply, and what became of it."""

    op: int  # position of its operation in the plan
    message: str
    args: dict[str, Any]
    wave: int
    reply: Any = None
    error: Exception | None = None
    sent: bool = False


class Later:
    """A field of a reply not read yet (a new interface's sw_if_index). Passed
    as an argument, it puts the call in a later wave; used as a number, it
    sends and reads everything queued so far (`PipelinedContext.drain`)."""

    __slots__ = ("call", "ctx", "field")

    def __init__(self, ctx: PipelinedContext, call: QueuedCall, field: str) -> None:
        self.ctx, self.call, self.field = ctx, call, field

    def value(self) -> Any:
        if not self.call.sent:
            self.ctx.drain()
        if self.call.reply is None:
            raise VppError(f"{self.call.message}: no reply to take {self.field} from")
        return getattr(self.call.reply, self.field)

    def __index__(self) -> int:
        return int(self.value())

    __int__ = __index__

    def __repr__(self) -> str:
        return f"<{self.field} of {self.call.message}, wave {self.call.wave}>"


class _LaterReply:
    """What `PipelinedContext.call` returns: every field is a Later."""

    def __init__(self, ctx: PipelinedContext, call: QueuedCall) -> None:
        self._ctx, self._call = ctx, call

    def __getattr__(self, name: str) -> Later:
        if name.startswith("_"):
            raise AttributeError(name)
        return Later(self._ctx, self._call, name)


class PipelineFailure(VppError):
    """A pipelined call failed; `call` is the first failure in sending order."""

    def __init__(self, call: QueuedCall) -> None:
        self.call = call
        super().__init__(str(call.error))


class PipelineStopped(Exception):
    """`stop_requested` said stop: nothing more was sent, every reply was read."""


class PipelinedContext(ApiContext):
    """An ApiContext whose mutating calls are queued in waves and sent without
    waiting for replies (VPP answers in order on one socket).

    A call goes into the wave after the ones whose replies it needs (a new
    interface's index), and never before an earlier call of its own
    operation or the `begin` wave of its operation (the executor passes the
    last wave of the operations it must follow). `drain` sends the waves in
    order, `window` requests per write, and checks every reply; the first
    failure stops it after the write it is in, whose other replies are still
    read (`after_failure`), and raises PipelineFailure. Read-only calls, and
    a Later used as a number, drain first, so they see every earlier change.
    """

    def __init__(self, conn: Any, index: dict[str, int] | None = None,
                 window: int = WAVE_WINDOW) -> None:
        super().__init__(conn, index)
        self.window = window
        self.waves: list[list[QueuedCall]] = []
        self.sent: list[QueuedCall] = []  # every call sent, in sending order
        self.failure: QueuedCall | None = None
        self._failed_at = 0  # position of the failure in `sent`
        self.waves_sent = 0
        # calls of a wave that got no reply because VPP went away: written or not,
        # VPP may have carried out any of them
        self.unanswered = 0
        self.queued: dict[int, int] = {}  # operation -> calls queued
        self.done: dict[int, int] = {}  # operation -> calls answered without error
        self.epoch = 0  # drains so far: waves are numbered afresh after each
        self._op = -1
        self._op_wave = 0
        self._immediate = False
        # asked between writes: True stops sending (a signal during an apply)
        self.stop_requested: Callable[[], bool] = lambda: False
        self._cut: list[QueuedCall] = []  # the wave a KeyboardInterrupt cut into

    # -- the executor's side --------------------------------------------------

    def begin(self, op: int, wave: int) -> None:
        """Calls of operation `op` go in wave `wave` or later."""
        self._op, self._op_wave = op, wave

    def last_wave(self) -> tuple[int, int]:
        """(epoch, wave) of the current operation's last call."""
        return self.epoch, self._op_wave

    def drain(self) -> None:
        """Send every queued wave in order and check the replies."""
        if self.failure is not None:
            raise PipelineFailure(self.failure)
        waves, self.waves = self.waves, []
        self.epoch += 1
        for wave in waves:
            if wave:
                self.waves_sent += 1
                self._send_wave(wave)

    # -- VppContext -------------------------------------------------------------

    @contextmanager
    def immediate(self) -> Iterator[None]:
        """Calls made inside go out one at a time, after everything queued, and
        raise on a refusal (for executors that look at outcomes themselves)."""
        self.drain()
        self._immediate = True
        try:
            yield
        finally:
            self._immediate = False

    def call(self, message: str, **args: Any) -> Any:
        if not is_mutating(message):
            self.drain()
            return self.conn.call(message, **args)
        if self._immediate:
            return self._call_now(message, args)
        if not self.conn.has_message(message):  # this operation fails, not the wave it joins
            raise self.conn.missing(message)
        wave = self._op_wave
        for name, value in args.items():
            if isinstance(value, Later):
                if value.call.sent:
                    args[name] = value.value()
                else:
                    wave = max(wave, value.call.wave + 1)
        self._op_wave = wave
        call = QueuedCall(self._op, message, args, wave)
        self.queued[self._op] = self.queued.get(self._op, 0) + 1
        while len(self.waves) <= wave:
            self.waves.append([])
        self.waves[wave].append(call)
        return _LaterReply(self, call)

    def _call_now(self, message: str, args: dict[str, Any]) -> Any:
        self.changes += 1
        reply = self.conn.call(message, **args)  # a refusal raises to the executor
        call = QueuedCall(self._op, message, args, self._op_wave, reply, None, True)
        self.sent.append(call)
        self.queued[self._op] = self.queued.get(self._op, 0) + 1
        self.done[self._op] = self.done.get(self._op, 0) + 1
        return reply

    # -- sending ------------------------------------------------------------------

    def _send_wave(self, wave: list[QueuedCall]) -> None:
        for call in wave:  # what they wait for came in an earlier wave
            call.args = {k: v.value() if isinstance(v, Later) else v
                         for k, v in call.args.items()}

        def check(start: int, replies: list[Any]) -> bool:
            self._check(wave[start:start + len(replies)], replies)
            return self.failure is not None or self.stop_requested()

        try:
            self.conn.call_many([(c.message, c.args) for c in wave], self.window, check)
        except KeyboardInterrupt:  # which of the unanswered were written is not known
            self._cut = wave
            raise
        except VppError as err:  # VPP gone: the first unanswered call failed
            call = next((c for c in wave if not c.sent), wave[-1])
            self.unanswered = sum(1 for c in wave if not c.sent and c is not call)
            call.error, call.sent = err, True
            self.changes += 1
            self._fail(call)
            raise PipelineFailure(call) from err
        if self.failure is not None:
            raise PipelineFailure(self.failure)
        if any(not c.sent for c in wave):  # stop_requested: the rest was never written
            raise PipelineStopped

    def _check(self, batch: list[QueuedCall], replies: list[Any]) -> None:
        for call, reply in zip(batch, replies, strict=True):
            call.sent, call.reply = True, reply
            if self.failure is None:
                self.changes += 1
            try:
                self.conn.check(call.message, call.args, reply)
            except VppError as err:
                call.error = err
                if self.failure is None:
                    self._fail(call)
                    continue
            else:
                self.done[call.op] = self.done.get(call.op, 0) + 1
            self.sent.append(call)

    def _fail(self, call: QueuedCall) -> None:
        self.failure, self._failed_at = call, len(self.sent)
        self.sent.append(call)

    def completed(self, op: int) -> bool:
        """Whether every call operation `op` queued was answered without error."""
        return self.done.get(op, 0) == self.queued.get(op, 0)

    def unread(self) -> int:
        """Calls of the wave a KeyboardInterrupt cut into that got no reply
        (written or not: VPP may have carried out any of them)."""
        return sum(1 for c in self._cut if not c.sent)

    def after_failure(self) -> list[QueuedCall]:
        """Calls that were already sent when the first failure came back."""
        return [] if self.failure is None else self.sent[self._failed_at + 1:]
