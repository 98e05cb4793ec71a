"""The commit-confirmed rollback timer (a detached child of `vppcfg apply`).

    python -I -c BOOT PACKAGE_ROOT [--ack-fd FD] STATE_DIR   (see confirm.start_timer)

Checks that STATE_DIR is ours alone and that `pending` is a state this vppcfg
wrote, answers the handshake on FD, then waits until the recorded deadline;
then, holding the apply lock, claims the pending state if it is still there
and rolls VPP back to the pre-apply state.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

from vppcfg.apply import format_outcome, rollback
from vppcfg.apply.confirm import PENDING, RESULT, ROLLING, Pending, from_json
from vppcfg.apply.lock import ApplyLock, LockBusy, LockError
from vppcfg.linux import LinuxAccess, LinuxError, open_access
from vppcfg.safefile import PRIVATE_FILE, UnsafePath, private_dir, read_private, write_atomic

POLL = 0.1  # seconds between looks at the pending file
LOCK_WAIT = 120.0  # an apply running at the deadline gets this long to finish
MAX_WAIT = 7 * 24 * 3600.0  # sanity bound on any deadline


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    ack = None
    if len(args) == 3 and args[0] == "--ack-fd":
        ack, args = int(args[1]), args[2:]
    if len(args) != 1:
        print("usage: python -m vppcfg.apply.timer [--ack-fd FD] STATE_DIR", file=sys.stderr)
        return 2
    directory = Path(args[0])
    pending_path = directory / PENDING
    try:
        private_dir(directory, create=False)  # root acts on it: it must be ours alone
        data = read_private(pending_path)
        pending = from_json(data)
    except (OSError, ValueError, UnsafePath) as err:
        _answer(ack, "refused", f"{pending_path}: {err}")
        _log(f"nothing to watch: {pending_path}: {err}")
        return 0
    _answer(ack, "armed", hashlib.sha256(data).hexdigest())
    return _watch(directory, pending)


def _answer(ack: int | None, word: str, detail: str) -> None:
    """The handshake with the apply that started us (see confirm.start_timer):
    echo its nonce (from stdin) with what we made of the pending file."""
    if ack is None:
        return
    nonce = sys.stdin.readline().strip()
    try:
        os.write(ack, f"{word} {nonce} {detail}\n".encode())
    finally:
        os.close(ack)


def _watch(directory: Path, pending: Pending) -> int:
    pending_path = directory / PENDING
    end = min(pending.deadline, time.time() + MAX_WAIT)
    while time.time() < end:
        if not pending_path.exists():
            _log("confirmed in time; no rollback")
            return 0
        time.sleep(min(POLL, max(0.0, end - time.time())))
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    # The lock comes before the claim: an apply looks for a pending confirm
    # under this lock, so once the pending file is gone no apply can run
    # until the rollback is done (it would be undone by it). Until the claim,
    # a confirm still wins.
    try:
        with ApplyLock(pending.lock_file, wait=LOCK_WAIT):
            if not _claim(directory):
                return 0
            text = _roll_back(pending, stamp)
    except (LockBusy, LockError) as err:
        if not _claim(directory):
            return 0
        text = f"{stamp} not confirmed in time; rollback FAILED: {err}"
    write_atomic(directory / RESULT, [text + "\n"], mode=PRIVATE_FILE)
    (directory / ROLLING).unlink(missing_ok=True)
    _log(text)
    return 0


def _claim(directory: Path) -> bool:
    """Take the pending state (a late confirm now fails); False if confirmed."""
    try:
        os.replace(directory / PENDING, directory / ROLLING)
    except FileNotFoundError:
        _log("confirmed at the deadline; no rollback")
        return False
    return True


def _roll_back(pending: Pending, stamp: str) -> str:
    from vppcfg.apply import Outcome
    from vppcfg.vpp import VppConnection, VppError

    try:
        with VppConnection.open(pending.api_socket, pending.json_dir, pending.timeout) as conn:
            conn.linux = linux_access(pending)
            try:
                report = rollback(conn, pending.pre)
            finally:
                if conn.linux is not None:
                    conn.linux.close()
    except (VppError, LinuxError) as err:
        return f"{stamp} not confirmed in time; rollback FAILED: {err}"
    outcome = Outcome(ok=False, error="not confirmed in time", rollback=report)
    return f"{stamp} " + format_outcome(outcome)


def linux_access(pending: Pending) -> LinuxAccess | None:
    """The Linux side as the apply reached it, when it read it (the state to
    restore then holds each pair's netdev as it was)."""
    if pending.pre.linux is None:
        return None
    return open_access(pending.api_socket, pending.linux_socket or None,
                       pending.pre.linux.managed)


def _log(text: str) -> None:
    print(f"vppcfg confirm-timer[{os.getpid()}]: {text}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
