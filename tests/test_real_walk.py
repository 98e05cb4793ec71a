"""Convergence on the real VPP: a seeded random walk through the whole language.

For every step of the walk (tests/walk.py) the same config goes three ways:
1. `apply` through the binary API on a real VPP: it must succeed, plan to
   nothing afterwards, and its `dump` must pass `check` and plan to nothing;
2. the plan's CLI text through `vppctl exec` on a second real VPP (same
   history): no CLI error, and the plan is empty afterwards;
3. `apply` on the simulator with the same PHYs (differential): the same
   outcome and the same dump as the real VPP.
A failure names the seed and step; rerun one seed with VPPCFG_WALK_SEEDS=7
(and VPPCFG_WALK_STEPS=N).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pytest

from tests.apply_models import run_cli_plan
from tests.walk import Step, walk
from vppcfg import config
from vppcfg.apply import apply_config, format_outcome
from vppcfg.commands.dump import render
from vppcfg.model import Dataplane
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

pytestmark = pytest.mark.real

SEEDS = [int(s) for s in os.environ.get("VPPCFG_WALK_SEEDS", "1,2,3,4").split(",")]
STEPS = int(os.environ.get("VPPCFG_WALK_STEPS", "50"))


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


@pytest.fixture
def sim_like(vpp_sim_factory: Any) -> Any:
    """A simulator whose PHYs carry the real VPP's names and MACs."""
    from vppcfg.sim.dataplane import SimDataplane
    from vppcfg.sim.inventory import Phy

    def make(live: Dataplane) -> Any:
        phys = [Phy(name, itf.mac or "02:00:00:00:00:01", 9000, "af-packet")
                for name, itf in live.interfaces.items() if name.startswith("host-")]
        # vpp-real's shim gives lcp on sub-interfaces a Linux device, as a
        # kernel with 802.1q would: the simulator's default
        return vpp_sim_factory(handler=SimDataplane(phys))
    return make


def test_random_walk_converges_on_real_vpp(vpp_real_factory, sim_like):
    api_vpp, cli_vpp = vpp_real_factory(), vpp_real_factory()
    phys = api_vpp.phy_names
    stats: dict[str, Any] = {}
    with VppConnection.open(api_vpp.socket, api_vpp.api_dir) as real, \
            VppConnection.open(cli_vpp.socket, cli_vpp.api_dir) as cli:
        sim_vpp = sim_like(real.dump())
        with VppConnection.open(sim_vpp.socket, sim_vpp.api_dir) as sim:
            for seed in SEEDS:
                for step in walk(seed, phys, STEPS, stats):
                    label = where(seed, step)
                    outcome = apply_config(real, step.desired)
                    assert outcome.ok, f"{format_outcome(outcome)}\n{label}"
                    live = real.dump()
                    assert plan(step.desired, live) == [], label
                    check_dump(live, label)
                    cli_apply(cli_vpp, cli, step.desired, label)
                    sim_outcome = apply_config(sim, step.desired)
                    assert sim_outcome.ok, f"simulator: {format_outcome(sim_outcome)}\n{label}"
                    diff = differences(comparable(sim.dump()), comparable(live))
                    assert not diff, f"simulator and real VPP differ:\n{diff}\n{label}"
    assert stats["valid"] == len(SEEDS) * STEPS
