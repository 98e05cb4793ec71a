"""The apply lock and the commit-confirmed state machine (no VPP needed)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.apply_models import wait_for
from vppcfg.apply.confirm import (
    RESULT,
    ROLLING,
    ConfirmError,
    Pending,
    confirm,
    is_pending,
    last_result,
    record,
    start_timer,
)
from vppcfg.apply.lock import ApplyLock, LockBusy
from vppcfg.model import Dataplane

HOLD = (
    "import sys, time\n"
    "from vppcfg.apply.lock import ApplyLock\n"
    "with ApplyLock(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(float(sys.argv[2]))\n"
)


def test_second_lock_in_process_is_refused(tmp_path):
    path = tmp_path / "apply.lock"
    with ApplyLock(path), pytest.raises(LockBusy, match="another vppcfg apply is running"), \
            ApplyLock(path):
        pass
    with ApplyLock(path):  # released on exit
        pass


def test_lock_held_by_another_process(tmp_path):
    path = tmp_path / "apply.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "10"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockBusy, match=f"pid {holder.pid}"), ApplyLock(path):
            pass
    finally:
        holder.kill()
        holder.wait(timeout=10)
    with ApplyLock(path, wait=5):  # the kernel dropped the dead holder's lock
        pass


def test_lock_wait_gets_it_when_released(tmp_path):
    path = tmp_path / "apply.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "0.5"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with ApplyLock(path, wait=10):
            assert time.monotonic() - started < 9
    finally:
        holder.wait(timeout=10)


def _pending(tmp_path, deadline: float) -> Pending:
    return Pending(pre=Dataplane(), api_socket=str(tmp_path / "no-vpp.sock"),
                   json_dir=str(tmp_path), lock_file=str(tmp_path / "apply.lock"),
                   deadline=deadline, timeout=1.0)


def test_shared_lock_and_state_dir_is_private(tmp_path):
    # By default the lock file lives in the state dir, and the lock creates it
    # first: the pending (pickled) state must still be in a 0700 directory.
    run = tmp_path / "run"
    with ApplyLock(run / "apply.lock"):
        record(run, _pending(tmp_path, time.time() + 60))
    assert run.stat().st_mode & 0o777 == 0o700


def test_confirm_without_pending_fails(tmp_path):
    with pytest.raises(ConfirmError, match="no apply is waiting"):
        confirm(tmp_path)


def test_confirm_consumes_pending(tmp_path):
    record(tmp_path, _pending(tmp_path, time.time() + 60))
    assert is_pending(tmp_path)
    assert "confirmed" in confirm(tmp_path)
    assert not is_pending(tmp_path)
    with pytest.raises(ConfirmError):
        confirm(tmp_path)




def test_confirm_after_a_timer_died_mid_rollback_says_so(tmp_path):
    (tmp_path / ROLLING).write_text("")  # claimed by a timer that no longer runs
    with pytest.raises(ConfirmError, match="timer is gone"):
        confirm(tmp_path)


def test_timer_exits_quietly_when_confirmed(tmp_path):
    record(tmp_path, _pending(tmp_path, time.time() + 30))
    pid = start_timer(tmp_path)
    confirm(tmp_path)
    assert wait_for(lambda: not _alive(pid))
    assert last_result(tmp_path) is None


def test_timer_rolls_back_at_deadline_and_reports(tmp_path):
    # No VPP to reach (no API definitions even): the timer must still claim the
    # pending state at the deadline and report the failed rollback.
    record(tmp_path, _pending(tmp_path, time.time() + 0.3))
    pid = start_timer(tmp_path)
    assert wait_for(lambda: (tmp_path / RESULT).exists())
    assert wait_for(lambda: not _alive(pid))
    assert not is_pending(tmp_path)
    assert "rollback FAILED" in last_result(tmp_path)
    assert "VPP API definitions" in last_result(tmp_path)
    with pytest.raises(ConfirmError):
        confirm(tmp_path)  # too late


def test_timer_claims_only_under_the_apply_lock(tmp_path):
    # While something holds the apply lock at the deadline, the pending state
    # stays in place: an apply (which checks it under that lock) cannot slip
    # in between the timer's claim and its rollback, and a confirm still wins.
    with ApplyLock(tmp_path / "apply.lock"):
        record(tmp_path, _pending(tmp_path, time.time() + 0.1))
        pid = start_timer(tmp_path)
        time.sleep(1.0)  # well past the deadline: the timer waits for the lock
        assert is_pending(tmp_path)
        assert "confirmed" in confirm(tmp_path)
    assert wait_for(lambda: not _alive(pid))
    assert last_result(tmp_path) is None


def _alive(pid: int) -> bool:
    try:
        done, _ = __import__("os").waitpid(pid, __import__("os").WNOHANG)
    except ChildProcessError:
        return False
    return done == 0
