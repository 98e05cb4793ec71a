"""The planner: diff a desired and a live Dataplane into ordered Operations.

Both dataplanes are decomposed into nodes by the object descriptors
(vppcfg.objects). Then, generically:

1. diff: a key only in the config is created, only in VPP deleted (unless it
   is foreign, on a PHY the config does not name, or a "don't care" setting);
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
from typing import Any

from vppcfg.gcpause import gc_paused
from vppcfg.model import Dataplane, FrozenDict, InterfaceKind
from vppcfg.objects import DESCRIPTORS, descriptor
from vppcfg.objects.base import Claim, Descriptor, Node, NodeContext, ikey
from vppcfg.ops import Operation

ACTION_RANK = {"delete": 0, "update": 1, "create": 2}
OpId = tuple[str, str]  # (action, key)


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
    ``adjust`` hooks, which add edges or refine parameters)."""

    def __init__(self, desired: Dataplane, live: Dataplane) -> None:
        self.desired_nodes, self.desired_ctx = collect(desired)
        self.live_nodes, self.live_ctx = collect(live)
        self.ops: dict[OpId, Operation] = {}
        self.implicit: set[OpId] = set()  # deletes VPP does by itself
        self.edges: dict[OpId, list[OpId]] = {}

    def edge(self, before: Operation | OpId, after: Operation | OpId) -> None:
        b = before if isinstance(before, tuple) else (before.action, before.key)
        a = after if isinstance(after, tuple) else (after.action, after.key)
        if b != a:
            self.edges.setdefault(b, []).append(a)

    def replace(self, op: Operation, params: FrozenDict[str, Any]) -> None:
        self.ops[(op.action, op.key)] = Operation(op.obj, op.action, op.key, params, op.reason)


def _protected(desired: Dataplane, live: Dataplane, dnodes: dict[str, Node]) -> set[str]:
    """Owners the planner must not touch: foreign objects and PHYs the config
    does not name."""
    named = {node.owner for node in dnodes.values()}
    protected = {key for key in live.foreign if key not in named}
    for itf in live.interfaces.values():
        if itf.kind is InterfaceKind.PHY and itf.name not in desired.interfaces:
            protected.add(ikey(itf.name))
    return protected


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
    dn, ln = state.desired_nodes, state.live_nodes
    for key, reason in deleted.items():
        old = ln[key]
        state.ops[("delete", key)] = Operation(old.obj, "delete", key, FrozenDict(old.value),
                                               reason)
        if old.holder and old.holder != key and old.holder in deleted:
            state.implicit.add(("delete", key))
    for key in created:
        new = dn[key]
        reason = f"recreated: {deleted[key]}" if key in deleted else ""
        state.ops[("create", key)] = Operation(new.obj, "create", key, FrozenDict(new.value),
                                               reason)
    for key in updated:
        new, old = dn[key], ln[key]
        previous = FrozenDict({k: v for k, v in old.value.items() if new.value.get(k) != v})
        params = FrozenDict({**new.value, "previous": previous})
        state.ops[("update", key)] = Operation(new.obj, "update", key, params)


def _dependency_edges(state: PlanState) -> None:
    dn, ln, ops, edges = state.desired_nodes, state.live_nodes, state.ops, state.edges
    made: dict[str, list[OpId]] = {}  # key -> its create, then its update
    for op_id in ops:
        if op_id[0] != "delete":
            made.setdefault(op_id[1], []).append(op_id)
    for op_id in ops:
        action, key = op_id
        if action == "delete":
            after = [(other, dep) for dep in ln[key].deps for other in ("delete", "update")]
            after.append(("create", key))
            found = [a for a in after if a in ops]
            if found:
                edges.setdefault(op_id, []).extend(found)
            continue
        for dep in dn[key].deps:
            for before in made.get(dep, ()):
                edges.setdefault(before, []).append(op_id)


def _claim_edges(state: PlanState) -> None:
    """A resource released by a delete is claimed afterwards."""
    released: dict[str, list[tuple[Claim, OpId]]] = {}
    for (action, key) in state.ops:
        if action != "delete":
            continue
        node = state.live_nodes[key]
        # An implicit delete happens when its holder goes.
        source = ("delete", node.holder) if ("delete", key) in state.implicit else (action, key)
        for claim in descriptor(node.obj).claims(node):
            released.setdefault(claim.resource, []).append((claim, source))
    if not released:
        return
    for (action, key), op in state.ops.items():
        if action == "delete":
            continue
        node = state.desired_nodes[key]
        for claim in descriptor(node.obj).claims(node):
            for old_claim, source in released.get(claim.resource, ()):
                if claim.conflicts(old_claim) and source[1] != key:
                    state.edge(source, op)


def _order(state: PlanState) -> list[Operation]:
    ops = state.ops
    ids = list(ops)
    n = len(ids)
    position = {op_id: i for i, op_id in enumerate(ids)}
    rank = {desc.obj: i for i, desc in enumerate(DESCRIPTORS)}
    width = len(DESCRIPTORS)
    # Ties: deletes, then updates, then creates; by object type; by config order,
    # folded into one int per operation (the heap then compares ints, not tuples).
    key = [(ACTION_RANK[op_id[0]] * width + rank[op.obj]) * n + i
           for i, (op_id, op) in enumerate(ops.items())]
    targets: list[list[int] | tuple[()]] = [()] * n
    indegree = [0] * n
    for before, afters in state.edges.items():
        at = position.get(before)
        if at is None:  # an edge from an operation not planned orders nothing
            continue
        after = [position[t] for t in afters]
        targets[at] = after
        for t in after:
            indegree[t] += 1
    ready = [key[i] for i in range(n) if not indegree[i]]
    heapq.heapify(ready)
    order: list[int] = []
    push, pop, add = heapq.heappush, heapq.heappop, order.append
    while ready:
        i = pop(ready) % n
        add(i)
        for t in targets[i]:
            indegree[t] -= 1
            if not indegree[t]:
                push(ready, key[t])
    if len(order) != n:
        stuck = sorted(f"{a} {k}" for (a, k), d in zip(ids, indegree, strict=True) if d > 0)
        raise PlanError(f"circular dependencies between: {', '.join(stuck[:10])}")
    return _emitted(state, [ops[ids[i]] for i in order])


def _emitted(state: PlanState, ordered: list[Operation]) -> list[Operation]:
    """The ordered operations minus virtual, implicit and no-op ones."""
    hidden = _hidden_types()
    # only descriptors that override noop() are asked (most never skip anything)
    noops = {d.obj: d for d in DESCRIPTORS if type(d).noop is not Descriptor.noop}
    implicit = state.implicit
    out: list[Operation] = []
    for op in ordered:
        if op.obj in hidden or (implicit and (op.action, op.key) in implicit):
            continue
        desc = noops.get(op.obj)
        if desc is None or not desc.noop(op):
            out.append(op)
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
    state = PlanState(desired, live)
    protected = _protected(desired, live, state.desired_nodes)
    deleted, created, updated = _diff(state, protected)
    if not (deleted or created or updated):
        return []
    _build_ops(state, deleted, created, updated)
    _dependency_edges(state)
    _claim_edges(state)
    for desc in DESCRIPTORS:
        desc.adjust(state)
    ordered = _order(state)
    if graph is not None:
        graph.extend(_predecessors(state, ordered))
    return ordered


def _predecessors(state: PlanState, ordered: list[Operation]) -> list[tuple[int, ...]]:
    """Per emitted operation, the emitted ones it follows, directly or through
    operations left out of the output (virtual, implicit, no-op)."""
    position = {(op.action, op.key): i for i, op in enumerate(ordered)}
    sources: dict[OpId, list[OpId]] = {}
    for before, afters in state.edges.items():
        for after in afters:
            sources.setdefault(after, []).append(before)
    hidden: dict[OpId, set[int]] = {}

    def emitted(op_id: OpId) -> set[int]:
        found: set[int] = set()
        for source in sources.get(op_id, ()):
            at = position.get(source)
            if at is not None:
                found.add(at)
            elif source in hidden:
                found |= hidden[source]
            else:
                hidden[source] = set()  # a cycle is impossible: _order checked
                hidden[source] = emitted(source)
                found |= hidden[source]
        return found

    return [tuple(sorted(emitted((op.action, op.key)))) for op in ordered]


def summary(ops: Iterable[Operation]) -> dict[str, int]:
    counts = {"create": 0, "update": 0, "delete": 0}
    for op in ops:
        counts[op.action] += 1
    return counts
