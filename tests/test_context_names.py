"""ApiContext's name -> sw_if_index map: forget() drops a name and every name
under it (its sub-interfaces), as a walk over all names would, without one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vppcfg.vpp.context import ApiContext

names = st.sampled_from(["a", "a.1", "a.1.2", "a.10", "ab", "ab.1", "b", "b.1", "a.", ".a", "x.y"])
steps = st.lists(st.tuples(st.sampled_from(["learn", "forget"]), names,
                           st.integers(0, 5)), max_size=30)


def _walked(known: dict[str, int], name: str) -> None:
    """forget() as a walk over every name: the meaning it keeps."""
    for n in [n for n in known if n == name or n.startswith(name + ".")]:
        del known[n]


@given(st.dictionaries(names, st.integers(0, 5)), steps)
def test_forget_drops_a_name_and_the_names_under_it(start: dict[str, int], actions) -> None:
    ctx = ApiContext(conn=None, index=start)
    model = dict(start)
    for action, name, index in actions:
        if action == "learn":
            ctx.learn(name, index)
            model[name] = index
        else:
            ctx.forget(name)
            _walked(model, name)
        assert ctx.names() == model


def test_forgetting_a_plan_of_deletes_leaves_nothing() -> None:
    """What a plan deleting a large config does: one forget per interface,
    sub-interfaces first, then their parents (the speed of it at 30,000
    objects: bench/bench_real_scale.py --no-addresses)."""
    index = {f"Gi0/{p}/0": p for p in range(20)}
    index |= {f"Gi0/{p}/0.{s}": 100 + p * 50 + s for p in range(20) for s in range(50)}
    ctx = ApiContext(conn=None, index=index)
    for name in sorted(index, key=lambda n: -n.count(".")):
        ctx.forget(name)
    assert ctx.names() == {} and not any(ctx._under.values())
