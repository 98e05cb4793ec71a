"""The man pages and shell completions are generated from the argument parsers
(vppcfg.docgen): regenerating them changes nothing, so an option added to a
command and not to its page or completion fails here until `python -m
vppcfg.docgen` runs. The generated files are checked for what they promise:
every option --help shows is in the page and in the completions, groff reads
the pages without a warning, bash completes sub-commands, options and their
values."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci_policy import ci_enabled
from vppcfg import docgen

REPO = Path(__file__).resolve().parents[1]
MAN = REPO / "docs" / "man"

# (command, man page, command line to ask for help)
COMMANDS = [
    ("vppcfg", ["-m", "vppcfg", "check"]),
    ("vppcfg", ["-m", "vppcfg", "dump"]),
    ("vppcfg", ["-m", "vppcfg", "plan"]),
    ("vppcfg", ["-m", "vppcfg", "apply"]),
    ("vppcfg", ["-m", "vppcfg", "confirm"]),
    ("vppcfg", ["-m", "vppcfg", "schema"]),
    ("vppcfg-sim", ["-m", "vppcfg.sim"]),
    ("trex-loadtest", ["-m", "loadtest.cli", "ramp"]),
    ("trex-loadtest", ["-m", "loadtest.cli", "ndr"]),
    ("trex-loadtest", ["-m", "loadtest.cli", "report"]),
    ("trex-emu", ["-m", "loadtest.emu"]),
]
IDS = [" ".join(a[1:]) for _, a in COMMANDS]


def test_generated_files_are_current() -> None:
    stale = docgen.stale()
    assert not stale, f"stale: {[str(p) for p in stale]}: run python -m vppcfg.docgen"


def test_check_mode_names_a_stale_file(tmp_path: Path) -> None:
    """--check fails on a copy whose page lost an option (and writes nothing)."""
    shutil.copytree(REPO / "docs" / "man", tmp_path / "docs" / "man")
    for path, text in docgen.outputs().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    page = tmp_path / "docs" / "man" / "trex-emu.1"
    page.write_text(page.read_text(encoding="utf-8").replace("\\-\\-vpp\\-sim", "\\-\\-x"),
                    encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "vppcfg.docgen", "--check", "--root",
                          str(tmp_path)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert run.returncode == 1
    assert run.stderr.strip() == "stale: docs/man/trex-emu.1 (run python -m vppcfg.docgen)"
    assert "\\-\\-x" in page.read_text(encoding="utf-8")


def _help(argv: list[str]) -> str:
    return subprocess.run([sys.executable, *argv, "--help"], capture_output=True, text=True,
                          timeout=60, check=True, cwd=REPO).stdout


def long_options(help_text: str) -> set[str]:
    # the options' own lines: two spaces, then the option (not words of a description)
    found = set()
    for line in help_text.splitlines():
        if re.match(r"  -", line):
            found |= set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", line.split("  ")[1]))
    return found - {"--help"}


@pytest.mark.parametrize(("command", "argv"), COMMANDS, ids=IDS)
def test_man_page_and_completions_list_every_option(command: str, argv: list[str]) -> None:
    options = long_options(_help(argv))
    assert options
    page = (MAN / f"{command}.1").read_text(encoding="utf-8").replace("\\-", "-")
    bash = (REPO / "contrib" / "completion" / "bash" / command).read_text(encoding="utf-8")
    zsh = (REPO / "contrib" / "completion" / "zsh" / "_vppcfg").read_text(encoding="utf-8")
    for where, text in (("man page", page), ("bash", bash), ("zsh", zsh)):
        missing = sorted(o for o in options if not re.search(rf"{o}(?![\w-])", text))
        assert not missing, f"{command} {where} lacks {missing}"


@pytest.mark.parametrize("command", [c.name for c in docgen.COMMANDS])
def test_groff_reads_the_page_without_warnings(command: str) -> None:
    groff = shutil.which("groff")
    if groff is None:  # CI installs groff: there, a missing one fails (the project's rule)
        if ci_enabled():
            pytest.fail("groff is not installed (CI=true: the man pages must be checked)")
        pytest.skip("groff is not installed")
    run = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", str(MAN / f"{command}.1")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stderr == "", run.stderr


# bash-completion's helpers, reduced to what the generated functions use
BASH_STUBS = r"""
_init_completion() { cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}";
                     words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
_filedir() { COMPREPLY=("<files${1:+ $1}>"); }
"""


def _complete(command: str, line: str) -> list[str]:
    """COMPREPLY for `line` (the cursor at its end) from the generated script."""
    script = REPO / "contrib" / "completion" / "bash" / command
    function = "_" + command.replace("-", "_")
    words = line.split(" ")
    program = BASH_STUBS + f"""
source {script}
COMP_WORDS=({" ".join(f"'{w}'" for w in words)})
COMP_CWORD={len(words) - 1}
{function}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    run = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and not run.stderr, run.stderr
    return run.stdout.split()


def test_bash_completes_commands_options_and_values() -> None:
    assert {"check", "plan", "apply", "--version"} <= set(_complete("vppcfg", "vppcfg "))
    assert _complete("vppcfg", "vppcfg pl") == ["plan"]
    assert "--detailed-exitcode" in _complete("vppcfg", "vppcfg plan --d")
    assert _complete("vppcfg", "vppcfg plan --format ") == ["cli", "json"]
    assert _complete("vppcfg", "vppcfg apply --state-dir ") == ["<files", "-d>"]
    assert _complete("vppcfg", "vppcfg check ") == ["<files>"]
    assert _complete("vppcfg-sim", "vppcfg-sim --release 24") == ["24.10"]
    assert "--dut-stats" in _complete("trex-loadtest", "trex-loadtest ramp --dut")
    assert _complete("trex-loadtest", "trex-loadtest report ") == ["<files>"]
    assert "--vpp-sim" in _complete("trex-emu", "trex-emu --vpp")


def test_bash_scripts_parse() -> None:
    for path in [REPO / "contrib" / "bash-completion.sh",
                 *(REPO / "contrib" / "completion" / "bash").iterdir()]:
        run = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, f"{path}: {run.stderr}"
