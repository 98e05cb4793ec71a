"""Convergence on the real VPP: a seeded random walk through the whole language.

For every step of the walk (tests/walk.py) the same config goes three ways:
1. `apply` through the binary API on a real VPP: it must succeed, plan to
   nothing afterwards, and its `dump` must pass `check` and plan to nothing;
2. the plan's CLI text through `vppctl exec` on a second real VPP (same
   history): no CLI error, the plan is empty afterwards, and the full state it
   reports (tests.walk.snapshot: every field of every reply vppcfg reads, MACs,
   lcp host taps and tag-rewrite included) equals the first VPP's;
3. `apply` on the simulator with the same PHYs (differential): the same
   outcome, the same dump and the same full state as the real VPP.
Taps go into Linux namespaces of their own and onto a Linux bridge; each VPP
has its own namespaces (names are global), renamed alike for the comparison.

It runs on each real VPP release (VPPCFG_REAL_VPP). A failure names the seed
and step; rerun one seed with VPPCFG_WALK_SEEDS=7 (and VPPCFG_WALK_STEPS=N).
CI runs 4 seeds x 50 steps; `make test-walk-nightly` runs more
(VPPCFG_WALK_SEEDS=1-40 style ranges are accepted).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

import pytest

from tests.apply_models import run_cli_plan
from tests.real import Netns
from tests.walk import MacNames, Step, snapshot, snapshot_differences, walk
from vppcfg import config
from vppcfg.apply import apply_config, format_outcome
from vppcfg.commands.dump import render
from vppcfg.model import Dataplane
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real


def seeds(spec: str) -> list[int]:
    """"1,2,3" or "1-40" (or both: "1-10,99")."""
    out: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        out += range(int(first), int(last or first) + 1)
    return out


SEEDS = seeds(os.environ.get("VPPCFG_WALK_SEEDS", "1,2,3,4"))
STEPS = int(os.environ.get("VPPCFG_WALK_STEPS", "50"))
TAP_BRIDGE = "tbr0"


def where(seed: int, step: Step) -> str:
    return f"seed {seed} step {step.n} (rerun: VPPCFG_WALK_SEEDS={seed})\n--- config:\n{step.text}"


def check_dump(live: Dataplane, label: str) -> None:
    """The dump is a valid config that plans to nothing against its VPP."""
    text = render(live)
    try:
        dumped = config.loads(text, filename="dump.yaml")
    except config.ConfigError as err:
        raise AssertionError(f"{label}\ndump refused by check:\n{err}\n--- dump:\n{text}") from err
    assert plan(dumped, live) == [], f"{label}\ndump does not plan to nothing:\n{text}"


def cli_apply(vpp: Any, conn: Any, desired: Dataplane, label: str) -> None:
    """The plan's CLI text through `vppctl exec` (twice when it creates ACLs)."""
    try:
        run_cli_plan(conn, desired, vpp.exec_text)
    except (AssertionError, RuntimeError) as err:
        raise AssertionError(f"{err}\n{label}") from err


def comparable(dp: Dataplane) -> Any:
    """What two VPPs given the same changes must agree on (MACs VPP draws may not)."""
    itfs = {k: replace(v, mac=None) for k, v in dp.interfaces.items()
            if not k.startswith("tap4")}
    bonds = {k: replace(v, mac=None) for k, v in dp.bonds.items()}
    taps = {k: replace(v, host=replace(v.host, mac=None)) for k, v in dp.taps.items()}
    return (itfs, bonds, dict(dp.bridge_domains), dict(dp.vxlan_tunnels), taps,
            dict(dp.acls), dp.sflow)


def differences(sim: Any, real: Any) -> str:
    """Field by field, what the simulator has (-) and the real VPP has (+)."""
    out = []
    for part_sim, part_real in zip(sim, real, strict=True):
        if not isinstance(part_sim, dict):
            if part_sim != part_real:
                out.append(f"- {part_sim}\n+ {part_real}")
            continue
        for key in sorted(part_sim.keys() | part_real.keys()):
            a, b = part_sim.get(key), part_real.get(key)
            if a == b:
                continue
            if a is None or b is None or not hasattr(a, "__dataclass_fields__"):
                out.append(f"{key}: sim {a} real {b}")
                continue
            fields = [f for f in a.__dataclass_fields__ if getattr(a, f) != getattr(b, f)]
            out.extend(f"{key}.{f}: sim {getattr(a, f)!r} real {getattr(b, f)!r}"
                       for f in fields)
    return "\n".join(out)


def tap_namespaces(stack: ExitStack, vpp: Any) -> list[str]:
    """Two namespaces for this VPP's taps, and Linux bridge tbr0 wherever a tap's
    host side can land (in them and in the VPP's own namespace)."""
    made = []
    for n in range(2):
        made.append(Netns(f"{vpp.netns.name}-t{n}"))
        stack.callback(made[-1].close)
    for ns in (vpp.netns, *made):
        ns.run(["ip", "link", "add", TAP_BRIDGE, "type", "bridge"])
    return [ns.name for ns in made]


@pytest.fixture
def sim_like(vpp_sim_factory: Any) -> Any:
    """A simulator whose PHYs carry the real VPP's names and MACs, with the same
    Linux namespaces and bridge."""
    from vppcfg.sim.dataplane import SimDataplane
    from vppcfg.sim.inventory import Phy
    from vppcfg.sim.plugins._util import linux
    from vppcfg.sim.plugins.lcp import pairs

    def make(live: Dataplane, namespaces: list[str]) -> Any:
        phys = [Phy(name, itf.mac or "02:00:00:00:00:01", 9000, "af-packet")
                for name, itf in live.interfaces.items() if name.startswith("host-")]
        # vpp-real's shim gives lcp on sub-interfaces a Linux device, as a
        # kernel with 802.1q would: the simulator's default
        model = SimDataplane(phys)
        pairs(model.state).sync = False  # vpp-real runs without lcp-sync, VPP's default
        host = linux(model.state)
        for ns in ("", *namespaces):
            host.add_namespace(ns)
            host.add_bridge(TAP_BRIDGE, ns)
        return vpp_sim_factory(handler=model)
    return make


def same_state(a: dict[str, Any], b: dict[str, Any], labels: tuple[str, str],
               label: str) -> None:
    diff = snapshot_differences(a, b, labels)
    assert not diff, f"{labels[0]} and {labels[1]} differ:\n" + "\n".join(diff) + f"\n{label}"


PHYS = ["host-ge0", "host-ge1", "host-hu0", "host-hu1"]


def steps(api_ns: list[str]) -> Iterator[tuple[int, Step]]:
    """Every seed's walk, taps in ``api_ns``."""
    stats: dict[str, Any] = {}
    for seed in SEEDS:
        for step in walk(seed, PHYS, STEPS, stats, api_ns):
            yield seed, step
    assert stats["valid"] == len(SEEDS) * STEPS


def test_random_walk_converges_on_real_vpp(vpp_real_factory, sim_like):
    api_vpp, cli_vpp = vpp_real_factory(), vpp_real_factory()
    assert api_vpp.phy_names == PHYS
    with ExitStack() as stack:
        api_ns, cli_ns = tap_namespaces(stack, api_vpp), tap_namespaces(stack, cli_vpp)
        as_api = dict(zip(cli_ns, api_ns, strict=True))  # the CLI VPP's names, compared
        real = stack.enter_context(VppConnection.open(api_vpp.socket, api_vpp.api_dir))
        cli = stack.enter_context(VppConnection.open(cli_vpp.socket, cli_vpp.api_dir))
        sim_vpp = sim_like(real.dump(), api_ns)
        sim = stack.enter_context(VppConnection.open(sim_vpp.socket, sim_vpp.api_dir))
        macs = {"api": MacNames.of_phys(real), "cli": MacNames.of_phys(cli),
                "sim": MacNames.of_phys(sim)}
        for seed, step in steps(api_ns):
            label = where(seed, step)
            for names in macs.values():
                names.learn(step.desired)
            outcome = apply_config(real, step.desired)
            assert outcome.ok, f"{format_outcome(outcome)}\n{label}"
            live = real.dump()
            assert plan(step.desired, live) == [], label
            check_dump(live, label)
            api_state = snapshot(real, macs["api"])
            text = step.text
            for mine, theirs in zip(api_ns, cli_ns, strict=True):
                text = text.replace(mine, theirs)
            cli_apply(cli_vpp, cli, config.loads(text), label)
            same_state(api_state, snapshot(cli, macs["cli"], as_api), ("api", "cli"), label)
            sim_outcome = apply_config(sim, step.desired)
            assert sim_outcome.ok, f"simulator: {format_outcome(sim_outcome)}\n{label}"
            diff = differences(comparable(sim.dump()), comparable(live))
            assert not diff, f"simulator and real VPP differ:\n{diff}\n{label}"
            same_state(snapshot(sim, macs["sim"]), api_state, ("sim", "real"), label)
