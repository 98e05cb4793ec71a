"""Errors raised by the VPP backend, each a one-line message fit for a user."""

from __future__ import annotations

# The retvals we meet in practice, by the name VPP gives them (vnet/error.h).
# VPP sends only the number; the name makes an error report readable.
RETVAL_NAMES: dict[int, str] = {
    -1: "UNSPECIFIED",
    -2: "INVALID_SW_IF_INDEX",
    -3: "NO_SUCH_FIB",
    -6: "NO_SUCH_ENTRY",
    -7: "INVALID_VALUE",
    -10: "INVALID_SW_IF_INDEX_2",
    -11: "SYSCALL_ERROR_1",
    -12: "SYSCALL_ERROR_2",
    -13: "SYSCALL_ERROR_3",
    -30: "FEATURE_DISABLED",
    -31: "INVALID_REGISTRATION",
    -55: "INVALID_VLAN",
    -56: "VLAN_ALREADY_EXISTS",
    -60: "ADDRESS_NOT_FOUND_FOR_INTERFACE",
    -71: "INVALID_INTERFACE",
    -73: "INVALID_ARGUMENT",
    -75: "TUNNEL_EXIST",
    -79: "IF_ALREADY_EXISTS",
    -81: "VALUE_EXIST",
    -82: "SAME_SRC_DST",
    -98: "INVALID_SUB_SW_IF_INDEX",
    -105: "ADDRESS_IN_USE",
    -114: "ADDRESS_FOUND_FOR_INTERFACE",
    -119: "BD_ALREADY_EXISTS",
    -120: "BD_IN_USE",
    -121: "BD_NOT_MODIFIABLE",
    -122: "BD_ID_EXCEED_MAX",
    -126: "UNSUPPORTED",
    -127: "ADDRESS_IN_USE (IPv6)",  # not in vnet/error.h; what ip6 answers
    -142: "ACL_IN_USE_INBOUND",
    -144: "INIT_FAILED",
    -145: "NETLINK_ERROR",
    -147: "INSTANCE_IN_USE",
    -152: "BD_ALREADY_HAS_BVI",
    -165: "EAGAIN",
}
EAGAIN = -165  # a cursor "get" answers this when more pages follow


# What a bare retval most likely means for one request (by message-name prefix).
HINTS: dict[tuple[str, int], str] = {
    ("lcp_itf_pair_add_del", -13): "Linux refused the host interface: is its name taken "
                                   "(by a netdev, or another pair)?",
    ("lcp_itf_pair_add_del", -81): "the interface has a pair already",
    ("sw_interface_add_del_address", -105): "another interface has this address or subnet",
    ("sw_interface_add_del_address", -127): "another interface has this address or subnet",
    ("create_subif", -1): "another sub-interface of this parent matches these VLAN tags",
    ("sw_interface_set_flags", -1): "a sub-interface can be set up only while its parent is up",
}


def retval_hint(message: str, retval: int) -> str:
    return next((hint for (prefix, rv), hint in HINTS.items()
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
