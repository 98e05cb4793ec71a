"""Golden plans: each example config, planned with --novpp against its PHYs,
renders exactly as tests/golden/<example>.cli.

After an intended change, regenerate with:
    VPPCFG_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_plan_golden.py
and read the diff: it is the change in what vppcfg would do.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from tests.apply_models import run_cli_plan
from vppcfg.commands.plan import fresh_dataplane
from vppcfg.model import Dataplane, FrozenDict
from vppcfg.objects import render_cli
from vppcfg.planner import plan

ROOT = Path(__file__).resolve().parents[1]


def _is_config(path: Path) -> bool:
    """examples/ also holds a simulator inventory (a `phys` list): not a config."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return isinstance(data, dict) and "phys" not in data


EXAMPLES = [p for p in sorted((ROOT / "examples").glob("*.yaml")) if _is_config(p)]
GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_golden_plan(example: Path) -> None:
    config = pytest.importorskip("vppcfg.config", reason="the config loader is not available")
    desired = config.load(str(example))
    ops = plan(desired, fresh_dataplane(desired))
    text = render_cli(ops)
    golden = GOLDEN / f"{example.stem}.cli"
    if os.environ.get("VPPCFG_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden plan for {example.name}: set VPPCFG_UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8")
    # the plan reaches the config: nothing left to do afterwards
    assert plan(desired, desired) == []


def test_every_golden_has_an_example() -> None:
    stale = {p.stem for p in GOLDEN.glob("*.cli")} - {p.stem for p in EXAMPLES}
    assert not stale, f"golden plans without an example: {sorted(stale)}"


def without_sub_lcps(dp: Dataplane) -> Dataplane:
    """The recorded VPP ran on a kernel without 802.1q, so pairing a sub-interface
    fails there (-73) and the simulator does the same: leave those pairs out."""
    itfs = {k: replace(v, lcp=None) if v.is_sub else v for k, v in dp.interfaces.items()}
    return replace(dp, interfaces=FrozenDict(itfs))


@pytest.mark.parametrize("how", ["api", "cli"])
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_applies_on_the_simulator(example: Path, how: str, vpp_sim) -> None:
    """Each example, applied to a fresh simulator (whose PHYs are the examples'),
    dumps back to itself."""
    config = pytest.importorskip("vppcfg.config", reason="the config loader is not available")
    vpp = pytest.importorskip("vppcfg.vpp")
    from vppcfg.objects import execute

    desired = without_sub_lcps(config.load(str(example)))
    with vpp.VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        ops = plan(desired, conn.dump())
        if how == "cli":
            run_cli_plan(conn, desired)
        else:
            ctx = conn.context()
            for op in ops:
                execute(op, ctx)
        assert plan(desired, conn.dump()) == []
