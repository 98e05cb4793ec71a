"""What a local unprivileged user could do to a root apply, refused (issue 34):
code planted in the working directory, a state directory or lock file that is
not ours, a pending rollback that is a pickle, truncated or foreign, a timer
that died or is not ours."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.apply_models import wait_for
from tests.unprivileged import REPO, SKIP_REASON
from tests.walk import random_config, to_text
from vppcfg import config
from vppcfg.apply import confirm as confirm_mod
from vppcfg.apply.confirm import (
    LOG,
    PENDING,
    TIMER_PID,
    ConfirmError,
    Pending,
    confirm,
    from_json,
    load,
    pending_trouble,
    record,
    start_timer,
    timer_alive,
    to_json,
)
from vppcfg.apply.lock import ApplyLock, LockError
from vppcfg.cli import main
from vppcfg.model import Dataplane
from vppcfg.safefile import UnsafePath

PHYS = [f"GigabitEthernet3/0/{i}" for i in range(6)]


def _pending(tmp_path: Path, deadline: float, pre: Dataplane | None = None) -> Pending:
    return Pending(pre=pre or Dataplane(), api_socket=str(tmp_path / "no-vpp.sock"),
                   json_dir=str(tmp_path), lock_file=str(tmp_path / "apply.lock"),
                   deadline=deadline, timeout=1.0)




def _gone(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done != 0


# --- the timer starts isolated, and must answer as our timer ---

PLANTED = "open({marker!r}, 'a').write('planted vppcfg ran\\n')\n"


def test_timer_ignores_a_package_planted_in_the_working_directory(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    cwd = tmp_path / "cwd"
    for sub in ("vppcfg", "vppcfg/apply"):
        (cwd / sub).mkdir(parents=True)
        (cwd / sub / "__init__.py").write_text(PLANTED.format(marker=str(marker)))
    (cwd / "vppcfg/apply/timer.py").write_text(PLANTED.format(marker=str(marker)))
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PYTHONPATH", str(cwd))  # the environment is not trusted either
    state = tmp_path / "state"
    record(state, _pending(tmp_path, time.time() + 30))
    pid = start_timer(state)
    assert not marker.exists()
    assert timer_alive(state)  # the real timer: it answered the handshake and runs
    assert os.readlink(f"/proc/{pid}/cwd") == "/"
    assert "confirmed" in confirm(state)
    assert wait_for(lambda: _gone(pid))
    assert "confirmed in time; no rollback" in (state / LOG).read_text()
    assert not marker.exists()


@pytest.mark.parametrize(("boot", "why"), [
    ("import time; time.sleep(30)", "no answer"),
    ("import os, sys; os.write(int(sys.argv[3]), b'armed 0 0\\n'); import time; "
     "time.sleep(30)", "an answer that is not vppcfg's timer's"),
])
def test_a_timer_that_does_not_answer_as_ours_is_killed(tmp_path, monkeypatch, boot, why):
    monkeypatch.setattr(confirm_mod, "_BOOT", boot)
    monkeypatch.setattr(confirm_mod, "ACK_WAIT", 2.0)
    record(tmp_path, _pending(tmp_path, time.time() + 30))
    started: list[int] = []
    real_popen = subprocess.Popen

    def spy(*args, **kwargs):
        child = real_popen(*args, **kwargs)
        started.append(child.pid)
        return child

    monkeypatch.setattr(subprocess, "Popen", spy)
    with pytest.raises(ConfirmError, match=f"did not start \\({why}\\)"):
        start_timer(tmp_path)
    assert _gone(started[0])
    assert not (tmp_path / TIMER_PID).exists()


def test_a_pid_that_is_not_our_timer_is_not_alive(tmp_path):
    record(tmp_path, _pending(tmp_path, time.time() + 30))
    (tmp_path / TIMER_PID).write_text(json.dumps({"pid": os.getpid(), "start": None}))
    (tmp_path / TIMER_PID).chmod(0o600)
    assert not timer_alive(tmp_path)  # alive, but pytest is no rollback timer
    assert "no longer running" in pending_trouble(tmp_path)


def test_a_dead_timer_is_reported_by_confirm_plan_and_apply(tmp_path, capsys):
    state = tmp_path / "state"
    record(state, _pending(tmp_path, time.time() + 60))
    pid = start_timer(state)
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: _gone(pid))
    cfg = tmp_path / "c.yaml"
    cfg.write_text("loopbacks:\n  loop0: {}\n")
    assert main(["plan", "--novpp", "-c", str(cfg), "--state-dir", str(state)]) == 0
    err = capsys.readouterr().err
    assert "rollback timer is no longer running" in err and "will NOT happen" in err
    assert main(["apply", "-c", str(cfg), "--state-dir", str(state), "--lock-file",
                 str(tmp_path / "lock")]) == 1
    assert "will NOT happen" in capsys.readouterr().err
    assert main(["confirm", "--state-dir", str(state)]) == 0
    assert "timer had already stopped" in capsys.readouterr().out


# --- the pending rollback target: plain JSON, read back exactly ---

def _examples() -> list[Path]:
    return sorted((REPO / "examples").glob("*.yaml"))


def _same(a: Dataplane, b: Dataplane) -> None:
    assert b == a
    assert repr(b) == repr(a)  # the same types too (tuples, enums, FrozenDicts, order)


@pytest.mark.parametrize("path", _examples(), ids=lambda p: p.name)
def test_pending_round_trip_on_the_examples(tmp_path, path):
    desired, _ = config.check_text(path.read_text(), str(path), ())
    pre = dataclasses.replace(desired, foreign=frozenset({"interfaces/loop9", "acls/x"}))
    record(tmp_path, _pending(tmp_path, 1e9, pre))
    back = load(tmp_path / PENDING)
    _same(pre, back.pre)
    assert dataclasses.replace(back, pre=pre) == _pending(tmp_path, 1e9, pre)
    assert json.loads((tmp_path / PENDING).read_bytes())["version"] == 1
    assert (tmp_path / PENDING).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("seed", range(8))
def test_pending_round_trip_on_random_walk_configs(seed):
    from vppcfg.config import loader
    from vppcfg.config.build import build

    # the model as built, without the rules' verdicts: every shape the walk draws
    text = to_text(random_config(random.Random(seed), PHYS))
    desired = build(loader.parse(text, f"walk-{seed}").data).dataplane
    _same(desired, from_json(to_json(_pending(Path("/x"), 1.0, desired))).pre)


@pytest.mark.parametrize("damage", [
    lambda b: b[: len(b) // 2],  # truncated
    lambda b: b"",
    lambda b: b.replace(b'"version":1', b'"version":2'),
    lambda b: b.replace(b'"vppcfg-pending-confirm"', b'"something-else"'),
    lambda b: b.replace(b'"mtu":', b'"mtu_x":', 1),
    lambda b: b"[" * 100000 + b"]" * 100000,
], ids=["truncated", "empty", "version", "foreign", "unknown-field", "deep"])
def test_a_damaged_pending_is_refused_with_what_to_do(tmp_path, damage):
    desired, _ = config.check_text((REPO / "examples/router.yaml").read_text(), "r", ())
    record(tmp_path, _pending(tmp_path, 1e9, desired))
    path = tmp_path / PENDING
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ConfirmError) as refused:
        load(path)
    assert "not a pending rollback this vppcfg wrote" in str(refused.value)
    assert "check VPP with `vppcfg plan`, then `vppcfg confirm` clears it" in str(refused.value)
    assert "not a pending rollback" in pending_trouble(tmp_path)
    with pytest.raises(ConfirmError, match="rollback timer did not start"):
        start_timer(tmp_path)  # the timer refuses it too, and says why


class _Payload:
    """A pickle that runs code when loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_a_pickled_pending_is_not_loaded(tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / PENDING).write_bytes(pickle.dumps(_Payload(marker)))
    (tmp_path / PENDING).chmod(0o600)
    with pytest.raises(ConfirmError, match="not JSON"):
        load(tmp_path / PENDING)
    with pytest.raises(ConfirmError, match="did not start"):
        start_timer(tmp_path)
    assert not marker.exists()


def test_a_pending_symlink_is_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    record(elsewhere, _pending(tmp_path, 1e9))
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / PENDING).symlink_to(elsewhere / PENDING)
    with pytest.raises(ConfirmError, match="not a pending rollback"):
        load(state / PENDING)


# --- the state directory and lock file are ours or refused ---

def _nobody() -> tuple[int, int]:
    if os.geteuid() != 0:
        pytest.skip(SKIP_REASON + "needs root privileges to give a directory to another user")
    import pwd

    user = pwd.getpwnam("nobody")
    return user.pw_uid, user.pw_gid


def test_a_state_dir_of_another_user_is_refused(tmp_path, capsys):
    state = tmp_path / "state"
    record(state, _pending(tmp_path, time.time() + 60))
    os.chown(state, *_nobody())
    cfg = tmp_path / "c.yaml"
    cfg.write_text("loopbacks:\n  loop0: {}\n")
    refusal = f"refusing state directory {state}: it is owned by nobody, not root"
    assert main(["confirm", "--state-dir", str(state)]) == 2
    assert refusal in capsys.readouterr().err
    assert main(["apply", "-c", str(cfg), "--state-dir", str(state), "--lock-file",
                 str(tmp_path / "lock"), "--vpp-api-socket", str(tmp_path / "none")]) == 2
    assert refusal in capsys.readouterr().err
    assert (state / PENDING).exists()  # nothing was claimed


def test_a_state_dir_others_can_write_is_refused(tmp_path, capsys):
    state = tmp_path / "state"
    record(state, _pending(tmp_path, time.time() + 60))
    state.chmod(0o777)
    assert main(["confirm", "--state-dir", str(state)]) == 2
    assert "group or others can write it" in capsys.readouterr().err
    with pytest.raises(UnsafePath):
        start_timer(state)


def test_the_lock_file_is_private_and_never_followed(tmp_path):
    lock = tmp_path / "run" / "apply.lock"
    with ApplyLock(lock):
        pass
    assert lock.stat().st_mode & 0o777 == 0o600
    assert lock.parent.stat().st_mode & 0o777 == 0o700
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (tmp_path / "link.lock").symlink_to(victim)
    with pytest.raises(LockError, match="cannot open lock file"), ApplyLock(tmp_path / "link.lock"):
        pass
    assert victim.read_text() == "keep me\n"
    lock.chmod(0o666)
    with pytest.raises(LockError, match="group or others can write it"), ApplyLock(lock):
        pass


def test_timer_module_refuses_a_state_dir_others_can_write(tmp_path):
    record(tmp_path / "s", _pending(tmp_path, time.time() + 60))
    (tmp_path / "s").chmod(0o777)
    run = subprocess.run([sys.executable, "-m", "vppcfg.apply.timer", str(tmp_path / "s")],
                         capture_output=True, text=True, timeout=60, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 0
    assert "nothing to watch" in run.stdout and "group or others" in run.stdout
