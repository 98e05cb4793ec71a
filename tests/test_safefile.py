"""Outputs are replaced whole or not at all, and never over another user's file
(vppcfg.safefile.write_atomic, used by plan/dump/schema -o, the state files
and the loadtest's results and reports)."""

from __future__ import annotations

import os
import pwd
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unprivileged import REPO, SKIP_REASON
from vppcfg.safefile import UnsafePath, private_dir, write_atomic

OLD = "old content: a complete file\n"


def _small_files() -> None:
    """preexec: no file may grow past 4 KiB (a write then fails with EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def _vppcfg(args: list[str], cwd: Path, preexec=None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "vppcfg", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, preexec_fn=preexec)


def test_a_failed_write_leaves_the_old_file_intact(tmp_path: Path) -> None:
    target = tmp_path / "schema.json"
    target.write_text(OLD)
    run = _vppcfg(["schema", "-o", str(target)], tmp_path, _small_files)
    assert run.returncode == 2, run.stderr
    assert f"cannot write {target}" in run.stderr
    assert target.read_text() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["schema.json"]  # no temp file left
    run = _vppcfg(["schema", "-o", str(target)], tmp_path)  # no limit: written whole
    assert run.returncode == 0 and target.read_text().startswith("{")


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_text(OLD)
    target.chmod(0o640)
    write_atomic(target, ["new\n"])
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text(OLD)
    (tmp_path / "link").symlink_to(victim)
    write_atomic(tmp_path / "link", ["new\n"])
    assert victim.read_text() == OLD
    assert not (tmp_path / "link").is_symlink()


def _other_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip(SKIP_REASON + "needs root privileges to give a file to another user")
    return pwd.getpwnam("nobody")


def test_another_users_file_is_refused_unless_forced(tmp_path: Path) -> None:
    nobody = _other_user()
    target = tmp_path / "plan.cli"
    target.write_text(OLD)
    os.chown(target, nobody.pw_uid, nobody.pw_gid)
    run = _vppcfg(["schema", "-o", str(target)], tmp_path)
    assert run.returncode == 2
    assert f"refusing to replace {target}: it is owned by nobody" in run.stderr
    assert target.read_text() == OLD
    run = _vppcfg(["schema", "-o", str(target), "--force"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert target.stat().st_uid == 0 and target.read_text().startswith("{")


def test_state_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    nobody = _other_user()
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    os.chown(state, nobody.pw_uid, nobody.pw_gid)
    with pytest.raises(UnsafePath, match=f"refusing state directory {state}: it is owned by "
                       "nobody"):
        private_dir(state)


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_state_dir_writable_by_others_is_refused(tmp_path: Path, mode: int) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(mode)
    with pytest.raises(UnsafePath, match="group or others can write it"):
        private_dir(state)


def test_state_dir_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "state").symlink_to(tmp_path / "real")
    with pytest.raises(UnsafePath, match="it is a symlink"):
        private_dir(tmp_path / "state")


def test_state_dir_is_made_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        made = private_dir(tmp_path / "a" / "state")
    finally:
        os.umask(old)
    assert made.stat().st_mode & 0o777 == 0o700
