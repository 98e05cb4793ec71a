"""The commit-confirmed rollback timer (a detached child of `vppcfg apply`).

    python -m vppcfg.apply.timer STATE_DIR

Waits until the recorded deadline; then, holding the apply lock, claims the
pending state if it is still there and rolls VPP back to the pre-apply state.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from vppcfg.apply import format_outcome, rollback
from vppcfg.apply.confirm import PENDING, RESULT, ROLLING, Pending, load
from vppcfg.apply.lock import ApplyLock, LockBusy, LockError

POLL = 0.1  # seconds between looks at the pending file
LOCK_WAIT = 120.0  # an apply running at the deadline gets this long to finish
MAX_WAIT = 7 * 24 * 3600.0  # sanity bound on any deadline


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m vppcfg.apply.timer STATE_DIR", file=sys.stderr)
        return 2
    directory = Path(args[0])
    pending_path = directory / PENDING
    try:
        pending = load(pending_path)
    except (OSError, ValueError, EOFError) as err:
        _log(f"nothing to watch: {err}")
        return 0
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
    (directory / RESULT).write_text(text + "\n", encoding="utf-8")
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
            report = rollback(conn, pending.pre)
    except VppError as err:
        return f"{stamp} not confirmed in time; rollback FAILED: {err}"
    outcome = Outcome(ok=False, error="not confirmed in time", rollback=report)
    return f"{stamp} " + format_outcome(outcome)


def _log(text: str) -> None:
    print(f"vppcfg confirm-timer[{os.getpid()}]: {text}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
