"""Signals during an apply: SIGINT (Ctrl-C), SIGTERM and SIGHUP alike.

Python's default Ctrl-C raises wherever the program is, which during a
pipelined apply left replies unread (so "0 changes made" was said of a VPP
that had made thousands) and could cut a rollback short without a word. The
guard gives each phase of an apply its own answer to a signal:

    READ      nothing changed yet, or only reading: raise `Interrupted` at once
    CHANGE    note it; the executor stops at the next reply boundary, so
              every call sent has its reply read and the count is exact
    ROLLBACK  note it and say the rollback goes on; it is not cut short
    FINISH    the apply is over (its report, the confirm timer): note it

In CHANGE and ROLLBACK, the FORCE_AFTER-th signal raises `ForcedExit`: the
caller records what is left undone and exits.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
FORCE_AFTER = 3  # signals in all: the third one forces exit
READ, CHANGE, ROLLBACK, FINISH = "read", "change", "rollback", "finish"


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


class Interrupted(KeyboardInterrupt):
    """A signal arrived while nothing was being changed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum


class ForcedExit(BaseException):  # BaseException: no `except Exception` may swallow it
    """The FORCE_AFTER-th signal: stop now, whatever is left undone."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum


def _stderr(text: str) -> None:
    # os.write, not print: a handler may run in the middle of a print to stderr
    with contextlib.suppress(OSError):
        os.write(2, f"{text}\n".encode())


class SignalGuard:
    """`with SignalGuard(prog) as guard:` handles SIGNALS by phase (see the
    module's docstring); the previous handlers come back on exit. Outside the
    main thread (where handlers cannot be set) it changes nothing."""

    def __init__(self, prog: str, say: Callable[[str], None] = _stderr) -> None:
        self.prog = prog
        self.say = say
        self.phase = READ
        self.received: list[int] = []
        self._old: dict[int, Any] = {}

    def __enter__(self) -> SignalGuard:
        try:
            for signum in SIGNALS:
                self._old[signum] = signal.signal(signum, self._handle)
        except ValueError:  # not the main thread: leave Python's defaults
            self.__exit__()
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, old in self._old.items():
            signal.signal(signum, old)
        self._old.clear()

    def enter(self, phase: str) -> None:
        self.phase = phase

    @property
    def stopping(self) -> str:
        """'' or why the apply is to stop ("interrupted by SIGTERM")."""
        return f"interrupted by {signal_name(self.received[0])}" if self.received else ""

    @property
    def signum(self) -> int | None:
        return self.received[0] if self.received else None

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        self.received.append(signum)
        name = signal_name(signum)
        if self.phase == READ:
            raise Interrupted(signum)
        if self.phase == FINISH:  # nothing left to cut short
            self.say(f"{self.prog}: {name}: the apply is over; finishing its report")
            return
        left = FORCE_AFTER - len(self.received)
        if left <= 0:
            self.say(f"{self.prog}: {name}: forced exit; what is left undone is recorded "
                     "in the state directory")
            raise ForcedExit(signum)
        if self.phase == CHANGE:
            self.say(f"{self.prog}: {name}: stopping after the calls in flight, then rolling "
                     f"back ({left} more signal(s) force exit without a rollback)")
        else:
            self.say(f"{self.prog}: {name}: the rollback goes on, it is not cut short "
                     f"({left} more signal(s) force exit and leave VPP half reverted)")


class NoGuard:
    """What the engine uses without a SignalGuard: Python's own Ctrl-C."""

    phase = READ
    stopping = ""
    signum: int | None = None

    def enter(self, phase: str) -> None:
        pass
