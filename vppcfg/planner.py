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

Cost is linear in the number of nodes (plus a heap for the ready set, when
the plain order of ties does not already follow every edge). A large config
has hundreds of thousands of nodes, so the desired side is kept in columns
and Operations are made only as they are handed out (see PlanState).
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import chain, compress, count, repeat
from operator import ge, is_not, not_
from typing import Any

from vppcfg.gcpause import gc_paused
from vppcfg.model import (
    NIC_DEVICE_TYPES,
    Dataplane,
    FrozenDict,
    InterfaceKind,
    LinuxSide,
    phy_at_defaults,
)
from vppcfg.objects import DESCRIPTORS, descriptor
from vppcfg.objects.base import Claim, Columns, Descriptor, Listed, Node, NodeContext, ikey
from vppcfg.ops import CreateRun, Operation

ACTION_RANK = {"delete": 0, "update": 1, "create": 2}
# What is planned for a desired node (PlanState.act): its position is the
# operation's number. Deletes (live nodes) are numbered after all positions.
NOTHING, CREATE, UPDATE = 0, 1, 2
_ACT = {"create": CREATE, "update": UPDATE}
_CREATES_ONLY = bytes([0, 1, 0]) + bytes(253)  # act -> 1 for CREATE, else 0
_new_op = tuple.__new__  # Operation's own __new__ in C: made once per operation


class PlanError(ValueError):
    """The change cannot be planned (e.g. a PHY the config names is absent)."""


def collect(dp: Dataplane, linux: LinuxSide | None = None
            ) -> tuple[dict[str, Node], NodeContext]:
    ctx = NodeContext(dp, linux)
    nodes: dict[str, Node] = {}
    for desc in DESCRIPTORS:
        for node in desc.nodes(dp, ctx):
            nodes[node.key] = node
    return nodes, ctx


class Desired:
    """The desired dataplane's nodes in columns, by position (the order the
    descriptors list them; a key listed again keeps its first position, as a
    dict does), and their dependencies as edges between positions. A node
    object and a value per node of a large config were most of planning's
    memory: a node is kept as its key, type and source (Descriptor.listing;
    its value is made when it is diffed or its operation made), and its deps
    are resolved as it is listed (most name a node listed before it)."""

    def __init__(self, dp: Dataplane, watched: frozenset[str],
                 linux: LinuxSide | None = None) -> None:
        self.ctx = NodeContext(dp, linux)
        self.index: dict[str, int] = {}  # key -> position
        self.objs: list[str] = []
        self.sources: list[Any] = []  # see Descriptor.listing; None once handed out
        # edge i: position before[i] is needed by position after[i], listed earlier
        self.before = array("i")
        self.after = array("i")
        self.later: list[tuple[str, int]] = []  # (dep, position): a dep not listed yet
        self.owners: dict[int, str] = {}  # owners among `watched` (live foreign keys)
        self.again: dict[int, tuple[str, ...]] = {}  # a key listed again: its last deps
        # the descriptor whose value() makes a position's value, where it is
        # not the one of the position's type
        self.makers: dict[int, Descriptor] = {}
        # positions in registry order with each descriptor's own type: creates
        # in position order are then in the order of their ties
        self.in_registry_order = True
        # whether an edge listed with its node comes from the node itself or a
        # later position (a dep later in its own column): see _order_of_ties
        self.backward = False
        self.spans: list[tuple[Descriptor, int, int]] = []  # the positions each listed first
        self._collect(dp, watched)

    def _collect(self, dp: Dataplane, watched: frozenset[str]) -> None:
        for desc in DESCRIPTORS:
            start = len(self.objs)
            columns = desc.columns(dp, self.ctx)
            if columns is None or not self._add_columns(desc, columns, watched):
                rows = desc.listing(dp, self.ctx) if columns is None else columns.rows(desc.obj)
                self._add_rows(desc, rows, start, watched)
            self.spans.append((desc, start, len(self.objs)))

    def _add_columns(self, desc: Descriptor, columns: Columns, watched: frozenset[str]) -> bool:
        """A descriptor's nodes a column at a time, with the work done in C (a
        loop in Python per node was most of listing a large config). False,
        with nothing added, when a key was listed before: _add_rows takes them."""
        keys, index = columns.keys, self.index
        start = len(self.objs)
        end = start + len(keys)
        at = range(start, end)
        if list(map(index.setdefault, keys, count(start))) != list(at):
            for key, position in zip(keys, count(start)):  # undo: listed again
                if index.get(key) == position:
                    del index[key]
            return False
        self.objs += repeat(desc.obj, len(keys))
        self.sources += columns.sources
        for needed in columns.deps:
            found = list(map(index.get, needed))
            if None not in found:  # each dep listed (most columns: the owner)
                self._add_edges(found, at, start)
                continue
            listed = list(map(is_not, found, repeat(None)))
            self._add_edges(list(compress(found, listed)), list(compress(at, listed)), start)
            if found.count(None) != needed.count(None):  # a dep not listed yet
                missing = compress(zip(needed, at, strict=True), map(not_, listed))
                self.later += ((dep, i) for dep, i in missing if dep is not None)
        if watched:
            self.owners.update((i, owner) for i, owner in zip(at, columns.owners, strict=True)
                               if owner in watched)
        return True

    def _add_edges(self, before: list[int], after: Sequence[int], start: int) -> None:
        """Edges listed with a column's nodes (`after`, from position `start`)."""
        self.before.extend(before)
        self.after.extend(after)
        # most deps were listed before the column: the edges go forward
        if before and max(before) >= start and any(map(ge, before, after)):
            self.backward = True

    def _add_rows(self, desc: Descriptor, rows: Iterable[Listed], n: int,
                  watched: frozenset[str]) -> None:
        """A descriptor's nodes one by one (n: the first one's position); a
        key listed again keeps its first position."""
        index, objs, sources, owners = self.index, self.objs, self.sources, self.owners
        setdefault, get = index.setdefault, index.get
        later, add_before, add_after = self.later.append, self.before.append, self.after.append
        for key, obj, deps, owner, _, source in rows:
            at = setdefault(key, n)
            if at != n:
                self._listed_again(at, desc, obj, deps, owner, source, watched)
                continue
            objs.append(obj)
            sources.append(source)
            for dep in deps:
                found = get(dep)
                if found is None:
                    later((dep, n))
                else:
                    add_before(found)
                    add_after(n)
                    if found >= n:
                        self.backward = True
            if obj != desc.obj:
                self.in_registry_order = False
                self.makers[n] = desc
            if watched and owner in watched:
                owners[n] = owner
            n += 1

    def _listed_again(self, at: int, desc: Descriptor, obj: str, deps: tuple[str, ...],
                      owner: str, source: Any, watched: frozenset[str]) -> None:
        """A key listed before: this node replaces that one at its position."""
        self.objs[at], self.sources[at] = obj, source
        self.again[at] = deps
        self.makers[at] = desc
        self.in_registry_order = False
        if watched and owner in watched:
            self.owners[at] = owner
        else:
            self.owners.pop(at, None)

    def value(self, at: int) -> dict[str, Any]:
        """The value of the node at a position (made now: a fresh dict)."""
        maker = self.makers.get(at) or descriptor(self.objs[at])
        return maker.value(self.sources[at])

    def named(self) -> set[str]:
        """The owners among the watched keys that the config names."""
        return set(self.owners.values())

    def resolve_later(self) -> list[tuple[int, int]]:
        """The edges of deps not listed before their node (and of nodes listed
        again, whose first node's edges are dropped): (before, after)."""
        again = self.again
        if again:
            kept = [(b, a) for b, a in zip(self.before, self.after, strict=True)
                    if a not in again]
            self.before = array("i", (b for b, _ in kept))
            self.after = array("i", (a for _, a in kept))
            self.later = [(dep, at) for dep, at in self.later if at not in again]
            self.later += [(dep, at) for at, deps in again.items() for dep in deps]
        get = self.index.get
        found = [(get(dep), at) for dep, at in self.later]
        self.later = []
        return [(b, a) for b, a in found if b is not None]


class PlanState:
    """The operations being planned and their ordering edges (for descriptors'
    ``adjust`` hooks, which add edges or refine parameters: objects.base.PlanView).

    An operation's number is its desired node's position for a create or an
    update (a node has at most one), and the number of positions plus its
    place among the deletes for a delete. Per operation the state keeps only
    what it is (``act``) and, when refined, its parameters (``params``); the
    Operation itself is made when asked for, and the edges are two arrays of
    numbers: at hundreds of thousands of operations, objects per operation
    and per edge were most of the planning time and memory."""

    def __init__(self, desired: Dataplane, live: Dataplane) -> None:
        self.live_nodes, self.live_ctx = collect(live, live.linux)
        self.desired = Desired(desired, live.foreign, live.linux)
        self.desired_ctx = self.desired.ctx
        self.size = len(self.desired.objs)  # numbers below it are desired positions
        self.act = bytearray(self.size)  # per position: NOTHING, CREATE or UPDATE
        self.updated: list[int] = []  # positions updated, in live order (their ties)
        self.deleted: dict[str, str] = {}  # live key -> reason, in plan order
        self.delete_keys: list[str] = []
        self.delete_numbers: dict[str, int] = {}
        self.params: dict[int, FrozenDict[str, Any]] = {}  # refined or update parameters
        self.implicit: set[int] = set()  # deletes VPP does by itself
        # edge i: operation before[i] precedes after[i] (when both are planned);
        # the desired side's, listed before what needs them, come first
        self.before, self.after = self.desired.before, self.desired.after
        self.listed_edges = len(self.before)
        self._keys: list[str | None] | None = None  # a key is None once handed out

    @property
    def keys(self) -> list[str | None]:
        """The desired keys by position (the index keeps them in that order)."""
        if self._keys is None:
            self._keys = list(self.desired.index)
        return self._keys

    def number(self, action: str, key: str) -> int | None:
        """The number of the planned operation, or None."""
        if action == "delete":
            return self.delete_numbers.get(key)
        at = self.desired.index.get(key)
        if at is None or self.act[at] != _ACT[action]:
            return None
        return at

    def operation(self, number: int, key: str | None = None) -> Operation:
        """The planned operation ``number`` (``key``: its key, when known)."""
        params = self.params.get(number)
        if number >= self.size:
            key = self.delete_keys[number - self.size]
            old = self.live_nodes[key]
            if params is None:
                params = FrozenDict.adopt(old.value)
            return _new_op(Operation, (old.obj, "delete", key, params, self.deleted[key]))
        if key is None:
            key = self.keys[number]
            assert key is not None, f"operation {number} was handed out"
        obj = self.desired.objs[number]
        if self.act[number] == UPDATE:
            return _new_op(Operation, (obj, "update", key, params, ""))
        if params is None:
            params = FrozenDict.adopt(self.desired.value(number))
        reason = self.deleted.get(key)
        reason = "" if reason is None else f"recreated: {reason}"
        return _new_op(Operation, (obj, "create", key, params, reason))

    # -- objects.base.PlanView --

    def get(self, action: str, key: str) -> Operation | None:
        number = self.number(action, key)
        return None if number is None else self.operation(number, key)

    def operations(self, action: str, obj: str) -> list[Operation]:
        if action == "update":
            numbers: Iterable[int] = self.updated
        elif action == "delete":
            numbers = self.delete_numbers.values()
        else:
            numbers = compress(range(self.size), self.act.translate(_CREATES_ONLY))
        ops = (self.operation(number) for number in numbers)
        return [op for op in ops if op.obj == obj]

    def edge(self, before: Operation, after: Operation) -> None:
        """``after`` follows ``before`` (an edge from an operation that is not
        planned orders nothing)."""
        b = self.number(before.action, before.key)
        if b is None:
            return
        a = self.number(after.action, after.key)
        if a is None:
            raise KeyError(f"edge to an operation not planned: {after}")
        if b != a:
            self.before.append(b)
            self.after.append(a)

    def replace(self, op: Operation, params: FrozenDict[str, Any]) -> None:
        number = self.number(op.action, op.key)
        if number is None:
            raise KeyError(f"replacing an operation not planned: {op}")
        self.params[number] = params

    # -- what the ordering needs --

    def obj_of(self, number: int) -> str:
        if number >= self.size:
            return self.live_nodes[self.delete_keys[number - self.size]].obj
        return self.desired.objs[number]

    def action_of(self, number: int) -> str:
        if number >= self.size:
            return "delete"
        return "update" if self.act[number] == UPDATE else "create"

    def shed(self, edges: bool = True) -> None:
        """Let go of what only planning needed (the key index and its
        positions, the dataplane indexes, with `edges` the edges): handing
        the operations out needs the columns only, and a large plan's text
        takes their place in memory."""
        if self._keys is None:  # made from the index before it goes
            self._keys = list(self.desired.index)
        self.desired.index = {}
        self.desired.ctx.keyed, self.desired.ctx.keys, self.desired.ctx.interfaces = [], [], []
        self.desired.ctx.children = {}
        if edges:
            self.before = self.after = self.desired.before = self.desired.after = array("i")

    def planned(self, number: int) -> bool:
        return number >= self.size or self.act[number] != NOTHING

    def edges(self) -> Iterator[tuple[int, int]]:
        """The edges between planned operations."""
        planned = self.planned
        for b, a in zip(self.before, self.after, strict=True):
            if planned(b) and planned(a):
                yield b, a


def _protected(live: Dataplane, named: set[str], alone: set[str]) -> set[str]:
    """Owners the planner must not touch: foreign objects, and the top-level
    interfaces the config does not name that are not NICs or that carry a foreign
    object (their settings serve that object, which belongs to another tool).
    `named`: the foreign owners the config names."""
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


def _diff(state: PlanState, protected: set[str]) -> None:
    """What to delete (with reasons), create and update in place: into the state."""
    d, ln, deleted = state.desired, state.live_nodes, state.deleted
    index, objs, value_at = d.index, d.objs, d.value
    updated: dict[str, dict[str, Any]] = {}  # key -> its new value
    for key, old in ln.items():
        if old.owner in protected:
            continue
        at = index.get(key)
        if at is None:
            if descriptor(old.obj).delete_when_absent:
                deleted[key] = ""  # pruned: not in the config
            continue
        obj, value = objs[at], value_at(at)
        if obj == old.obj and (value == old.value or _same(old, obj, value)):
            continue
        # the node as the planner keeps it: its deps are edges by now
        reason = (f"type changed from {old.obj} to {obj}" if obj != old.obj
                  else descriptor(obj).recreate_reason(old, Node(key, obj, value)))
        if reason:
            deleted[key] = reason
        else:
            updated[key] = value
    _keep_in_use(ln, deleted, protected)
    _cascade(ln, deleted, protected, index)
    _mark(state, updated)


def _mark(state: PlanState, updated: dict[str, dict[str, Any]]) -> None:
    """Number the operations: creates are every desired node but those live and
    kept (config order), updates in live order, deletes after them all. An
    update's parameters are its new value until _build_ops adds the old."""
    index, act, deleted = state.desired.index, state.act, state.deleted
    act[:] = bytes([CREATE]) * state.size
    for key in state.live_nodes:
        at = index.get(key)
        if at is not None and key not in deleted:
            act[at] = NOTHING
    for key, value in updated.items():
        if key not in deleted:
            at = index[key]
            act[at] = UPDATE
            state.updated.append(at)
            state.params[at] = FrozenDict.adopt(value)
    state.delete_keys = list(deleted)
    state.delete_numbers = {key: state.size + i for i, key in enumerate(state.delete_keys)}


def _same(old: Node, obj: str, value: dict[str, Any]) -> bool:
    """Equal but for fields the config leaves to VPP (desired None)."""
    optional = descriptor(obj).optional
    if not optional or old.value.keys() != value.keys():
        return False
    return all(v == old.value[k] or (k in optional and v is None) for k, v in value.items())


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
             desired: dict[str, int]) -> None:
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


def _build_ops(state: PlanState) -> None:
    """Update parameters (the new value and what it replaces) and implicit deletes."""
    ln, keys = state.live_nodes, state.keys
    for at in state.updated:
        new, old = state.params[at], ln[keys[at]].value  # type: ignore[index]
        previous = FrozenDict({k: v for k, v in old.items() if new.get(k) != v})
        state.params[at] = FrozenDict({**new, "previous": previous})
    deleted = state.deleted
    for key, number in state.delete_numbers.items():
        holder = ln[key].holder
        if holder and holder != key and holder in deleted:
            state.implicit.add(number)


def _dependency_edges(state: PlanState) -> None:
    """Creates/updates follow their deps' creates/updates (the desired side's
    edges, most made as its nodes were listed); deletes precede their deps'
    deletes/updates and their own key's create (a recreate)."""
    later = state.desired.resolve_later()  # (may drop listed edges: a key listed again)
    before, after = state.before, state.after = state.desired.before, state.desired.after
    state.listed_edges = len(before)
    for b, a in later:
        before.append(b)
        after.append(a)
    index, act = state.desired.index, state.act
    deletes = state.delete_numbers
    for key, number in deletes.items():
        for dep in state.live_nodes[key].deps:
            if dep in deletes:
                before.append(number)
                after.append(deletes[dep])
            at = index.get(dep)
            if at is not None and act[at] == UPDATE:
                before.append(number)
                after.append(at)
        at = index.get(key)
        if at is not None and act[at] == CREATE:
            before.append(number)
            after.append(at)


def _claim_edges(state: PlanState) -> None:
    """A resource released by a delete is claimed afterwards."""
    released: dict[str, list[tuple[Claim, int]]] = {}
    deletes = state.delete_numbers
    for key, number in deletes.items():
        node = state.live_nodes[key]
        # An implicit delete happens when its holder goes.
        source = deletes[node.holder] if number in state.implicit else number
        for claim in descriptor(node.obj).claims(node):
            released.setdefault(claim.resource, []).append((claim, source))
    if not released:
        return
    d, keys = state.desired, state.keys
    creates = compress(range(state.size), state.act.translate(_CREATES_ONLY))
    for at in (*creates, *state.updated):
        key = keys[at]
        node = Node(key, d.objs[at], d.value(at))
        for claim in descriptor(node.obj).claims(node):
            for old_claim, source in released.get(claim.resource, ()):
                if claim.conflicts(old_claim) and state.delete_keys[source - state.size] != key:
                    state.before.append(source)
                    state.after.append(at)


def _ranks(n: int) -> dict[tuple[str, str], int]:
    """The order of ties by (action, object type): deletes, then updates, then
    creates; by object type (deletes in the reverse of the registry: undone
    as made)."""
    width = len(DESCRIPTORS)
    return {(action, desc.obj): (ACTION_RANK[action] * width
                                 + (width - 1 - i if action == "delete" else i)) * n
            for action in ACTION_RANK for i, desc in enumerate(DESCRIPTORS)}


def _order(state: PlanState) -> Iterable[int]:
    """The operations' numbers in execution order: the ready operation with the
    smallest tie-break key first (Kahn's sort with a heap). When the order of
    the keys alone already puts every operation after all it follows (a plan
    of mostly creates, in config order), it is that order, found without one."""
    return _order_of_ties(state) or _heap_order(state)


def _order_of_ties(state: PlanState) -> TiesOrder | None:
    """The planned operations by tie-break key, if every edge goes forward in
    that order, else None. Deletes and updates are sorted (by rank, then as
    listed); creates in position order are already, with positions in registry
    order, and an edge listed with its node goes forward between two creates
    when it comes from an earlier position (nearly always: a dep listed before
    its node; in its own column a dep can be later, or the node itself: the
    listing notes any such edge, Desired.backward). So only the other edges
    are looked at: few, unless many deletes or updates are planned."""
    d = state.desired
    if not d.in_registry_order:
        return None
    if d.backward:
        return None  # not forward (or a node that needs itself): the heap sorts them
    rank = _ranks(1)
    obj_of = state.obj_of
    deletes = sorted(state.delete_numbers.values(), key=lambda n: rank["delete", obj_of(n)])
    updates = sorted(state.updated, key=lambda n: rank["update", obj_of(n)])
    place = {number: i for i, number in enumerate((*deletes, *updates))}
    first = len(place)  # where creates start

    def where(number: int) -> int:
        found = place.get(number)
        return first + number if found is None else found

    act, listed = state.act, state.listed_edges
    if updates:  # the listed edges into updates (found without a loop over all edges)
        into = bytes(map(act.__getitem__, d.after[:listed]))
        i = into.find(UPDATE)
        while i >= 0:
            source = d.before[i]
            if act[source] and where(source) >= where(d.after[i]):
                return None
            i = into.find(UPDATE, i + 1)
    planned = state.planned
    for b, a in zip(state.before[state.listed_edges:], state.after[state.listed_edges:],
                    strict=True):
        if planned(b) and planned(a) and where(b) >= where(a):
            return None
    return TiesOrder([*deletes, *updates], act.translate(_CREATES_ONLY))


class TiesOrder:
    """The order of ties when it is the order (see _order_of_ties): `first`
    (the deletes, then the updates), then the creates in position order,
    which _emit takes descriptor by descriptor."""

    def __init__(self, first: list[int], creates: bytes) -> None:
        self.first = first
        self.creates = creates  # per position: 1 for a create

    def __iter__(self) -> Iterator[int]:
        return chain(self.first, compress(range(len(self.creates)), self.creates))


def _tie_keys(state: PlanState) -> tuple[list[int], list[int]]:
    """The planned operations' numbers and each one's tie-break key (an int:
    its rank, then its place among the deletes, the updates or the config
    order)."""
    scale = state.size + len(state.delete_keys) + 1
    rank = _ranks(scale)
    obj_of = state.obj_of
    deletes = list(state.delete_numbers.values())
    numbers = [*deletes, *state.updated]
    keys = [rank["delete", obj_of(n)] + i for i, n in enumerate(deletes)]
    keys += [rank["update", obj_of(n)] + i for i, n in enumerate(state.updated)]
    creates = list(compress(range(state.size), state.act.translate(_CREATES_ONLY)))
    numbers += creates
    keys += [rank["create", obj_of(at)] + at for at in creates]
    return numbers, keys


def _heap_order(state: PlanState) -> list[int]:
    """Kahn's sort with the ready set in a heap by tie-break key."""
    numbers, keys = _tie_keys(state)
    total = state.size + len(state.delete_keys)
    follow: list[list[int]] = [[] for _ in range(total)]
    indegree = [0] * total
    for b, a in state.edges():
        follow[b].append(a)
        indegree[a] += 1
    # heap entries: the key, then the number (the key is unique, so the
    # number never decides, and comes back with % total)
    entry = [0] * total
    for number, key in zip(numbers, keys, strict=True):
        entry[number] = key * total + number
    ready = [entry[n] for n in numbers if not indegree[n]]
    heapq.heapify(ready)
    order: list[int] = []
    push, pop, add = heapq.heappush, heapq.heappop, order.append
    while ready:
        i = pop(ready) % total
        add(i)
        for t in follow[i]:
            indegree[t] -= 1
            if not indegree[t]:
                push(ready, entry[t])
    if len(order) != len(numbers):
        stuck = sorted(f"{state.action_of(i)} {state.operation(i).key}"
                       for i in numbers if indegree[i])
        raise PlanError(f"circular dependencies between: {', '.join(stuck[:10])}")
    return order


def _hidden_types() -> frozenset[str]:
    return frozenset(desc.obj for desc in DESCRIPTORS if desc.virtual)


def _emit(state: PlanState, order: Iterable[int], emitted: list[int] | None = None,
          runs: bool = False) -> Iterator[Operation | CreateRun]:
    """The ordered operations minus virtual, implicit and no-op ones, each made
    as it is handed out; `emitted` gets their numbers. The state lets go of a
    node's source and key once its operation is out: a large plan is written
    as it goes. `runs`: plain creates of the types that write their CLI a run
    at a time come as CreateRuns (only with the ties' order: see TiesOrder)."""
    if isinstance(order, TiesOrder):
        return chain(_emit_numbers(state, order.first, emitted),
                     _emit_creates(state, order.creates, emitted, runs))
    return _emit_numbers(state, order, emitted)


def _noops() -> dict[str, Descriptor]:
    """The descriptors that override noop() (the others never skip anything)."""
    return {d.obj: d for d in DESCRIPTORS if type(d).noop is not Descriptor.noop}


def _run_types() -> frozenset[str]:
    """The types whose plain creates make CreateRuns: they write a create's CLI
    from its value alone (Descriptor.created_lines), and skip none of them or
    say which from its source (Descriptor.noop_create)."""
    return frozenset(d.obj for d in DESCRIPTORS
                     if type(d).created_lines is not Descriptor.created_lines
                     and (type(d).noop is Descriptor.noop
                          or type(d).noop_create is not Descriptor.noop_create))


def _emit_numbers(state: PlanState, order: Iterable[int],
                  emitted: list[int] | None) -> Iterator[Operation]:
    """_emit for any order of numbers (the heap's, or the deletes and updates)."""
    hidden, noops, size, keep = _hidden_types(), _noops(), state.size, state.desired.sources
    for number in order:
        if number in state.implicit:
            continue
        op = state.operation(number)
        if number < size:
            keep[number] = state.keys[number] = None
        if op.obj in hidden:
            continue
        desc = noops.get(op.obj)
        if desc is None or not desc.noop(op):
            if emitted is not None:
                emitted.append(number)
            yield op


RUN_LENGTH = 4096  # creates per CreateRun (its CLI is written, and let go, at once)


def _emit_creates(state: PlanState, creates: bytes, emitted: list[int] | None,
                  runs: bool) -> Iterator[Operation | CreateRun]:
    """The creates in position order, a descriptor's at a time: they are most
    of a large plan, so a plain one is made inline, or handed out in a run."""
    hidden, noops, deleted = _hidden_types(), _noops(), state.deleted
    run_types = _run_types() if runs else frozenset()
    d = state.desired
    # creates not made inline: refined, or made by another type's descriptor
    special = state.params.keys() | d.makers.keys()
    sources, keys, adopt = d.sources, state.keys, FrozenDict.adopt
    for desc, start, end in d.spans:
        obj, make, noop = desc.obj, desc.value, noops.get(desc.obj)
        if obj in hidden:
            continue
        numbers = compress(range(start, end), creates[start:end])
        if obj in run_types:
            yield from _create_runs(state, desc, list(numbers), special, emitted)
            continue
        for number in numbers:
            if number in special:
                op = state.operation(number)
            else:
                key = keys[number]
                reason = deleted.get(key) if deleted else None
                op = _new_op(Operation, (obj, "create", key, adopt(make(sources[number])),
                                         "" if reason is None else f"recreated: {reason}"))
            sources[number] = keys[number] = None
            if noop is None or not noop.noop(op):
                if emitted is not None:
                    emitted.append(number)
                yield op


def _create_runs(state: PlanState, desc: Descriptor, numbers: list[int], special: set[int],
                 emitted: list[int] | None) -> Iterator[Operation | CreateRun]:
    """One type's creates (`numbers`, in order) as CreateRuns of the plain ones
    between the Operations of the others: special, or recreated (with a reason).
    No-ops are left out of both."""
    sources, keys, deleted, obj = state.desired.sources, state.keys, state.deleted, desc.obj
    skipped = desc.noop_create if type(desc).noop is not Descriptor.noop else None
    run: list[int] = []

    def cut() -> CreateRun:
        out = CreateRun(obj, list(map(keys.__getitem__, run)), list(map(sources.__getitem__, run)))
        for number in run:
            sources[number] = keys[number] = None
        if emitted is not None:
            emitted.extend(run)
        run.clear()
        return out

    if skipped is None and not deleted and special.isdisjoint(numbers):
        # all plain (most types of most plans): the runs are slices of them
        for first in range(0, len(numbers), RUN_LENGTH):
            run += numbers[first:first + RUN_LENGTH]
            yield cut()
        return

    for number in numbers:
        if number in special or (deleted and keys[number] in deleted):
            if run:
                yield cut()
            op = state.operation(number)
            sources[number] = keys[number] = None
            if skipped is None or not desc.noop(op):
                if emitted is not None:
                    emitted.append(number)
                yield op
        elif skipped is not None and skipped(sources[number]):
            sources[number] = keys[number] = None
        else:
            run.append(number)
            if len(run) == RUN_LENGTH:
                yield cut()
    if run:
        yield cut()


def plan(desired: Dataplane, live: Dataplane) -> list[Operation]:
    """The ordered operations that turn ``live`` into ``desired`` (empty if equal)."""
    with gc_paused():
        return list(plan_stream(desired, live))


def plan_stream(desired: Dataplane, live: Dataplane) -> Iterator[Operation]:
    """The plan, made now (PlanError is raised here), its operations handed out
    one by one: for a caller that writes each and lets it go (the planner's
    own reference goes too). The caller pauses the garbage collector
    (vppcfg.gcpause) while it runs."""
    state, order = _plan(desired, live)
    state.shed()
    return _emit(state, order)  # type: ignore[return-value]  # no runs: Operations only


def plan_runs(desired: Dataplane, live: Dataplane) -> Iterator[Operation | CreateRun]:
    """plan_stream, with the plain creates of the types that write their CLI a
    run at a time (Descriptor.created_lines) handed out as CreateRuns: what
    objects.render_cli_chunks takes, for a large plan's text."""
    state, order = _plan(desired, live)
    state.shed()
    return _emit(state, order, runs=True)


def plan_graph(desired: Dataplane, live: Dataplane) -> tuple[list[Operation],
                                                              list[tuple[int, ...]]]:
    """The plan, and for each operation the positions of the earlier ones it must
    follow (the ordering edges, bridged over operations that are not emitted):
    what a pipelined executor may not reorder."""
    with gc_paused():
        state, order = _plan(desired, live)
        state.shed(edges=False)  # _predecessors follows them
        emitted: list[int] = []
        ops: list[Operation] = list(_emit(state, order, emitted))  # type: ignore[arg-type]
        return ops, _predecessors(state, emitted)


def _plan(desired: Dataplane, live: Dataplane) -> tuple[PlanState, Iterable[int]]:
    """The state of the plan and its operations' numbers in order (not yet
    filtered: see _emit)."""
    _check_desired(desired, live)
    alone = _left_alone(desired, live)  # once: both need the same set
    desired = _with_phy_defaults(desired, live, alone)
    state = PlanState(desired, live)
    protected = _protected(live, state.desired.named(), alone)
    _diff(state, protected)
    if not (state.deleted or state.act.count(NOTHING) < state.size):
        return state, []
    _build_ops(state)
    _dependency_edges(state)
    _claim_edges(state)
    for desc in DESCRIPTORS:
        desc.adjust(state)
    return state, _order(state)


def _predecessors(state: PlanState, emitted: list[int]) -> list[tuple[int, ...]]:
    """Per emitted operation, the emitted ones it follows, directly or through
    operations left out of the output (virtual, implicit, no-op)."""
    total = state.size + len(state.delete_keys)
    position = [-1] * total
    for at, number in enumerate(emitted):
        position[number] = at
    sources: dict[int, list[int]] = {}
    for before, after in state.edges():
        sources.setdefault(after, []).append(before)
    hidden: dict[int, set[int]] = {}

    def found_before(number: int) -> set[int]:
        found: set[int] = set()
        for source in sources.get(number, ()):
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
