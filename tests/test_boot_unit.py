"""vppcfg.service re-applies the file on every start of vpp.service (boot,
`systemctl restart vpp`, a crash that VPP's Restart= recovers), and
contrib/vppcfg-boot waits for VPP's API socket to accept a connection.

The wiring is read from the unit and checked with systemd's own tools
(`systemd-analyze verify`, `systemctl --root enable`); the behaviour under a
running systemd (SIGKILL of VPP, its restart, the re-apply) was checked in a
booted container, as docs/user-guide.md ("Applying the config at boot") says.
"""

from __future__ import annotations

import configparser
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.ci_policy import ci_enabled
from tests.unprivileged import REPO

UNIT = REPO / "contrib" / "vppcfg.service"
DEBIAN_UNIT = REPO / "debian" / "vppcfg.service"
BOOT = REPO / "contrib" / "vppcfg-boot"
STUB = """#!/bin/sh
echo "$*" >> "$LOG"
cat > /dev/null
exit 0
"""


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys as written
    parser.read_string(UNIT.read_text())
    return parser


def _words(value: str) -> list[str]:
    return value.split()


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        why = f"{tool} (Debian package systemd) is not installed"
        if ci_enabled():  # .ci/run installs it: under CI its absence is a failure
            pytest.fail(f"CI=true: {why}")
        pytest.skip(why)
    return path


def test_the_debian_and_contrib_units_are_the_same():
    assert DEBIAN_UNIT.read_text() == UNIT.read_text()


def test_every_start_of_vpp_starts_the_unit_after_it():
    unit = _unit()
    # enabled, it is linked into vpp.service.wants: any start of VPP pulls it in,
    # including the automatic restart after a crash
    assert _words(unit["Install"]["WantedBy"]) == ["vpp.service"]
    assert "vpp.service" in _words(unit["Unit"]["After"])
    # stopped with VPP (or when it dies), so the next start of VPP starts it again
    bound = _words(unit["Unit"].get("BindsTo", "")) + _words(unit["Unit"].get("PartOf", ""))
    assert "vpp.service" in bound
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"
    assert unit["Service"]["Type"] == "oneshot"
    assert unit["Service"]["RemainAfterExit"] == "yes"
    assert unit["Service"]["EnvironmentFile"] == "-/etc/default/vppcfg"
    assert unit["Service"]["ExecStart"] == "/usr/lib/vppcfg/vppcfg-boot /etc/vpp/vppcfg.yaml"


def test_the_hardening_stays():
    service = _unit()["Service"]
    for key, value in {
        "NoNewPrivileges": "yes", "ProtectSystem": "strict", "RuntimeDirectory": "vppcfg",
        "RuntimeDirectoryMode": "0700", "PrivateTmp": "yes", "PrivateDevices": "yes",
        "ProtectKernelModules": "yes", "IPAddressDeny": "any", "UMask": "0077",
        "SystemCallFilter": "@system-service",
    }.items():
        assert service[key] == value, key
    # the Linux side (netlink in the pairs' netns) is all that was added
    assert set(_words(service["CapabilityBoundingSet"])) == {
        "CAP_DAC_OVERRIDE", "CAP_NET_ADMIN", "CAP_SYS_ADMIN"}
    assert set(_words(service["RestrictAddressFamilies"])) == {"AF_UNIX", "AF_NETLINK"}
    assert service["RestrictNamespaces"] == "net"


def test_systemd_analyze_verifies_the_unit_beside_a_vpp_unit(tmp_path):
    analyze = _need("systemd-analyze")
    # ExecStart must exist to verify: the same unit, pointing at the script in this tree
    (tmp_path / "vppcfg.service").write_text(UNIT.read_text().replace(
        "/usr/lib/vppcfg/vppcfg-boot", str(BOOT)))
    (tmp_path / "vpp.service").write_text(
        "[Unit]\nDescription=stand-in for VPP\n"
        "[Service]\nExecStart=/bin/sleep infinity\nRestart=always\n")
    done = subprocess.run([analyze, "verify", "--man=no", str(tmp_path / "vppcfg.service"),
                           str(tmp_path / "vpp.service")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "vppcfg.service" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_enabling_links_it_into_vpp_service_wants(tmp_path):
    systemctl = _need("systemctl")
    units = tmp_path / "usr" / "lib" / "systemd" / "system"
    units.mkdir(parents=True)
    (units / "vppcfg.service").write_text(UNIT.read_text())
    (units / "vpp.service").write_text("[Service]\nExecStart=/bin/sleep infinity\n")
    done = subprocess.run([systemctl, f"--root={tmp_path}", "enable", "vppcfg.service"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    wants = tmp_path / "etc" / "systemd" / "system" / "vpp.service.wants" / "vppcfg.service"
    assert wants.is_symlink()
    assert not (tmp_path / "etc" / "systemd" / "system" / "multi-user.target.wants").exists()


def _run_boot(tmp_path: Path, sock: Path, wait: int) -> tuple[subprocess.CompletedProcess[str],
                                                               str, float]:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "vppcfg").write_text(STUB)
    (bindir / "vppcfg").chmod(0o755)
    config = tmp_path / "vppcfg.yaml"
    config.write_text("loopbacks: {loop0: {}}\n")
    config.chmod(0o644)
    log = tmp_path / "calls.log"
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "LOG": str(log), "VPPCFG_API_SOCKET": str(sock),
           "VPPCFG_SOCKET_WAIT": str(wait), "VPPCFG_LOCK_FILE": str(tmp_path / "apply.lock")}
    start = time.monotonic()
    done = subprocess.run(["sh", str(BOOT), str(config)], env=env, capture_output=True,
                          text=True, timeout=120)
    return done, log.read_text() if log.exists() else "", time.monotonic() - start


def test_the_boot_script_waits_for_a_socket_that_comes_later(tmp_path):
    path = tmp_path / "api.sock"
    listener = socket.socket(socket.AF_UNIX)

    def vpp_comes_up() -> None:
        time.sleep(2)
        listener.bind(str(path))
        listener.listen(4)

    thread = threading.Thread(target=vpp_comes_up)
    thread.start()
    try:
        done, calls, took = _run_boot(tmp_path, path, wait=30)
    finally:
        thread.join()
        listener.close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"waiting up to 30s for VPP's API socket {path} (it is not there yet)" in done.stdout
    assert took >= 2
    assert calls.splitlines()[-1].startswith(f"apply - --vpp-api-socket {path} --lock-file")


def test_a_socket_left_by_a_killed_vpp_is_waited_for_not_used(tmp_path):
    # a killed VPP leaves its socket file; nothing listens there until the new VPP
    # replaces it: connecting is refused, so the script waits and then gives up
    path = tmp_path / "api.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    try:
        done, calls, _ = _run_boot(tmp_path, path, wait=2)
    finally:
        stale.close()
    assert done.returncode == 1
    assert "(it does not accept a connection yet)" in done.stdout
    assert "did not accept a connection within 2s; nothing applied" in done.stdout
    assert "apply" not in calls


def test_no_socket_at_all_fails_the_unit_after_the_wait(tmp_path):
    done, calls, took = _run_boot(tmp_path, tmp_path / "absent.sock", wait=1)
    assert done.returncode == 1 and "nothing applied" in done.stdout
    assert calls == "check -\n" and took < 30
