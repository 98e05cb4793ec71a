"""The preflight and apply's error path on a real VPP whose startup.conf does
not enable linux_cp (both real builds in ../shared, run in place with a
startup.conf of our own, in a network namespace of its own).

The runner in ../shared always enables linux_cp, so the VPP binary is started
here directly; everything else is as the runner does it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests import real
from vppcfg.cli import main
from vppcfg.vpp import VppConnection, VppError

pytestmark = pytest.mark.real

CONFIG = """\
loopbacks:
  loop0:
    mtu: 1500
    addresses: [192.0.2.1/32]
  loop1:
    mtu: 2000
    lcp: lo1
"""
# Every plugin the runner loads but linux_cp (af_packet: no PHYs are made here).
PLUGINS = ("tap", "lacp", "acl", "sflow", "vxlan", "ping")


@contextmanager
def vpp_without_linux_cp(release: real.VppRelease) -> Iterator[tuple[str, str]]:
    """(api socket, api dir) of a started real VPP without linux_cp."""
    reason = real.unavailable(release.script)
    if reason:
        pytest.skip(reason)
    install = release.script.parent / "install"
    libdir = install / "lib" / "x86_64-linux-gnu"
    run = Path(tempfile.mkdtemp(prefix="vppnolcp-"))
    (run / "startup.conf").write_text(_startup(run, libdir))
    netns = real.Netns()
    env = {"LD_LIBRARY_PATH": str(libdir), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    proc = subprocess.Popen([*netns.prefix(), str(install / "bin" / "vpp"), "-c",
                             str(run / "startup.conf")], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        socket = str(run / "api.sock")
        _wait(socket, str(install / "share" / "vpp" / "api"), proc)
        yield socket, str(install / "share" / "vpp" / "api")
    finally:
        proc.terminate()
        with suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        if proc.poll() is None:
            proc.kill()
        netns.close()
        shutil.rmtree(run, ignore_errors=True)


def _startup(run: Path, libdir: Path) -> str:
    plugins = " ".join(f"plugin {p}_plugin.so {{ enable }}" for p in PLUGINS)
    return (f"unix {{ nodaemon nosyslog cli-listen {run}/cli.sock log {run}/vpp.log "
            "poll-sleep-usec 100 }\n"
            f"socksvr {{ socket-name {run}/api.sock }}\n"
            f"statseg {{ socket-name {run}/stats.sock size 32M }}\n"
            "memory { main-heap-size 512M main-heap-page-size 4k }\n"
            "buffers { buffers-per-numa 16384 default data-size 2048 page-size 4k }\n"
            f"plugins {{ path {libdir}/vpp_plugins plugin default {{ disable }} {plugins} }}\n")


def _wait(socket: str, api_dir: str, proc: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "VPP exited at start-up"
        with suppress(VppError), VppConnection.open(socket, api_dir, timeout=2) as conn:
            conn.call("show_version")
            return
        time.sleep(0.25)
    raise AssertionError("VPP did not answer within 60 s")


def _dump(socket: str, api_dir: str) -> Any:
    with VppConnection.open(socket, api_dir) as conn:
        return conn.dump()


@pytest.fixture(params=real.selected_releases(), ids=lambda r: f"vpp{r.name}")
def no_lcp(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    with vpp_without_linux_cp(request.param) as vpp:
        yield vpp


def test_apply_refuses_before_any_change(no_lcp: tuple[str, str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    socket, api_dir = no_lcp
    config = tmp_path / "cfg.yaml"
    config.write_text(CONFIG)
    before = _dump(socket, api_dir)
    code = main(["apply", "-c", str(config), "--vpp-api-socket", socket, "--vpp-json-dir",
                 api_dir, "--lock-file", str(tmp_path / "lock"), "--state-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert _dump(socket, api_dir) == before
    assert "refused before any change" in err
    assert "this VPP lacks the Linux Control Plane plugin (linux_cp_plugin.so" in err
    assert "plugins { plugin linux_cp_plugin.so { enable } }" in err
    assert f"{config}:7: create lcp interfaces/loop1/lcp" in err
    assert "definitions are not" not in err  # the JSON is this VPP's: a missing plugin
    assert main(["plan", "-c", str(config), "--vpp-api-socket", socket, "--vpp-json-dir",
                 api_dir]) == 3
    assert main(["dump", "--vpp-api-socket", socket, "--vpp-json-dir", api_dir]) == 0
    assert "not read: lcp: this VPP lacks the Linux Control Plane" in capsys.readouterr().err


def test_apply_blames_the_failing_operation(no_lcp: tuple[str, str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the preflight, the apply fails at the lcp operation itself (the
    MTU and address changes before it are made, then rolled back), names the
    plugin, and does not say VPP went away: it did not."""
    import vppcfg.apply as apply_mod
    from vppcfg import config

    socket, api_dir = no_lcp
    monkeypatch.setattr(apply_mod, "preflight", lambda *a, **k: [])
    before = _dump(socket, api_dir)
    with VppConnection.open(socket, api_dir) as conn:
        outcome = apply_mod.apply_config(conn, config.loads(CONFIG))
        report = apply_mod.format_outcome(outcome)
        assert conn.call("show_version").version  # VPP is still there
    assert outcome.failed is not None and outcome.failed.key == "interfaces/loop1/lcp", report
    assert outcome.error.startswith("create lcp interfaces/loop1/lcp: this VPP lacks "
                                    "lcp_itf_pair_add_del (the Linux Control Plane plugin")
    assert outcome.executed  # the loopbacks were made before it
    assert "went away" not in report and outcome.unanswered == 0
    assert outcome.rollback is not None and outcome.rollback.complete, report
    assert _dump(socket, api_dir) == before
