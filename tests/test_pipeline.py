"""Pipelined dump and apply give what the one-at-a-time path gives.

Against the simulator, whose model sees the calls in the order they arrive,
which is the order of their effects: the same calls, the same order on each
interface, the same final state; a failure in the middle of a wave stops the
sending, is reported with every call already sent after it, and is rolled
back. The `real` tests repeat the comparison on the real VPP.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.apply_models import G, dp, loop, phy, sample_a, sample_b, sub
from vppcfg.apply import Engine, apply_config, format_outcome
from vppcfg.model import Bond, BondMode, Dataplane, Interface, InterfaceKind
from vppcfg.vpp import VppConnection, is_mutating
from vppcfg.vpp.dump import build_dataplane, collect

ROUTER = Path(__file__).resolve().parents[1] / "examples" / "router.yaml"
INDEX_ARGS = ("sw_if_index", "rx_sw_if_index", "tx_sw_if_index", "bond_sw_if_index",
              "unnumbered_sw_if_index", "hw_if_index")


def router() -> Dataplane:
    from vppcfg import config

    return config.load(str(ROUTER))


def many() -> Dataplane:
    """Loopbacks and subs with addresses: index-hungry, few dependencies."""
    itfs = [phy(g, mtu=9000) for g in G]
    itfs += [sub(g, v, mtu=1500, addresses=(f"10.{p}.{v}.1/24",))
             for p, g in enumerate(G) for v in range(1, 13)]
    itfs += [loop(n, addresses=(f"192.0.2.{n}/32",)) for n in range(10)]
    return dp(*itfs)


def recorder(sim: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every request the simulated VPP's model handles from now on, in order."""
    seen: list[tuple[str, dict[str, Any]]] = []
    handle = sim.dataplane.handle

    def recording(message: str, args: dict[str, Any]) -> Any:
        seen.append((message, dict(args)))
        return handle(message, args)

    sim.dataplane.handle = recording
    return seen


def mutating(seen: list[tuple[str, dict[str, Any]]], names: dict[int, str] | None = None
             ) -> list[str]:
    """The mutating calls as text, interface indexes replaced by names (VPP
    numbers new interfaces in creation order, which waves may change)."""
    return [_text(m, a, names or {}) for m, a in seen if is_mutating(m)]


def _text(message: str, args: dict[str, Any], names: dict[int, str]) -> str:
    shown = {k: names.get(v, v) if k in INDEX_ARGS else v for k, v in args.items()}
    return f"{message} {sorted(shown.items(), key=str)}"


def per_interface(seen: list[tuple[str, dict[str, Any]]], names: dict[int, str]
                  ) -> dict[str, list[str]]:
    """The calls touching each interface, in arrival order."""
    out: dict[str, list[str]] = {}
    for message, args in seen:
        if is_mutating(message):
            for key in INDEX_ARGS:
                if key in args:
                    name = str(names.get(args[key], args[key]))
                    out.setdefault(name, []).append(_text(message, args, names))
    return out


def index_names(conn: Any) -> dict[int, str]:
    return {index: name for name, index in conn.context().names().items()}


def apply_both(factory: Callable[..., Any], start: Callable[[], Dataplane],
               target: Callable[[], Dataplane]) -> list[Any]:
    """Apply start, then target, on two fresh simulators: one at a time, pipelined."""
    runs = []
    for pipeline in (False, True):
        sim = factory()
        with VppConnection.open(sim.socket, sim.api_dir) as conn:
            assert apply_config(conn, start(), pipeline=False).ok
            names = index_names(conn)
            seen = recorder(sim)
            outcome = apply_config(conn, target(), pipeline=pipeline)
            assert outcome.ok, format_outcome(outcome)
            names.update(index_names(conn))
            runs.append((outcome, seen, conn.dump(), names))
    return runs


@pytest.mark.parametrize(("start", "target"), [
    (Dataplane, sample_a), (sample_a, sample_b), (sample_b, sample_a), (Dataplane, many),
    (many, sample_b), (Dataplane, router), (router, Dataplane),
])
def test_pipelined_apply_makes_the_same_calls_with_the_same_effect(vpp_sim_factory, start,
                                                                   target):
    (one, one_seen, one_live, one_names), (piped, piped_seen, piped_live, piped_names) = \
        apply_both(vpp_sim_factory, start, target)
    assert piped.executed == one.executed == one.planned
    assert piped_live == one_live
    assert sorted(mutating(piped_seen, piped_names)) == sorted(mutating(one_seen, one_names))
    assert per_interface(piped_seen, piped_names) == per_interface(one_seen, one_names)
    assert one.waves == 0 and piped.waves >= 1
    assert piped.calls == one.calls == len(mutating(one_seen))


def test_waves_follow_the_index_dependencies(vpp_sim_factory):
    # loopbacks and subs of PHYs: create; then tag, MTU, address, state
    _, (flat, *_) = apply_both(vpp_sim_factory, Dataplane, many)
    assert flat.waves == 2
    # a sub of a new bond needs the bond's index: one wave more
    bond = dp(*(phy(g) for g in G),
              Interface(name="BondEthernet0", kind=InterfaceKind.BOND),
              sub("BondEthernet0", 10, addresses=("10.9.0.1/24",)),
              bonds=[Bond("BondEthernet0", 0, mode=BondMode.LACP, members=(G[2],))])
    _, (deep, *_) = apply_both(vpp_sim_factory, Dataplane, lambda: bond)
    assert deep.waves == 3


def test_pipelined_dump_equals_one_request_at_a_time(vpp_sim):
    class OneAtATime:
        """The connection, but every request of a batch makes its own round trip."""

        def __init__(self, conn: Any) -> None:
            self.conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self.conn, name)

        def call_many(self, requests: list[tuple[str, dict[str, Any]]], *_: Any) -> list[Any]:
            return [self.conn._invoke(m, a) for m, a in requests]

    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, sample_a()).ok
        requests = conn.calls
        piped = conn.dump()
        piped_requests = conn.calls - requests
        single = build_dataplane(collect(OneAtATime(conn)))
    assert piped == single and piped.interfaces["BondEthernet0.10"].mtu == 1500
    assert piped_requests > 20  # addresses per interface, members per bond: all pipelined


@pytest.mark.parametrize("position", [0.3, 0.6])
def test_failure_mid_wave_is_reported_and_rolled_back(vpp_sim, position):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        seen = recorder(vpp_sim)
        apply_config(conn, many())  # how many calls the apply makes
        total = len(mutating(seen))
        assert apply_config(conn, Dataplane()).ok
        pre = conn.dump()
        k = int(total * position)
        del seen[:]
        vpp_sim.dataplane.fail_after = vpp_sim.dataplane.mutations + k
        outcome = apply_config(conn, many())
        vpp_sim.dataplane.fail_after = None
        assert not outcome.ok and outcome.calls == k, format_outcome(outcome)
        # what the model received between the failed call and the rollback's first dump
        calls = [(m, a) for m, a in seen if is_mutating(m) or m == "sw_interface_dump"]
        failed_at = [i for i, (m, _) in enumerate(calls) if is_mutating(m)][k - 1]
        rollback_at = next(i for i, (m, _) in enumerate(calls)
                           if i > failed_at and m == "sw_interface_dump")
        assert calls[failed_at][0] in str(outcome.error)
        assert len(outcome.after_failure) == rollback_at - failed_at - 1 > 0
        assert f"{len(outcome.after_failure)} call(s) were already sent" in format_outcome(
            outcome)
        assert outcome.rollback is not None and outcome.rollback.complete
        assert conn.dump() == pre


def test_an_operation_that_raises_counts_after_what_was_queued_before_it(vpp_sim):
    real = Engine()
    target = many()

    def execute(op: Any, ctx: Any) -> None:
        if op.key == "interfaces/loop5/address/192.0.2.5/32":
            raise KeyError("nowhere")
        real.execute(op, ctx)

    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        pre = conn.dump()
        outcome = apply_config(conn, target, Engine(execute=execute))
        assert not outcome.ok and outcome.failed is not None
        assert outcome.failed.key == "interfaces/loop5/address/192.0.2.5/32"
        assert "unknown interface 'nowhere'" in outcome.error
        position = outcome.planned.index(outcome.failed)
        assert outcome.executed == outcome.planned[:position]  # all before it, none after
        assert outcome.after_failure == []
        assert outcome.rollback is not None and outcome.rollback.complete
        assert conn.dump() == pre


def test_every_message_the_code_names_is_in_the_modules_loaded():
    """vppcfg loads only api_modules() (and the *_types files): every message
    the executors, the dump and the backend name must be defined in them."""
    import json

    from vppcfg.sim.codec import DEFAULT_API_DIR
    from vppcfg.vpp.connection import api_files, api_modules
    from vppcfg.vpp.definitions import API_MESSAGES

    def messages(files: list[str]) -> set[str]:
        return {m[0] for f in files for m in json.loads(Path(f).read_text())["messages"]}

    every = messages(api_files(DEFAULT_API_DIR))
    loaded = messages(api_files(DEFAULT_API_DIR, api_modules()))
    named = (_api_words() | API_MESSAGES) & every
    assert len(named) > 50
    assert named <= loaded, sorted(named - loaded)
    assert len(loaded) < len(every)


def _api_words() -> set[str]:
    """Every quoted lower-case word in the code that talks to VPP (but for
    the list of requests itself, vppcfg/vpp/definitions.py)."""
    import re

    source = Path(__file__).resolve().parents[1] / "vppcfg"
    return {word for path in [*source.glob("objects/*.py"), *source.glob("vpp/*.py"),
                              *source.glob("apply/*.py"), *source.glob("commands/*.py")]
            if path.name != "definitions.py"
            for word in re.findall(r'"([a-z0-9_]+)"', path.read_text())}


def test_the_client_is_given_every_request_the_code_names():
    """The client loads API_MESSAGES only: a message the code names but that
    is not listed there would be missing at run time."""
    import json

    from vppcfg.sim.codec import DEFAULT_API_DIR
    from vppcfg.vpp.connection import api_files
    from vppcfg.vpp.definitions import API_MESSAGES

    files = api_files(DEFAULT_API_DIR)
    apis = [json.loads(Path(f).read_text()) for f in files]
    requests = {name for api in apis for name in api.get("services", {})}
    named = _api_words() & requests
    assert len(named) > 50
    assert named - {"cli"} <= API_MESSAGES, sorted(named - API_MESSAGES)
    # each listed name is a request of this VPP, or one the code names for an older VPP
    assert requests | _api_words() | {"sockclnt_delete"} >= API_MESSAGES, sorted(
        API_MESSAGES - requests - _api_words())


def test_the_subset_builds_what_the_whole_files_build():
    """Messages loaded from the subset have the CRC, fields and field types
    of the same messages loaded from the whole files, and pack the same bytes."""
    from vpp_papi import VPPApiJSONFiles

    from vppcfg.sim.codec import DEFAULT_API_DIR
    from vppcfg.vpp.connection import api_files, api_modules
    from vppcfg.vpp.definitions import API_MESSAGES, subset

    files = api_files(DEFAULT_API_DIR, api_modules())
    part, services = VPPApiJSONFiles.process_json_str(subset(files, API_MESSAGES))
    whole: dict[str, Any] = {}
    for path in files:
        with open(path) as f:
            whole.update(VPPApiJSONFiles.process_json_file(f)[0])
    assert 100 < len(part) < len(whole)
    for name, message in part.items():
        other = whole[name]
        assert (message.crc, message.fields, message.fieldtypes) == (
            other.crc, other.fields, other.fieldtypes), name
    assert part["sw_interface_add_del_address"].pack(
        {"sw_if_index": 1, "is_add": True, "prefix": "2001:db8::1/64"}
    ) == whole["sw_interface_add_del_address"].pack(
        {"sw_if_index": 1, "is_add": True, "prefix": "2001:db8::1/64"})
    # every request keeps its answers
    for request in API_MESSAGES & set(services):
        service = services[request]
        assert service["reply"] in part, request
        assert service.get("stream_msg", service["reply"]) in part, request


def test_a_connection_loads_the_subset_and_can_be_asked_for_everything(vpp_sim):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert conn.has_message("sw_interface_dump")
        assert not conn.has_message("lcp_itf_pair_get_v2")  # not one of vppcfg's
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir, requests=None) as conn:
        assert conn.has_message("lcp_itf_pair_get_v2")


def test_simulator_serves_a_large_burst_in_order(vpp_sim):
    """10,000 requests in one write, more than the socket buffers hold both
    ways: the simulator must keep reading while its replies wait (as VPP
    queues them), and answer in order."""
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir, timeout=10) as conn:
        index = conn.context().sw_if_index("GigabitEthernet3/0/0")
        requests = [("sw_interface_set_flags", {"sw_if_index": index, "flags": n % 2})
                    for n in range(10000)]
        replies = conn.call_many(requests, window=len(requests))
        assert len(replies) == len(requests) and all(r.retval == 0 for r in replies)
        contexts = [r.context for r in replies]
        assert contexts == sorted(contexts)
        assert conn.dump().interfaces["GigabitEthernet3/0/0"].state == "up"


@pytest.mark.parametrize(("start", "target"), [
    (Dataplane, sample_a), (sample_a, sample_b), (sample_b, sample_a), (many, sample_b),
])
def test_plan_graph_is_the_plan_with_edges_that_point_back(vpp_sim, start, target):
    from vppcfg.planner import plan, plan_graph

    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, start()).ok
        live = conn.dump()
    ops, graph = plan_graph(target(), live)
    assert ops == plan(target(), live) and len(graph) == len(ops)
    assert all(all(j < i for j in before) for i, before in enumerate(graph))
    keys = {(op.action, op.key): i for i, op in enumerate(ops)}
    # what the executor must not reorder: a sub-interface after its parent,
    # an address after its interface (when both are in the plan)
    for i, op in enumerate(ops):
        if op.action == "create" and op.obj == "address":
            owner = keys.get(("create", op.key.split("/address/")[0]))
            assert owner is None or owner in graph[i]
        if op.action == "create" and op.obj == "sub-interface":
            parent = keys.get(("create", f"interfaces/{op.params['parent']}"))
            assert parent is None or parent in graph[i]
    assert any(graph)


def test_an_address_moved_between_interfaces_follows_its_delete_in_the_graph(vpp_sim):
    """The address leaves loop0 for loop1: the create on loop1 claims what the delete on
    loop0 frees, so the pipelined graph must put the delete before it (a claim edge;
    nothing else links the two)."""
    from vppcfg import config
    from vppcfg.planner import plan_graph

    before = config.check_text("loopbacks:\n  loop0: {addresses: [192.0.2.1/24]}\n"
                               "  loop1: {}\n", "a.yaml")[0]
    after = config.check_text("loopbacks:\n  loop0: {}\n"
                              "  loop1: {addresses: [192.0.2.1/24]}\n", "b.yaml")[0]
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, before).ok
        live = conn.dump()
    ops, graph = plan_graph(after, live)
    at = {(op.action, op.obj, op.key.split("/")[1]): i for i, op in enumerate(ops)}
    freeing, claiming = at[("delete", "address", "loop0")], at[("create", "address", "loop1")]
    assert freeing in graph[claiming]
