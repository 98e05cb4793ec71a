"""Helpers shared by the core behaviour modules: retvals and reply shapes."""

from __future__ import annotations

from typing import Any

from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX

# the retvals the core model answers with (re-exported to its modules)
from vppcfg.vpp_numbers import (  # noqa: F401
    ADDRESS_FOUND_FOR_INTERFACE,
    ADDRESS_IN_USE,
    ADDRESS_NOT_FOUND_FOR_INTERFACE,
    BD_ALREADY_EXISTS,
    BD_ALREADY_HAS_BVI,
    BD_ID_EXCEED_MAX,
    BD_IN_USE,
    BD_NOT_MODIFIABLE,
    FEATURE_DISABLED,
    IF_ALREADY_EXISTS,
    INVALID_INTERFACE,
    INVALID_REGISTRATION,
    INVALID_SUB_SW_IF_INDEX,
    INVALID_SW_IF_INDEX,
    INVALID_SW_IF_INDEX_2,
    INVALID_VALUE,
    INVALID_VLAN,
    INVALID_VLAN_TAG_COUNT,
    IP6_ADDRESS_IN_USE,
    NO_SUCH_ENTRY,
    NO_SUCH_FIB,
    SYSCALL_ERROR_1,
    UNSPECIFIED,
    UNSUPPORTED,
    VLAN_ALREADY_EXISTS,
)

__all__ = ["NONE_INDEX", "details", "reply"]


def reply(retval: int = 0, **fields: Any) -> Response:
    return Response(reply={"retval": retval, **fields})


def details(items: list[dict[str, Any]]) -> Response:
    return Response(details=items)
