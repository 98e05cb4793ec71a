"""Files that a root process may trust, and writes that never leave a cut file.

vppcfg runs as root on routers where other (unprivileged) accounts exist. Any
path it is given may sit in a directory someone else can write, so:

* a state directory is ours or refused: created 0700, and an existing one
  must belong to the user running vppcfg and be writable by nobody else;
* its files are opened without following symlinks (O_NOFOLLOW), created
  0600 and exclusively (O_EXCL) where they are new;
* an output file is written to a temporary file beside it, fsynced and
  renamed over the target: a failed write (disk full, a size limit, a
  signal) leaves the old file as it was, never half of the new one; an
  existing target that another user owns is refused unless forced.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


class UnsafePath(Exception):
    """A path vppcfg refuses to trust (another user's, or writable by others)."""


def owner_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def check_trusted(path: str | os.PathLike[str], st: os.stat_result, what: str) -> None:
    """Refuse `path` (stat `st`) unless it is ours and writable by nobody else."""
    me = os.geteuid()
    if st.st_uid != me:
        raise UnsafePath(f"refusing {what} {path}: it is owned by {owner_name(st.st_uid)}, "
                         f"not {owner_name(me)} (remove it, or give another path)")
    if st.st_mode & _OTHERS_WRITE:
        raise UnsafePath(f"refusing {what} {path}: group or others can write it "
                         f"(mode {stat.S_IMODE(st.st_mode):04o}; chmod go-w it, or remove it)")


def private_dir(path: str | os.PathLike[str], create: bool = True) -> Path:
    """`path` as a directory of ours: made 0700 when absent (with `create`),
    else checked: a real directory (not a symlink), ours, not writable by others.
    Raises UnsafePath, or OSError (ENOENT without `create`, EACCES, ...)."""
    directory = Path(path)
    if create:
        directory.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=PRIVATE_DIR)
            os.chmod(directory, PRIVATE_DIR, follow_symlinks=False)  # whatever the umask
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a directory"
        raise UnsafePath(f"refusing state directory {directory}: it is {kind}")
    check_trusted(directory, st, "state directory")
    return directory


def open_private(path: str | os.PathLike[str], flags: int, what: str = "file") -> int:
    """os.open without following a symlink (0600 when created); an existing
    file must be ours, a regular file and not writable by others."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath(f"refusing {what} {path}: not a regular file")
        check_trusted(path, st, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_private(path: str | os.PathLike[str], limit: int = 64 << 20) -> bytes:
    """The bytes of one of our own state files (see open_private)."""
    fd = open_private(path, os.O_RDONLY, "state file")
    with os.fdopen(fd, "rb") as src:
        data = src.read(limit + 1)
    if len(data) > limit:
        raise UnsafePath(f"refusing state file {path}: larger than {limit} bytes")
    return data


def write_atomic(path: str | os.PathLike[str], pieces: Iterable[str | bytes],
                 force: bool = False, mode: int | None = None) -> None:
    """Write `pieces` to `path` through a temporary file in the same directory,
    fsynced, then renamed over it. The new file keeps an existing file's mode
    (else `mode`, else 0666 less the umask). An existing file (or symlink) owned
    by another user is refused (UnsafePath) unless `force`."""
    target = Path(path)
    keep = _existing_mode(target, force)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as out:
            for piece in pieces:
                out.write(piece.encode() if isinstance(piece, str) else piece)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), _new_mode(keep, mode))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(target.parent)


def check_replaceable(path: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse (UnsafePath) before a long run what write_atomic would refuse at its end."""
    _existing_mode(Path(path), force)


def _existing_mode(target: Path, force: bool) -> int | None:
    """The mode of the file being replaced (None: there is none, or not ours)."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    me = os.geteuid()
    if st.st_uid != me and not force:
        raise UnsafePath(f"refusing to replace {target}: it is owned by "
                         f"{owner_name(st.st_uid)}, not {owner_name(me)} (--force replaces it)")
    if st.st_uid != me or not stat.S_ISREG(st.st_mode):
        return None
    return stat.S_IMODE(st.st_mode)


def _new_mode(keep: int | None, mode: int | None) -> int:
    if keep is not None:
        return keep
    if mode is not None:
        return mode
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _sync_dir(directory: Path) -> None:
    """Make the rename durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
