"""MPLS: tables and per-interface enabling.

Observed VPP behaviour this models: enabling (or disabling) MPLS on an interface
before the default MPLS table 0 exists is -3; VPP keeps an 8-bit enable count
per interface and lists the interfaces whose count is non-zero - so disabling
one that was never enabled wraps the count to 255 and lists it. The count
belongs to the sw_if_index, not the interface: deleting an interface leaves
it, and the next interface given that index comes up with MPLS enabled.
"""

from __future__ import annotations

from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import SimState


def mpls_table_add_del(state: SimState, args: dict[str, Any]) -> Response:
    table = args.get("mt_table", {})
    table_id = table.get("mt_table_id", 0)
    if args.get("mt_is_add", True):
        state.mpls_tables.setdefault(table_id, table.get("mt_name") or f"MPLS-VRF:{table_id}")
    elif table_id != 0 or not any(state.mpls_refs.get(i) for i in state.interfaces):
        state.mpls_tables.pop(table_id, None)
    return c.reply()


def mpls_table_dump(state: SimState, args: dict[str, Any]) -> Response:
    return c.details(
        [
            {"mt_table": {"mt_table_id": table_id, "mt_name": name}}
            for table_id, name in sorted(state.mpls_tables.items())
        ]
    )


def sw_interface_set_mpls_enable(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if 0 not in state.mpls_tables:
        return c.reply(c.NO_SUCH_FIB)
    step_mpls(state, itf.sw_if_index, 1 if args.get("enable", True) else -1)
    return c.reply()


def step_mpls(state: SimState, sw_if_index: int, step: int) -> None:
    state.mpls_refs[sw_if_index] = (state.mpls_refs.get(sw_if_index, 0) + step) % 256


def mpls_interface_dump(state: SimState, args: dict[str, Any]) -> Response:
    wanted = args.get("sw_if_index", c.NONE_INDEX)
    indexes = [wanted] if wanted != c.NONE_INDEX else sorted(state.interfaces)
    return c.details(
        [
            {"sw_if_index": i}
            for i in indexes
            if i in state.interfaces and state.mpls_refs.get(i)
        ]
    )


HANDLERS = {
    "mpls_table_add_del": mpls_table_add_del,
    "mpls_table_dump": mpls_table_dump,
    "sw_interface_set_mpls_enable": sw_interface_set_mpls_enable,
    "mpls_interface_dump": mpls_interface_dump,
}
