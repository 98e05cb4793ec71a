"""af_packet: VPP ports on Linux interfaces (af_packet_create_v3, _delete, _dump).

Observed VPP behaviour this models: the port is `host-<linux name>`, dev type
"af-packet", link up and admin down, link_mtu 9000; a Linux interface that does
not exist is -71 with sw_if_index 0; one already attached is -79 carrying the
existing index; deleting an unknown one is -11; deleting removes its subs too.
"""

from __future__ import annotations

from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import ZERO_MAC, SimState

DEV_TYPE = "af-packet"


def af_packet_create(state: SimState, args: dict[str, Any]) -> Response:
    host = str(args.get("host_if_name", ""))
    if host in state.af_packet:
        return c.reply(c.IF_ALREADY_EXISTS, sw_if_index=state.af_packet[host])
    if host not in state.host_interfaces:
        return c.reply(c.INVALID_INTERFACE, sw_if_index=0)
    mac = str(args.get("hw_addr", ZERO_MAC)).lower()
    if args.get("use_random_hw_addr") or mac == ZERO_MAC:
        mac = state.random_mac()
    itf = state.add_interface(f"host-{host}", DEV_TYPE, mac=mac, link_up=True)
    itf.extra["af_packet_host"] = host
    state.af_packet[host] = itf.sw_if_index
    return c.reply(sw_if_index=itf.sw_if_index)


def af_packet_delete(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = state.af_packet.get(str(args.get("host_if_name", "")))
    if sw_if_index is None:
        return c.reply(c.SYSCALL_ERROR_1)
    state.delete_interface(sw_if_index)
    return c.reply()


def af_packet_dump(state: SimState, args: dict[str, Any]) -> Response:
    ports = sorted((sw, host) for host, sw in state.af_packet.items())
    return c.details([{"sw_if_index": sw, "host_if_name": host} for sw, host in ports])


def forget(state: SimState, sw_if_index: int) -> None:
    """on_delete hook: release the Linux interface."""
    host = state.interfaces[sw_if_index].extra.get("af_packet_host")
    if host is not None and state.af_packet.get(host) == sw_if_index:
        del state.af_packet[host]


HANDLERS = {
    "af_packet_create_v3": af_packet_create,
    "af_packet_create_v2": af_packet_create,
    "af_packet_create": af_packet_create,
    "af_packet_delete": af_packet_delete,
    "af_packet_dump": af_packet_dump,
}
