"""The behaviour model of VPP's core (vnet): one module per area.

Each module exposes HANDLERS (message -> fn(state, args) -> Response) and, where
deleting an interface must clean something up, a ``forget(state, sw_if_index)``
hook that `install` registers on the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vppcfg.sim.core import af_packet, interfaces, ip, l2, loopback, mpls, subif, version
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import SimState

MODULES = (version, interfaces, subif, loopback, af_packet, l2, ip, mpls)

HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    name: fn for module in MODULES for name, fn in module.HANDLERS.items()
}


def install(state: SimState) -> None:
    """Register the core's cascade hooks (l2 membership, addresses, ...)."""
    for module in (subif, loopback, af_packet, l2, ip):
        state.on_delete.append(module.forget)
    state.before_cascade.append(subif.leave_stale_vlans)
    l2.ensure_default_bd(state)
