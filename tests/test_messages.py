"""Messages that name the real cause (issue 31)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from vppcfg.cli import main
from vppcfg.vpp import VppConnection, VppError


def test_two_config_files_are_refused(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("loopbacks:\n  loop0: {}\n")
    b.write_text("loopbacks:\n  loop1: {}\n")
    for command in ("plan", "apply"):  # check takes several files, each checked
        with pytest.raises(SystemExit) as exited:
            main([command, "-c", str(a), "-c", str(b), "--novpp"] if command == "plan"
                 else [command, "-c", str(a), "-c", str(b)])
        assert exited.value.code == 2
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert "argument -c/--config: give one config file, not two" in last, last


def _listener(path: Path, kind: int) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, kind)
    listener.bind(str(path))
    listener.listen(1)
    return listener


def test_a_socket_that_never_answers_says_so(tmp_path: Path, vpp_sim) -> None:
    """Before: '[Errno 2] invalid reply to sockclnt_create'."""
    path = tmp_path / "silent.sock"
    with _listener(path, socket.SOCK_STREAM), pytest.raises(VppError) as failed, \
            VppConnection.open(str(path), vpp_sim.api_dir, timeout=0.3):
        pass
    assert str(failed.value) == f"VPP did not answer within 0.3 s on {path}"


def test_the_stats_socket_given_for_the_api_socket_is_named(tmp_path: Path, vpp_sim,
                                                             capsys) -> None:
    """Before: '[Errno 91] Protocol wrong type for socket'."""
    path = tmp_path / "stats.sock"
    with _listener(path, socket.SOCK_SEQPACKET):
        assert main(["dump", "--vpp-api-socket", str(path), "--vpp-json-dir",
                     str(vpp_sim.api_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{path} is a packet socket: VPP's stats socket, not VPP's API "
                        "socket; give VPP's API socket (VPP's default: /run/vpp/api.sock)"), err
    assert "Errno" not in err


def test_emu_vpp_sim_at_the_wrong_socket_is_named(tmp_path: Path) -> None:
    from loadtest.emu.vppsim import VppSimLink

    path = tmp_path / "stats.sock"
    with _listener(path, socket.SOCK_SEQPACKET), pytest.raises(OSError) as failed:
        VppSimLink(str(path), 2)
    assert str(failed.value) == (f"--vpp-sim {path}: {path} is a packet socket: VPP's stats "
                                 "socket, not vppcfg-sim's wire socket; give vppcfg-sim's wire "
                                 "socket (vppcfg-sim --wire-socket)")
