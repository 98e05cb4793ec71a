"""The benchmark's generated configs are valid and have the size they claim
(so `bench/bench_check.py` measures real checks, not early failures)."""

from __future__ import annotations

import importlib.util
import sys
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


def _scale():
    path = BENCH.parent / "scale_config.py"
    spec = importlib.util.spec_from_file_location("scale_config", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("scale_config", module)  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_scale_config_is_valid_and_has_the_shape_it_claims() -> None:
    scale = _scale()
    dp = config.loads(scale.generate(2000))
    shape = scale.shape(2000)
    assert len(dp.interfaces) + len(dp.bridge_domains) == shape.objects
    assert len(dp.bridge_domains) == len(dp.vxlan_tunnels) == shape.bridges
    subs = [i for i in dp.interfaces.values() if i.is_sub]
    assert len(subs) == shape.subs
    assert sum(1 for i in subs if i.lcp and len(i.addresses) == 2) == shape.subs - shape.bridges


def test_scale_config_on_few_phys_goes_qinq_and_can_drop_lcp() -> None:
    """The real-VPP variant: 5,000 sub-interfaces on one PHY, past VLAN 4,000 as QinQ."""
    scale = _scale()
    dp = config.loads(scale.generate(6000, ["host-s0"], lcp=False))
    subs = [i for i in dp.interfaces.values() if i.is_sub]
    assert len(subs) == scale.shape(6000, 1).subs > 4094
    assert not any(i.lcp for i in dp.interfaces.values())
    assert any(i.encapsulation.inner_dot1q for i in subs)


def test_scale_config_can_leave_the_addresses_out() -> None:
    """bench_real_scale --no-addresses: the same objects, not one address (a
    sub-interface then says its MTU, not to be empty)."""
    scale = _scale()
    with_them = config.loads(scale.generate(2000))
    dp = config.loads(scale.generate(2000, addresses=False))
    assert list(dp.interfaces) == list(with_them.interfaces)
    assert dp.bridge_domains == with_them.bridge_domains
    assert not any(i.addresses for i in dp.interfaces.values())
