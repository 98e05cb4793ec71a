"""One apply at a time: an exclusive fcntl lock on a lock file.

The kernel drops the lock when the holder exits, however it exits, so a
crashed apply never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from vppcfg.safefile import UnsafePath, open_private


class LockBusy(Exception):
    """Another apply (or a rollback timer) holds the lock."""


class LockError(Exception):
    """The lock file cannot be created or opened."""


class ApplyLock:
    """Context manager: `with ApplyLock(path): ...`; raises LockBusy when held."""

    def __init__(self, path: str | os.PathLike[str], wait: float = 0.0) -> None:
        self.path = Path(path)
        self.wait = wait  # seconds to wait for the lock (0: fail at once)
        self._fd: int | None = None

    def __enter__(self) -> ApplyLock:
        try:
            # 0700: the default state dir (pending rollback state) is this same dir.
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # 0600, no symlink followed, and an existing file must be ours alone: a
            # planted link or another user's file would have root write through it
            fd = open_private(self.path, os.O_RDWR | os.O_CREAT, "lock file")
        except UnsafePath as err:
            raise LockError(str(err)) from None
        except OSError as err:
            raise LockError(f"cannot open lock file {self.path}: {err.strerror}") from err
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise LockBusy(
                        f"another vppcfg apply is running ({self.path} is locked"
                        f"{f' by pid {holder}' if holder else ''}); try again when it is done"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_holder(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""
