"""IP: interface addresses, VRF binding and tables, unnumbered interfaces.

Observed VPP behaviour this models:
- the same address again (any prefix length) is -105 for IPv4 and -127 for
  IPv6; a prefix overlapping one on another interface of the same VRF is
  -105 / -127; a second address in the same subnet on the same interface is fine;
- deleting matches the address only (a wrong prefix length still deletes);
  deleting an absent one is -60; del_all removes every v4 and v6 address;
- addresses on local0 are -126; ip_address_dump with ~0 lists nothing;
- an unnumbered interface lists no addresses; VPP swaps its address list for
  the lender's, so whatever was on it is gone when it becomes numbered again;
- set_unnumbered: bad sw_if_index is -10, bad unnumbered_sw_if_index -2,
  self-unnumbered and chains are accepted, removing twice is fine;
- set_table to a missing VRF is -3; changing VRF with addresses present is -114.
"""

from __future__ import annotations

import bisect
import ipaddress
from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import SimInterface, SimState

Interface = ipaddress.IPv4Interface | ipaddress.IPv6Interface


def _parse(prefix: Any) -> Interface:
    return ipaddress.ip_interface(str(prefix))


def _same_family(itf: SimInterface, ipv6: bool) -> list[Interface]:
    return [a for a in map(_parse, itf.addresses) if (a.version == 6) == ipv6]


def _entry(itf: SimInterface, addr: Interface) -> tuple[tuple[bool, int], tuple[int, int, int]]:
    ipv6 = addr.version == 6
    net = addr.network
    return (ipv6, itf.table_id[ipv6]), (int(net.network_address), net.prefixlen, itf.sw_if_index)


def add_address(state: SimState, itf: SimInterface, addr: Interface) -> None:
    itf.addresses.append(str(addr))
    key, entry = _entry(itf, addr)
    bisect.insort(state.ip_index.setdefault(key, []), entry)
    for hook in state.on_address:
        hook(state, itf, str(addr), True)


def remove_address(state: SimState, itf: SimInterface, text: str) -> None:
    itf.addresses.remove(text)
    key, entry = _entry(itf, _parse(text))
    index = state.ip_index.get(key, [])
    pos = bisect.bisect_left(index, entry)
    if pos < len(index) and index[pos] == entry:
        del index[pos]
    for hook in state.on_address:
        hook(state, itf, text, False)


def clear_addresses(state: SimState, itf: SimInterface) -> None:
    for text in list(itf.addresses):
        remove_address(state, itf, text)


def _conflict(state: SimState, itf: SimInterface, new: Interface) -> bool:
    """Same address on this interface, or an overlapping prefix on another one of
    the same VRF (found through the sorted index, not by scanning interfaces)."""
    if any(addr.ip == new.ip for addr in _same_family(itf, new.version == 6)):
        return True
    key, (start, plen, _) = _entry(itf, new)
    index = state.ip_index.get(key, [])
    bits = new.max_prefixlen
    ip = int(new.ip)
    for length in range(plen + 1):  # existing supernets (or the same network)
        net = ip & (((1 << length) - 1) << (bits - length))
        pos = bisect.bisect_left(index, (net, length, -1))
        while pos < len(index) and index[pos][:2] == (net, length):
            if index[pos][2] != itf.sw_if_index:
                return True
            pos += 1
    end = start + (1 << (bits - plen)) - 1
    pos = bisect.bisect_left(index, (start, plen + 1, -1))
    while pos < len(index) and index[pos][0] <= end:  # existing subnets
        if index[pos][2] != itf.sw_if_index and index[pos][1] > plen:
            return True
        pos += 1
    return False


def sw_interface_add_del_address(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if state.hw_owner(itf).dev_type == "local":
        return c.reply(c.UNSUPPORTED)
    if args.get("del_all"):
        clear_addresses(state, itf)
        return c.reply()
    new = _parse(args.get("prefix", "0.0.0.0/0"))
    if args.get("is_add"):
        if _conflict(state, itf, new):
            return c.reply(c.IP6_ADDRESS_IN_USE if new.version == 6 else c.ADDRESS_IN_USE)
        add_address(state, itf, new)
        return c.reply()
    for text in itf.addresses:
        if _parse(text).ip == new.ip:
            remove_address(state, itf, text)
            return c.reply()
    return c.reply(c.ADDRESS_NOT_FOUND_FOR_INTERFACE)


def ip_address_dump(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", c.NONE_INDEX))
    if itf is None or itf.unnumbered_to is not None:
        return c.details([])
    ipv6 = bool(args.get("is_ipv6"))
    return c.details(
        [{"sw_if_index": itf.sw_if_index, "prefix": str(a)} for a in _same_family(itf, ipv6)]
    )


def sw_interface_set_table(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    ipv6 = bool(args.get("is_ipv6"))
    vrf = args.get("vrf_id", 0)
    if (ipv6, vrf) not in state.ip_tables:
        return c.reply(c.NO_SUCH_FIB)
    if vrf != itf.table_id[ipv6] and _same_family(itf, ipv6):
        return c.reply(c.ADDRESS_FOUND_FOR_INTERFACE)
    itf.table_id[ipv6] = vrf
    return c.reply()


def sw_interface_get_table(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX, vrf_id=0)
    return c.reply(vrf_id=itf.table_id[bool(args.get("is_ipv6"))])


def ip_table_add_del(state: SimState, args: dict[str, Any]) -> Response:
    table = args.get("table", {})
    ipv6 = bool(table.get("is_ip6"))
    key = (ipv6, table.get("table_id", 0))
    if args.get("is_add", True):
        if key not in state.ip_tables:
            name = table.get("name") or f"ipv{6 if ipv6 else 4}-VRF:{key[1]}"
            state.ip_tables[key] = name
        return c.reply()
    in_use = any(itf.table_id[ipv6] == key[1] for itf in state.interfaces.values())
    if key[1] != 0 and not in_use:  # VPP keeps a table while interfaces hold it
        state.ip_tables.pop(key, None)
    return c.reply()


def ip_table_dump(state: SimState, args: dict[str, Any]) -> Response:
    return c.details(
        [
            {"table": {"table_id": vrf, "is_ip6": ipv6, "name": name}}
            for (ipv6, vrf), name in sorted(state.ip_tables.items())
        ]
    )


def sw_interface_set_unnumbered(state: SimState, args: dict[str, Any]) -> Response:
    lender = args.get("sw_if_index", 0)
    if lender not in state.interfaces:
        return c.reply(c.INVALID_SW_IF_INDEX_2)
    borrower = state.get(args.get("unnumbered_sw_if_index", 0))
    if borrower is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if args.get("is_add", False):
        _set_lender(state, borrower, lender)
        clear_addresses(state, borrower)  # its own list is replaced by the lender's
    elif borrower.unnumbered_to is not None:
        _set_lender(state, borrower, None)
        clear_addresses(state, borrower)
    return c.reply()


def _set_lender(state: SimState, borrower: SimInterface, lender: int | None) -> None:
    if borrower.unnumbered_to is not None:
        state.borrowers.get(borrower.unnumbered_to, set()).discard(borrower.sw_if_index)
    borrower.unnumbered_to = lender
    if lender is not None:
        state.borrowers.setdefault(lender, set()).add(borrower.sw_if_index)


def ip_unnumbered_dump(state: SimState, args: dict[str, Any]) -> Response:
    wanted = args.get("sw_if_index", c.NONE_INDEX)
    items = (
        [state.interfaces[wanted]]
        if wanted in state.interfaces
        else []
        if wanted != c.NONE_INDEX
        else [state.interfaces[i] for i in sorted(state.interfaces)]
    )
    return c.details(
        [
            {"sw_if_index": itf.sw_if_index, "ip_sw_if_index": itf.unnumbered_to}
            for itf in items
            if itf.unnumbered_to is not None
        ]
    )


def forget(state: SimState, sw_if_index: int) -> None:
    """on_delete hook: drop the addresses; borrowers of the deleted interface
    become numbered (and empty)."""
    itf = state.interfaces[sw_if_index]
    clear_addresses(state, itf)
    _set_lender(state, itf, None)
    for borrower in sorted(state.borrowers.pop(sw_if_index, ())):
        other = state.interfaces[borrower]
        other.unnumbered_to = None
        clear_addresses(state, other)


HANDLERS = {
    "sw_interface_add_del_address": sw_interface_add_del_address,
    "ip_address_dump": ip_address_dump,
    "sw_interface_set_table": sw_interface_set_table,
    "sw_interface_get_table": sw_interface_get_table,
    "ip_table_add_del": ip_table_add_del,
    "ip_table_dump": ip_table_dump,
    "sw_interface_set_unnumbered": sw_interface_set_unnumbered,
    "ip_unnumbered_dump": ip_unnumbered_dump,
}
