"""The real-system tier starts, answers and cleans up after itself, on a
failed start too (issue 17: a Debian 13 root was left with 30 namespaces)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests import real
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real


def listed_namespaces() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                          check=True).stdout


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line contains ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline and real._exists(int(proc.name)):
            found.append(int(proc.name))
    return found


def test_vpp_real_answers_and_leaves_nothing_behind(vpp_real_factory):
    vpp = vpp_real_factory()
    with VppConnection.open(vpp.socket, vpp.api_dir) as conn:
        names = set(conn.dump().interfaces)
    assert set(vpp.phy_names) <= names
    assert "host-ge0" in vpp.ctl("show", "interface")
    assert vpp.release.name in vpp.ctl("show", "version")
    netns = vpp.netns.name
    vpp.stop()
    vpp.netns.close()
    assert netns not in listed_namespaces()


def test_a_start_that_fails_leaves_no_namespace_veth_or_process(vpp_release):
    """VPP comes up, then the runner fails on a PHY name Linux refuses (16 characters):
    the VPP it started, its namespace (with veth ge0 inside) and its run directory go."""
    why = real.unavailable(vpp_release.script)
    if why:
        pytest.skip(why)
    run_dir = Path(tempfile.mkdtemp(prefix="vppreal-fail-"))
    before = set(real.leftover_namespaces(os.getpid()))
    with pytest.raises(RuntimeError, match="failed"), \
            real.vpp_real(("ge0", "x" * 16), vpp_release, run_dir) as vpp:
        raise AssertionError(f"started with a 16-character PHY name: {vpp}")
    assert set(real.leftover_namespaces(os.getpid())) == before
    assert processes_mentioning(str(run_dir)) == []
    assert not run_dir.exists()


def test_a_namespace_whose_setup_fails_is_deleted(monkeypatch):
    """`ip netns exec` can fail after `ip netns add` (a root without a usable /sys):
    the namespace just made must not stay."""
    if not real.namespaces_usable():
        pytest.skip("namespaces need root and iproute2")
    name = f"{real.NETNS_PREFIX}{os.getpid()}-setup-fails"
    run = real._run

    def failing(cmd, *args, **kwargs):
        if cmd[:3] == ["ip", "netns", "exec"]:
            raise RuntimeError("ip netns exec failed (on purpose)")
        return run(cmd, *args, **kwargs)

    monkeypatch.setattr(real, "_run", failing)
    with pytest.raises(RuntimeError, match="on purpose"):
        real.Netns(name)
    monkeypatch.undo()
    assert name not in listed_namespaces().split()


def test_closing_a_namespace_ends_what_still_runs_in_it():
    """A process that outlives its stop keeps a deleted namespace (and its veths)
    alive, unnamed: close kills it first, then deletes the namespace."""
    if not real.namespaces_usable():
        pytest.skip("namespaces need root and iproute2")
    ns = real.Netns()
    ns.run(["ip", "link", "add", "left0", "type", "veth", "peer", "name", "right0"])
    marker = f"{ns.name}-sleeper"
    stray = subprocess.Popen([*ns.prefix(), "bash", "-c", f"exec -a {marker} sleep 600"],
                             start_new_session=True)
    try:
        for _ in range(100):
            if processes_mentioning(marker):
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert ns.pids(), "the stray process is not in the namespace"
        ns.close()
        stray.wait(timeout=10)
        assert processes_mentioning(marker) == []
        assert ns.name not in listed_namespaces().split()
    finally:
        stray.kill()
        ns.close()


def test_sweep_closes_namespaces_a_crash_left():
    if not real.namespaces_usable():
        pytest.skip("namespaces need root and iproute2")
    left = real.Netns()  # never closed, as after a killed teardown
    assert left.name in real.leftover_namespaces(os.getpid())
    assert left.name in real.sweep()
    assert left.name not in listed_namespaces().split()
