"""TAP/TUN (tapv2) interfaces, including the host taps linux-cp creates.

Observed VPP behaviour modelled here (checks in VPP's order):
* id in use -> INVALID_INTERFACE (-71); id ~0 -> lowest free id; an id above
  TAP_MAX_INSTANCE 8192 -> UNSPECIFIED (-1), as on vpp-real.
* a missing host namespace -> SYSCALL_ERROR_2 (-12); a host name already
  present on the Linux side -> SYSCALL_ERROR_3 (-13); a host MTU Linux refuses
  -> NETLINK_ERROR (-145); a ring size that is not a power of two (or above
  32768) -> INIT_FAILED (-144). A non-existent host bridge is accepted.
* VPP names the interface tap<id> (tun<id> in TUN mode); Linux names the host
  side after host_if_name, else the kernel's first free tap%d / tun%d.
* TUN interfaces have no MAC and report link_mtu 0 and mtu [0,0,0,0].
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.linux import DEFAULT_MTU, LinuxError, LinuxHost
from vppcfg.sim.plugins._util import (
    INIT_FAILED,
    INVALID_INTERFACE,
    INVALID_SW_IF_INDEX,
    NETLINK_ERROR,
    OK,
    SYSCALL_ERROR_2,
    SYSCALL_ERROR_3,
    ZERO_MAC,
    LowestFree,
    Pool,
    add_interface,
    delete_interface,
    details,
    linux,
    name_taken,
    random_mac,
    reply,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, SimInterface, SimState
from vppcfg.vpp_numbers import UNSPECIFIED

MAX_ID = 8192  # VPP's TAP_MAX_INSTANCE: 8192 works, 8193 is refused

FLAG_GSO, FLAG_CSUM, FLAG_PERSIST, FLAG_ATTACH, FLAG_TUN = 1, 2, 4, 8, 16
MAX_RING = 32768
DEFAULT_RING = 256


@dataclass
class Tap:
    sw_if_index: int
    id: int
    tx_ring_sz: int
    rx_ring_sz: int
    host_mtu_size: int
    host_mac_addr: str
    host_ip4_prefix: str
    host_ip6_prefix: str
    tap_flags: int
    dev_name: str
    host_if_name: str
    host_namespace: str
    host_bridge: str
    pool_index: int = 0

    def details(self) -> dict[str, Any]:
        row = {k: v for k, v in self.__dict__.items() if k != "pool_index"}
        return row


@dataclass
class TapState:
    pool: Pool = field(default_factory=Pool)
    by_sw: dict[int, Tap] = field(default_factory=dict)
    ids: LowestFree = field(default_factory=LowestFree)


def taps(state: SimState) -> TapState:
    data = state.plugins.get("tap")
    if data is None:
        data = state.plugins["tap"] = TapState()
    return data


def _ring_ok(size: int) -> bool:
    return 0 < size <= MAX_RING and size & (size - 1) == 0


def _opt(args: dict[str, Any], name: str, default: Any) -> Any:
    """An optional field: its value when its ``<name>_set`` flag is true."""
    return args.get(name, default) if args.get(f"{name}_set") else default


def create_tap(state: SimState, args: dict[str, Any]) -> tuple[int, SimInterface | None]:
    """tap_create_if: returns (retval, interface). Used by lcp for host taps too."""
    data = taps(state)
    host = linux(state)
    tap_id = args.get("id", NONE_INDEX)
    if tap_id == NONE_INDEX:
        tap_id = data.ids.lowest()
    elif tap_id in data.ids:
        return INVALID_INTERFACE, None
    if tap_id > MAX_ID:
        return UNSPECIFIED, None
    flags = args.get("tap_flags", 0)
    tun = bool(flags & FLAG_TUN)
    netns = args.get("host_namespace", "") if args.get("host_namespace_set") else ""
    if not host.has_namespace(netns):
        return SYSCALL_ERROR_2, None
    name = _opt(args, "host_if_name", "") or host.first_free("tun" if tun else "tap")
    if name_taken(state, name, netns):
        return SYSCALL_ERROR_3, None
    mtu = args.get("host_mtu_size", 0) if args.get("host_mtu_set") else 0
    if args.get("host_mtu_set") and not 68 <= mtu <= 65535:
        return NETLINK_ERROR, None
    rx_ring = args.get("rx_ring_sz", 0) or DEFAULT_RING
    tx_ring = args.get("tx_ring_sz", 0) or DEFAULT_RING
    if not (_ring_ok(rx_ring) and _ring_ok(tx_ring)):
        return INIT_FAILED, None

    host_mac = ZERO_MAC if tun else _opt(args, "host_mac_addr", "") or random_mac(state)
    if tun:
        mac = ZERO_MAC
    elif args.get("use_random_mac", True):
        mac = random_mac(state)
    else:
        mac = args.get("mac_address", ZERO_MAC)
    dev_name = f"{'tun' if tun else 'tap'}{tap_id}"
    itf = add_interface(
        state, dev_name, "tap", mac=mac, link_up=True, tag=args.get("tag", ""),
        link_mtu=0 if tun else 9000, mtu=[0, 0, 0, 0] if tun else [9000, 0, 0, 0],
    )
    _make_host_side(host, name, netns, mtu, args)
    tap = Tap(
        sw_if_index=itf.sw_if_index, id=tap_id, tx_ring_sz=tx_ring, rx_ring_sz=rx_ring,
        host_mtu_size=mtu, host_mac_addr=host_mac,
        host_ip4_prefix=_opt(args, "host_ip4_prefix", "0.0.0.0/0"),
        host_ip6_prefix=_opt(args, "host_ip6_prefix", "::/0"),
        tap_flags=flags, dev_name=dev_name, host_if_name=name, host_namespace=netns,
        host_bridge=_opt(args, "host_bridge", ""),
    )
    tap.pool_index = data.pool.get(tap)
    data.by_sw[itf.sw_if_index] = tap
    data.ids.add(tap_id)
    return OK, itf


def _make_host_side(host: LinuxHost, name: str, netns: str, mtu: int,
                    args: dict[str, Any]) -> None:
    """tap_create_if's Linux side: the host addresses asked for, the link up,
    then the host MTU if one was asked for (the kernel's 1500 otherwise)."""
    host.add_netdev(name, netns, mtu or DEFAULT_MTU)
    for family in ("ip4", "ip6"):
        prefix = _opt(args, f"host_{family}_prefix", "")
        if prefix and not str(prefix).endswith("/0"):
            with contextlib.suppress(LinuxError):
                host.add_address(netns, name, str(prefix))
    host.set_state(netns, name, True)


def tap_create(state: SimState, args: dict[str, Any]) -> Response:
    retval, itf = create_tap(state, args)
    return reply(retval, sw_if_index=itf.sw_if_index if itf else NONE_INDEX)


def tap_delete_v2(state: SimState, args: dict[str, Any]) -> Response:
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index not in taps(state).by_sw:
        return reply(INVALID_SW_IF_INDEX)
    delete_interface(state, sw_if_index)
    return reply(OK)


def sw_interface_tap_v2_dump(state: SimState, args: dict[str, Any]) -> Response:
    index = args.get("sw_if_index", NONE_INDEX)
    rows = [t.details() for t in taps(state).pool.ordered()
            if index in (NONE_INDEX, t.sw_if_index)]
    return details(rows)


def _on_delete(state: SimState, sw_if_index: int) -> None:
    data = taps(state)
    tap = data.by_sw.pop(sw_if_index, None)
    if tap is None:
        return
    data.pool.put(tap.pool_index)
    data.ids.discard(tap.id)
    linux(state).remove_netdev(tap.host_if_name, tap.host_namespace)


def install(state: SimState) -> None:
    taps(state)
    linux(state)
    state.on_delete.append(_on_delete)


HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    "tap_create_v2": tap_create,
    "tap_create_v3": tap_create,
    "tap_delete_v2": tap_delete_v2,
    "sw_interface_tap_v2_dump": sw_interface_tap_v2_dump,
}
