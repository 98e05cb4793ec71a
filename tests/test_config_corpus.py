"""The bad-input corpus: every file gives its expected exit code and messages,
never a traceback, through the real `vppcfg check` command line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from tests import unprivileged
from vppcfg.cli import main
from vppcfg.config.loader import MAX_BYTES

CORPUS = Path(__file__).resolve().parent / "corpus"
EXPECTATIONS = yaml.safe_load((CORPUS / "expectations.yaml").read_text(encoding="utf-8"))


def run_check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_every_corpus_file_has_an_expectation() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.name != "expectations.yaml"}
    assert files <= set(EXPECTATIONS), files - set(EXPECTATIONS)


@pytest.mark.parametrize("name", sorted(EXPECTATIONS))
def test_corpus_file(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    want = EXPECTATIONS[name]
    code, output = run_check(capsys, str(CORPUS / name))
    assert "Traceback" not in output
    assert code == want["exit"], output
    for fragment in want["expect"]:
        assert fragment in output, f"{fragment!r} not in:\n{output}"
    if "count" in want:
        noun = "problem" if want["count"] == 1 else "problems"
        assert f"invalid, {want['count']} {noun}" in output, output


@pytest.mark.parametrize("name", sorted(n for n, w in EXPECTATIONS.items() if w["exit"] == 1))
def test_corpus_file_as_json(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = run_check(capsys, "--format", "json", "-c", str(CORPUS / name))
    result = json.loads(output)
    assert code == 1 and result["valid"] is False and result["exit_code"] == 1
    assert result["problems"], result
    for problem in result["problems"]:
        assert set(problem) == {"file", "line", "column", "path", "message", "rule"}
        assert problem["message"]


def test_a_file_above_the_limit_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"loopbacks:\n")
    os.truncate(big, MAX_BYTES + 1)  # sparse: never read, refused by its size
    code, output = run_check(capsys, str(big))
    assert code == 2
    assert "limited to 64 MiB (raise the limit with the environment variable " \
        "VPPCFG_MAX_CONFIG_MB=<MiB>)" in output and "Traceback" not in output
    assert MAX_BYTES == 64 * 1024 * 1024


def test_the_limit_can_be_raised_or_lowered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 12 MB: the size of a config of about 100,000 objects, accepted by default
    big = tmp_path / "big.yaml"
    line = b"# " + b"x" * 98 + b"\n"
    big.write_bytes(b"interfaces: {}\n" + line * (12 * 1000 * 1000 // len(line)))
    code, output = run_check(capsys, str(big))
    assert code == 0, output
    monkeypatch.setenv("VPPCFG_MAX_CONFIG_MB", "8")
    code, output = run_check(capsys, str(big))
    assert code == 2 and "configs are limited to 8 MiB" in output
    monkeypatch.setenv("VPPCFG_MAX_CONFIG_MB", "lots")
    code, output = run_check(capsys, str(big))
    assert code == 2 and "VPPCFG_MAX_CONFIG_MB='lots' is not a positive whole number" in output


def test_unreadable_file_is_an_io_error() -> None:
    # as root (CI) `vppcfg check` runs as an unprivileged user: root ignores file modes
    with unprivileged.shared_dir() as folder:
        locked = folder / "locked.yaml"
        locked.write_text("loopbacks: {}\n", encoding="utf-8")
        readable = folder / "readable.yaml"
        readable.write_text("loopbacks: {}\n", encoding="utf-8")
        readable.chmod(0o644)
        locked.chmod(0)
        ok = unprivileged.run_python(["-m", "vppcfg", "check", "-c", str(readable)], folder)
        assert ok.returncode == 0, ok.stderr  # the same user can run vppcfg and read this one
        proc = unprivileged.run_python(["-m", "vppcfg", "check", "-c", str(locked)], folder)
    assert proc.returncode == 2, proc.stderr
    assert f"{locked}: permission denied" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
