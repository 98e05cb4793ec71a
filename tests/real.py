"""The real-system tier: a real VPP and a real T-Rex (../shared/trex-real),
each started in a network namespace of its own.

Two real VPPs: the 26.10 development build (../shared/vpp-real) and the 26.06
release (../shared/vpp-real-26.06), which users run. Tests using the VPP
fixtures run once per release chosen with VPPCFG_REAL_VPP (default
"26.10,26.06"); the test id names it (``[vpp26.06]``).

A namespace per instance keeps parallel runs apart: the PHY veths (ge0 ...),
the Linux side of lcp pairs (e0, be0.100, ...) and T-Rex's 127.0.0.1 ports all
live inside it, so every instance can use the same names, and deleting the
namespace at teardown removes whatever a test left behind. The API and CLI
sockets are files in the run directory, reachable from the host namespace.

Use the pytest fixtures from tests/conftest.py (``vpp_real``,
``vpp_real_factory``, ``trex_real_factory``) or, outside pytest, the
context managers here. Tests of this tier carry the ``real`` marker and skip,
with the reason, when ../shared/vpp-real is absent or we are not root.

Nothing is left behind on any failure, a failed start included: closing a
namespace first kills every process still inside it (a process keeps a deleted
namespace, and its veths, alive), and ``sweep()`` removes whatever namespaces
of this process a crash skipped.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TREX_REAL = SHARED / "trex-real" / "trex-real"
DEFAULT_PHYS = ("ge0", "ge1", "hu0", "hu1")
# VPP CLI for the loop T-Rex port 0 -> host-ge0 ... host-ge1 -> port 1 (and back)
L2XC_GE0_GE1 = """set interface state host-ge0 up
set interface state host-ge1 up
set interface l2 xconnect host-ge0 host-ge1
set interface l2 xconnect host-ge1 host-ge0"""
# What VPP prints for a CLI line it refused (vppctl itself exits 0 regardless).
CLI_ERROR = re.compile(r"error|unknown|not implemented|invalid|failed|not found", re.IGNORECASE)
_counter = itertools.count()
NETNS_PREFIX = "vppcfg-"


@dataclass(frozen=True)
class VppRelease:
    """One real VPP in ../shared: its name in test ids and VPPCFG_REAL_VPP, its runner."""

    name: str
    script: Path


VPP_RELEASES = {
    "26.10": VppRelease("26.10", SHARED / "vpp-real" / "vpp-real"),  # dev build, rc0~374
    "26.06": VppRelease("26.06", SHARED / "vpp-real-26.06" / "vpp-real"),  # the release
}
VPP_REAL = VPP_RELEASES["26.10"].script  # the default one (bench/bench_real.py)


def selected_releases(spec: str | None = None) -> list[VppRelease]:
    """The real VPPs to test on: VPPCFG_REAL_VPP ("26.10,26.06" by default)."""
    spec = spec if spec is not None else os.environ.get("VPPCFG_REAL_VPP", "26.10,26.06")
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in VPP_RELEASES]
    if unknown or not names:
        what = f"unknown release {', '.join(unknown)}" if unknown else "names no release"
        raise ValueError(f"VPPCFG_REAL_VPP={spec!r}: {what}; "
                         f"choose from {', '.join(VPP_RELEASES)}")
    return [VPP_RELEASES[n] for n in names]


def unavailable(script: Path) -> str | None:
    """Why the real system cannot run here, or None when it can."""
    if not script.exists():
        return f"{script.parent.name} is not available ({script.parent} is absent)"
    if os.geteuid() != 0:
        return f"{script.parent.name} needs root (veths, af_packet, taps)"
    if shutil.which("ip") is None:
        return "iproute2 (ip) is not installed"
    return None


def namespaces_usable() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None


def _run(cmd: Sequence[str], timeout: float = 60, check: bool = True) -> str:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n"
                           f"{proc.stdout}{proc.stderr}")
    return proc.stdout


@dataclass
class Netns:
    """A network namespace, deleted (with every process and veth in it) on close."""

    name: str = field(
        default_factory=lambda: f"{NETNS_PREFIX}{os.getpid()}-{next(_counter)}")
    create: bool = True  # False: take over an existing one (to close it)

    def __post_init__(self) -> None:
        if not self.create:
            return
        _run(["ip", "netns", "add", self.name])
        try:
            _run(["ip", "netns", "exec", self.name, "ip", "link", "set", "lo", "up"])
        except BaseException:
            self.close()
            raise

    def prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.name]

    def run(self, cmd: Sequence[str], timeout: float = 60, check: bool = True) -> str:
        return _run([*self.prefix(), *cmd], timeout=timeout, check=check)

    def pids(self) -> list[int]:
        """The processes inside the namespace."""
        out = _run(["ip", "netns", "pids", self.name], timeout=30, check=False)
        return [int(p) for p in out.split()]

    def close(self) -> None:
        """Kill what runs inside, then delete the namespace. Never raises: it runs
        in ``finally`` blocks, where an error would hide the test's own."""
        with suppress(OSError, subprocess.SubprocessError, ValueError):
            _kill_all(self.pids())
        with suppress(OSError, subprocess.SubprocessError):
            _run(["ip", "netns", "del", self.name], timeout=30, check=False)


def _kill_all(pids: list[int], grace: float = 5.0) -> None:
    """TERM, then KILL whatever is still there after ``grace`` seconds; wait for the end."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        alive = [p for p in pids if _signal(p, sig)]
        deadline = time.monotonic() + wait
        while alive and time.monotonic() < deadline:
            time.sleep(0.05)
            alive = [p for p in alive if _exists(p)]
        if not alive:
            return
        pids = alive


def _signal(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


def _exists(pid: int) -> bool:
    """Alive and not a zombie (a zombie no longer holds its namespace)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def leftover_namespaces(pid: int | None = None) -> list[str]:
    """Our namespaces still listed (of process ``pid``, or of any when None)."""
    prefix = NETNS_PREFIX + (f"{pid}-" if pid is not None else "")
    out = _run(["ip", "netns", "list"], timeout=30, check=False)
    return [line.split()[0] for line in out.splitlines() if line.startswith(prefix)]


def sweep(pid: int | None = None) -> list[str]:
    """Close every namespace this process (default) made and left; their names."""
    left = leftover_namespaces(os.getpid() if pid is None else pid)
    for name in left:
        Netns(name, create=False).close()
    return left


@dataclass
class VppReal:
    """A running real VPP: ``socket``, ``api_dir``, ``ctl()``, PHYs host-<name>."""

    netns: Netns
    run_dir: Path
    phys: tuple[str, ...]
    release: VppRelease = VPP_RELEASES["26.10"]
    _api_dir: str = ""

    @property
    def socket(self) -> str:
        return str(self.run_dir / "api.sock")

    @property
    def script(self) -> str:
        return str(self.release.script)

    @property
    def api_dir(self) -> str:
        if not self._api_dir:
            self._api_dir = _run([self.script, "api-dir"]).strip()
        return self._api_dir

    @property
    def phy_names(self) -> list[str]:
        return [f"host-{name}" for name in self.phys]

    def start(self) -> VppReal:
        self.netns.run([self.script, "start", str(self.run_dir), *self.phys], timeout=120)
        return self

    def stop(self) -> None:
        """Stop VPP (the runner also deletes its veths); never raises (see Netns.close)."""
        with suppress(OSError, subprocess.SubprocessError):
            self.netns.run([self.script, "stop", str(self.run_dir)], timeout=60, check=False)

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
        return _run([self.script, "ctl", str(self.run_dir), *cli], timeout=60)

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
def vpp_real(phys: Sequence[str] = DEFAULT_PHYS, release: VppRelease = VPP_RELEASES["26.10"],
             run_dir: Path | None = None) -> Iterator[VppReal]:
    """A started VPP; on exit (or a failed start) nothing of it is left, ``run_dir`` included."""
    run_dir = run_dir or Path(tempfile.mkdtemp(prefix="vppreal-"))
    try:
        netns = Netns()
        vpp = VppReal(netns, run_dir, tuple(phys), release)
        try:
            yield vpp.start()
        finally:
            # Closing the namespace ends VPP (TERM, then KILL) and takes its veths with
            # it; the runner's own stop deletes the veths one by one first, which costs
            # 2-3 s a VPP on this machine.
            netns.close()
    finally:
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
        """Stop T-Rex; never raises (see Netns.close)."""
        with suppress(OSError, subprocess.SubprocessError):
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
    try:
        own = netns is None
        ns = netns or Netns()
        trex = TrexReal(ns, run_dir, ports, port_info=port_info)
        try:
            yield trex.start()
        finally:
            trex.stop()
            if own:
                ns.close()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
