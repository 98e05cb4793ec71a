"""Helpers shared by the core behaviour modules: retvals and reply shapes."""

from __future__ import annotations

from typing import Any

from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX

# VNET_API_ERROR_* values (vnet/error.h) used by the core model.
UNSPECIFIED = -1
INVALID_SW_IF_INDEX = -2
NO_SUCH_FIB = -3
NO_SUCH_ENTRY = -6
INVALID_VALUE = -7
INVALID_SW_IF_INDEX_2 = -10
SYSCALL_ERROR_1 = -11
FEATURE_DISABLED = -30
INVALID_REGISTRATION = -31
INVALID_VLAN = -55
VLAN_ALREADY_EXISTS = -56
ADDRESS_NOT_FOUND_FOR_INTERFACE = -60
INVALID_INTERFACE = -71
INVALID_VLAN_TAG_COUNT = -72
IF_ALREADY_EXISTS = -79
INVALID_SUB_SW_IF_INDEX = -98
ADDRESS_IN_USE = -105
ADDRESS_FOUND_FOR_INTERFACE = -114
BD_ALREADY_EXISTS = -119
BD_IN_USE = -120
BD_NOT_MODIFIABLE = -121
BD_ID_EXCEED_MAX = -122
UNSUPPORTED = -126
# Not in VPP's error table: what ip6 returns for an address already in use.
IP6_ADDRESS_IN_USE = -127
BD_ALREADY_HAS_BVI = -152

__all__ = ["NONE_INDEX", "details", "reply"]


def reply(retval: int = 0, **fields: Any) -> Response:
    return Response(reply={"retval": retval, **fields})


def details(items: list[dict[str, Any]]) -> Response:
    return Response(details=items)
