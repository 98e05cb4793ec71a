"""Pick the zmq binding that can live in one process with the T-Rex client.

The client (lbr-trex-client) ships a ctypes zmq and, when its `trex` package is imported,
puts that on sys.path and drops the `zmq` *packages* already loaded, but not their plain
submodules: a pyzmq imported earlier leaves `zmq.error` behind and the client's import then
fails. In-process users (tests, the loadtest harness) therefore get the client's binding
when the client is installed; the standalone `trex-emu` uses pyzmq.
"""

from __future__ import annotations

import sys
from types import ModuleType


def pyzmq() -> ModuleType:
    import zmq

    return zmq


def client_compatible() -> ModuleType:
    """The binding the T-Rex client uses in this process (pyzmq if the client is absent)."""
    from loadtest import trex_compat

    trex_compat.install()  # before the client's code: Python 3.12+ lacks what it imports
    try:
        import lbr_trex_client  # noqa: F401  (adds the client's `trex` package to sys.path)
    except ImportError:
        return pyzmq()
    if "trex" not in sys.modules:
        for name in [n for n in sys.modules if n == "zmq" or n.startswith("zmq.")]:
            if "pyzmq-ctypes" not in (getattr(sys.modules[name], "__file__", None) or ""):
                del sys.modules[name]  # objects already holding pyzmq keep working
        import trex  # noqa: F401  (its import installs the bundled libraries)
    import zmq

    return zmq
