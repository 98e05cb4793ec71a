"""The real T-Rex client in tests, imported the way trex-loadtest imports it.

`require_trex_api()` returns `trex.stl.api` from `loadtest.client.load_api`
(so through loadtest.trex_compat on Python 3.12+) and skips the calling test,
or the module when called at its top, when the client does not import. Whether
the package is installed is not the question: whether it imports is.
tests/ci_policy.py turns such a skip into a failure under CI=true.
"""

from __future__ import annotations

from types import ModuleType

import pytest

SKIP_REASON = "T-Rex client not importable: "


def require_trex_api() -> ModuleType:
    """The client's `trex.stl.api`; call before the emulator imports zmq (the client
    brings its own binding)."""
    from loadtest.client import LoadtestError, load_api

    try:
        return load_api()
    except LoadtestError as err:
        pytest.skip(SKIP_REASON + str(err), allow_module_level=True)
