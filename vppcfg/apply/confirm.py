"""Commit-confirmed: an apply that undoes itself unless confirmed in time.

After a successful `apply --confirm N`, the pre-apply state goes to
``<state-dir>/pending`` and a detached timer process starts. `vppcfg confirm`
claims the pending file first (an atomic rename) and the timer finds nothing
to do; if the timer claims it first, it rolls VPP back to the recorded state.
Whoever renames first wins, so a confirm racing the deadline is never half done.

The timer runs as root and acts on what the state directory holds, so the
directory must be ours (vppcfg.safefile.private_dir), its files are read
without following symlinks, and `pending` is plain JSON (a loader that cannot
run code) with a format name and version: anything else is refused, not
trusted. The timer starts isolated from the caller (see start_timer) and
must answer a handshake before apply reports it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import vppcfg
from vppcfg.apply.plainjson import FormatError, decode_dataplane, encode
from vppcfg.model import Dataplane
from vppcfg.safefile import (
    PRIVATE_FILE,
    UnsafePath,
    open_private,
    private_dir,
    read_private,
    write_atomic,
)

PENDING = "pending"
ROLLING = "rolling-back"
RESULT = "last-rollback"
LOG = "rollback-timer.log"
TIMER_PID = "timer.pid"
FORMAT = "vppcfg-pending-confirm"
VERSION = 1
TIMER_MODULE = "vppcfg.apply.timer"  # also how a running timer is recognised
ACK_WAIT = 30.0  # seconds for a starting timer to answer the handshake
# Run in the timer's fresh interpreter (-I: no cwd, no PYTHON* variables, no
# user site): import vppcfg from where this apply's own vppcfg came, nothing else.
_BOOT = (f"import sys; sys.path.insert(0, sys.argv[1]); from {TIMER_MODULE} import main; "
         "sys.exit(main(sys.argv[2:]))")
_SAFE_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8"}


@dataclass
class Pending:
    """What the timer needs to roll back on its own."""

    pre: Dataplane
    api_socket: str
    json_dir: str
    lock_file: str
    deadline: float  # time.time() after which the timer rolls back
    timeout: float = 5.0
    # with the Linux side read (pre.linux set): the simulator's socket that
    # stands in for netlink ("": netlink itself), so the timer restores it too
    linux_socket: str = ""


class ConfirmError(Exception):
    pass


def _dir(state_dir: str | os.PathLike[str]) -> Path:
    """The state directory, made or checked (UnsafePath when not ours)."""
    try:
        return private_dir(state_dir)
    except UnsafePath:
        raise
    except OSError as err:
        raise ConfirmError(f"cannot create state directory {state_dir}: {err.strerror}"
                           ) from err


def _existing_dir(state_dir: str | os.PathLike[str]) -> Path | None:
    """The state directory if it exists (checked: UnsafePath when not ours)."""
    try:
        return private_dir(state_dir, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except UnsafePath:
        raise
    except OSError as err:
        raise ConfirmError(f"cannot read the state directory {state_dir}: {err.strerror}"
                           ) from None


def is_pending(state_dir: str | os.PathLike[str]) -> bool:
    """Whether an apply awaits confirmation; ConfirmError when the state dir
    cannot be looked into, UnsafePath when it is not ours."""
    directory = _existing_dir(state_dir)
    return directory is not None and os.path.lexists(directory / PENDING)


def to_json(pending: Pending) -> bytes:
    doc = {"format": FORMAT, "version": VERSION, "api_socket": pending.api_socket,
           "json_dir": pending.json_dir, "lock_file": pending.lock_file,
           "deadline": pending.deadline, "timeout": pending.timeout,
           "linux_socket": pending.linux_socket, "pre": encode(pending.pre)}
    return json.dumps(doc, separators=(",", ":")).encode() + b"\n"


def from_json(data: bytes) -> Pending:
    """The Pending of to_json's bytes; FormatError for anything else."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        raise FormatError(f"not JSON (truncated?): {err}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise FormatError(f"not a {FORMAT} document")
    if doc.get("version") != VERSION:
        raise FormatError(f"version {doc.get('version')!r}, this vppcfg reads {VERSION}")
    strings = ("api_socket", "json_dir", "lock_file")
    numbers = ("deadline", "timeout")
    if not all(isinstance(doc.get(k), str) for k in strings) or not all(
            isinstance(doc.get(k), int | float) and not isinstance(doc.get(k), bool)
            for k in numbers):
        raise FormatError("a field is missing or of the wrong type")
    linux_socket = doc.get("linux_socket", "")
    if not isinstance(linux_socket, str):
        raise FormatError("linux_socket is not a string")
    try:
        pre = decode_dataplane(doc.get("pre"))
    except RecursionError:
        raise FormatError("nested too deeply") from None
    return Pending(pre=pre, linux_socket=linux_socket,
                   **{k: doc[k] for k in strings}, **{k: float(doc[k]) for k in numbers})


def record(state_dir: str | os.PathLike[str], pending: Pending) -> Path:
    """Write the pending state atomically (tmp + fsync + rename), 0600."""
    path = _dir(state_dir) / PENDING
    write_atomic(path, [to_json(pending)], force=False, mode=PRIVATE_FILE)
    return path


def discard(state_dir: str | os.PathLike[str]) -> None:
    """Drop a recorded pending state (when its timer could not be started)."""
    with contextlib.suppress(OSError):
        (Path(state_dir) / PENDING).unlink()


def load(path: Path) -> Pending:
    """The pending state at `path`; ConfirmError saying what to do when it is
    not one this vppcfg wrote (truncated, foreign, another user's)."""
    try:
        return from_json(read_private(path))
    except FileNotFoundError:
        raise
    except (FormatError, UnsafePath, OSError) as err:  # OSError: ELOOP, a symlink
        raise ConfirmError(f"{path} is not a pending rollback this vppcfg wrote ({err}); it "
                           "is not trusted and nothing rolls back from it: check VPP with "
                           "`vppcfg plan`, then `vppcfg confirm` clears it") from None


def start_timer(state_dir: str | os.PathLike[str]) -> int:
    """Start the detached rollback timer and check that it is ours (it answers
    the handshake with what it read from `pending`); its pid."""
    directory = _dir(state_dir)
    digest = hashlib.sha256(read_private(directory / PENDING)).hexdigest()
    nonce = secrets.token_hex(16)
    log = open_private(directory / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "timer log")
    ack_read, ack_write = os.pipe()
    try:
        child = subprocess.Popen(
            [_interpreter(), "-I", "-c", _BOOT, _package_root(), "--ack-fd", str(ack_write),
             str(directory.resolve())],
            stdin=subprocess.PIPE, stdout=log, stderr=log,
            cwd="/", env=_SAFE_ENV,  # nothing of the caller's directory or environment
            start_new_session=True,  # survive the shell/terminal of the apply
            close_fds=True, pass_fds=(ack_write,),  # never inherit the apply lock
        )
    finally:
        os.close(log)
        os.close(ack_write)
    try:
        _handshake(child, ack_read, nonce, digest)
    finally:
        os.close(ack_read)
    write_atomic(directory / TIMER_PID, [json.dumps(
        {"pid": child.pid, "start": _start_time(child.pid)}) + "\n"], mode=PRIVATE_FILE)
    return child.pid


def _interpreter() -> str:
    """This interpreter, by absolute path (never looked up in $PATH)."""
    path = os.path.abspath(sys.executable or "")
    if not sys.executable or not os.access(path, os.X_OK):
        raise ConfirmError("cannot tell which Python interpreter runs vppcfg")
    return path


def _package_root() -> str:
    """The directory this vppcfg package was imported from."""
    return str(Path(vppcfg.__file__).resolve().parents[1])


def _handshake(child: subprocess.Popen[bytes], ack: int, nonce: str, digest: str) -> None:
    """The timer must echo the nonce and the digest of the pending file it
    parsed; anything else (silence, a stranger's answer, a refusal) kills it."""
    assert child.stdin is not None
    try:
        child.stdin.write(f"{nonce}\n".encode())
        child.stdin.close()
    except OSError:
        pass  # it died at once: the answer below says so
    answer = _read_line(ack, ACK_WAIT)
    if answer == f"armed {nonce} {digest}":
        return
    with contextlib.suppress(OSError):
        os.kill(child.pid, signal.SIGKILL)
    child.wait()
    if answer.startswith(f"refused {nonce} "):
        why = answer.split(" ", 2)[2]
    else:
        why = "no answer" if not answer else "an answer that is not vppcfg's timer's"
    raise ConfirmError(f"the rollback timer did not start ({why})")


def _read_line(fd: int, wait: float) -> str:
    data, end = b"", time.monotonic() + wait
    while b"\n" not in data and len(data) < 4096:
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode(errors="replace")


def _start_time(pid: int) -> int | None:
    """The kernel's start time of `pid` (tells a reused pid apart), if known."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def timer_pid(state_dir: str | os.PathLike[str]) -> int | None:
    """The pid of the recorded rollback timer if that process still runs and
    is our timer (not another process that got its pid), else None."""
    try:
        doc = json.loads(read_private(Path(state_dir) / TIMER_PID, limit=4096))
        pid, start = int(doc["pid"]), doc["start"]
        os.kill(pid, 0)
    except (OSError, ValueError, TypeError, KeyError, UnsafePath):
        return None
    if start is not None and _start_time(pid) != start:
        return None
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid if start is None else None  # no /proc: the pid is all there is
    return pid if TIMER_MODULE.encode() in cmdline else None


def timer_alive(state_dir: str | os.PathLike[str]) -> bool:
    """Whether the rollback timer recorded in the state dir still runs."""
    return timer_pid(state_dir) is not None


def pending_trouble(state_dir: str | os.PathLike[str]) -> str | None:
    """Why a recorded pending rollback can no longer happen, or None (nothing
    pending, or its timer runs). For confirm, plan and apply to say."""
    try:
        if not is_pending(state_dir):
            return None
    except (ConfirmError, UnsafePath):
        return None  # not ours to look into: the command says so where it matters
    path = Path(state_dir) / PENDING
    try:
        load(path)
    except ConfirmError as err:
        return str(err)
    if timer_alive(state_dir):
        return None
    return (f"an `apply --confirm` awaits confirmation in {state_dir}, but its rollback "
            f"timer is no longer running (see {Path(state_dir) / LOG}): the automatic "
            "rollback will NOT happen; run `vppcfg confirm` to keep the change, or apply "
            "the previous config to undo it")


def confirm(state_dir: str | os.PathLike[str]) -> str:
    """Cancel the pending rollback. Raises ConfirmError when there is none,
    UnsafePath when the state dir is not ours."""
    directory = _existing_dir(state_dir)
    if directory is None:
        raise ConfirmError("no apply is waiting for confirmation")
    stopped = not timer_alive(directory)
    try:
        os.replace(directory / PENDING, directory / f"confirmed-{int(time.time())}")
    except FileNotFoundError:
        raise ConfirmError(_too_late(directory)) from None
    except OSError as err:
        raise ConfirmError(f"cannot claim the pending change in {directory}: "
                           f"{err.strerror} (run as the user who applied)") from None
    _prune_confirmed(directory)
    note = ("; note: its rollback timer had already stopped, nothing would have rolled "
            "it back" if stopped else "; rollback timer cancelled")
    return f"confirmed: the applied configuration stays{note}"


def _too_late(directory: Path) -> str:
    if (directory / ROLLING).exists():
        if timer_alive(directory):
            return "too late: the confirm timer expired and the rollback is running"
        return (f"too late: the rollback started but its timer is gone; "
                f"check the state of VPP (see {directory / LOG})")
    hint = f" (the last rollback: see {directory / RESULT})" if (
        directory / RESULT).exists() else ""
    return f"no apply is waiting for confirmation{hint}"


def _prune_confirmed(directory: Path, keep: int = 3) -> None:
    old = sorted(directory.glob("confirmed-*"))[:-keep]
    for path in old:
        path.unlink(missing_ok=True)


def last_result(state_dir: str | os.PathLike[str]) -> str | None:
    try:
        return read_private(Path(state_dir) / RESULT).decode(errors="replace")
    except FileNotFoundError:
        return None
