"""The real-system tier: a real VPP (../shared/vpp-real) and a real T-Rex
(../shared/trex-real), each started in a network namespace of its own.

A namespace per instance keeps parallel runs apart: the PHY veths (ge0 ...),
the Linux side of lcp pairs (e0, be0.100, ...) and T-Rex's 127.0.0.1 ports all
live inside it, so every instance can use the same names, and deleting the
namespace at teardown removes whatever a test left behind. The API and CLI
sockets are files in the run directory, reachable from the host namespace.

Use the pytest fixtures from tests/conftest.py (``vpp_real``,
``vpp_real_factory``, ``trex_real_factory``) or, outside pytest, the
context managers here. Tests of this tier carry the ``real`` marker and skip,
with the reason, when ../shared/vpp-real is absent or we are not root.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
VPP_REAL = SHARED / "vpp-real" / "vpp-real"
TREX_REAL = SHARED / "trex-real" / "trex-real"
DEFAULT_PHYS = ("ge0", "ge1", "hu0", "hu1")
# What VPP prints for a CLI line it refused (vppctl itself exits 0 regardless).
CLI_ERROR = re.compile(r"error|unknown|not implemented|invalid|failed|not found", re.IGNORECASE)
_counter = itertools.count()


def unavailable(script: Path) -> str | None:
    """Why the real system cannot run here, or None when it can."""
    if not script.exists():
        return f"{script.parent.name} is not available ({script.parent} is absent)"
    if os.geteuid() != 0:
        return f"{script.parent.name} needs root (veths, af_packet, taps)"
    if shutil.which("ip") is None:
        return "iproute2 (ip) is not installed"
    return None


def _run(cmd: Sequence[str], timeout: float = 60, check: bool = True) -> str:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n"
                           f"{proc.stdout}{proc.stderr}")
    return proc.stdout


@dataclass
class Netns:
    """A network namespace, deleted (with everything in it) on close."""

    name: str = field(default_factory=lambda: f"vppcfg-{os.getpid()}-{next(_counter)}")

    def __post_init__(self) -> None:
        _run(["ip", "netns", "add", self.name])
        _run(["ip", "netns", "exec", self.name, "ip", "link", "set", "lo", "up"])

    def prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.name]

    def run(self, cmd: Sequence[str], timeout: float = 60, check: bool = True) -> str:
        return _run([*self.prefix(), *cmd], timeout=timeout, check=check)

    def close(self) -> None:
        _run(["ip", "netns", "del", self.name], check=False)


@dataclass
class VppReal:
    """A running real VPP: ``socket``, ``api_dir``, ``ctl()``, PHYs host-<name>."""

    netns: Netns
    run_dir: Path
    phys: tuple[str, ...]

    @property
    def socket(self) -> str:
        return str(self.run_dir / "api.sock")

    @property
    def api_dir(self) -> str:
        return _run([str(VPP_REAL), "api-dir"]).strip()

    @property
    def phy_names(self) -> list[str]:
        return [f"host-{name}" for name in self.phys]

    def start(self) -> VppReal:
        self.netns.run([str(VPP_REAL), "start", str(self.run_dir), *self.phys], timeout=120)
        return self

    def stop(self) -> None:
        self.netns.run([str(VPP_REAL), "stop", str(self.run_dir)], timeout=60, check=False)

    def restart(self) -> VppReal:
        """A fresh VPP (an empty dataplane) on the same sockets and PHY names."""
        self.stop()
        return self.start()

    def pid(self) -> int | None:
        try:
            return int((self.run_dir / "vpp.pid").read_text())
        except (OSError, ValueError):
            return None

    def ctl(self, *cli: str) -> str:
        """One CLI command through vppctl (which exits 0 even when VPP refuses)."""
        return _run([str(VPP_REAL), "ctl", str(self.run_dir), *cli], timeout=60)

    def exec_file(self, path: str | Path) -> str:
        """``vppctl exec FILE``: VPP runs the file's commands, stopping at the first error."""
        return self.ctl("exec", str(path))

    def exec_text(self, text: str) -> str:
        """CLI text through ``vppctl exec``; RuntimeError when VPP refused a line."""
        script = self.run_dir / "exec.cli"
        script.write_text(text + "\n")
        out = self.exec_file(script)
        if CLI_ERROR.search(out):
            raise RuntimeError(f"vppctl exec failed: {out}\n--- CLI text:\n{text}")
        return out

    def api_args(self) -> list[str]:
        """vppcfg's options that point it at this VPP."""
        return ["--vpp-api-socket", self.socket, "--vpp-json-dir", self.api_dir]


@contextmanager
def vpp_real(phys: Sequence[str] = DEFAULT_PHYS) -> Iterator[VppReal]:
    run_dir = Path(tempfile.mkdtemp(prefix="vppreal-"))
    netns = Netns()
    vpp = VppReal(netns, run_dir, tuple(phys))
    try:
        yield vpp.start()
    finally:
        vpp.stop()
        netns.close()
        shutil.rmtree(run_dir, ignore_errors=True)


@dataclass
class TrexReal:
    """A running real T-Rex. ``sync_port``/``async_port`` listen on 127.0.0.1
    inside ``netns``: run clients with ``netns.prefix()`` before the command."""

    netns: Netns
    run_dir: Path
    ports: tuple[str, str]
    sync_port: int = 4501
    async_port: int = 4500
    port_info: str | None = None

    def start(self) -> TrexReal:
        env = dict(os.environ, TREX_RPC_PORT=str(self.sync_port),
                   TREX_PUB_PORT=str(self.async_port))
        if self.port_info:
            env["TREX_PORT_INFO"] = self.port_info
        cmd = [*self.netns.prefix(), str(TREX_REAL), "start", str(self.run_dir), *self.ports]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"trex-real start failed:\n{proc.stdout}{proc.stderr}")
        return self

    def stop(self) -> None:
        self.netns.run([str(TREX_REAL), "stop", str(self.run_dir)], timeout=60, check=False)

    def run(self, cmd: Sequence[str], timeout: float = 300,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run a client command inside the namespace (no check: callers assert)."""
        return subprocess.run([*self.netns.prefix(), *cmd], capture_output=True, text=True,
                              timeout=timeout, env=env)


@contextmanager
def trex_real(ports: tuple[str, str] = ("tq0", "tq1"), netns: Netns | None = None,
              port_info: str | None = None) -> Iterator[TrexReal]:
    """A T-Rex on ``ports``; in a new namespace (back-to-back veths) unless one is
    given (e.g. a VPP's, with ports ("p-ge0", "p-ge1") facing its PHYs)."""
    run_dir = Path(tempfile.mkdtemp(prefix="trexreal-"))
    own = netns is None
    ns = netns or Netns()
    trex = TrexReal(ns, run_dir, ports, port_info=port_info)
    try:
        yield trex.start()
    finally:
        trex.stop()
        if own:
            ns.close()
        shutil.rmtree(run_dir, ignore_errors=True)
