"""Exit codes shared by the four commands (vppcfg, vppcfg-sim, trex-loadtest,
trex-emu), and the last line of defence that keeps a traceback from a user.

The table users read is in docs/user-guide.md ("Exit codes"); keep the two in
step. Each command catches what it expects where it happens and says it in one
line; `guarded` is for what nobody expected: an OSError that slipped through
(still one line, naming the file) or a bug (one line, and how to see the
traceback: VPPCFG_DEBUG=1).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

OK = 0
FAILED = 1  # the input is invalid, or the operation (apply, run) failed
USAGE = 2  # a bad option, or a file or socket that cannot be read or written
NEEDS_ATTENTION = 3  # vppcfg plan/apply --dry-run: the running VPP cannot take the plan
INTERNAL = 70  # a bug (BSD sysexits' EX_SOFTWARE): please report it
INTERRUPTED = 130  # Ctrl-C (SIGINT): 128 + 2, as shells report it

DEBUG_ENV = "VPPCFG_DEBUG"


def describe_os_error(err: OSError) -> str:
    """'PATH: reason' for an OSError, as one line."""
    reason = err.strerror or str(err)
    name = err.filename
    if name is None:
        return reason
    if err.filename2 is not None:
        return f"{name} -> {err.filename2}: {reason}"
    return f"{name}: {reason}"


def guarded(prog: str, run: Callable[[], int]) -> int:
    """run()'s exit code; Ctrl-C, stray OSErrors and bugs become one line on
    stderr and the documented code (a traceback only with VPPCFG_DEBUG=1)."""
    try:
        return int(run())
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`| head`): nothing left to say to it
        _quiet_stdout()
        return FAILED
    except OSError as err:
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"{prog}: error: {describe_os_error(err)}", file=sys.stderr)
        return USAGE
    except Exception as err:  # the last line of defence, by design
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"{prog}: internal error: {type(err).__name__}: {err} (a bug: please report "
              f"it; {DEBUG_ENV}=1 shows the traceback)", file=sys.stderr)
        return INTERNAL


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
