"""Commit-confirmed: an apply that undoes itself unless confirmed in time.

After a successful `apply --confirm N`, the pre-apply state goes to
``<state-dir>/pending`` and a detached timer process starts. `vppcfg confirm`
claims the pending file first (an atomic rename) and the timer finds nothing
to do; if the timer claims it first, it rolls VPP back to the recorded state.
Whoever renames first wins, so a confirm racing the deadline is never half done.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from vppcfg.model import Dataplane

PENDING = "pending"
ROLLING = "rolling-back"
RESULT = "last-rollback"
LOG = "rollback-timer.log"
TIMER_PID = "timer.pid"


@dataclass
class Pending:
    """What the timer needs to roll back on its own."""

    pre: Dataplane
    api_socket: str
    json_dir: str
    lock_file: str
    deadline: float  # time.time() after which the timer rolls back
    timeout: float = 5.0


class ConfirmError(Exception):
    pass


def _dir(state_dir: str | os.PathLike[str]) -> Path:
    path = Path(state_dir)
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as err:
        raise ConfirmError(f"cannot create state directory {path}: {err.strerror}") from err
    return path


def is_pending(state_dir: str | os.PathLike[str]) -> bool:
    """Whether an apply awaits confirmation; ConfirmError when the state dir
    cannot be looked into (another user's 0700 directory, a file)."""
    path = Path(state_dir) / PENDING
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):  # nothing recorded there (yet)
        return False
    except OSError as err:
        raise ConfirmError(f"cannot read the state directory {state_dir}: {err.strerror}"
                           ) from None
    return True


def record(state_dir: str | os.PathLike[str], pending: Pending) -> Path:
    """Write the pending state atomically (tmp + rename)."""
    path = _dir(state_dir) / PENDING
    tmp = path.with_suffix(".tmp")
    # pickle: the state dir is vppcfg's own (0700) and only this program writes it.
    with open(tmp, "wb") as out:
        pickle.dump(pending, out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)
    return path


def discard(state_dir: str | os.PathLike[str]) -> None:
    """Drop a recorded pending state (when its timer could not be started)."""
    with contextlib.suppress(OSError):
        (Path(state_dir) / PENDING).unlink()


def load(path: Path) -> Pending:
    with open(path, "rb") as src:
        pending = pickle.load(src)  # our own file, see record()
    if not isinstance(pending, Pending):
        raise ConfirmError(f"{path} is not a vppcfg pending-confirm state")
    return pending


def start_timer(state_dir: str | os.PathLike[str]) -> int:
    """Start the detached rollback timer; returns its pid."""
    directory = _dir(state_dir)
    log = open(directory / LOG, "ab")  # noqa: SIM115 - handed to the child
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "vppcfg.apply.timer", str(directory)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # survive the shell/terminal of the apply
            close_fds=True,  # never inherit the apply lock
        )
    finally:
        log.close()
    (directory / TIMER_PID).write_text(f"{child.pid}\n", encoding="utf-8")
    return child.pid


def timer_alive(state_dir: str | os.PathLike[str]) -> bool:
    """Whether the rollback timer recorded in the state dir still runs."""
    try:
        pid = int((Path(state_dir) / TIMER_PID).read_text(encoding="utf-8"))
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def confirm(state_dir: str | os.PathLike[str]) -> str:
    """Cancel the pending rollback. Raises ConfirmError when there is none."""
    directory = Path(state_dir)
    pending = directory / PENDING
    try:
        os.replace(pending, directory / f"confirmed-{int(time.time())}")
    except FileNotFoundError:
        if (directory / ROLLING).exists():
            if timer_alive(directory):
                raise ConfirmError("too late: the confirm timer expired and "
                                   "the rollback is running") from None
            raise ConfirmError(f"too late: the rollback started but its timer is gone; "
                               f"check the state of VPP (see {directory / LOG})") from None
        hint = f" (the last rollback: see {directory / RESULT})" if (
            directory / RESULT).exists() else ""
        raise ConfirmError(f"no apply is waiting for confirmation{hint}") from None
    except OSError as err:
        # e.g. a user other than the one who applied: the state dir is theirs (0700)
        raise ConfirmError(f"cannot claim the pending change in {directory}: "
                           f"{err.strerror} (run as the user who applied)") from None
    _prune_confirmed(directory)
    return "confirmed: the applied configuration stays; rollback timer cancelled"


def _prune_confirmed(directory: Path, keep: int = 3) -> None:
    old = sorted(directory.glob("confirmed-*"))[:-keep]
    for path in old:
        path.unlink(missing_ok=True)


def last_result(state_dir: str | os.PathLike[str]) -> str | None:
    path = Path(state_dir) / RESULT
    return path.read_text(encoding="utf-8") if path.exists() else None
