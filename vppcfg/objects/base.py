"""The descriptor seam between the generic planner and the object types.

A dataplane is decomposed into *nodes*: small key/value facts ("loop0 exists",
"loop0 has 10.0.0.1/24", "bd10 has member X") with the keys of the nodes they
need (``deps``). Each object type has one Descriptor that lists its nodes from
a Dataplane, says which value changes are made in place and which need delete
+ create, and turns operations into VPP CLI lines and API calls. The planner
(vppcfg.planner) only diffs nodes and orders operations from their deps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import attrgetter, is_
from typing import Any, Protocol

from vppcfg.model import Dataplane, FrozenDict, Interface, InterfaceKind, LinuxSide
from vppcfg.objects.needs import Dump, Uses
from vppcfg.objects.reading import RawDump, Reading
from vppcfg.ops import Operation, VppContext


class RenderError(ValueError):
    """A value cannot be written safely as a VPP CLI token."""


_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f{}]")
_UNSAFE_TOKEN = re.compile(r"[\s\x00-\x1f\x7f{};]").search


def token(value: object) -> str:
    """One CLI token: refuse anything that could end or split a command."""
    text = value if type(value) is str else str(value)
    # Printable text has no whitespace but the space, nor a control character
    # (a plan has a million tokens: these checks are cheaper than the pattern).
    if (text.isprintable() and text and " " not in text and "{" not in text
            and "}" not in text and ";" not in text):
        return text
    if not text or _UNSAFE_TOKEN(text):
        raise RenderError(f"refusing to render unsafe CLI token {text!r}")
    return text


def tokens(values: Sequence[str]) -> Sequence[str]:
    """token() of many values (a run's thousands of names): one check of
    their text joined by spaces, and a value at a time only when that fails
    (token() then says which one is unsafe)."""
    try:
        text = " ".join(values)
    except TypeError:  # not all text
        return [token(value) for value in values]
    # token()'s test, with exactly the joining spaces and no empty value
    if (text.isprintable() and text.count(" ") == len(values) - 1 and all(values)
            and "{" not in text and "}" not in text and ";" not in text):
        return values
    return [token(value) for value in values]


def comment_text(text: str) -> str:
    """Text safe inside ``comment { ... }`` (no braces, no control characters)."""
    return " ".join(_UNSAFE.sub(" ", text).split())


class RenderContext:
    """State while rendering one plan as CLI: commands said once, and ACL
    indexes (the CLI addresses ACLs by index). VPP gives a new ACL the most
    recently freed slot of its pool (LIFO; checked on the real VPP), else the
    pool's end. The plan's own deletes are the most recent frees, so the ACLs
    it creates after them take those slots, last freed first: known. Beyond
    them, VPP's older free slots, and their order, no API shows, not even at
    the pool's end: after ACLs 0 and 1 are deleted the dump shows an empty pool
    and VPP hands out 1 next. So any other new ACL's binding is left to the
    next plan. (Guessing the end was wrong there, and VPP takes a binding to a
    free slot without a word: the printed plan left the interface unbound;
    found by the real-VPP walk, seed 5, on 26.06 and 26.10.)"""

    def __init__(self, acl_indexes: dict[str, int] | None = None,
                 linux_sync: bool = False) -> None:
        self.acl_indexes = dict(acl_indexes or {})
        # linux-cp runs with lcp-sync: VPP's CLI can make the Linux side right
        self.linux_sync = linux_sync
        self.trailer: list[str] = []  # lines written once after the whole plan
        self._said: set[str] = set()
        self._freed: list[int] = []  # slots this plan's deletes freed, last on top
        self.deferred: list[str] = []  # bindings left to the next plan (see the class)

    def once(self, line: str) -> list[str]:
        if line in self._said:
            return []
        self._said.add(line)
        return [line]

    def trail(self, line: str) -> None:
        """Write `line` once, after the plan's last operation."""
        if line not in self.trailer:
            self.trailer.append(line)

    def acl_index(self, name: str) -> int:
        if name not in self.acl_indexes:
            raise RenderError(f"acls/{name}: ACL index unknown")
        return self.acl_indexes[name]

    def knows_acl(self, name: str) -> bool:
        return name in self.acl_indexes

    def release_acl(self, name: str) -> int:
        index = self.acl_index(name)
        del self.acl_indexes[name]
        self._freed.append(index)
        return index

    def new_acl(self, name: str) -> int | None:
        """The index VPP will give the ACL this plan creates now, when it can be
        known (see the class); None when not."""
        if not self._freed:
            return None
        index = self._freed.pop()
        self.acl_indexes[name] = index
        return index


@dataclass(frozen=True, slots=True)
class Claim:
    """An exclusive use of a resource: a delete of a node holding ``resource``
    in one ``mode`` runs before a create/update of a node wanting it in another
    mode (or in any mode when ``mode`` is empty, i.e. exclusive)."""

    resource: str
    mode: str = ""

    def conflicts(self, other: Claim) -> bool:
        return not self.mode or not other.mode or self.mode != other.mode


@dataclass(slots=True)
class Node:
    key: str
    obj: str
    value: dict[str, Any]  # plain dict: compared often, frozen only in operations
    deps: tuple[str, ...] = ()
    owner: str = ""  # top-level object ("interfaces/X") for foreign/PHY protection
    # When this key is deleted, the node goes with it and needs no operation.
    # Only for the interface's own settings (MTU, state, MAC), which VPP gives
    # a new interface afresh: state VPP keeps per sw_if_index (addresses, MPLS,
    # unnumbered, sFlow, L2 config) or per parent (sub-interfaces, bond
    # members) is removed explicitly, as a reused index or a recreated parent
    # can inherit what VPP left behind.
    holder: str = ""


# A node as listed: (key, obj, deps, owner, holder, source); see Descriptor.listing
Listed = tuple[str, str, tuple[str, ...], str, str, Any]


@dataclass(slots=True)
class Columns:
    """One descriptor's nodes as columns (Descriptor.columns): node i is
    keys[i], listed with sources[i], owned by owners[i] and held by holders[i]
    (None: by nothing); it needs deps[j][i] for each column j of deps that is
    not None there. The planner takes a column at a time, in C: a large
    config's numerous types have hundreds of thousands of nodes."""

    keys: list[str]
    sources: list[Any]
    deps: tuple[list[str | None], ...]
    owners: list[str]
    holders: list[str] | None = None

    def rows(self, obj: str) -> Iterator[Listed]:
        """The nodes as Descriptor.listing lists them."""
        deps = zip(*self.deps, strict=True) if self.deps else repeat(())
        holders = self.holders if self.holders is not None else repeat("")
        for key, needs, owner, holder, source in zip(self.keys, deps, self.owners, holders,
                                                     self.sources, strict=False):
            yield key, obj, tuple(d for d in needs if d is not None), owner, holder, source


class Descriptor:
    """Base descriptor: override what the object type needs."""

    obj: str = ""
    virtual = False  # graph-only node: never rendered nor executed
    delete_when_absent = True  # False: a live-only node means "don't care"
    optional: tuple[str, ...] = ()  # fields where a desired None means "don't care"
    # True: VPP refuses to delete the object while something uses it, so a
    # pruned node still needed by something the planner leaves alone (a PHY
    # the config does not name, a foreign object) is kept rather than deleted.
    kept_while_used = False
    # False: execute() looks at a call's outcome itself (retries after a
    # refusal), so a pipelined apply makes its calls one at a time.
    pipelined = True
    # The API messages its operations send and the dumps that read it back,
    # with their plugins (vppcfg.objects.needs): the preflight checks them.
    uses: tuple[Uses, ...] = ()
    reads: tuple[Uses | Dump, ...] = ()
    # The *.api.json files (VPP's module names) that define those messages,
    # beyond the basic ones (vppcfg.vpp.connection loads only these).
    api_modules: tuple[str, ...] = ()
    # What a bare retval most likely means: (message prefix, retval, hint)
    hints: tuple[tuple[str, int, str], ...] = ()

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Node]:
        """This type's nodes in a dataplane: override this, or listing() and
        value() (then these are listing()'s nodes with their values)."""
        if type(self).listing is Descriptor.listing and type(self).columns is Descriptor.columns:
            raise NotImplementedError
        value = self.value
        for key, obj, deps, owner, holder, source in self.listing(dp, ctx):
            yield Node(key, obj, value(source), deps, owner, holder)

    def listing(self, dp: Dataplane, ctx: NodeContext) -> Iterable[Listed]:
        """The nodes as the planner keeps a config's: each without its value,
        which value(source) makes when it is needed. The numerous types (a
        large config has hundreds of thousands of their nodes, and a value is
        most of a node's memory) list an object their value is made from,
        in columns(); by default every node is listed with its value (its own
        source)."""
        columns = self.columns(dp, ctx)
        if columns is not None:
            yield from columns.rows(self.obj)
            return
        for node in self.nodes(dp, ctx):
            yield node.key, node.obj, node.deps, node.owner, node.holder, node

    def columns(self, dp: Dataplane, ctx: NodeContext) -> Columns | None:
        """listing()'s nodes as Columns, all of this descriptor's type; None:
        not listed in columns (the planner takes listing() then)."""
        return None

    def value(self, source: Any) -> dict[str, Any]:
        """The value of a node listed with `source` (callers may keep it)."""
        return source.value

    def claims(self, node: Node) -> tuple[Claim, ...]:
        """Resources the node uses exclusively (computed only for changed nodes)."""
        return ()

    def recreate_reason(self, old: Node, new: Node) -> str | None:
        """None: the change is made in place; else why delete + create."""
        return None

    def adjust(self, plan: PlanView) -> None:
        """Refine the planned operations: add ordering edges or parameters a
        single node cannot know."""
        return None

    def noop(self, op: Operation) -> bool:
        """Whether the operation needs nothing done (it still orders others)."""
        return False

    def noop_create(self, source: Any) -> bool:
        """noop() of the plain create listed with `source`, answered without
        its Operation: a type with a noop() writes its creates in runs only
        if it says here which of them are skipped."""
        return False

    def render(self, op: Operation, rc: RenderContext) -> list[str]:
        return []

    def created_lines(self, params: Mapping[str, Any]) -> list[str]:
        """The CLI of a create with these parameters, for a type whose render()
        writes every create so. The plain creates of a type that overrides it
        are written a run at a time (ops.CreateRun): see created_run."""
        raise NotImplementedError

    def created_run(self, sources: list[Any]) -> list[str]:
        """The CLI of a run of plain creates, listed with these sources: each
        one's created_lines(value(source)), in order. A type may write them
        all at once (f-strings over columns, checked by tokens()): a large
        plan is mostly runs."""
        return list(chain.from_iterable(map(self.created_lines, map(self.value, sources))))

    def execute(self, op: Operation, ctx: VppContext) -> None:
        return None

    # -- reading back (see vppcfg.objects.reading) --

    def follow_up(self, raw: RawDump, reading: Reading) -> list[tuple[str, dict[str, Any]]]:
        """Requests that need the first wave's answers (asked in a second one)."""
        return []

    def take(self, raw: RawDump, requests: list[tuple[str, dict[str, Any]]],
             results: list[Any]) -> None:
        """Keep the follow-up's results in `raw`."""
        return None

    def mark(self, raw: RawDump, reading: Reading) -> None:
        """Say what interface indexes are before interfaces are modelled."""
        return None

    def read(self, raw: RawDump, reading: Reading) -> None:
        """Put this object type's part of the model into `reading`."""
        return None


class PlanView(Protocol):
    """What an ``adjust`` hook sees of the plan being made (the planner's
    PlanState): the operations, the desired dataplane's indexes, and how to
    order or refine an operation."""

    desired_ctx: NodeContext

    def get(self, action: str, key: str) -> Operation | None: ...

    def operations(self, action: str, obj: str) -> list[Operation]:
        """The planned operations of one action and object type."""
        ...

    def edge(self, before: Operation, after: Operation) -> None: ...

    def replace(self, op: Operation, params: FrozenDict[str, Any]) -> None: ...


class NodeContext:
    """Per-dataplane indexes shared by all descriptors (built once, O(n))."""

    def __init__(self, dp: Dataplane, linux: LinuxSide | None = None) -> None:
        self.dp = dp
        # the live Linux side (settings, host netdevs) when the command reads
        # it: both dataplanes of a plan are listed against the same one
        self.linux = linux
        self.children: dict[str, list[Interface]] = {}
        # (node key, interface): the key every per-interface node starts from
        self.keyed: list[tuple[str, Interface]] = []
        for itf in dp.interfaces.values():
            self.keyed.append((ikey(itf.name), itf))
            if itf.parent:
                self.children.setdefault(itf.parent, []).append(itf)
        # the same as two columns, for Descriptor.columns
        self.keys: list[str] = [key for key, _ in self.keyed]
        self.interfaces: list[Interface] = list(dp.interfaces.values())

    # Most object types are on a few of a large config's interfaces: these
    # pick them in C (a loop in Python over every interface took as long).

    def having(self, field: str) -> Iterator[tuple[str, Interface]]:
        """(key, interface) of the interfaces whose `field` is set (truthy)."""
        return compress(self.keyed, map(attrgetter(field), self.interfaces))

    def of_kind(self, kind: InterfaceKind) -> Iterator[tuple[str, Interface]]:
        """(key, interface) of the interfaces of one kind."""
        kinds = map(attrgetter("kind"), self.interfaces)
        return compress(self.keyed, map(is_, kinds, repeat(kind)))


def ikey(name: str) -> str:
    return f"interfaces/{name}"


def fd(**kwargs: Any) -> dict[str, Any]:
    return kwargs


def field_of(obj: Any, name: str) -> Any:
    """A field of an API reply, whether it is a namedtuple or a dict."""
    if isinstance(obj, dict):
        return obj[name]
    return getattr(obj, name)

