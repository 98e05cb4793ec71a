"""Finding the T-Rex stateless client and holding a session with a server.

Three places a client can come from, tried in this order:
1. `--trex-client-path DIR`: a T-Rex install's own client (DIR is the
   install, its `automation/trex_control_plane/interactive`, or any directory
   holding the `trex` package);
2. PyPI `lbr-trex-client` (`import lbr_trex_client` then `trex.stl.api`);
3. the legacy `trex_stl_lib` package.
The session acquires and resets the ports it uses and always releases them.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from loadtest import trex_compat


class LoadtestError(Exception):
    """An error worth one line to the operator, never a traceback."""


class UsageError(LoadtestError):
    """Bad options or unreadable input files (exit code 2)."""


class RunInvalid(LoadtestError):
    """What the run measured can no longer be trusted: a link went down, the DUT
    stopped answering. The run ends with status "invalid" and claims no rate."""


def check_valid(session: Any, ports: list[int], dut: Any = None) -> None:
    """RunInvalid when a port's link is down or the DUT's counters stopped answering
    (--dut-stats): called at every sample or trial, so nothing after it is claimed."""
    down = session.links_down(ports) if hasattr(session, "links_down") else []
    if down:
        raise RunInvalid(f"link down on port {', '.join(map(str, down))}: the device "
                         "under test (or the generator's link to it) went away")
    reason = getattr(getattr(dut, "monitor", None), "reason", None)
    if reason is not None:
        raise RunInvalid(f"the DUT stopped answering ({reason})")


def _client_dirs(path: Path) -> list[Path]:
    candidates = [path, path / "interactive", path / "automation/trex_control_plane/interactive"]
    return [p for p in candidates if (p / "trex" / "stl" / "api.py").is_file()]


def load_api(client_path: str | None = None) -> ModuleType:
    """Import and return the `trex.stl.api` module (or the legacy equivalent)."""
    trex_compat.install()  # before any client code: Python 3.12+ lacks what it imports
    if client_path:
        dirs = _client_dirs(Path(client_path).expanduser())
        if not dirs:
            raise LoadtestError(f"--trex-client-path {client_path}: no trex/stl/api.py found there")
        sys.path.insert(0, str(dirs[0]))
        ext = dirs[0].parent.parent / "external_libs"
        if ext.is_dir():
            import os

            os.environ.setdefault("TREX_EXT_LIBS", str(ext))
        return _import("trex.stl.api", f"the client in {client_path}")
    try:
        importlib.import_module("lbr_trex_client")
        return _import("trex.stl.api", "lbr-trex-client")
    except ImportError as first:
        try:
            return importlib.import_module("trex_stl_lib.api")
        except ImportError:
            raise LoadtestError(
                f"no T-Rex client: install lbr-trex-client==3.4.0 or pass "
                f"--trex-client-path ({first})"
            ) from None


# The client puts its bundled libraries first on sys.path and imports them; its
# PyYAML 3.11 is broken on Python 3.11 and would replace ours for every later
# `import yaml` in this process. Keep our modules under these names.
_KEEP_MODULES = ("yaml",)


def _import(name: str, what: str) -> ModuleType:
    for keep in _KEEP_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(keep)
    kept = {
        key: module
        for key, module in sys.modules.items()
        if key.split(".")[0] in _KEEP_MODULES
    }
    try:
        with warnings.catch_warnings():
            # its bundled scapy warns about deprecated ciphers on every start: not ours to fix
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except Exception as err:  # the bundled libraries fail in many ways (Python 2 leftovers)
        raise LoadtestError(f"cannot import {what}: {type(err).__name__}: {err}") from None
    finally:
        if kept:
            for key in [k for k in sys.modules if k.split(".")[0] in _KEEP_MODULES]:
                sys.modules.pop(key)
            sys.modules.update(kept)


def one_line(err: BaseException) -> str:
    """The first meaningful line of a client exception."""
    text = str(err).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else type(err).__name__


class TrexSession:
    """Connect, acquire and reset `ports`; on exit stop, release, disconnect.

    Use as a context manager. Exit runs on success, Ctrl-C or errors, and
    never raises itself, so the caller's own error is the one reported.
    """

    def __init__(
        self,
        api: ModuleType,
        server: str = "127.0.0.1",
        ports: tuple[int, ...] = (0, 1),
        sync_port: int = 4501,
        async_port: int = 4500,
        force: bool = False,
        user: str = "trex-loadtest",
        timeout: float = 5.0,
    ) -> None:
        self.api = api
        self.ports = list(ports)
        self.force = force
        self.server = f"{server}:{sync_port}"
        self.client = api.STLClient(
            username=user,
            server=server,
            sync_port=sync_port,
            async_port=async_port,
            verbose_level="error",
            sync_timeout=timeout,
            async_timeout=timeout,
        )
        self.acquired = False
        self.stop_requested = False
        self._old_sigint = None

    def _on_sigint(self, signum, frame) -> None:
        # Ctrl-C in the middle of an RPC would leave the client's socket in a
        # bad state: note it and stop at the next safe point. A second Ctrl-C
        # interrupts at once.
        if self.stop_requested:
            raise KeyboardInterrupt
        self.stop_requested = True

    def links_down(self, ports: list[int]) -> list[int]:
        """The ports whose link the server reports down (its port-attribute events keep
        the client's view current)."""
        down = []
        for port in ports:
            try:
                link = self.client.get_port_attr(port).get("link")
            except Exception:  # an older client or server: nothing known, nothing claimed
                continue
            if link == "DOWN":
                down.append(port)
        return down

    def check_stop(self) -> None:
        """Raise KeyboardInterrupt at a safe point if Ctrl-C was pressed."""
        if self.stop_requested:
            raise KeyboardInterrupt

    def __enter__(self) -> TrexSession:
        if threading.current_thread() is threading.main_thread():
            self._old_sigint = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            self.client.connect()
        except self.api.STLError as err:
            self._close()  # also gives Ctrl-C back to the previous handler
            raise LoadtestError(
                f"cannot connect to T-Rex at {self.server}: {one_line(err)}"
            ) from None
        except BaseException:  # a second Ctrl-C while connecting
            self._close()
            raise
        try:
            known = self.client.get_all_ports()
            missing = [p for p in self.ports if p not in known]
            if missing:
                raise LoadtestError(f"T-Rex at {self.server} has no port {missing[0]}")
            self.client.acquire(ports=self.ports, force=self.force)
            self.acquired = True
            self.client.reset(ports=self.ports)
        except self.api.STLError as err:
            self._close()
            raise LoadtestError(f"cannot take ports {self.ports}: {one_line(err)}") from None
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._close()

    def _close(self) -> None:
        try:
            self._teardown()
        finally:
            if self._old_sigint is not None:
                signal.signal(signal.SIGINT, self._old_sigint)
                self._old_sigint = None

    def _teardown(self) -> None:
        for step in (self._stop, self._release, self.client.disconnect):
            with contextlib.suppress(Exception):  # best effort: the server may be gone
                step()

    def _stop(self) -> None:
        if self.acquired:
            self.client.stop(ports=self.ports)

    def _release(self) -> None:
        if self.acquired:
            self.acquired = False
            self.client.release(ports=self.ports)

    def outcome(self, exc: BaseException) -> tuple[str, str | None]:
        """("interrupted", None) for Ctrl-C, ("failed", reason) for anything else.

        The client turns Ctrl-C inside an API call into an error, and raises
        KeyboardInterrupt in the main thread itself when it loses the server.
        """
        conn = getattr(self.client, "conn", None)
        lost = bool(conn and getattr(conn, "is_marked_for_disconnect", lambda: False)())
        if lost:
            cause = getattr(conn, "get_disconnection_cause", lambda: None)() or "unknown cause"
            return "failed", f"lost the T-Rex server: {one_line(Exception(cause))}"
        if isinstance(exc, KeyboardInterrupt) or "interrupted by a keyboard signal" in str(exc):
            return "interrupted", None
        return "failed", one_line(exc)

    def settled_stats(self, ports: list[int], tick: float, max_reads: int = 20) -> dict:
        """get_stats() once the counters stop moving (they lag by up to one stats tick)."""
        stats = self.client.get_stats(ports=ports)
        for _ in range(max_reads):
            time.sleep(tick * 1.2)
            again = self.client.get_stats(ports=ports)
            if _counters(again, ports) == _counters(stats, ports):
                return again
            stats = again
        return stats

    def speed_bps(self, port: int) -> float:
        """The port's link speed (T-Rex reports Gb/s)."""
        return float(self.client.get_port_attr(port)["speed"]) * 1e9


def _counters(stats: dict, ports: list[int]) -> tuple:
    return tuple(
        stats.get(p, {}).get(name, 0) for p in ports for name in ("opackets", "ipackets")
    )
