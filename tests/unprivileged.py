"""Running a command as a real unprivileged user, for what only file modes refuse.

Root reads any file whatever its mode, and CI runs as root: a test of an
unreadable file would prove nothing there. As root the command runs under
setpriv (util-linux) as `nobody`; as anyone else it runs as is.
"""

from __future__ import annotations

import contextlib
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


def run_python(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """This interpreter with args (e.g. ["-m", "vppcfg", ...]), unprivileged, in cwd."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
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
