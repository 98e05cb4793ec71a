"""vpp_papi replies in plain form: the form of the reference traces.

Named tuples become dicts, addresses/prefixes/MACs become their canonical
strings, enums and flags become ints. The dump works on this form only, so
it can be fed recorded replies as well as live ones.
"""

from __future__ import annotations

import enum
import ipaddress
from typing import Any

_STRINGY = (
    ipaddress.IPv4Address,
    ipaddress.IPv6Address,
    ipaddress.IPv4Network,
    ipaddress.IPv6Network,
    ipaddress.IPv4Interface,
    ipaddress.IPv6Interface,
)


_AS_IS = frozenset({bool, int, float, str, bytes})  # exact types (enums are subclasses)


def plain(value: Any) -> Any:
    if type(value) in _AS_IS:  # most fields: a quick way out
        return value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {k: plain(v) for k, v in zip(value._fields, value, strict=True) if k != "_0"}
    if isinstance(value, bool | str | bytes):
        return value
    if isinstance(value, enum.Enum):
        return int(value.value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, _STRINGY):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return str(value)  # MACAddress and other vpp_papi wrappers


def plain_list(values: Any) -> list[dict[str, Any]]:
    return [plain(v) for v in values]
