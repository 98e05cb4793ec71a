"""No traceback reaches a user: each command given a missing, binary, directory,
unreadable or unwritable path says so in one line and exits with the code
docs/user-guide.md's exit-code table gives (vppcfg.exits), as root and as an
unprivileged user (tests/unprivileged.py: `nobody` through setpriv when we are
root, for what only file modes refuse)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import unprivileged
from vppcfg.exits import INTERRUPTED, USAGE

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "acl.yaml"  # a valid config: the path under test comes later


@dataclass(frozen=True)
class Case:
    """A command line whose `{p}` is the bad path; what it must exit with, and
    what its one line must name (`{p}` again, or another text)."""

    name: str
    argv: tuple[str, ...]
    code: int
    names: str = "{p}"


VPPCFG = ("-m", "vppcfg")
SIM = ("-m", "vppcfg.sim")
LOADTEST = ("-m", "loadtest.cli")
EMU = ("-m", "loadtest.emu")

# A config file read by each vppcfg command that reads one.
CONFIG_READERS = [
    Case("check", (*VPPCFG, "check", "{p}"), USAGE),
    Case("plan", (*VPPCFG, "plan", "--novpp", "-c", "{p}"), USAGE),
    Case("apply", (*VPPCFG, "apply", "-c", "{p}"), USAGE),
]
# Other files and directories the four commands read.
READERS = [
    *CONFIG_READERS,
    Case("dump-json-dir", (*VPPCFG, "dump", "--vpp-json-dir", "{p}"), USAGE),
    Case("sim-inventory", (*SIM, "--socket", "{d}/api.sock", "--inventory", "{p}"), USAGE),
    Case("loadtest-report", (*LOADTEST, "report", "{p}", "-o", "{d}/report.html"), USAGE),
    Case("emu-vpp-sim", (*EMU, "--rpc-port", "0", "--pub-port", "0", "--vpp-sim", "{p}"),
         USAGE),
]


@pytest.fixture
def place() -> Iterator[Path]:
    """A directory both root and the unprivileged user can enter."""
    with unprivileged.shared_dir() as path:
        yield path


def _argv(case: Case, path: Path, place: Path) -> list[str]:
    return [a.replace("{p}", str(path)).replace("{d}", str(place)) for a in case.argv]


def _run_root(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("VPPCFG_DEBUG", None)
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def _assert_one_line(run: subprocess.CompletedProcess[str], case: Case, path: Path) -> None:
    err = run.stderr
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, f"{case.name}: want one line, got:\n{err}"
    assert case.names.replace("{p}", str(path)) in lines[0], lines[0]
    assert run.returncode == case.code, f"{case.name}: exit {run.returncode}: {err}"


def _binary(place: Path) -> Path:
    path = place / "binary.bin"
    path.write_bytes(bytes(range(128, 256)) * 4)  # not UTF-8 from the first byte
    path.chmod(0o644)
    return path


def _unreadable(place: Path) -> Path:
    """A file only its owner (root, or us) can read."""
    path = place / "secret.yaml"
    path.write_text("interfaces: {}\n", encoding="utf-8")
    path.chmod(0o600)
    return path


INPUTS = {
    "missing": lambda place: place / "no-such-file",
    "binary": _binary,
    "directory": lambda place: place,
}


@pytest.mark.parametrize("kind", sorted(INPUTS))
@pytest.mark.parametrize("case", READERS, ids=[c.name for c in READERS])
def test_bad_input_as_root_is_one_line(case: Case, kind: str, place: Path) -> None:
    path = INPUTS[kind](place)
    run = _run_root(_argv(case, path, place), place)
    _assert_one_line(run, case, path)


@pytest.mark.parametrize("kind", [*sorted(INPUTS), "unreadable"])
@pytest.mark.parametrize("case", READERS, ids=[c.name for c in READERS])
def test_bad_input_as_unprivileged_user_is_one_line(case: Case, kind: str, place: Path) -> None:
    path = _unreadable(place) if kind == "unreadable" else INPUTS[kind](place)
    if kind == "unreadable" and case.name in ("dump-json-dir", "emu-vpp-sim"):
        path = place / "private"
        path.mkdir(mode=0o700)
    run = unprivileged.run_python(_argv(case, path, place), place)
    _assert_one_line(run, case, path)
    if kind in REASONS:  # the line says why, not only where
        assert any(word in run.stderr.lower() for word in REASONS[kind]), run.stderr


# What the line says of a path that is not there, or not ours.
REASONS = {
    "missing": ("no such file", "does not exist"),
    "unreadable": ("permission denied",),
}


# Paths the commands write or own: only an unprivileged user is refused them.
WRITERS = [
    Case("schema-output", (*VPPCFG, "schema", "-o", "{p}/schema.json"), USAGE),
    # {d}/acl.yaml: EXAMPLE copied where the unprivileged user can read it
    Case("apply-lock-file", (*VPPCFG, "apply", "-c", "{d}/acl.yaml", "--lock-file",
                             "{p}/apply.lock"), USAGE),
    Case("apply-state-dir", (*VPPCFG, "apply", "-c", "{d}/acl.yaml", "--lock-file",
                             "{d}/open/apply.lock", "--state-dir", "{p}"), USAGE),
    Case("confirm-state-dir", (*VPPCFG, "confirm", "--state-dir", "{p}"), USAGE),
    Case("sim-socket", (*SIM, "--socket", "{p}/api.sock"), USAGE),
    Case("sim-ready-file", (*SIM, "--socket", "{d}/open/api.sock", "--no-stats",
                            "--ready-file", "{p}/ready"), USAGE),
    Case("loadtest-client-path", (*LOADTEST, "ramp", "--trex-client-path", "{p}"), USAGE),
    # refused before connecting (192.0.2.1: nothing would answer)
    Case("loadtest-output", (*LOADTEST, "ramp", "-s", "192.0.2.1", "--sync-port", "9", "-o",
                             "{p}/run.json"), USAGE),
]


@pytest.mark.parametrize("case", WRITERS, ids=[c.name for c in WRITERS])
def test_refused_paths_as_unprivileged_user_are_one_line(case: Case, place: Path) -> None:
    private = place / "private"  # root's (or ours, when not root), 0700
    private.mkdir(mode=0o700)
    (private / "pending").write_bytes(b"state of an apply by someone else")
    for sub in ("trex", "trex/stl"):
        (private / sub).mkdir(mode=0o700)
    (private / "trex" / "stl" / "api.py").write_text("", encoding="utf-8")
    opened = place / "open"
    opened.mkdir(mode=0o777)
    opened.chmod(0o777)  # the umask took some
    # the checkout may be out of the user's reach (under a 0700 directory)
    unprivileged.readable_copy(EXAMPLE, place)
    if os.geteuid() != 0:
        pytest.skip(unprivileged.SKIP_REASON + "only another user's 0700 directory refuses us")
    run = unprivileged.run_python(_argv(case, private, place), place)
    _assert_one_line(run, case, private)


def test_confirm_state_dir_that_is_a_file(place: Path) -> None:
    path = _binary(place)
    case = Case("confirm-file", (*VPPCFG, "confirm", "--state-dir", "{p}"), USAGE)
    _assert_one_line(_run_root(_argv(case, path, place), place), case, path)


def test_ctrl_c_is_130_with_one_line(place: Path) -> None:
    """Ctrl-C while vppcfg waits for a VPP that never answers (the servers' and
    trex-loadtest's: test_emu_cli, test_sim_wire, test_loadtest_e2e)."""
    silent = place / "silent.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(silent))
        listener.listen(1)  # connects, and is never answered
        api_dir = _run_root([*SIM, "--print-api-dir"], place).stdout.strip()
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen(
            [sys.executable, *VPPCFG, "dump", "--vpp-api-socket", str(silent),
             "--vpp-json-dir", api_dir, "--timeout", "30"],
            cwd=place, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(2)  # past the imports: in the connect
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
    assert proc.returncode == INTERRUPTED, err
    assert err.strip() == "vppcfg: interrupted"
