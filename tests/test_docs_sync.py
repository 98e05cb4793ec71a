"""The man pages list every option the commands accept (they are written by
hand, so this catches an option added to a command but not to its page)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

MAN = Path(__file__).resolve().parents[1] / "docs" / "man"

# (man page, command line to ask for help)
COMMANDS = [
    ("vppcfg.1", ["-m", "vppcfg", "check"]),
    ("vppcfg.1", ["-m", "vppcfg", "dump"]),
    ("vppcfg.1", ["-m", "vppcfg", "plan"]),
    ("vppcfg.1", ["-m", "vppcfg", "apply"]),
    ("vppcfg.1", ["-m", "vppcfg", "confirm"]),
    ("vppcfg.1", ["-m", "vppcfg", "schema"]),
    ("vppcfg-sim.1", ["-m", "vppcfg.sim"]),
    ("trex-loadtest.1", ["-m", "loadtest.cli", "ramp"]),
    ("trex-loadtest.1", ["-m", "loadtest.cli", "ndr"]),
    ("trex-loadtest.1", ["-m", "loadtest.cli", "report"]),
    ("trex-emu.1", ["-m", "loadtest.emu"]),
]


def long_options(help_text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", help_text)) - {"--help"}


def man_text(page: str) -> str:
    # roff escapes the dashes: \-\-vpp\-api\-socket
    return (MAN / page).read_text(encoding="utf-8").replace("\\-", "-")


@pytest.mark.parametrize(("page", "argv"), COMMANDS, ids=[" ".join(a[1:]) for _, a in COMMANDS])
def test_man_page_lists_every_option(page: str, argv: list[str]) -> None:
    help_text = subprocess.run(
        [sys.executable, *argv, "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    options = long_options(help_text)
    assert options, help_text
    missing = sorted(opt for opt in options if opt not in man_text(page))
    assert not missing, f"{page} does not mention {missing}"
