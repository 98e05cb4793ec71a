"""`vppcfg apply` under signals (issue 31): what it says is what VPP did.

The signals are real (os.kill of this process) and arrive at chosen points:
between pipelined writes, within the rollback; the simulator runs in a
thread, so it keeps answering while the main thread handles them.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from vppcfg.apply import journal
from vppcfg.cli import main
from vppcfg.vpp import VppConnection
from vppcfg.vpp.connection import VppConnection as Conn
from vppcfg.vpp.context import PipelinedContext

LOOPBACKS = 2500  # its creates take three pipelined writes (1024 requests each)


def _config(tmp: Path, n: int = LOOPBACKS) -> Path:
    cfg = tmp / "many.yaml"
    # loopbacks alone: one operation each, undone by one delete each
    cfg.write_text("loopbacks:\n" + "".join(f"  loop{i}:\n    mtu: 1500\n" for i in range(n)))
    return cfg


@pytest.fixture
def setup(vpp_sim, tmp_path):
    args = ["--vpp-api-socket", vpp_sim.socket, "--vpp-json-dir", str(vpp_sim.api_dir),
            "--lock-file", str(tmp_path / "apply.lock"), "--state-dir", str(tmp_path / "state")]
    return vpp_sim, _config(tmp_path), args, tmp_path


def _dump(sim: Any) -> Any:
    with VppConnection.open(sim.socket, sim.api_dir) as conn:
        return conn.dump()


def _signal_at(monkeypatch, at: list[int], signum: int = signal.SIGINT) -> None:
    """Send `signum` to this process as the apply's pipelined replies come in:
    on the batches of replies numbered in `at`."""
    original = PipelinedContext._check
    count = [0]

    def wrapped(self: Any, *a: Any) -> Any:
        count[0] += 1
        if count[0] in at:
            os.kill(os.getpid(), signum)
        return original(self, *a)

    monkeypatch.setattr(PipelinedContext, "_check", wrapped)


def _counts(report: str) -> tuple[str, str]:
    made = next(line for line in report.splitlines() if "were made" in line)
    undone = next(line for line in report.splitlines() if line.startswith("rollback:"))
    return made.strip(), undone


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_mid_pipeline_counts_agree_and_exit_130(setup, capfd, monkeypatch, signum):
    """Before: 'executed 0' while thousands were made, and exit 1. Now the
    replies in flight are read, text and JSON give the same counts, the counts
    match what the rollback had to undo, and the exit code is 130."""
    sim, cfg, args, tmp = setup
    pre = _dump(sim)
    _signal_at(monkeypatch, [1], signum)  # at the first write's replies
    code = main(["apply", "-c", str(cfg), "--format", "json", *args])
    out, err = capfd.readouterr()
    doc = json.loads(out)
    assert code == 130 == doc["exit_code"], err
    name = signal.Signals(signum).name
    assert doc["interrupted"] == name and f"interrupted by {name}" in err
    made = doc["executed"] + doc["partial"]
    created = sum(1 for op in made if op["obj"] == "loopback")
    assert 0 < created < LOOPBACKS  # VPP had made some of them: they are counted
    rb = doc["rollback"]
    assert rb["complete"] and not rb["forced"]
    # the loopbacks said to be made (in full or in part) are those the rollback deleted
    assert rb["planned"] == len(rb["executed"]) == created
    text_made, text_undone = _counts(doc["report"])
    assert text_made.startswith(f"{len(doc['executed'])} of {len(doc['planned'])} change")
    assert text_undone.startswith(f"rollback: {len(rb['executed'])} change(s) undone")
    assert doc["report"] in err  # the same text on the terminal
    assert _dump(sim) == pre
    assert not (tmp / "state" / journal.JOURNAL).exists()  # a clean end removes the journal


def test_text_report_matches_what_was_made(setup, capfd, monkeypatch):
    _sim, cfg, args, _ = setup
    _signal_at(monkeypatch, [1])
    assert main(["apply", "-c", str(cfg), *args]) == 130
    err = capfd.readouterr().err
    assert "apply STOPPED: interrupted by SIGINT" in err
    made, undone = _counts(err)
    assert made.startswith("0 of 7500 change(s) were made, 2048 more in part"), made
    assert undone.startswith("rollback: 2048 change(s) undone of 2048 needed"), undone
    assert "back to the state before the apply" in err


def test_signal_during_rollback_does_not_cut_it_short(setup, capfd, monkeypatch):
    """A second signal, in the rollback: said on the terminal; the rollback completes."""
    sim, cfg, args, _ = setup
    pre = _dump(sim)
    _signal_at(monkeypatch, [1])
    _signal_rollback_call(monkeypatch, [5])
    assert main(["apply", "-c", str(cfg), *args]) == 130
    err = capfd.readouterr().err
    assert "the rollback goes on, it is not cut short" in err
    assert "back to the state before the apply" in err
    assert _dump(sim) == pre


def _signal_rollback_call(monkeypatch, at: list[int]) -> None:
    """Signals on the rollback's calls numbered in `at` (sent one at a time)."""
    import vppcfg.apply as apply

    original = apply._roll_back
    count = [0]

    def rolling(conn: Any, *a: Any) -> None:
        call = conn.call

        def counted(message: str, **kw: Any) -> Any:
            count[0] += 1
            if count[0] in at:
                os.kill(os.getpid(), signal.SIGTERM)
            return call(message, **kw)

        conn.call = counted
        try:
            original(conn, *a)
        finally:
            del conn.call

    monkeypatch.setattr(apply, "_roll_back", rolling)


def test_third_signal_forces_exit_and_records_what_is_left(setup, capfd, monkeypatch):
    """The third signal forces exit mid-rollback: exit 130, the state dir
    records what is left undone, and the next plan and apply say so first."""
    _sim, cfg, args, tmp = setup
    _signal_at(monkeypatch, [1])
    _signal_rollback_call(monkeypatch, [5, 9])
    assert main(["apply", "-c", str(cfg), "--format", "json", *args]) == 130
    out, err = capfd.readouterr()
    doc = json.loads(out)
    rb = doc["rollback"]
    assert rb["forced"] == "SIGTERM" and not rb["complete"] and rb["remaining"]
    assert "forced exit" in err and "left undone" in err
    entry = json.loads((tmp / "state" / journal.JOURNAL).read_text())
    assert entry["left_undone"] == [
        f"{op['action']} {op['obj']} {op['key']}" for op in rb["remaining"]]
    monkeypatch.undo()
    state = args[args.index("--state-dir"):]
    assert main(["plan", "-c", str(cfg), "--novpp", *state]) in (0, 2)
    first = capfd.readouterr().err.splitlines()[0]
    assert "an earlier apply did not finish" in first
    # the next apply says it first, then makes VPP match: the record goes
    assert main(["apply", "-c", str(cfg), *args]) == 0
    err = capfd.readouterr().err
    assert err.splitlines()[0].startswith("vppcfg apply: an earlier apply did not finish")
    assert journal.earlier(str(tmp / "state")) is None


def test_killed_apply_is_reported_by_the_next_run(setup, capfd):
    """SIGKILL leaves the journal written before the first change; the next
    run says an earlier apply did not finish and what it was."""
    _, cfg, args, tmp = setup
    state = tmp / "state"
    state.mkdir()
    (state / journal.JOURNAL).write_text(json.dumps({
        "pid": 2 ** 22 + 1, "started": 0, "state": "applying", "left_undone": None,
        "config": "/etc/vppcfg/old.yaml", "planned": 8346}))
    assert main(["apply", "-c", str(cfg), "--dry-run", *args]) == 0  # a dry run: not yet
    assert "earlier apply" not in capfd.readouterr().err
    assert main(["plan", "-c", str(cfg), "--novpp", "--state-dir", str(state)]) in (0, 2)
    err = capfd.readouterr().err
    assert "an earlier apply did not finish" in err and "/etc/vppcfg/old.yaml" in err
    assert "8346 change(s) planned" in err and "not known" in err


def test_signal_before_any_change_says_nothing_changed(setup, capfd, monkeypatch):
    sim, cfg, args, tmp = setup
    monkeypatch.setattr(Conn, "dump", lambda self: os.kill(os.getpid(), signal.SIGTERM))
    assert main(["apply", "-c", str(cfg), *args]) == 130
    err = capfd.readouterr().err
    assert "interrupted by SIGTERM before any change; nothing was changed" in err
    assert sim.dataplane.mutations == 0
    assert not (tmp / "state" / journal.JOURNAL).exists()


def test_confirm_hint_names_a_non_default_state_dir(setup, capfd):
    """The printed confirm command must work as printed."""
    _, cfg, args, tmp = setup
    assert main(["apply", "-c", str(cfg), "--confirm", "60", *args]) == 0
    out = capfd.readouterr().out
    assert f"`vppcfg confirm --state-dir {tmp / 'state'}`" in out
    assert main(["confirm", "--state-dir", str(tmp / "state")]) == 0


def test_a_signal_once_the_confirm_timer_is_armed_leaves_it_armed(setup, capfd, monkeypatch):
    """SIGTERM after the change is made and the timer armed: the timer decides, and the
    apply says so (exit 130)."""
    import vppcfg.apply.confirm as confirm

    _, _cfg, args, tmp = setup
    start_timer = confirm.start_timer

    def armed_then_signalled(state_dir: Any) -> int:
        pid = start_timer(state_dir)
        os.kill(os.getpid(), signal.SIGTERM)
        return pid

    monkeypatch.setattr(confirm, "start_timer", armed_then_signalled)
    assert main(["apply", "-c", str(_config(tmp, 3)), "--confirm", "60", *args]) == 130
    err = capfd.readouterr().err
    assert "interrupted by SIGTERM after the change was made: the confirm timer stays armed" \
        in err
    assert confirm.is_pending(str(tmp / "state"))
    assert main(["confirm", "--state-dir", str(tmp / "state")]) == 0


def test_a_signal_during_an_apply_with_confirm_rolls_back_at_once(setup, capfd, monkeypatch):
    sim, cfg, args, _tmp = setup
    pre = _dump(sim)
    _signal_at(monkeypatch, [1], signal.SIGHUP)
    assert main(["apply", "-c", str(cfg), "--confirm", "60", *args]) == 130
    err = capfd.readouterr().err
    assert "the confirm timer was not armed yet: rolled back at once" in err
    assert _dump(sim) == pre
