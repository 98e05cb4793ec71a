"""One command-line convention across vppcfg, vppcfg-sim, trex-loadtest and
trex-emu: --version; a config as -c FILE, FILE or - (stdin); --format json for
what reports, apply's result valid against its schema; options described and
checked before anything connects."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vppcfg import __version__
from vppcfg.cli import main

REPO = Path(__file__).resolve().parents[1]
APPLY_SCHEMA = REPO / "schema" / "apply-result.schema.json"
CONFIG = """\
interfaces:
  GigabitEthernet3/0/0:
    mtu: 9000
    addresses: [192.0.2.1/24]
loopbacks:
  loop0:
    addresses: [198.51.100.1/32]
"""
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                          timeout=60, env=ENV, cwd=REPO)


@pytest.mark.parametrize(("module", "prog"), [
    ("vppcfg", "vppcfg"), ("vppcfg.sim", "vppcfg-sim"), ("loadtest.cli", "trex-loadtest"),
    ("loadtest.emu", "trex-emu")])
def test_every_command_says_its_version(module: str, prog: str) -> None:
    run = _run(["-m", module, "--version"])
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"{prog} {__version__}"


@pytest.fixture
def sim_args(vpp_sim: Any, tmp_path: Path) -> list[str]:
    return ["--vpp-api-socket", vpp_sim.socket, "--vpp-json-dir", str(vpp_sim.api_dir),
            "--lock-file", str(tmp_path / "apply.lock"), "--state-dir", str(tmp_path / "state")]


@pytest.mark.parametrize("how", ["-c", "positional", "stdin"])
@pytest.mark.parametrize("command", ["check", "plan", "apply"])
def test_a_config_is_named_alike_everywhere(command: str, how: str, tmp_path: Path,
                                            sim_args: list[str]) -> None:
    cfg = tmp_path / "router.yaml"
    cfg.write_text(CONFIG)
    given = {"-c": ["-c", str(cfg)], "positional": [str(cfg)], "stdin": ["-"]}[how]
    extra = {"check": [], "plan": ["--novpp"], "apply": ["--dry-run", *sim_args]}[command]
    run = _run(["-m", "vppcfg", command, *given, *extra],
               stdin=CONFIG if how == "stdin" else None)
    assert run.returncode == 0, run.stderr
    if command == "check":
        name = "<stdin>" if how == "stdin" else str(cfg)
        assert run.stdout.startswith(f"{name}: valid (")
    else:  # the plan, as VPP CLI
        assert "create loopback interface instance 0" in run.stdout


def test_problems_in_stdin_are_named_stdin() -> None:
    run = _run(["-m", "vppcfg", "plan", "--novpp", "-"], stdin="loopbacks:\n  loop0:\n    mtu: x\n")
    assert run.returncode == 1
    assert run.stderr.startswith("vppcfg plan: <stdin>:3:10: loopbacks.loop0.mtu:"), run.stderr


def test_check_reads_stdin_once() -> None:
    """A second `-` would read stdin empty and refuse it as an empty file."""
    run = _run(["-m", "vppcfg", "check", "-c", "-", "-"], stdin=CONFIG)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().endswith("vppcfg check: error: `-` (stdin) given more than once")


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_one_config_file_exactly(command: str, tmp_path: Path) -> None:
    cfg = tmp_path / "a.yaml"
    cfg.write_text(CONFIG)
    for argv in ([], ["-c", str(cfg), str(cfg)]):
        run = _run(["-m", "vppcfg", command, *argv])
        assert run.returncode == 2
        assert run.stderr.strip().startswith(f"vppcfg {command}: error: give ")
        assert "-c FILE, FILE, or - for stdin" in run.stderr


def _schema_check(doc: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, json.loads(APPLY_SCHEMA.read_text(encoding="utf-8")))


def _apply_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = main(["apply", "--format", "json", *argv])
    out = capsys.readouterr().out
    doc = json.loads(out)  # stdout is the document and nothing else
    _schema_check(doc)
    assert doc["exit_code"] == code
    lines = set(out.splitlines())
    for op in doc["planned"] + doc["executed"]:  # an operation per line
        assert f"    {json.dumps(op)}" in lines or f"    {json.dumps(op)}," in lines
    return code, doc


def test_apply_json_made_then_nothing_to_do(vpp_sim: Any, sim_args: list[str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "router.yaml"
    cfg.write_text(CONFIG)
    code, doc = _apply_json([str(cfg), *sim_args], capsys)
    assert code == 0 and doc["ok"] and doc["changed"]
    assert any(op["action"] == "create" and op["key"].startswith("interfaces/loop0")
               for op in doc["executed"])
    assert len(doc["executed"]) == len(doc["planned"]) and vpp_sim.dataplane.mutations > 0
    assert doc["rollback"] is None and doc["report"].startswith("applied ")
    code, doc = _apply_json([str(cfg), *sim_args], capsys)
    assert code == 0 and doc["ok"] and not doc["changed"] and doc["executed"] == []
    assert doc["report"].startswith("nothing to do")


def test_apply_json_of_a_failure_and_its_rollback(vpp_sim_factory: Any, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sim = vpp_sim_factory(fail_after=2)
    cfg = tmp_path / "router.yaml"
    cfg.write_text(CONFIG)
    code, doc = _apply_json([str(cfg), "--vpp-api-socket", sim.socket, "--vpp-json-dir",
                             str(sim.api_dir), "--lock-file", str(tmp_path / "lock"),
                             "--state-dir", str(tmp_path / "state")], capsys)
    assert code == 1 and not doc["ok"] and not doc["changed"]
    assert doc["failed"] is not None and doc["error"]
    assert len(doc["executed"]) == 2  # the third state-changing call failed
    assert doc["rollback"]["complete"] is True
    assert len(doc["rollback"]["executed"]) == 2


def test_apply_json_of_a_refused_config_and_a_dry_run(
        sim_args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("loopbacks:\n  loop0:\n    mtu: x\n")
    code, doc = _apply_json([str(bad), *sim_args], capsys)
    assert code == 1 and not doc["ok"] and not doc["changed"] and doc["planned"] == []
    assert doc["problems"][0]["line"] == 3 and doc["problems"][0]["path"] == "loopbacks.loop0.mtu"
    assert "nothing was changed" in doc["errors"][0]
    code, doc = _apply_json([str(tmp_path / "absent.yaml"), *sim_args], capsys)
    assert code == 2 and doc["problems"][0]["message"] == "no such file"
    good = tmp_path / "good.yaml"
    good.write_text(CONFIG)
    code, doc = _apply_json([str(good), "--dry-run", *sim_args], capsys)
    assert code == 0 and doc["ok"] and doc["dry_run"] and not doc["changed"]
    assert doc["planned"] and "create loopback interface instance 0" in doc["report"]


def test_confirm_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["confirm", "--format", "json", "--state-dir", str(tmp_path)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"confirmed": False, "message": "no apply is waiting for confirmation"}


def test_simulator_says_its_api_dir() -> None:
    run = _run(["-m", "vppcfg.sim", "--print-api-dir"])
    assert run.returncode == 0
    path = Path(run.stdout.strip())
    assert sorted(path.rglob("*.api.json")), path
    older = Path(_run(["-m", "vppcfg.sim", "--print-api-dir", "--release", "24.10"])
                 .stdout.strip())
    assert older != path and older.name == "24.10"


def _help(argv: list[str]) -> str:
    run = _run([*argv, "--help"])
    assert run.returncode == 0, run.stderr
    return run.stdout


def _undescribed(help_text: str) -> list[str]:
    """Options in an argparse --help whose line (and the next) say nothing more."""
    lines = help_text.splitlines()
    bare = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not re.match(r"  -", line) or line.startswith("   "):  # an option's own line
            continue
        words = stripped.split("  ", 1)
        described = len(words) > 1 and words[1].strip()
        following = i + 1 < len(lines) and lines[i + 1].startswith(" " * 10) \
            and not lines[i + 1].strip().startswith("-")
        if not described and not following:
            bare.append(stripped)
    return bare


PARSERS = [
    ["-m", "vppcfg", "check"], ["-m", "vppcfg", "plan"], ["-m", "vppcfg", "apply"],
    ["-m", "vppcfg", "dump"], ["-m", "vppcfg", "confirm"], ["-m", "vppcfg", "schema"],
    ["-m", "vppcfg.sim"], ["-m", "loadtest.cli", "ramp"], ["-m", "loadtest.cli", "ndr"],
    ["-m", "loadtest.cli", "report"], ["-m", "loadtest.emu"],
]


@pytest.mark.parametrize("argv", PARSERS, ids=[" ".join(a[1:]) for a in PARSERS])
def test_every_option_is_described_in_help(argv: list[str]) -> None:
    assert _undescribed(_help(argv)) == []


def test_loadtest_help_shows_the_original_command_line() -> None:
    text = _help(["-m", "loadtest.cli"])
    assert "trex-loadtest -s SERVER [-u] -p PROFILE.py -t TUNABLES -rd SECONDS -rt RATE" in text


RATE = ("give a finite percentage of line rate, more than 0, or a finite rate with its unit, "
        "e.g. 1.5mpps")


@pytest.mark.parametrize(("argv", "said"), [
    # the parser's refusals (vppcfg.numbers): usage, then the error naming the option
    (["ramp", "--warmup-rate", "fast"], f"argument -wm/--warmup-rate: rate 'fast': {RATE}"),
    (["ramp", "--start-rate", "0"], f"argument --start-rate: rate '0': {RATE}"),
    (["ndr", "--min-rate=-1mpps"], f"argument --min-rate: rate '-1mpps': {RATE}"),
    (["ramp", "--rate", "nan%"], f"argument -rt/--rate: rate 'nan%': {RATE}"),
    (["ramp", "--sync-port", "70000"], "argument --sync-port: '70000' is out of range: at "
     "least 1 and at most 65535 (a TCP port)"),
    (["ramp", "--link-speed", "0"], "argument --link-speed: '0' is out of range: more than 0 "
     "and at most 10000 Gbit/s"),
    # then, in one line, what needs more than one option, the line rate or the file system
    (["ramp", "--rate", "150"], "--rate: rate '150' is more than 100% of line rate"),
    (["ndr", "--max-rate", "101%"], "--max-rate: rate '101%' is more than 100% of line rate"),
    (["ndr", "--ports", "1", "1"], "--ports: two different port numbers, not 1 1"),
    (["ndr", "-o", "/nonexistent-dir/ndr.json"],
     "-o /nonexistent-dir/ndr.json: no directory /nonexistent-dir"),
])
def test_options_are_refused_before_connecting(argv: list[str], said: str) -> None:
    # port 9 (discard) on a documentation address: a connection attempt would hang
    # for --timeout, and say "cannot connect"
    # (the option under test comes last: it overrides these)
    run = _run(["-m", "loadtest.cli", argv[0], "-s", "192.0.2.1", "--sync-port", "9",
                "--timeout", "30", "-q", *argv[1:]])
    assert run.returncode == 2
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("trex-loadtest") and last.endswith(f"error: {said}"), run.stderr
    if not said.startswith("argument "):  # not the parser's: one line
        assert run.stderr.strip() == f"trex-loadtest: error: {said}"
    assert "connect" not in run.stderr


@pytest.mark.parametrize(("argv", "said"), [
    (["--keepalive", "-1"], "argument --keepalive: '-1' is out of range: more than 0 and at "
     "most 86400 seconds"),
    (["--fail-after", "-2"], "argument --fail-after: '-2' is out of range: at least 1 and at "
     "most 2.14748e+09"),
    (["--capacity-pps", "0"], "argument --capacity-pps: '0' is out of range: more than 0 and "
     "at most 1e+12 packets per second"),
])
def test_simulator_options_are_checked_before_it_serves(argv: list[str], said: str,
                                                        tmp_path: Path) -> None:
    run = _run(["-m", "vppcfg.sim", "--socket", str(tmp_path / "api.sock"), *argv])
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == f"vppcfg-sim: error: {said}"
    assert not (tmp_path / "api.sock").exists()


def test_apply_json_is_printed_even_when_interrupted(sim_args: list[str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle: still one document, which says VPP may have changed."""
    from vppcfg.commands import apply as apply_command

    def interrupted(args: Any, path: str) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(apply_command, "_run_apply", interrupted)
    cfg = tmp_path / "router.yaml"
    cfg.write_text(CONFIG)
    code = main(["apply", "--format", "json", str(cfg), *sim_args])
    doc = json.loads(capsys.readouterr().out)
    _schema_check(doc)
    assert code == 130 and doc["exit_code"] == 130
    assert not doc["ok"] and doc["changed"] and doc["error"] == "interrupted"
