"""Shared pytest fixtures.

vpp_sim: a VPP simulator (the real model, vppcfg.sim.dataplane.SimDataplane, with the
default inventory) serving our API definitions on a short temporary unix socket, in
background threads. It yields a SimHandle: .socket, .api_dir, .dataplane, .server and
.client() (a connected vpp_papi VPPApiClient, disconnected at teardown).
vpp_sim_factory: the same with a chosen handler, inventory, fail_after, api_dir or
kernel_vlan (False: a Linux without 802.1q, as on the recorded VPP).
Tests using them are skipped while the model is not importable.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Bind PyYAML 6 now: importing the T-Rex client (lbr_trex_client's `trex`) drops `yaml`
# from sys.modules and puts its bundled PyYAML 3.11 (broken on Python 3.11) first on
# sys.path, so modules importing yaml after it get the old copy.
import tests.walk  # noqa: F401
import vppcfg.sim.inventory  # noqa: F401
from vppcfg.sim.codec import DEFAULT_API_DIR
from vppcfg.sim.server import SimServer

pytest_plugins = ["tests.ci_policy"]  # CI=true: skips of what CI must test fail

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

# The suite runs on shared, loaded machines (CI, two test runs side by side):
# hypothesis's timing checks (a deadline per example, "input generation is
# slow") then fail tests for the machine's speed, not for what they test.
settings.register_profile("vppcfg", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("vppcfg")


@dataclass
class SimHandle:
    socket: str
    api_dir: Path
    dataplane: Any
    server: SimServer
    _clients: list[Any] = field(default_factory=list)

    def api_files(self) -> list[str]:
        return sorted(str(p) for p in self.api_dir.rglob("*.api.json"))

    def client(self, name: str = "pytest", apifiles: list[str] | None = None) -> Any:
        """A connected VPPApiClient; pass apifiles to load other definitions."""
        from vpp_papi import VPPApiClient

        client = VPPApiClient(
            apifiles=apifiles or self.api_files(),
            use_socket=True,
            server_address=self.socket,
            read_timeout=5,
        )
        client.connect(name)
        self._clients.append(client)
        return client

    def close(self) -> None:
        for client in self._clients:
            if client.transport.connected:
                client.disconnect()
        self._clients.clear()
        self.server.stop()


def short_socket_dir() -> str:
    """AF_UNIX paths are limited to 107 bytes; pytest's tmp_path can be longer."""
    return tempfile.mkdtemp(prefix="vppsim-")


def default_model(phys: Any = None, fail_after: int | None = None,
                  kernel_vlan: bool = True) -> Any:
    try:
        from vppcfg.sim.dataplane import SimDataplane
    except ImportError as err:
        pytest.skip(f"the simulator model is not available yet ({err})")
    from vppcfg.sim.inventory import default_inventory

    phys = phys if phys is not None else default_inventory()
    return SimDataplane(phys, fail_after=fail_after, kernel_vlan=kernel_vlan)


@pytest.fixture
def vpp_sim_factory() -> Iterator[Callable[..., SimHandle]]:
    handles: list[SimHandle] = []
    dirs: list[str] = []

    def make(
        handler: Any = None,
        phys: Any = None,
        fail_after: int | None = None,
        api_dir: str | Path | None = None,
        kernel_vlan: bool = True,
        **server_kwargs: Any,
    ) -> SimHandle:
        model = handler if handler is not None else default_model(phys, fail_after, kernel_vlan)
        directory = short_socket_dir()
        dirs.append(directory)
        socket_path = str(Path(directory) / "api.sock")
        server = SimServer(model, socket_path, api_dir=api_dir, **server_kwargs).start()
        handle = SimHandle(socket_path, server.api.api_dir, model, server)
        handles.append(handle)
        return handle

    yield make
    for handle in handles:
        handle.close()
    for directory in dirs:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def vpp_sim(vpp_sim_factory: Callable[..., SimHandle]) -> SimHandle:
    return vpp_sim_factory()


@pytest.fixture
def shared_dir() -> Path:
    """The reference data beside the project (../shared); skips when absent."""
    if not SHARED.is_dir():
        pytest.skip("reference data ../shared is not available")
    return SHARED


__all__ = ["DEFAULT_API_DIR", "SHARED", "SimHandle"]


# ---- the real-system tier (tests/real.py): marker `real` -------------------------------------

def _skip_unless(script: Path) -> None:
    from tests.real import unavailable

    reason = unavailable(script)
    if reason:
        pytest.skip(reason)


def _real_releases() -> list[Any]:
    """The real VPPs chosen by VPPCFG_REAL_VPP (both by default); a bad name stops collection."""
    from tests.real import selected_releases

    try:
        return selected_releases()
    except ValueError as err:
        raise pytest.UsageError(str(err)) from err


@pytest.fixture(scope="session", autouse=True)
def _no_namespace_left_behind() -> Iterator[None]:
    """At the end, close any namespace of ours a crashed teardown skipped (tests/real.py)."""
    yield
    from tests.real import namespaces_usable, sweep

    if namespaces_usable():
        sweep()


@pytest.fixture(params=_real_releases(), ids=lambda release: f"vpp{release.name}")
def vpp_release(request: pytest.FixtureRequest) -> Any:
    """The real VPP release a test runs on (tests using the VPP fixtures run once per release)."""
    return request.param


@pytest.fixture
def vpp_real_factory(vpp_release: Any) -> Iterator[Callable[..., Any]]:
    """Start real VPPs of ``vpp_release`` (each in its own network namespace); all stopped
    at teardown."""
    from contextlib import ExitStack

    from tests.real import DEFAULT_PHYS, vpp_real

    _skip_unless(vpp_release.script)
    with ExitStack() as stack:
        yield lambda phys=DEFAULT_PHYS: stack.enter_context(vpp_real(phys, vpp_release))


@pytest.fixture
def vpp_real_instance(vpp_real_factory: Callable[..., Any]) -> Any:
    """One real VPP with PHYs host-ge0, host-ge1, host-hu0, host-hu1."""
    return vpp_real_factory()


@pytest.fixture
def trex_real_factory() -> Iterator[Callable[..., Any]]:
    """Start real T-Rex servers (see tests.real.trex_real); all stopped at teardown."""
    from contextlib import ExitStack

    from tests.real import TREX_REAL, trex_real

    _skip_unless(TREX_REAL)
    with ExitStack() as stack:
        yield lambda **kwargs: stack.enter_context(trex_real(**kwargs))
