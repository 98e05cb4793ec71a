"""trex-emu: an emulated Cisco T-Rex v3.08 stateless server for tests and dry runs."""

from .config import EmuConfig
from .server import EmulatorHandle, TrexEmulator, run_in_thread

__all__ = ["EmuConfig", "EmulatorHandle", "TrexEmulator", "run_in_thread"]
