"""Loopbacks: create_loopback(_instance), delete_loopback.

Observed VPP behaviour this models: loopbacks are `loop<instance>`, dev type
"Loopback", admin and link down, link_mtu 9000; an automatic instance is the
lowest free one; a specific instance in use, or 16384 and up (VPP's
LOOPBACK_MAX_INSTANCE, as vpp-real answers), is -31 (INVALID_REGISTRATION); a
zero MAC becomes de:ad:00:00:<instance>; deleting a non-loopback is -2.
"""

from __future__ import annotations

from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import ZERO_MAC, SimState

DEV_TYPE = "Loopback"
MAX_INSTANCE = 16384  # VPP's LOOPBACK_MAX_INSTANCE


def _create(state: SimState, instance: int | None, mac: str) -> Response:
    if instance is None:
        instance = 0
        while instance in state.loopback_instances:
            instance += 1
    elif instance in state.loopback_instances or instance >= MAX_INSTANCE:
        return c.reply(c.INVALID_REGISTRATION, sw_if_index=c.NONE_INDEX)
    if mac.lower() == ZERO_MAC:
        mac = f"de:ad:00:00:{(instance >> 8) & 0xFF:02x}:{instance & 0xFF:02x}"
    itf = state.add_interface(f"loop{instance}", DEV_TYPE, mac=mac.lower())
    itf.extra["loopback_instance"] = instance
    state.loopback_instances[instance] = itf.sw_if_index
    return c.reply(sw_if_index=itf.sw_if_index)


def create_loopback(state: SimState, args: dict[str, Any]) -> Response:
    return _create(state, None, str(args.get("mac_address", ZERO_MAC)))


def create_loopback_instance(state: SimState, args: dict[str, Any]) -> Response:
    instance = args.get("user_instance", 0) if args.get("is_specified") else None
    return _create(state, instance, str(args.get("mac_address", ZERO_MAC)))


def delete_loopback(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None or itf.is_sub or itf.dev_type != DEV_TYPE:
        return c.reply(c.INVALID_SW_IF_INDEX)
    state.delete_interface(itf.sw_if_index)
    return c.reply()


def forget(state: SimState, sw_if_index: int) -> None:
    """on_delete hook: free the loopback's instance number."""
    instance = state.interfaces[sw_if_index].extra.get("loopback_instance")
    if instance is not None and state.loopback_instances.get(instance) == sw_if_index:
        del state.loopback_instances[instance]


HANDLERS = {
    "create_loopback": create_loopback,
    "create_loopback_instance": create_loopback_instance,
    "delete_loopback": delete_loopback,
}
