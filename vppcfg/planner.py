"""The planner: diff a desired and a live Dataplane into ordered Operations.

Both dataplanes are decomposed into nodes by the object descriptors
(vppcfg.objects). Then, generically:

1. diff: a key only in the config is created, only in VPP deleted (unless it
   is foreign or a "don't care" setting); a PHY the config does not name is
   wanted at its defaults (as a fresh VPP has it);
   a changed value is updated in place, or deleted + created when the
   descriptor says VPP cannot change it (the reason goes into the operation);
2. cascade: whatever depends on a deleted node in VPP is deleted first too
   (and created again when still wanted), e.g. an l2xc towards a sub-interface
   of a bond that is recreated;
3. order: one topological sort over edges derived from the declared
   dependencies: creates/updates after what they need, deletes before what
   they needed, a delete releasing a resource (an address, a host name, a port
   in L2 mode) before whatever claims it next. Among ready operations deletes
   go first, then updates, then creates, so the output reads naturally.

Cost is linear in the number of nodes (plus a heap for the ready set).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from vppcfg.gcpause import gc_paused
from vppcfg.model import (
    NIC_DEVICE_TYPES,
    Dataplane,
    FrozenDict,
    InterfaceKind,
    phy_at_defaults,
)
from vppcfg.objects import DESCRIPTORS, descriptor
from vppcfg.objects.base import Claim, Descriptor, Node, NodeContext, ikey
from vppcfg.ops import Operation

ACTION_RANK = {"delete": 0, "update": 1, "create": 2}


class PlanError(ValueError):
    """The change cannot be planned (e.g. a PHY the config names is absent)."""


def collect(dp: Dataplane) -> tuple[dict[str, Node], NodeContext]:
    ctx = NodeContext(dp)
    nodes: dict[str, Node] = {}
    for desc in DESCRIPTORS:
        for node in desc.nodes(dp, ctx):
            nodes[node.key] = node
    return nodes, ctx


class PlanState:
    """The operations being planned and their ordering edges (for descriptors'
    ``adjust`` hooks, which add edges or refine parameters).

    Operations are numbered in the order they are planned; edges and the
    ordering work on those numbers (tens of thousands of operations: tuple
    keys and per-edge lookups were most of the planning time)."""

    def __init__(self, desired: Dataplane, live: Dataplane) -> None:
        self.desired_nodes, self.desired_ctx = collect(desired)
        self.live_nodes, self.live_ctx = collect(live)
        self.planned: list[Operation] = []
        # action -> key -> number of its operation
        self.numbers: dict[str, dict[str, int]] = {action: {} for action in ACTION_RANK}
        self.after: list[list[int]] = []  # number -> the numbers that must follow it
        self.implicit: set[int] = set()  # deletes VPP does by itself

    def add(self, op: Operation) -> int:
        number = len(self.planned)
        self.planned.append(op)
        self.after.append([])
        self.numbers[op.action][op.key] = number
        return number

    def get(self, action: str, key: str) -> Operation | None:
        number = self.numbers[action].get(key)
        return None if number is None else self.planned[number]

    def edge(self, before: Operation, after: Operation) -> None:
        """``after`` follows ``before`` (an edge from an operation that is not
        planned orders nothing)."""
        b = self.numbers[before.action].get(before.key)
        if b is None:
            return
        a = self.numbers[after.action].get(after.key)
        if a is None:
            raise KeyError(f"edge to an operation not planned: {after}")
        if b != a:
            self.after[b].append(a)

    def replace(self, op: Operation, params: FrozenDict[str, Any]) -> None:
        number = self.numbers[op.action][op.key]
        self.planned[number] = Operation(op.obj, op.action, op.key, params, op.reason)


def _protected(live: Dataplane, dnodes: dict[str, Node], alone: set[str]) -> set[str]:
    """Owners the planner must not touch: foreign objects, and the top-level
    interfaces the config does not name that are not NICs or that carry a foreign
    object (their settings serve that object, which belongs to another tool)."""
    named = {node.owner for node in dnodes.values()}
    protected = {key for key in live.foreign if key not in named}
    protected.update(ikey(name) for name in alone)
    return protected


def _left_alone(desired: Dataplane, live: Dataplane) -> set[str]:
    """Live top-level interfaces the config does not name and vppcfg must not reset:
    those that are not NICs, and PHYs that carry something foreign."""
    held = _held_by_foreign(live)
    return {itf.name for itf in live.interfaces.values()
            if itf.kind is InterfaceKind.PHY and itf.name not in desired.interfaces
            and (itf.name in held or not _is_nic(itf.device_type))}


def _held_by_foreign(live: Dataplane) -> set[str]:
    """PHYs that carry something vppcfg did not create: members of a foreign bond or
    bridge domain, parents of a foreign sub-interface, ends of a cross-connect with a
    foreign interface. Resetting them would break what another tool made."""
    foreign = live.foreign
    held = {member for bond in live.bonds.values() if f"bonds/{bond.name}" in foreign
            for member in bond.members}
    held.update(member for bd in live.bridge_domains.values()
                if f"bridge_domains/{bd.name}" in foreign for member in bd.members)
    for itf in live.interfaces.values():
        if f"interfaces/{itf.name}" not in foreign:
            continue
        held.update(name for name in (itf.parent, itf.l2xc) if name)
    held.update(itf.name for itf in live.interfaces.values()
                if itf.l2xc and f"interfaces/{itf.l2xc}" in foreign)
    return held


def _is_nic(device_type: str | None) -> bool:
    """A NIC's device class; None is a model not read from VPP (built by hand), which
    names no other class."""
    return device_type is None or device_type in NIC_DEVICE_TYPES


def _with_phy_defaults(desired: Dataplane, live: Dataplane, alone: set[str]) -> Dataplane:
    """The config plus, for every live PHY it does not name, that PHY as a
    fresh VPP has it: what leaves the file leaves VPP, so the diff takes such a
    PHY back to its defaults (down, default MTU, no address, lcp or binding)
    step by step, ordered like any other change."""
    absent = [itf.name for itf in live.interfaces.values()
              if itf.kind is InterfaceKind.PHY and itf.name not in desired.interfaces
              and itf.name not in alone]
    if not absent:
        return desired
    interfaces = dict(desired.interfaces)
    for name in absent:
        interfaces[name] = phy_at_defaults(name)
    return replace(desired, interfaces=FrozenDict.adopt(interfaces))


def _check_desired(desired: Dataplane, live: Dataplane) -> None:
    """What the planner cannot create must exist; typed interfaces need their object."""
    devices = {InterfaceKind.BOND: desired.bonds, InterfaceKind.TAP: desired.taps,
               InterfaceKind.VXLAN: desired.vxlan_tunnels}
    for itf in desired.interfaces.values():
        if itf.kind is InterfaceKind.PHY and itf.name not in live.interfaces:
            raise PlanError(f"interfaces/{itf.name}: PHY not present in VPP")
        if itf.kind in devices and itf.name not in devices[itf.kind]:
            raise PlanError(f"interfaces/{itf.name}: no {itf.kind} defines this interface")


def _diff(state: PlanState, protected: set[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """Keys to delete (with reasons), to create, to update in place."""
    dn, ln = state.desired_nodes, state.live_nodes
    deleted: dict[str, str] = {}
    updated: list[str] = []
    for key, old in ln.items():
        if old.owner in protected:
            continue
        new = dn.get(key)
        if new is None:
            if descriptor(old.obj).delete_when_absent:
                deleted[key] = ""  # pruned: not in the config
        elif (new.value != old.value and not _same(old, new)) or new.obj != old.obj:
            reason = (f"type changed from {old.obj} to {new.obj}" if new.obj != old.obj
                      else descriptor(new.obj).recreate_reason(old, new))
            if reason:
                deleted[key] = reason
            else:
                updated.append(key)
    _keep_in_use(ln, deleted, protected)
    _cascade(ln, deleted, protected, dn)
    # Lists in config order: the order of ties in the output is deterministic.
    created = [key for key in dn if key not in ln or key in deleted]
    updated = [key for key in updated if key not in deleted]
    return deleted, created, updated


def _same(old: Node, new: Node) -> bool:
    """Equal but for fields the config leaves to VPP (desired None)."""
    optional = descriptor(new.obj).optional
    if not optional or old.value.keys() != new.value.keys():
        return False
    return all(v == old.value[k] or (k in optional and v is None) for k, v in new.value.items())


def _keep_in_use(ln: dict[str, Node], deleted: dict[str, str], protected: set[str]) -> None:
    """Keep pruned nodes VPP cannot delete while in use (ACLs) when a node the
    planner must not touch uses them: deleting would fail, and unbinding would
    change an object vppcfg leaves alone. Once unused they are pruned."""
    candidates = {key for key, reason in deleted.items()
                  if not reason and descriptor(ln[key].obj).kept_while_used}
    if not candidates:
        return
    for node in ln.values():
        if node.owner in protected:
            for dep in candidates.intersection(node.deps):
                deleted.pop(dep, None)


def _cascade(ln: dict[str, Node], deleted: dict[str, str], protected: set[str],
             desired: dict[str, Node]) -> None:
    """What needs a deleted node goes first (and comes back if still wanted)."""
    if not deleted:
        return
    rdeps: dict[str, list[str]] = {}
    for node in ln.values():
        for dep in node.deps:
            rdeps.setdefault(dep, []).append(node.key)
    queue = [(key, key) for key in deleted]
    while queue:
        key, root = queue.pop()
        for dependent in rdeps.get(key, ()):
            if dependent not in deleted and ln[dependent].owner not in protected:
                fate = "recreated" if root in desired else "removed"
                deleted[dependent] = f"released: {root} is {fate}"
                queue.append((dependent, root))


def _build_ops(state: PlanState, deleted: dict[str, str], created: list[str],
               updated: list[str]) -> None:
    dn, ln, add = state.desired_nodes, state.live_nodes, state.add
    # Node values are fresh dicts nobody changes once collected: adopted, not copied.
    adopt = FrozenDict.adopt
    for key, reason in deleted.items():
        old = ln[key]
        number = add(Operation(old.obj, "delete", key, adopt(old.value), reason))
        if old.holder and old.holder != key and old.holder in deleted:
            state.implicit.add(number)
    for key in created:
        new = dn[key]
        reason = f"recreated: {deleted[key]}" if key in deleted else ""
        add(Operation(new.obj, "create", key, adopt(new.value), reason))
    for key in updated:
        new, old = dn[key], ln[key]
        previous = FrozenDict({k: v for k, v in old.value.items() if new.value.get(k) != v})
        add(Operation(new.obj, "update", key, FrozenDict({**new.value, "previous": previous})))


def _dependency_edges(state: PlanState) -> None:
    """Creates/updates follow their deps' creates/updates; deletes precede
    their deps' deletes/updates and their own key's create (a recreate)."""
    after = state.after
    deletes, updates, creates = (state.numbers[a] for a in ("delete", "update", "create"))
    for key, number in deletes.items():
        follow = after[number]
        for dep in state.live_nodes[key].deps:
            if dep in deletes:
                follow.append(deletes[dep])
            if dep in updates:
                follow.append(updates[dep])
        if key in creates:
            follow.append(creates[key])
    dn = state.desired_nodes
    for made in (creates, updates):
        for key, number in made.items():
            for dep in dn[key].deps:
                if dep in creates:
                    after[creates[dep]].append(number)
                if dep in updates:
                    after[updates[dep]].append(number)


def _claim_edges(state: PlanState) -> None:
    """A resource released by a delete is claimed afterwards."""
    released: dict[str, list[tuple[Claim, int]]] = {}
    deletes = state.numbers["delete"]
    for key, number in deletes.items():
        node = state.live_nodes[key]
        # An implicit delete happens when its holder goes.
        source = deletes[node.holder] if number in state.implicit else number
        for claim in descriptor(node.obj).claims(node):
            released.setdefault(claim.resource, []).append((claim, source))
    if not released:
        return
    for made in (state.numbers["create"], state.numbers["update"]):
        for key, number in made.items():
            node = state.desired_nodes[key]
            for claim in descriptor(node.obj).claims(node):
                for old_claim, source in released.get(claim.resource, ()):
                    if claim.conflicts(old_claim) and state.planned[source].key != key:
                        state.after[source].append(number)


def _order(state: PlanState) -> list[int]:
    """The operations' numbers in execution order."""
    planned, after = state.planned, state.after
    n = len(planned)
    width = len(DESCRIPTORS)
    # Ties: deletes, then updates, then creates; by object type (deletes in the
    # reverse of the registry: undone as made); by config order, folded into one
    # int per operation (the heap then compares ints, not tuples).
    rank = {(action, desc.obj): (ACTION_RANK[action] * width
                                 + (width - 1 - i if action == "delete" else i)) * n
            for action in ACTION_RANK for i, desc in enumerate(DESCRIPTORS)}
    key = [rank[op.action, op.obj] + i for i, op in enumerate(planned)]
    indegree = [0] * n
    for follow in after:
        for t in follow:
            indegree[t] += 1
    ready = [key[i] for i in range(n) if not indegree[i]]
    heapq.heapify(ready)
    order: list[int] = []
    push, pop, add = heapq.heappush, heapq.heappop, order.append
    while ready:
        i = pop(ready) % n
        add(i)
        for t in after[i]:
            indegree[t] -= 1
            if not indegree[t]:
                push(ready, key[t])
    if len(order) != n:
        stuck = sorted(f"{planned[i].action} {planned[i].key}" for i in range(n) if indegree[i])
        raise PlanError(f"circular dependencies between: {', '.join(stuck[:10])}")
    return order


def _emitted(state: PlanState, order: list[int]) -> list[int]:
    """The ordered operations minus virtual, implicit and no-op ones."""
    hidden = _hidden_types()
    # only descriptors that override noop() are asked (most never skip anything)
    noops = {d.obj: d for d in DESCRIPTORS if type(d).noop is not Descriptor.noop}
    implicit, planned = state.implicit, state.planned
    out: list[int] = []
    for number in order:
        op = planned[number]
        if op.obj in hidden or number in implicit:
            continue
        desc = noops.get(op.obj)
        if desc is None or not desc.noop(op):
            out.append(number)
    return out


def _hidden_types() -> frozenset[str]:
    return frozenset(desc.obj for desc in DESCRIPTORS if desc.virtual)


def plan(desired: Dataplane, live: Dataplane) -> list[Operation]:
    """The ordered operations that turn ``live`` into ``desired`` (empty if equal)."""
    with gc_paused():
        return _plan(desired, live)


def plan_graph(desired: Dataplane, live: Dataplane) -> tuple[list[Operation],
                                                              list[tuple[int, ...]]]:
    """The plan, and for each operation the positions of the earlier ones it must
    follow (the ordering edges, bridged over operations that are not emitted):
    what a pipelined executor may not reorder."""
    graph: list[tuple[int, ...]] = []
    with gc_paused():
        ops = _plan(desired, live, graph)
    return ops, graph


def _plan(desired: Dataplane, live: Dataplane,
          graph: list[tuple[int, ...]] | None = None) -> list[Operation]:
    _check_desired(desired, live)
    alone = _left_alone(desired, live)  # once: both need the same set
    desired = _with_phy_defaults(desired, live, alone)
    state = PlanState(desired, live)
    protected = _protected(live, state.desired_nodes, alone)
    deleted, created, updated = _diff(state, protected)
    if not (deleted or created or updated):
        return []
    _build_ops(state, deleted, created, updated)
    _dependency_edges(state)
    _claim_edges(state)
    for desc in DESCRIPTORS:
        desc.adjust(state)
    emitted = _emitted(state, _order(state))
    if graph is not None:
        graph.extend(_predecessors(state, emitted))
    return [state.planned[number] for number in emitted]


def _predecessors(state: PlanState, emitted: list[int]) -> list[tuple[int, ...]]:
    """Per emitted operation, the emitted ones it follows, directly or through
    operations left out of the output (virtual, implicit, no-op)."""
    position = [-1] * len(state.planned)
    for at, number in enumerate(emitted):
        position[number] = at
    sources: list[list[int]] = [[] for _ in state.planned]
    for before, follow in enumerate(state.after):
        for after in follow:
            sources[after].append(before)
    hidden: dict[int, set[int]] = {}

    def found_before(number: int) -> set[int]:
        found: set[int] = set()
        for source in sources[number]:
            at = position[source]
            if at >= 0:
                found.add(at)
            else:
                if source not in hidden:
                    hidden[source] = set()  # a cycle is impossible: _order checked
                    hidden[source] = found_before(source)
                found |= hidden[source]
        return found

    return [tuple(sorted(found_before(number))) for number in emitted]


def summary(ops: Iterable[Operation]) -> dict[str, int]:
    counts = {"create": 0, "update": 0, "delete": 0}
    for op in ops:
        counts[op.action] += 1
    return counts
