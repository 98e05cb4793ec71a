"""Running a command as a real unprivileged user, for what only file modes refuse.

Root reads any file whatever its mode, and CI runs as root: a test of an
unreadable file would prove nothing there. As root the command runs under
setpriv (util-linux) as `nobody`; as anyone else it runs as is.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
USER = "nobody"
SKIP_REASON = "unprivileged-user path: "  # tests/ci_policy.py fails these skips under CI=true


def command(argv: list[str]) -> list[str]:
    """argv, run as an unprivileged user when we are root."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip(SKIP_REASON + "running as root and setpriv (util-linux) is not installed")
    try:
        user = pwd.getpwnam(USER)
    except KeyError:
        pytest.skip(SKIP_REASON + f"running as root and there is no user {USER!r}")
    return [setpriv, f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
            "--", *argv]


PACKAGES = ("vppcfg", "loadtest")  # what `-m vppcfg`, `-m loadtest.cli`, ... import


@functools.cache
def readable_code() -> Path:
    """A copy of our packages the unprivileged user can read: the checkout may sit
    under a 0700 directory (a home, a private CI workspace) it cannot enter. One copy
    per test process, removed at its exit."""
    root = Path(tempfile.mkdtemp(prefix="vppcfg-unpriv-code-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    root.chmod(0o755)
    for package in PACKAGES:
        shutil.copytree(REPO / package, root / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for path in root.rglob("*"):  # whatever our umask took away
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def readable_copy(source: Path, place: Path) -> Path:
    """`source` (a file of the checkout) copied into `place`, readable by anyone."""
    target = place / source.name
    shutil.copyfile(source, target)
    target.chmod(0o644)
    return target


def run_python(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """This interpreter with args (e.g. ["-m", "vppcfg", ...]), unprivileged, in cwd,
    importing a copy of our code it can read (see readable_code)."""
    code = readable_code() if os.geteuid() == 0 else REPO
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONDONTWRITEBYTECODE": "1"}
    # e.g. a Python built under /root (pyenv): its shared library is out of the user's reach
    probe = subprocess.run(command([sys.executable, "-c", "pass"]), cwd="/", env=env,
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(SKIP_REASON + f"{USER} cannot run {sys.executable}: {probe.stderr.strip()}")
    return subprocess.run(command([sys.executable, *args]), cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


@contextlib.contextmanager
def shared_dir() -> Iterator[Path]:
    """A temporary directory the unprivileged user can enter (pytest's tmp_path sits
    under a 0700 directory of ours); removed on exit."""
    with tempfile.TemporaryDirectory(prefix="vppcfg-unpriv-") as name:
        path = Path(name)
        path.chmod(0o755)
        yield path
