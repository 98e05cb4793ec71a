"""contrib/vppcfg-boot (run by vppcfg.service as root at boot): a config others
can write is refused, and what was checked is what is applied."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.unprivileged import REPO, SKIP_REASON

BOOT = REPO / "contrib" / "vppcfg-boot"
# A stand-in vppcfg: logs each call and the config it read on stdin; its `check`
# then rewrites the real config, as someone racing the boot would.
FAKE = """#!/bin/sh
echo "$* (linux side: $VPPCFG_LINUX_SIDE)" >> "$LOG"
cat >> "$LOG"
echo "--" >> "$LOG"
if [ "$1" = check ]; then echo "loopbacks: {swapped: {}}" > "$CONFIG"; fi
exit 0
"""


@pytest.fixture
def boot(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "vppcfg").write_text(FAKE)
    (bindir / "vppcfg").chmod(0o755)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "api.sock"))
    sock.listen(4)  # VPP is up: the script connects once before applying
    log = tmp_path / "calls.log"

    def run(config: Path, **extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
        env = {"PATH": f"{bindir}:/usr/bin:/bin", "LOG": str(log), "CONFIG": str(config),
               "VPPCFG_API_SOCKET": str(tmp_path / "api.sock"), "VPPCFG_SOCKET_WAIT": "1",
               "VPPCFG_LOCK_FILE": str(tmp_path / "apply.lock"), **extra}
        done = subprocess.run(["sh", str(BOOT), str(config)], env=env, capture_output=True,
                              text=True, timeout=60)
        return done, log.read_text() if log.exists() else ""

    yield run
    sock.close()


def _config(tmp_path: Path, mode: int = 0o644) -> Path:
    path = tmp_path / "vppcfg.yaml"
    path.write_text("loopbacks: {loop0: {}}\n")
    path.chmod(mode)
    return path


def test_the_checked_bytes_are_the_applied_bytes(boot, tmp_path):
    done, calls = boot(_config(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    check, apply = calls.split("--\n")[:2]
    assert check == "check - (linux side: off)\nloopbacks: {loop0: {}}\n"
    # the file was swapped after the check: the apply still reads the checked snapshot
    assert apply.startswith("apply - --vpp-api-socket")
    assert apply.endswith("\nloopbacks: {loop0: {}}\n")


@pytest.mark.parametrize("mode", [0o664, 0o646, 0o666, 0o620])
def test_a_config_others_can_write_is_refused(boot, tmp_path, mode):
    done, calls = boot(_config(tmp_path, mode))
    assert done.returncode == 1
    assert "group or others can write it" in done.stdout and calls == ""


def test_a_symlink_to_a_config_others_can_write_is_refused(boot, tmp_path):
    target = _config(tmp_path, 0o666)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    done, calls = boot(link)
    assert done.returncode == 1 and "group or others can write it" in done.stdout
    assert calls == ""


def test_a_config_of_another_user_is_refused(boot, tmp_path):
    if os.geteuid() != 0:
        pytest.skip(SKIP_REASON + "needs root privileges to give a file to another user")
    path = _config(tmp_path)
    os.chown(path, 65534, 65534)
    done, calls = boot(path)
    assert done.returncode == 1 and "owned by uid 65534, not root" in done.stdout
    assert calls == ""


def test_no_config_changes_nothing(boot, tmp_path):
    done, calls = boot(tmp_path / "absent.yaml")
    assert done.returncode == 0 and "does not exist" in done.stdout and calls == ""


@pytest.mark.parametrize("side", ["manage", "report", "off"])
def test_the_linux_side_of_etc_default_vppcfg_reaches_the_apply(boot, tmp_path, side):
    # vppcfg.service reads /etc/default/vppcfg (EnvironmentFile=); the CLI honours
    # VPPCFG_LINUX_SIDE, so the apply makes (or reports) the Linux side too
    done, calls = boot(_config(tmp_path), VPPCFG_LINUX_SIDE=side)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"(Linux side: {side})" in done.stdout
    assert f"--lock-file {tmp_path / 'apply.lock'} (linux side: {side})" in calls


@pytest.mark.parametrize("name, value", [("VPPCFG_LINUX_SIDE", "yes"),
                                         ("VPPCFG_SOCKET_WAIT", "1m")])
def test_a_bad_setting_in_etc_default_vppcfg_is_refused(boot, tmp_path, name, value):
    done, calls = boot(_config(tmp_path), **{name: value})
    assert done.returncode == 1 and f"{name}={value} is not" in done.stdout
    assert calls == ""


def test_an_apply_in_progress_is_waited_for(boot, tmp_path):
    lock = tmp_path / "apply.lock"
    lock.touch(mode=0o600)
    holder = subprocess.Popen(["flock", str(lock), "sleep", "2"])
    try:
        time.sleep(0.3)  # the holder has the lock
        done, calls = boot(_config(tmp_path), VPPCFG_SOCKET_WAIT="20")
    finally:
        holder.wait(timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"another vppcfg apply holds {lock}; waiting up to 20s" in done.stdout
    assert "apply - --vpp-api-socket" in calls
