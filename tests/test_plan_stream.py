"""The planner's streamed plan and the CLI in pieces (issue 20): the same
operations, order and text as the whole plan and render_cli, whichever way
the order is found, and the YAML reader's untracked loop reads what its
tracked one does.

The configs are the random walk's (tests/walk.py): every object type, and
consecutive configs that delete, update and recreate.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import vppcfg.planner as planner
from tests.walk import walk
from vppcfg.commands.plan import fresh_dataplane
from vppcfg.config import loader
from vppcfg.model import Dataplane, FrozenDict, InterfaceKind, phy_at_defaults
from vppcfg.objects import (
    RenderError,
    bridge,
    descriptor,
    interface,
    render_cli,
    render_cli_chunks,
)
from vppcfg.objects.base import NodeContext, token, tokens
from vppcfg.ops import CreateRun, Operation
from vppcfg.planner import plan, plan_graph, plan_runs, plan_stream, summary

ROOT = Path(__file__).resolve().parents[1]
PHYS = [f"GigabitEthernet3/0/{i}" for i in range(6)]


def live_of(dp: Dataplane) -> Dataplane:
    """A VPP holding `dp` and every PHY of the walk."""
    interfaces = dict(dp.interfaces)
    for name in PHYS:
        interfaces.setdefault(name, phy_at_defaults(name))
    return replace(dp, interfaces=FrozenDict(interfaces))


def pairs(seeds: range, steps: int = 6) -> Iterator[tuple[Dataplane, Dataplane]]:
    """(desired, live): from a fresh VPP, from the previous config, to empty."""
    for seed in seeds:
        models = [step.desired for step in walk(seed, PHYS, steps)]
        for i, model in enumerate(models):
            yield model, live_of(Dataplane())
            yield model, live_of(models[i - 1])
            yield Dataplane(), live_of(model)


def expanded(items: Iterator[Operation | CreateRun]) -> Iterator[Operation]:
    """The operations of a stream with runs, each run's as its type's descriptor makes them."""
    for item in items:
        if isinstance(item, CreateRun):
            value = descriptor(item.obj).value
            for key, source in zip(item.keys, item.sources, strict=True):
                yield Operation(item.obj, "create", key, FrozenDict(value(source)))
        else:
            yield item


def runs_agree(desired: Dataplane, live: Dataplane, ops: list[Operation]) -> int:
    """The stream with runs holds the plan's operations, and its CLI (in
    pieces) and counts are the plan's; the number of runs in it."""
    items = list(plan_runs(desired, live))
    assert list(expanded(iter(items))) == ops
    counts = {"create": 0, "update": 0, "delete": 0}
    indexes = {name: i for i, name in enumerate(live.acls)}  # the ACLs VPP holds
    deferred: list[str] = []
    text = "".join(render_cli_chunks(iter(items), indexes, deferred, counts))
    assert (text, deferred) == (render_cli(ops, indexes, expected := []), expected)
    assert counts == summary(ops)
    return sum(isinstance(item, CreateRun) for item in items)


def test_streamed_plan_is_the_plan() -> None:
    runs = 0
    for desired, live in pairs(range(1, 5)):
        ops = plan(desired, live)
        assert list(plan_stream(desired, live)) == ops
        assert plan_graph(desired, live)[0] == ops
        runs += runs_agree(desired, live, ops)
    assert runs


def test_runs_are_cut_at_their_length_and_around_recreates(monkeypatch) -> None:
    """Runs of a few creates: cut where full, and where a create that is not
    plain (recreated, with its reason) comes between plain ones."""
    monkeypatch.setattr(planner, "RUN_LENGTH", 3)
    runs = recreated = 0
    for desired, live in pairs(range(5, 9)):
        ops = plan(desired, live)
        runs += runs_agree(desired, live, ops)
        recreated += sum(op.action == "create" and bool(op.reason) for op in ops)
    assert runs and recreated


def test_a_run_writes_what_its_creates_would() -> None:
    """Each run type's created_run (columns at once) is created_lines of each
    source's value, PHYs (an MTU's hardware line) and every walk step included."""
    types = [descriptor(obj) for obj in sorted(planner._run_types())]
    assert {d.obj for d in types} >= {"sub-interface", "mtu", "lcp", "address"}
    written = 0
    for desired, _ in pairs(range(1, 4)):
        ctx = NodeContext(desired)
        for desc in types:
            sources = desc.columns(desired, ctx).sources
            expected = [line for source in sources
                        for line in desc.created_lines(desc.value(source))]
            assert desc.created_run(sources) == expected
            written += len(expected)
    assert written


TOKENS = ["Gi0/0/0.10", "e0", "10.0.0.1/24", "2001:db8::1/64", "x" * 80, "ünï", "a\u200bb",
          "", "loop 0", "a;b", "x{y", "y}", "lo\top", "a\nb", "\x7f", "a\u00a0b", "\u3000", 7]


@pytest.mark.parametrize("seed", range(40))
def test_tokens_are_refused_exactly_as_one_by_one(seed: int) -> None:
    """tokens() checks a run's values at once: it gives what token() gives
    each, and refuses a list exactly when token() refuses one of its values."""
    rng = random.Random(seed)
    values = [rng.choice(TOKENS[:7]) for _ in range(rng.randint(1, 30))]
    if seed % 2:
        values[rng.randrange(len(values))] = rng.choice(TOKENS[7:])
    try:
        one_by_one = [token(v) for v in values]
    except RenderError:
        with pytest.raises(RenderError):
            tokens(values)
    else:
        assert list(tokens(values)) == one_by_one


@pytest.mark.parametrize("bad", ["e 0", "e0;reboot", "e0\nshow", "x{y}", "e0\tx"])
def test_an_unsafe_name_in_a_run_cannot_reach_the_cli(bad: str) -> None:
    """A host name among a run of lcp creates is refused, as one alone is."""
    parent = phy_at_defaults(PHYS[0])
    subs = [replace(parent, name=f"{parent.name}.{i}", kind=InterfaceKind.SUB, parent=parent.name,
                    sub_id=i, lcp=f"e0.{i}") for i in range(1, 9)]
    subs[4] = replace(subs[4], lcp=bad)
    desired = Dataplane(interfaces=FrozenDict({i.name: i for i in [parent, *subs]}))
    items = list(plan_runs(desired, live_of(Dataplane())))
    assert any(isinstance(item, CreateRun) and item.obj == "lcp" for item in items)
    with pytest.raises(RenderError, match="unsafe CLI token"):
        render_cli_chunks(iter(items))


class _ChildrenFirst(interface.State):
    """State's column with the interfaces in reverse order: a sub-interface's
    state, which needs its parent's, is listed before it in the same column."""

    def columns(self, dp: Dataplane, ctx: NodeContext) -> planner.Columns:
        c = super().columns(dp, ctx)
        return planner.Columns(c.keys[::-1], c.sources[::-1], tuple(d[::-1] for d in c.deps),
                               c.owners[::-1], c.holders[::-1] if c.holders else None)


class _StateNeedsItself(interface.State):
    """State's column, each node but a PHY's (updated, not created, from a
    fresh VPP) also needing itself."""

    def columns(self, dp: Dataplane, ctx: NodeContext) -> planner.Columns:
        c = super().columns(dp, ctx)
        phy = InterfaceKind.PHY
        itself = [None if itf.kind is phy else key
                  for key, itf in zip(c.keys, c.sources, strict=True)]
        return replace(c, deps=(*c.deps, itself))


class _BridgeNeedsItself(bridge.BridgeDomain):
    """Bridge domains, listed one by one, each needing itself."""

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterator[planner.Node]:
        for node in super().nodes(dp, ctx):
            yield replace(node, deps=(*node.deps, node.key))


@pytest.mark.parametrize("stand_in", [_StateNeedsItself, _BridgeNeedsItself])
def test_a_node_that_needs_itself_is_refused(monkeypatch, stand_in: type) -> None:
    """A dependency cycle (here a node on itself, in a column or a row) is a
    PlanError, not an order: such an edge never lets the order of ties stand."""
    odd = tuple(stand_in() if d.obj == stand_in.obj else d for d in planner.DESCRIPTORS)
    refused = 0
    for desired, _ in pairs(range(1, 4), steps=3):
        live = live_of(Dataplane())  # from a fresh VPP: the stand-in's nodes are created
        if any(op.obj == stand_in.obj and op.action == "create" for op in plan(desired, live)):
            monkeypatch.setattr(planner, "DESCRIPTORS", odd)
            with pytest.raises(planner.PlanError, match="circular"):
                plan(desired, live)
            monkeypatch.undo()
            refused += 1
    assert refused


@pytest.mark.parametrize("children_first", [False, True])
def test_order_of_ties_is_the_heap_order_when_found(monkeypatch, children_first: bool) -> None:
    """Where sorting by tie-break key already follows every edge (most plans),
    the planner skips the heap: both give the same order, also when a column
    lists a node before one it needs."""
    if children_first:
        monkeypatch.setattr(planner, "DESCRIPTORS", tuple(
            _ChildrenFirst() if d.obj == "state" else d for d in planner.DESCRIPTORS))
    found = 0
    for desired, live in pairs(range(1, 9)):
        alone = planner._left_alone(desired, live)
        state = planner.PlanState(planner._with_phy_defaults(desired, live, alone), live)
        planner._diff(state, planner._protected(live, state.desired.named(), alone))
        planner._build_ops(state)
        planner._dependency_edges(state)
        planner._claim_edges(state)
        for desc in planner.DESCRIPTORS:
            desc.adjust(state)
        ties = planner._order_of_ties(state)
        if ties is not None:
            found += 1
            assert list(ties) == planner._heap_order(state)
    assert found


def test_cli_in_pieces_joins_to_the_cli() -> None:
    """More lines than a piece holds; the counts are the summary's."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from scale_config import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    from vppcfg import config

    desired = config.loads(generate(1000))
    live = fresh_dataplane(desired)
    ops = plan(desired, live)
    counts = {"create": 0, "update": 0, "delete": 0}
    pieces = render_cli_chunks(plan_stream(desired, live), {}, [], counts)
    assert len(pieces) > 1 and all(piece.endswith("\n") for piece in pieces)
    assert "".join(pieces) == render_cli(ops)
    assert counts == summary(ops)
    assert runs_agree(desired, live, ops) > 1
    assert render_cli_chunks([]) == [] and render_cli([]) == ""


class _ListsTwice(interface.Mac):
    """A descriptor that also lists another type's node, and a key the lcp
    descriptor lists after it."""

    def nodes(self, dp: Dataplane, ctx: NodeContext) -> Iterator[planner.Node]:
        yield from super().nodes(dp, ctx)
        for key, itf in ctx.keyed:
            if itf.lcp:
                yield planner.Node(f"{key}/lcp", "lcp", {"name": itf.name, "host": "other"},
                                   (key,), key)


def test_a_key_listed_twice_keeps_its_first_place_and_its_last_node(monkeypatch) -> None:
    """As a dict of nodes by key would: one operation, the last node's value,
    ordered (among ties) where the key was first listed."""
    odd = tuple(_ListsTwice() if d.obj == "mac" else d for d in planner.DESCRIPTORS)

    def by_key(ops: list[Operation]) -> list[Operation]:
        return sorted(ops, key=lambda op: (op.obj, op.action, op.key))

    def lcp_hosts(ops: list[Operation]) -> list[str]:
        return [op.params["host"] for op in ops if op.obj == "lcp" and op.action == "create"]

    for desired, live in pairs(range(1, 4), steps=3):
        expected = plan(desired, live)
        monkeypatch.setattr(planner, "DESCRIPTORS", odd)
        ops = plan(desired, live)
        assert plan_graph(desired, live)[0] == ops
        runs_agree(desired, live, ops)  # an lcp node made by `mac`: not in a run
        monkeypatch.undo()
        assert by_key(ops) == by_key(expected)  # the same operations: the last nodes'
        assert lcp_hosts(ops) == lcp_hosts(expected)  # in the same order among lcp creates


def _desired_columns(desired: Dataplane, watched: frozenset[str]) -> tuple:
    d = planner.Desired(desired, watched)
    return (list(d.index.items()), d.objs, d.sources, sorted(zip(d.before, d.after, strict=True)),
            sorted(d.later), d.owners, d.again, d.makers, d.in_registry_order, d.backward,
            [(desc.obj, start, end) for desc, start, end in d.spans])


def test_columns_are_taken_as_the_rows_would_be(monkeypatch) -> None:
    """The planner's column-wise taking of the numerous types' nodes builds
    what taking their rows one by one builds (positions, edges, deps not yet
    listed, owners among watched keys), with a key listed twice too (the lcp
    keys, listed first by a stand-in for `mac`: the columns fall back)."""
    odd = tuple(_ListsTwice() if d.obj == "mac" else d for d in planner.DESCRIPTORS)
    taken = 0
    for descriptors in (planner.DESCRIPTORS, odd):
        for desired, _ in pairs(range(1, 4), steps=3):
            watched = frozenset(list(planner.NodeContext(desired).keys)[::3])
            monkeypatch.setattr(planner, "DESCRIPTORS", descriptors)
            columns = _desired_columns(desired, watched)
            monkeypatch.setattr(planner.Desired, "_add_columns", lambda *args: False)
            rows = _desired_columns(desired, watched)
            monkeypatch.undo()
            assert columns == rows
            taken += len(columns[1])
    assert taken > 1000


# anchors, aliases, merges, tags, quoting and flow style: the events feed() takes
ANCHORS = """\
base: &base {mtu: 9000, state: up}
interfaces:
  GigabitEthernet3/0/0: {<<: *base, lcp: "e0", addresses: [192.0.2.1/30, '2001:db8::1/64']}
  GigabitEthernet3/0/1:
    <<: [*base]
    mtu: !!int 1500
    description: &d "a: b"
    sub-interfaces: {100: {description: *d, mtu: 0x10}, 200: ~}
list: !!seq [1, 2.5, yes, null, 12:34:56, -0]
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reader_loops_agree(seed: int) -> None:
    """The untracked loop (every file at first) reads what the tracked one does."""
    files = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.yaml"))]
    files += [step.text for step in walk(seed, PHYS, 4)]
    files.append(ANCHORS)
    for text in files:
        assert loader._parse(text, "x").data == loader._parse(text, "x", track=True).data
