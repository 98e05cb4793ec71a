"""Convergence: from any state, applying a config leaves VPP equal to it.

For generated pairs of small valid configs A and B: apply A, apply B; the dump
must match B ("None = don't care") and plan to nothing. The same sequence run
as the plan's VPP CLI text (cli_inband) must reach the same state as the API.
The examples in examples/ are applied one after another the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.apply_models import bare, dataplanes, matches, run_cli_plan, sample_a, sample_b
from vppcfg.apply import apply_config, format_outcome
from vppcfg.model import Dataplane
from vppcfg.objects import render_cli
from vppcfg.objects.acl import acl_indexes
from vppcfg.planner import plan
from vppcfg.vpp import VppConnection

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def apply_ok(conn: Any, desired: Dataplane) -> None:
    outcome = apply_config(conn, desired)
    assert outcome.ok, format_outcome(outcome)
    live = conn.dump()
    assert plan(desired, live) == []
    assert matches(desired, live) == []


def apply_cli(conn: Any, desired: Dataplane) -> None:
    """Apply by running the plan's CLI text through cli_inband, one line at a time
    (a failing command answers retval != 0: VppApiError)."""
    run_cli_plan(conn, desired)


def _without_macs(dp: Dataplane) -> Any:
    """What must agree between two VPPs (random MACs may not)."""
    from dataclasses import replace

    itfs = {k: replace(v, mac=None) for k, v in dp.interfaces.items()}
    bonds = {k: replace(v, mac=None) for k, v in dp.bonds.items()}
    return itfs, bonds, dict(dp.bridge_domains), dict(dp.vxlan_tunnels), dp.sflow, dp.foreign


@given(a=dataplanes(), b=dataplanes())
@SETTINGS
def test_generated_pairs_converge(vpp_sim, a, b):
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        apply_ok(conn, a)
        apply_ok(conn, b)


@given(a=dataplanes(), b=dataplanes())
@settings(SETTINGS, max_examples=6)
def test_cli_path_reaches_the_api_state(vpp_sim_factory, a, b):
    api_sim, cli_sim = vpp_sim_factory(), vpp_sim_factory()
    with VppConnection.open(api_sim.socket, api_sim.api_dir) as api, \
            VppConnection.open(cli_sim.socket, cli_sim.api_dir) as cli:
        for desired in (a, b):
            apply_ok(api, desired)
            apply_cli(cli, desired)
            assert _without_macs(cli.dump()) == _without_macs(api.dump())
    api_sim.close()
    cli_sim.close()


def test_fixed_samples_both_paths(vpp_sim_factory):
    api_sim, cli_sim = vpp_sim_factory(), vpp_sim_factory()
    with VppConnection.open(api_sim.socket, api_sim.api_dir) as api, \
            VppConnection.open(cli_sim.socket, cli_sim.api_dir) as cli:
        for desired in (sample_a(), sample_b(), sample_a(), bare()):
            apply_ok(api, desired)
            apply_cli(cli, desired)
            assert _without_macs(cli.dump()) == _without_macs(api.dump())


def _bridge_and_sflow(settings: Any, sflow_on: str, rate: int) -> Dataplane:
    from tests.apply_models import G, dp, phy
    from vppcfg.model import BridgeDomain, Sflow

    return dp(*(phy(name, sflow=name == sflow_on) for name in G),
              bridge_domains=[BridgeDomain("bd10", 10, mtu=1500, members=(G[1], G[2]),
                                           settings=settings)],
              sflow=Sflow(sampling_rate=rate, polling_interval=rate // 100))


def test_bridge_settings_and_sflow_changes_both_paths(vpp_sim_factory):
    """Changed bridge flags and mac-age (`set bridge-domain ...`) and moved sFlow
    (`sflow enable-disable`, global setters) run as CLI and reach the API's state."""
    from vppcfg.model import BridgeSettings

    changed = BridgeSettings(learn=False, unicast_forward=False, unicast_flood=False,
                             unknown_unicast_flood=False, arp_termination=True,
                             arp_unicast_forward=True, mac_age_minutes=5)
    steps = [_bridge_and_sflow(BridgeSettings(), "GigabitEthernet3/0/0", 1000),
             _bridge_and_sflow(changed, "GigabitEthernet3/0/3", 5000),
             _bridge_and_sflow(BridgeSettings(mac_age_minutes=1), "GigabitEthernet3/0/0", 1000)]
    api_sim, cli_sim = vpp_sim_factory(), vpp_sim_factory()
    with VppConnection.open(api_sim.socket, api_sim.api_dir) as api, \
            VppConnection.open(cli_sim.socket, cli_sim.api_dir) as cli:
        for desired in steps:
            apply_ok(api, desired)
            apply_cli(cli, desired)
            assert _without_macs(cli.dump()) == _without_macs(api.dump())
        text = render_cli(plan(steps[1], cli.dump()), acl_indexes(cli))
        assert "set bridge-domain arp term 10" in text and "set bridge-domain mac-age 10 5" in text
        assert "sflow enable-disable GigabitEthernet3/0/3" in text


CONFIG_SECTIONS = {"interfaces", "bondethernets", "loopbacks", "bridgedomains", "vxlan_tunnels",
                   "taps", "prefixlists", "acls", "sflow"}


def _examples() -> list[Path]:
    """The example configs (examples/ also holds other files, e.g. a sim inventory)."""
    import yaml

    files = sorted(EXAMPLES.glob("*.yaml")) if EXAMPLES.is_dir() else []
    return [f for f in files if CONFIG_SECTIONS & set(yaml.safe_load(f.read_text()) or {})]


def test_examples_converge_in_sequence(vpp_sim):
    files = _examples()
    if not files:
        pytest.skip("no examples/*.yaml yet")
    config = pytest.importorskip("vppcfg.config")
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        for path in [*files, *reversed(files)]:
            desired = config.load(str(path))
            apply_ok(conn, desired)


def test_examples_cli_path_matches_api(vpp_sim_factory):
    files = _examples()
    if not files:
        pytest.skip("no examples/*.yaml yet")
    from vppcfg import config

    api_sim, cli_sim = vpp_sim_factory(), vpp_sim_factory()
    with VppConnection.open(api_sim.socket, api_sim.api_dir) as api, \
            VppConnection.open(cli_sim.socket, cli_sim.api_dir) as cli:
        for path in files:
            desired = config.load(str(path))
            apply_ok(api, desired)
            apply_cli(cli, desired)
            assert _without_macs(cli.dump()) == _without_macs(api.dump()), path.name
