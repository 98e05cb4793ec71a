"""The Linux side of lcp pairs against the simulator (the fast tier of
tests/test_real_linux_side.py): the same steps, VPP's defaults and the
production stanza; after each apply the simulator's Linux side equals the
file and the next plan is empty. Without --linux-side, nothing of it is
planned (vppcfg 1.x's meaning)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_real_linux_side import _expected, _steps, _yaml
from vppcfg.cli import main

Start = Callable[[str], str]  # start_sim: linux-cp's words -> the API socket
SIM_API = Path(__file__).resolve().parent.parent / "vppcfg" / "sim" / "api" / "26.10"


@pytest.fixture
def start_sim(tmp_path: Path) -> Iterator[Start]:
    """start_sim(WORDS): a vppcfg-sim run with linux-cp's settings WORDS, its
    API socket's path; stopped at teardown."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(words: str) -> str:
        api = str(tmp_path / "api.sock")
        cmd = [sys.executable, "-m", "vppcfg.sim", "--socket", api, "--no-stats",
               "--phy", "host-ge0", "--phy", "host-ge1", "--phy", "host-hu0"]
        if words:
            cmd += ["--linux-cp", words]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(200):
            if Path(api + ".linux").exists():
                return api
            time.sleep(0.05)
        raise RuntimeError("vppcfg-sim did not start")

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def _lock(tmp_path: Path) -> list[str]:
    """A lock of the test's own: other runs on this machine take the default one."""
    return ["--lock-file", str(tmp_path / "apply.lock")]


def _ask(api: str, request: dict[str, Any]) -> dict[str, Any]:
    """One request to the simulator's Linux side (its socket beside the API's)."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(api + ".linux")
        sock.sendall(json.dumps(request).encode() + b"\n")
        return json.loads(sock.makefile().readline())


def _links(api: str, netns: str) -> dict[str, tuple[str, int, tuple[str, ...]]]:
    reply = _ask(api, {"op": "links", "netns": netns})
    return {link["name"]: (link["state"], link["mtu"], tuple(sorted(
        a for a in link["addresses"] if not a.startswith("fe80:")))) for link in reply["links"]}


@pytest.mark.parametrize("words,netns", [("", ""), ("lcp-sync lcp-auto-subint default netns "
                                                     "dataplane", "dataplane")],
                         ids=["defaults", "production"])
def test_every_pair_is_right_on_both_sides(start_sim: Start, tmp_path: Path, words: str, netns: str,
                                           capsys: Any) -> None:
    api = start_sim(words)
    args = ["--vpp-api-socket", api, "--vpp-json-dir", str(SIM_API), "--linux-side", "manage"]
    path = tmp_path / "vppcfg.yaml"
    for _, interfaces in _steps():
        text = _yaml(interfaces)
        path.write_text(text)
        assert main(["apply", "-c", str(path), *args, *_lock(tmp_path)]) == 0
        wanted = _expected(text)
        found = _links(api, netns)
        assert {name: found.get(name) for name in wanted} == wanted
        assert main(["plan", "--detailed-exitcode", "-c", str(path), *args]) == 0
    capsys.readouterr()
    # off: VPP's half only, as before (the Linux side is not even read)
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *args[:-2]]) == 0


def test_linux_side_drift_is_planned_and_repaired(start_sim: Start, tmp_path: Path,
        capsys: Any) -> None:
    api = start_sim("")
    args = ["--vpp-api-socket", api, "--vpp-json-dir", str(SIM_API), "--linux-side", "manage"]
    path = tmp_path / "vppcfg.yaml"
    text = _yaml(_steps()[0][1])
    path.write_text(text)
    assert main(["apply", "-c", str(path), *args, *_lock(tmp_path)]) == 0
    for request in ({"op": "set", "netns": "", "name": "e0.100", "mtu": 9000},
                        {"op": "addr", "action": "del", "netns": "", "name": "e1",
                         "address": "10.1.0.1/30"}):  # behind vppcfg's back, in Linux
        assert _ask(api, request)["ok"]
    capsys.readouterr()
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *args]) == 2
    out = capsys.readouterr().out
    assert "e0.100 mtu 1500 up" in out and "e1 address add 10.1.0.1/30" in out
    report = ["plan", "--detailed-exitcode", "-c", str(path), *args[:-1], "report"]
    assert main(report) == 0  # another tool owns it: reported, not planned
    assert "Linux side left to its owner" in capsys.readouterr().err
    assert main(["apply", "-c", str(path), *args, *_lock(tmp_path)]) == 0
    assert _links(api, "")["e0.100"][1] == 1500
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *args]) == 0
    # a netdev deleted in Linux while its pair stays in VPP: the pair is made again
    assert _ask(api, {"op": "del_link", "netns": "", "name": "lo0"})["ok"]
    capsys.readouterr()
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *args]) == 2
    assert "its Linux netdev is gone" in capsys.readouterr().out
    assert main(["apply", "-c", str(path), *args, *_lock(tmp_path)]) == 0
    assert _links(api, "")["lo0"] == _expected(text)["lo0"]
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *args]) == 0


def test_the_confirm_timer_restores_the_linux_side(start_sim: Start, tmp_path: Path,
        capsys: Any) -> None:
    """An unconfirmed apply is rolled back by the detached timer, Linux side
    included: the state it records carries each pair's netdev as it was."""
    from vppcfg.apply.confirm import RESULT

    api = start_sim("")
    state = tmp_path / "state"
    args = ["--vpp-api-socket", api, "--vpp-json-dir", str(SIM_API), "--linux-side", "manage"]
    first, second = _steps()[0][1], _steps()[2][1]  # the second changes MTUs in Linux
    path = tmp_path / "vppcfg.yaml"
    path.write_text(_yaml(first))
    assert main(["apply", "-c", str(path), *args, *_lock(tmp_path)]) == 0
    before = _links(api, "")
    path.write_text(_yaml(second))
    assert main(["apply", "-c", str(path), *args, "--confirm", "3", "--state-dir",
                 str(state)]) == 0
    assert _links(api, "") != before
    for _ in range(600):  # the deadline is 3 s away; a loaded machine is slow
        if (state / RESULT).exists():
            break
        time.sleep(0.05)
    assert "back to the state before the apply" in (state / RESULT).read_text()
    assert _links(api, "") == before


def test_the_file_can_ask_for_the_linux_side(start_sim: Start, tmp_path: Path, capsys: Any,
                                             monkeypatch: Any) -> None:
    """`vppcfg: {linux-side: manage}` turns it on; the option and the
    environment go first."""
    monkeypatch.delenv("VPPCFG_LINUX_SIDE", raising=False)
    api = start_sim("")
    vpp = ["--vpp-api-socket", api, "--vpp-json-dir", str(SIM_API)]
    path = tmp_path / "vppcfg.yaml"
    text = _yaml(_steps()[0][1])
    path.write_text(text)
    assert main(["apply", "-c", str(path), *vpp, *_lock(tmp_path)]) == 0  # VPP's half only
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *vpp]) == 0
    path.write_text("vppcfg:\n  linux-side: manage\n" + text)
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *vpp]) == 2  # Linux differs
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *vpp,
                 "--linux-side", "off"]) == 0
    monkeypatch.setenv("VPPCFG_LINUX_SIDE", "off")
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *vpp]) == 0
    monkeypatch.setenv("VPPCFG_LINUX_SIDE", "bogus")
    capsys.readouterr()
    assert main(["plan", "-c", str(path), *vpp]) == 2
    assert "VPPCFG_LINUX_SIDE" in capsys.readouterr().err
    monkeypatch.delenv("VPPCFG_LINUX_SIDE")
    assert main(["apply", "-c", str(path), *vpp, *_lock(tmp_path)]) == 0
    assert main(["plan", "--detailed-exitcode", "-c", str(path), *vpp]) == 0


def test_a_taken_linux_name_is_refused_before_any_change(start_sim: Start, tmp_path: Path,
        capsys: Any) -> None:
    api = start_sim("lcp-sync default netns dataplane")
    args = ["--vpp-api-socket", api, "--vpp-json-dir", str(SIM_API), "--linux-side", "manage"]
    path = tmp_path / "vppcfg.yaml"
    path.write_text("interfaces:\n  host-ge0:\n    lcp: e0\nloopbacks:\n  loop1:\n    lcp: lo\n")
    capsys.readouterr()
    assert main(["apply", "-c", str(path), *args, *_lock(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:6: loop1: lcp 'lo': netns 'dataplane' has a netdev of that name" in err
    assert "0 of" in err or "refused before any change" in err
    assert set(_links(api, "dataplane")) == {"lo"}  # nothing was made


def test_auto_subint_pairs_a_qinq_sub_only_on_its_outer_subs_pair(start_sim: Start,
                                                                  tmp_path: Path) -> None:
    """lcp-auto-subint pairs a QinQ/QinAD sub only when a sub carrying its outer
    tag alone (same tag type) is paired as it is made: the CLI text deletes only
    the pairs VPP made (a `lcp delete` of one it did not make stops `vppctl exec`)."""
    from tests.apply_models import run_cli_plan
    from vppcfg import config
    from vppcfg.linux import open_access
    from vppcfg.vpp import VppConnection

    api = start_sim("lcp-sync lcp-auto-subint")
    first = "interfaces:\n  host-ge0:\n    mtu: 9000\n    lcp: e0\n"
    second = first + """    sub-interfaces:
      100:
        lcp: e0.100
      200:
        encapsulation: {dot1q: 100, inner-dot1q: 5, exact-match: true}
      300:
        encapsulation: {dot1ad: 999, inner-dot1q: 2, exact-match: true}
      400:
        encapsulation: {dot1ad: 100, inner-dot1q: 7, exact-match: true}
"""
    with VppConnection.open(api, str(SIM_API)) as conn:
        conn.linux = open_access(api, None, managed=True)
        run_cli_plan(conn, config.loads(first))
        texts = run_cli_plan(conn, config.loads(second))
        conn.linux.close()
    text = "\n".join(texts)
    assert "lcp delete host-ge0.200" in text  # paired on e0.100's pair, then unpaired
    assert "lcp delete host-ge0.300" not in text  # no dot1ad 999 sub
    assert "lcp delete host-ge0.400" not in text  # 100 is a dot1q sub, not dot1ad
    assert text.rstrip().endswith("lcp lcp-sync on")
    assert set(_links(api, "")) == {"lo", "e0", "e0.100"}
