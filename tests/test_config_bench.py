"""The benchmark's generated configs are valid and have the size they claim
(so `bench/bench_check.py` measures real checks, not early failures)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from vppcfg import config

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_check.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_check", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_config_is_valid_and_sized() -> None:
    bench = _bench()
    dp = config.loads(bench.generate(300))
    objects = len(dp.interfaces) + len(dp.bridge_domains) + len(dp.bonds)
    assert 300 <= objects < 330
    assert dp.bonds and dp.vxlan_tunnels and dp.bridge_domains
    assert any(i.lcp and i.addresses for i in dp.interfaces.values() if i.is_sub)
