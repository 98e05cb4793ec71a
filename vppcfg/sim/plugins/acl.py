"""The ACL plugin: ACLs (rules kept in plain form) and per-interface lists.

Observed VPP behaviour modelled here: acl_index ~0 creates at the index VPP's
pool hands out (the most recently freed first, else a new one), replacing a
non-existent ACL -> -6 (the reply echoes the index), an empty ACL is fine.
Interface lists name existing ACLs only (-6); adding one
already applied -> -142/-143 (in use inbound/outbound), removing one not
applied -> -6; deleting an ACL still applied somewhere -> -142/-143.
acl_interface_list_dump lists every interface, with or without ACLs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vppcfg.sim.plugins._util import (
    ACL_IN_USE_INBOUND,
    ACL_IN_USE_OUTBOUND,
    INVALID_SW_IF_INDEX,
    NO_SUCH_ENTRY,
    OK,
    details,
    reply,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.state import NONE_INDEX, IndexPool, SimState

VERSION = {"major": 1, "minor": 4}


@dataclass
class Acl:
    tag: str
    rules: list[dict[str, Any]]


@dataclass
class Lists:
    input: list[int] = field(default_factory=list)
    output: list[int] = field(default_factory=list)


@dataclass
class AclState:
    acls: dict[int, Acl] = field(default_factory=dict)
    indexes: IndexPool = field(default_factory=IndexPool)
    lists: dict[int, Lists] = field(default_factory=dict)  # sw_if_index -> applied ACLs
    # acl index -> interfaces using it, per direction (O(1) in-use checks)
    users_in: dict[int, set[int]] = field(default_factory=dict)
    users_out: dict[int, set[int]] = field(default_factory=dict)


def acl_state(state: SimState) -> AclState:
    data = state.plugins.get("acl")
    if data is None:
        data = state.plugins["acl"] = AclState()
    return data


def _set_lists(data: AclState, sw_if_index: int, inputs: list[int], outputs: list[int]) -> None:
    old = data.lists.pop(sw_if_index, Lists())
    for index in old.input:
        data.users_in.get(index, set()).discard(sw_if_index)
    for index in old.output:
        data.users_out.get(index, set()).discard(sw_if_index)
    if not inputs and not outputs:
        return
    data.lists[sw_if_index] = Lists(list(inputs), list(outputs))
    for index in inputs:
        data.users_in.setdefault(index, set()).add(sw_if_index)
    for index in outputs:
        data.users_out.setdefault(index, set()).add(sw_if_index)


def acl_plugin_get_version(state: SimState, args: dict[str, Any]) -> Response:
    return Response(reply=dict(VERSION))


def acl_add_replace(state: SimState, args: dict[str, Any]) -> Response:
    data = acl_state(state)
    index = args.get("acl_index", NONE_INDEX)
    if index == NONE_INDEX:
        index = data.indexes.take()
    elif index not in data.acls:
        return Response(reply={"acl_index": index, "retval": NO_SUCH_ENTRY})
    data.acls[index] = Acl(args.get("tag", ""), [dict(r) for r in args.get("r", [])])
    return Response(reply={"acl_index": index, "retval": OK})


def acl_del(state: SimState, args: dict[str, Any]) -> Response:
    data = acl_state(state)
    index = args.get("acl_index", NONE_INDEX)
    if index not in data.acls:
        return reply(NO_SUCH_ENTRY)
    if data.users_in.get(index):
        return reply(ACL_IN_USE_INBOUND)
    if data.users_out.get(index):
        return reply(ACL_IN_USE_OUTBOUND)
    del data.acls[index]
    data.indexes.give_back(index)
    return reply(OK)


def acl_interface_add_del(state: SimState, args: dict[str, Any]) -> Response:
    data = acl_state(state)
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index not in state.interfaces:
        return reply(INVALID_SW_IF_INDEX)
    index = args.get("acl_index", NONE_INDEX)
    if index not in data.acls:
        return reply(NO_SUCH_ENTRY)
    lists = data.lists.get(sw_if_index, Lists())
    is_input = bool(args.get("is_input", True))
    current = list(lists.input if is_input else lists.output)
    if args.get("is_add", True):
        if index in current:
            return reply(ACL_IN_USE_INBOUND if is_input else ACL_IN_USE_OUTBOUND)
        current.append(index)
    else:
        if index not in current:
            return reply(NO_SUCH_ENTRY)
        current.remove(index)
    if is_input:
        _set_lists(data, sw_if_index, current, lists.output)
    else:
        _set_lists(data, sw_if_index, lists.input, current)
    return reply(OK)


def acl_interface_set_acl_list(state: SimState, args: dict[str, Any]) -> Response:
    data = acl_state(state)
    sw_if_index = args.get("sw_if_index", NONE_INDEX)
    if sw_if_index not in state.interfaces:
        return reply(INVALID_SW_IF_INDEX)
    acls = list(args.get("acls", []))
    if any(index not in data.acls for index in acls):
        return reply(NO_SUCH_ENTRY)
    n_input = args.get("n_input", 0)
    _set_lists(data, sw_if_index, acls[:n_input], acls[n_input:])
    return reply(OK)


def acl_dump(state: SimState, args: dict[str, Any]) -> Response:
    data = acl_state(state)
    wanted = args.get("acl_index", NONE_INDEX)
    indexes = sorted(data.acls) if wanted == NONE_INDEX else [wanted] if wanted in data.acls else []
    rows = [{"acl_index": i, "tag": data.acls[i].tag, "count": len(data.acls[i].rules),
             "r": [dict(r) for r in data.acls[i].rules]} for i in indexes]
    return details(rows)


def acl_interface_list_dump(state: SimState, args: dict[str, Any]) -> Response:
    data = acl_state(state)
    wanted = args.get("sw_if_index", NONE_INDEX)
    if wanted == NONE_INDEX:
        indexes = sorted(state.interfaces)
    else:
        indexes = [wanted] if wanted in state.interfaces else []
    rows = []
    for sw_if_index in indexes:
        lists = data.lists.get(sw_if_index, Lists())
        acls = lists.input + lists.output
        rows.append({"sw_if_index": sw_if_index, "count": len(acls),
                     "n_input": len(lists.input), "acls": acls})
    return details(rows)


def _on_delete(state: SimState, sw_if_index: int) -> None:
    _set_lists(acl_state(state), sw_if_index, [], [])


def install(state: SimState) -> None:
    acl_state(state)
    state.on_delete.append(_on_delete)


HANDLERS: dict[str, Callable[[SimState, dict[str, Any]], Response]] = {
    "acl_plugin_get_version": acl_plugin_get_version,
    "acl_add_replace": acl_add_replace,
    "acl_del": acl_del,
    "acl_interface_add_del": acl_interface_add_del,
    "acl_interface_set_acl_list": acl_interface_set_acl_list,
    "acl_dump": acl_dump,
    "acl_interface_list_dump": acl_interface_list_dump,
}
