"""Golden plans: each example config, planned with --novpp against its PHYs,
renders exactly as tests/golden/<example>.cli.

After an intended change, regenerate with:
    VPPCFG_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_plan_golden.py
and read the diff: it is the change in what vppcfg would do.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vppcfg.commands.plan import fresh_dataplane
from vppcfg.objects import render_cli
from vppcfg.planner import plan

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
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
