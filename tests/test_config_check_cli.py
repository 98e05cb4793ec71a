"""`vppcfg check` on the command line: arguments, output formats, exit codes."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vppcfg import config
from vppcfg.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [
    str(ROOT / "examples" / n) for n in ("acl.yaml", "l2xc.yaml", "routed-lcp.yaml", "router.yaml")
]
BAD = str(ROOT / "tests" / "corpus" / "many-problems.yaml")


def test_examples_pass_positional_and_dash_c(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *EXAMPLES]) == 0
    assert main(["check", "-c", EXAMPLES[0]]) == 0
    out = capsys.readouterr().out
    assert all(f"{path}: valid" in out for path in EXAMPLES)


def test_exit_code_is_the_worst_of_all_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", EXAMPLES[0], BAD]) == 1
    assert main(["check", EXAMPLES[0], BAD, str(ROOT / "no-such.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_collector_waits_until_each_files_model_is_let_go(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Checking makes many objects and no cycles: the collector is paused while
    the files are checked (each model freed before it runs again) and back after."""
    import gc

    from vppcfg.commands import check

    during: list[bool] = []
    real = check._check

    def watched(*args: object) -> dict:
        during.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(check, "_check", watched)
    assert gc.isenabled()
    assert main(["check", *EXAMPLES[:2]]) == 0
    assert during == [False, False] and gc.isenabled()
    capsys.readouterr()


def test_no_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 2
    assert "give a config file" in capsys.readouterr().err


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "json", BAD]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["file"] == BAD and result["valid"] is False
    assert len(result["problems"]) == 6
    first = result["problems"][0]
    assert (first["line"], first["column"]) == (4, 10)
    assert first["path"] == "interfaces.GigabitEthernet3/0/0.mac"
    assert main(["check", "--format", "json", *EXAMPLES[:2]]) == 0
    both = json.loads(capsys.readouterr().out)
    assert [r["valid"] for r in both] == [True, True]


def test_text_problems_match_the_api(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", BAD])
    err = capsys.readouterr().err.splitlines()
    with pytest.raises(config.ConfigError) as caught:
        config.load(BAD)
    assert err[:-1] == [str(p) for p in caught.value.problems]


def test_real_process_exit_codes_and_no_traceback(tmp_path: Path) -> None:
    if importlib.util.find_spec("vppcfg.__main__") is None:
        pytest.skip("vppcfg is not runnable as a module")
    bomb = ROOT / "tests" / "corpus" / "alias-bomb.yaml"
    for path, code in ((EXAMPLES[0], 0), (str(bomb), 1), (str(tmp_path), 2)):
        proc = subprocess.run(
            [sys.executable, "-m", "vppcfg", "check", path],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == code, proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "---\n"])
def test_an_empty_file_is_refused_by_check_plan_and_apply(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Applied at boot from a truncated file, "nothing" would remove all vppcfg owns;
    # refused before any VPP is contacted (the socket here does not exist).
    empty = tmp_path / "vppcfg.yaml"
    empty.write_text(text)
    vpp = ["--vpp-api-socket", str(tmp_path / "no.sock"), "--vpp-json-dir", str(tmp_path)]
    state = ["--lock-file", str(tmp_path / "lock"), "--state-dir", str(tmp_path / "state")]
    for args in (["check", str(empty)], ["plan", "-c", str(empty), *vpp],
                 ["plan", "--novpp", "-c", str(empty)], ["apply", "-c", str(empty), *vpp, *state]):
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert f"{empty}: empty file (only blank lines or comments): refused" in err, (args, err)
    explicit = tmp_path / "nothing.yaml"
    explicit.write_text("interfaces: {}\n")
    assert main(["check", str(explicit)]) == 0
    assert main(["plan", "--novpp", "-c", str(explicit)]) == 0
