"""Executable docs: every ```console block of README.md and docs/*.md is run,
command by command, against the simulator (vppcfg-sim, started as the README
says), and what each command prints must be what the block shows. A change
that alters output fails here until the docs say the same.

In a block, a line `$ COMMAND` is run by bash (stdout and stderr together, in
the order written); the lines up to the next `$ ` are its output. `...` stands
for any number of lines. Timings `(0.02s)`, pids, dates and the temporary
directory are masked. Each document gets its own temporary directory (where
`/tmp/` in a command points, and the commands' working directory, with
`examples/` and `tests/` of the checkout and the files in tests/docs_files/)
and its own simulators.

An HTML comment right before a block says how to run it:
  <!-- doctest: sim=NAME OPTIONS -->  against simulator NAME (started with
                                        OPTIONS, or none, the first time)
  (none)                                the document's `main` simulator, started with
                                        `--inventory examples/sim/inventory.yaml`
  <!-- doctest: trex=NAME OPTIONS -->  against the document's T-Rex emulator NAME,
                                        started the first time as `trex-emu OPTIONS`
                                        would be (the same parser and config), in
                                        this process on free ports, as the fixture
                                        tests/trex_fixtures.py starts it; no simulator
  <!-- doctest: skip REASON -->         not run (say why)

The commands reach the emulator through `$TREX`, which the docs explain to the
reader (unset: 127.0.0.1 and T-Rex's ports 4501/4500, where a `trex-emu`
started without options listens; `--server HOST` for a real T-Rex): here it is
`--sync-port N --async-port M`, the emulator's free ports. Outside a trex
block `$TREX` is unset. `bench/` is linked beside `examples/` and `tests/`.

`trex-emu` runs in wall-clock time (as the docs tell users to run it), so what a
ramp measures varies a little from run to run, and these figures are masked too:
the measured `tx`/`rx` rates of a ramp's progress line (the asked rate and the
loss stay), the lossless and max forwarded rates and their shares of line of a
ramp's per-direction summary, the packet counts of its `whole run:` lines, the
elapsed seconds heading an ndr progress line (the trials' loads and losses stay:
they are exact), and the `wall s` column of bench/bench_ndr.py.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from loadtest.emu import EmulatorHandle
from loadtest.emu.__main__ import build_parser, config_from_args
from tests.trex_fixtures import start_emulator

REPO = Path(__file__).resolve().parents[1]
FILES = REPO / "tests" / "docs_files"
BIN = Path(sys.executable).parent  # the venv's vppcfg, vppcfg-sim, ... entry points
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DEFAULT_SIM = "--inventory examples/sim/inventory.yaml"
DIRECTIVE = re.compile(r"<!--\s*doctest:\s*(.*?)\s*-->")
RATE = r"\d+(?:\.\d+)?"  # a figure trex-loadtest prints (fmt_pps, percentages)
MASKS = (
    (re.compile(r"\(\d+\.\d+s\)"), "(N.NNs)"),
    (re.compile(r"timer pid \d+"), "timer pid PID"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"), "DATE TIME"),
    # trex-loadtest against trex-emu in wall-clock time (see the docstring)
    (re.compile(rf"(\d->\d: tx ){RATE}( [kM]?pps rx ){RATE}( [kM]?pps loss )"), r"\1N\2N\3"),
    (re.compile(rf"(\d->\d: lossless ){RATE}( [kM]?pps \(){RATE}(% of line\), max forwarded )"
                rf"{RATE}( [kM]?pps \(){RATE}(%\))"), r"\1N\2N\3N\4N\5"),
    (re.compile(r"(\d->\d: whole run: )\d+( test packets sent, )\d+( lost \()[\d.]+"
                r"(%\); port counters: )\d+( sent, )\d+( received)"), r"\1N\2N\3N\4N\5N\6"),
    (re.compile(r"^( *)\d+\.\ds( trial \d+: )", re.MULTILINE), r"\1N.Ns\2"),
    (re.compile(r"^((?:MLRsearch|binary) .*) +\d+\.\d\d$", re.MULTILINE), r"\1 N.NN"),
)


@dataclass
class Command:
    line: int  # in the document
    text: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    document: Path
    line: int
    directive: str
    commands: list[Command]

    @property
    def name(self) -> str:
        return f"{self.document.relative_to(REPO)}:{self.line}"


def blocks(document: Path) -> Iterator[Block]:
    """The console blocks of a document, with the directive before each."""
    lines = document.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        before = lines[i - 1].strip() if i else ""
        found = DIRECTIVE.fullmatch(before)
        start, commands = i + 1, []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            text = lines[i]
            if text.startswith("$ "):
                commands.append(Command(i + 1, text[2:]))
            elif commands:
                commands[-1].expected.append(text)
            i += 1
        yield Block(document, start, found.group(1) if found else "", commands)


ALL = [b for d in DOCUMENTS for b in blocks(d)]


def mask(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "/tmp")
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether actual fits expected, where a `...` line is any run of lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == head and matches(rest, actual[1:])


class Session:
    """One document's directory, simulators and T-Rex emulators."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.sims: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}
        self.emus: dict[str, EmulatorHandle] = {}
        for name in ("examples", "tests", "bench"):
            (tmp / name).symlink_to(REPO / name)
        if FILES.is_dir():
            for path in FILES.iterdir():
                (tmp / path.name).write_bytes(path.read_bytes())
        self.api_dir = subprocess.run([str(BIN / "vppcfg-sim"), "--print-api-dir"],
                                      capture_output=True, text=True, check=True).stdout.strip()

    def sim(self, name: str, options: str) -> Path:
        if name not in self.sims:
            socket = self.tmp / f"{name}.sock"
            ready = self.tmp / f"{name}.ready"
            proc = subprocess.Popen(
                [str(BIN / "vppcfg-sim"), "--socket", str(socket), "--ready-file", str(ready),
                 "--no-stats", *shlex.split(options)],
                cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 30
            while not ready.exists():
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the simulator did not start"
                time.sleep(0.05)
            self.sims[name] = (proc, socket)
        return self.sims[name][1]

    def trex(self, name: str, options: str) -> str:
        """The trex-loadtest options that reach emulator NAME (`trex-emu OPTIONS`)."""
        if name not in self.emus:
            args = build_parser().parse_args(shlex.split(options))
            # every field as trex-emu sets it (time scale 1, not the fixture's 10); then
            # start_emulator binds 127.0.0.1 on free ports
            self.emus[name] = start_emulator(**dataclasses.asdict(config_from_args(args)))
        emu = self.emus[name]
        return f"--sync-port {emu.rpc_port} --async-port {emu.pub_port}"

    def run(self, command: str, socket: Path | None, trex: str | None = None) -> str:
        env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
               "VPPCFG_JSON_DIR": self.api_dir,
               "APPLY": f"--lock-file {self.tmp}/vppcfg.lock --state-dir {self.tmp}/vppcfg-state",
               "VPP": "", "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
        for name in ("VPPCFG_DEBUG", "VPPCFG_API_SOCKET", "TREX"):
            env.pop(name, None)
        if socket is not None:
            env["VPPCFG_API_SOCKET"] = str(socket)
        if trex is not None:
            env["TREX"] = trex
        script = command.replace("/tmp/", f"{self.tmp}/")
        run = subprocess.run(["bash", "-c", script], cwd=self.tmp, env=env, timeout=120,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return run.stdout

    def close(self) -> None:
        for emu in self.emus.values():
            emu.stop()
        for proc, _ in self.sims.values():
            proc.terminate()
            proc.wait(timeout=30)
            if proc.stderr:
                proc.stderr.close()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Path, Session]]:
    made: dict[Path, Session] = {}

    def factory(document: Path) -> Session:
        if document not in made:
            made[document] = Session(tmp_path_factory.mktemp(document.stem))
        return made[document]

    yield factory  # type: ignore[misc]
    for session in made.values():
        session.close()


@pytest.mark.parametrize("block", ALL, ids=[b.name for b in ALL])
def test_console_block_shows_what_the_commands_print(block: Block, sessions) -> None:
    if block.directive.startswith("skip"):
        pytest.skip(f"{block.name}: {block.directive}")
    session = sessions(block.document)
    kind, name, options = "sim", "main", DEFAULT_SIM
    if block.directive:
        assert block.directive.startswith(("sim=", "trex=")), (
            f"{block.name}: unknown directive {block.directive!r}")
        kind, _, spec = block.directive.partition("=")
        name, _, options = spec.partition(" ")  # no options: the defaults
    socket = session.sim(name, options.strip()) if kind == "sim" else None
    trex = session.trex(name, options.strip()) if kind == "trex" else None
    assert block.commands, f"{block.name}: a console block without a $ command"
    for command in block.commands:
        actual = mask(session.run(command.text, socket, trex), session.tmp).splitlines()
        expected = [mask(line, session.tmp) for line in command.expected]
        assert matches(expected, actual), (
            f"{block.document.name}:{command.line}: $ {command.text}\n"
            "--- the document shows:\n" + "\n".join(expected) +
            "\n--- the command prints:\n" + "\n".join(actual))


def test_blocks_are_found() -> None:
    """The README's walk-through is among them (a parser that finds nothing passes nothing)."""
    readme = [b for b in ALL if b.document.name == "README.md"]
    assert len(readme) >= 3 and all(b.commands for b in readme)
    assert any(b.directive.startswith("trex=") for b in ALL)  # the loadtest docs' blocks
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and matches(["...", "x"], ["x"])
    assert not matches(["a", "...", "d"], ["a", "b"]) and not matches(["a"], ["a", "b"])
