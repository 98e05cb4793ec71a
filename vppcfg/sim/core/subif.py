"""Sub-interfaces: create_vlan_subif, create_subif, delete_subif.

Observed VPP behaviour this models:
- a sub is named `<hw name>.<sub_id>`, starts admin down with mtu [0,0,0,0]
  and shows its hardware's link and link_mtu;
- a duplicate sub_id on the same parent is -56 (VLAN_ALREADY_EXISTS), vlan 0
  or > 4095 is -55 on create_vlan_subif;
- a sub whose match is already taken (the same outer vlan as an exact-match sub,
  or NO_TAGS, which the main interface itself uses) fails with -1 *after* an
  index was allocated: the reply carries that index, the next create reuses it;
  so does an outer tag of "any" (`dot1q any`, with or without `inner-dot1q
  any`), which VPP has not implemented (vpp-real: -1, CLI "not implemented yet");
- create_vlan_subif on a sub creates the sub on the parent; create_subif on a
  sub "succeeds" with a strange `local0.<id>` whose sup is the sub;
- deleting a hardware interface (bond, loopback, tap, af_packet) that still has
  sub-interfaces frees its VLAN tables before deleting the subs, which then
  clear their "in use" mark in tables handed out again in another order: with
  both dot1q and dot1ad subs, or QinQ subs under two or more outer tags, the
  marks stay on the hw_if_index with the tables swapped. A later sub on that
  hw_if_index (a recreated bond, any interface reusing the index) matching a
  stale mark fails with -1, which clears the mark (a retry succeeds). A hw
  interface with only single-tag dot1q subs is left clean. (VPP's
  ethernet_delete_interface / ethernet_sw_interface_get_config.)
"""

from __future__ import annotations

from typing import Any

from vppcfg.sim.core import common as c
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import SimInterface, SimState
from vppcfg.vpp_numbers import SUB_DEFAULT as DEFAULT
from vppcfg.vpp_numbers import SUB_DOT1AD as DOT1AD
from vppcfg.vpp_numbers import SUB_EXACT_MATCH as EXACT_MATCH
from vppcfg.vpp_numbers import SUB_INNER_ANY as INNER_ANY
from vppcfg.vpp_numbers import SUB_NO_TAGS as NO_TAGS
from vppcfg.vpp_numbers import SUB_ONE_TAG as ONE_TAG
from vppcfg.vpp_numbers import SUB_OUTER_ANY as OUTER_ANY
from vppcfg.vpp_numbers import SUB_TWO_TAGS as TWO_TAGS

# vnet sub_if_flags


def _match_key(flags: int, outer: int, inner: int) -> tuple[Any, ...] | None:
    """Which slot of the parent's vlan table a sub claims (None: no slot)."""
    dot1ad = bool(flags & DOT1AD)
    if flags & NO_TAGS:
        return ("untagged",)
    if flags & DEFAULT:
        return ("default",)
    if flags & ONE_TAG:
        return ("one", dot1ad, outer, bool(flags & EXACT_MATCH))
    if flags & TWO_TAGS:
        if flags & INNER_ANY:
            return ("two-any", dot1ad, outer)
        return ("two", dot1ad, outer, inner, bool(flags & EXACT_MATCH))
    return None


def _keys(sub: SimInterface) -> list[tuple[Any, ...]]:
    keys: list[tuple[Any, ...]] = [(sub.sup_sw_if_index, "id", sub.sub_id)]
    match = _match_key(sub.sub_if_flags, sub.sub_outer_vlan_id, sub.sub_inner_vlan_id)
    if match is not None:
        keys.append((sub.sup_sw_if_index, *match))
    return keys


def forget(state: SimState, sw_if_index: int) -> None:
    """on_delete hook: free the sub's id and vlan match on its parent."""
    itf = state.interfaces[sw_if_index]
    if itf.is_sub:
        for key in _keys(itf):
            if state.sub_index.get(key) == sw_if_index:
                del state.sub_index[key]


def _vlan_mark(key: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """A match's slot in ethernet's VLAN tables (exact-match or not)."""
    if key[0] == "one":
        return ("one", key[1], key[2])
    if key[0] == "two":
        return ("two", key[1], key[2], key[3])
    return None


def leave_stale_vlans(state: SimState, sw_if_index: int) -> None:
    """before_cascade hook: the marks of the subs about to go, swapped."""
    marks = set()
    for sub in state.subs.get(sw_if_index, ()):
        itf = state.interfaces[sub]
        key = _match_key(itf.sub_if_flags, itf.sub_outer_vlan_id, itf.sub_inner_vlan_id)
        mark = _vlan_mark(key) if key else None
        if mark:
            marks.add(mark)
    single = {m for m in marks if m[0] == "one"}
    stale: set[tuple[Any, ...]] = set()
    if len({m[1] for m in single}) == 2:  # dot1q and dot1ad tables trade places
        stale |= {("one", not dot1ad, outer) for _, dot1ad, outer in single}
    outers = sorted({(m[1], m[2]) for m in marks if m[0] == "two"})
    if len(outers) >= 2:  # inner tables move on to the next outer tag
        for (dot1ad, outer), (_, to) in zip(outers, outers[1:] + outers[:1], strict=True):
            stale |= {("two", dot1ad, to, m[3]) for m in marks
                      if m[0] == "two" and (m[1], m[2]) == (dot1ad, outer)}
    if stale:
        hw = state.interfaces[sw_if_index].hw_if_index
        state.stale_vlans.setdefault(hw, set()).update(stale)


def create(
    state: SimState,
    sup: SimInterface,
    hw: SimInterface,
    sub_id: int,
    flags: int,
    outer: int,
    inner: int,
) -> Response:
    if (sup.sw_if_index, "id", sub_id) in state.sub_index:
        return c.reply(c.VLAN_ALREADY_EXISTS, sw_if_index=c.NONE_INDEX)
    key = _match_key(flags, outer, inner)
    # NO_TAGS clashes with the main interface, which takes untagged frames
    if key == ("untagged",) or (key and (sup.sw_if_index, *key) in state.sub_index) \
            or flags & OUTER_ANY:
        return c.reply(c.UNSPECIFIED, sw_if_index=state.next_sw_if_index())
    stale = state.stale_vlans.get(hw.hw_if_index, set())
    mark = _vlan_mark(key) if key else None
    if mark in stale:
        stale.discard(mark)  # the failed create's undo clears the slot
        return c.reply(c.UNSPECIFIED, sw_if_index=state.next_sw_if_index())
    itf = state.add_interface(
        f"{hw.name}.{sub_id}",
        hw.dev_type,
        sup_sw_if_index=sup.sw_if_index,
        hw_if_index=hw.hw_if_index,
    )
    itf.sub_id = sub_id
    itf.sub_if_flags = flags
    itf.sub_outer_vlan_id = outer
    itf.sub_inner_vlan_id = inner
    itf.sub_number_of_tags = 2 if flags & TWO_TAGS else 1 if flags & ONE_TAG else 0
    for k in _keys(itf):
        state.sub_index[k] = itf.sw_if_index
    return c.reply(sw_if_index=itf.sw_if_index)


def create_vlan_subif(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX, sw_if_index=c.NONE_INDEX)
    vlan = args.get("vlan_id", 0)
    if not 0 < vlan < 4096:
        return c.reply(c.INVALID_VLAN, sw_if_index=c.NONE_INDEX)
    parent = state.hw_owner(itf)
    return create(state, parent, parent, vlan, ONE_TAG | EXACT_MATCH, vlan, 0)


def create_subif(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX, sw_if_index=c.NONE_INDEX)
    # On a sub, VPP reads the sub's (unset) hardware index: it lands on local0.
    hw = state.interfaces[0] if itf.is_sub and 0 in state.interfaces else state.hw_owner(itf)
    return create(
        state,
        itf,
        hw,
        args.get("sub_id", 0),
        args.get("sub_if_flags", 0),
        args.get("outer_vlan_id", 0),
        args.get("inner_vlan_id", 0),
    )


def delete_subif(state: SimState, args: dict[str, Any]) -> Response:
    itf = state.get(args.get("sw_if_index", 0))
    if itf is None:
        return c.reply(c.INVALID_SW_IF_INDEX)
    if not itf.is_sub:
        return c.reply(c.INVALID_SUB_SW_IF_INDEX)
    state.delete_interface(itf.sw_if_index)
    return c.reply()


HANDLERS = {
    "create_vlan_subif": create_vlan_subif,
    "create_subif": create_subif,
    "delete_subif": delete_subif,
}
