"""Errors raised by the VPP backend, each a one-line message fit for a user."""

from __future__ import annotations

from vppcfg.vpp_numbers import EAGAIN as EAGAIN  # re-exported: the backend's retval
from vppcfg.vpp_numbers import RETVAL_NAMES


def retval_hint(message: str, retval: int) -> str:
    """What a bare retval most likely means for this request, as the object
    type that sends it says (`hints` of its descriptor)."""
    from vppcfg.objects import DESCRIPTORS

    return next((text for desc in DESCRIPTORS for prefix, rv, text in desc.hints
                 if rv == retval and message.startswith(prefix)), "")


def retval_name(retval: int) -> str:
    return RETVAL_NAMES.get(retval, f"error {retval}")


class VppError(Exception):
    """Anything that stops us talking to VPP; str() is a one-line message."""


class VppNotRunning(VppError):
    """The API socket is missing or refuses connections."""


class VppPermissionDenied(VppError):
    """The API socket exists but we may not open it."""


class VppDefinitionsMissing(VppError):
    """No usable *.api.json definitions."""


class VppMessageMissing(VppError):
    """The connected VPP lacks a message we need."""


class VppTimeout(VppError):
    """VPP did not answer in time."""


class VppApiError(VppError):
    """An API call answered with a non-zero retval."""

    def __init__(self, message: str, retval: int, args: dict | None = None) -> None:
        self.message = message
        self.retval = retval
        self.name = retval_name(retval)
        self.args_ = dict(args or {})
        hint = retval_hint(message, retval)
        super().__init__(f"{message} failed: retval {retval} ({self.name})"
                         + (f": {hint}" if hint else ""))
