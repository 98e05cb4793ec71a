"""Pytest fixtures that run the T-Rex emulator (loadtest.emu) on free local ports.

Use from a test module with `pytest_plugins = ["tests.trex_fixtures"]` or by importing the
fixtures. `trex_emu` gives a running emulator handle (`.rpc_port`, `.pub_port`, `.state`,
`.stop()`); parametrize it indirectly with a dict of EmuConfig fields to change the device:

    @pytest.mark.parametrize("trex_emu", [{"capacity_pps": (1.23e6, 1.23e6)}], indirect=True)
    def test_x(trex_emu): ...

`trex_emu_factory(**fields)` starts more emulators in one test; all are stopped at teardown.
Defaults: time_scale 10 (one emulated second per 0.1 s of wall time), ideal device.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from loadtest.emu import EmuConfig, EmulatorHandle, run_in_thread
from tests.trex_client import require_trex_api

DEFAULT_FIELDS = {"time_scale": 10.0}


def start_emulator(**fields) -> EmulatorHandle:
    """An emulator bound to 127.0.0.1 on free ephemeral ports."""
    merged = {**DEFAULT_FIELDS, **fields, "bind": "127.0.0.1", "rpc_port": 0, "pub_port": 0}
    return run_in_thread(EmuConfig(**merged))


@pytest.fixture
def trex_emu_factory() -> Iterator[Callable[..., EmulatorHandle]]:
    handles: list[EmulatorHandle] = []

    def make(**fields) -> EmulatorHandle:
        handle = start_emulator(**fields)
        handles.append(handle)
        return handle

    yield make
    for handle in handles:
        handle.stop()


@pytest.fixture
def trex_emu(request: pytest.FixtureRequest) -> Iterator[EmulatorHandle]:
    fields = getattr(request, "param", None) or {}
    handle = start_emulator(**fields)
    yield handle
    handle.stop()


@pytest.fixture
def trex_client(trex_emu: EmulatorHandle):
    """A connected real T-Rex client (lbr-trex-client) on the emulator; disconnected after."""
    require_trex_api()  # skips (CI: fails) when the client does not import
    from trex.stl.api import STLClient

    client = STLClient(server="127.0.0.1", sync_port=trex_emu.rpc_port,
                       async_port=trex_emu.pub_port, verbose_level="error")
    client.connect()
    yield client
    client.disconnect()
