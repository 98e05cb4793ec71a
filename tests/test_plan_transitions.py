"""Random transitions between valid configs, executed on the simulator.

Hypothesis draws a few configs from a small universe (so that addresses, lcp
host names, bridge ports and bond members move around between them); each is
planned against the live (simulated) VPP, executed through the API, and must
leave a VPP that plans to nothing. The simulator refuses what VPP refuses
(an address in use, a bridge domain deleted with members, ...), so a wrong
order fails the test.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_plan import dp, loop, phy, sub
from vppcfg.model import (
    Bond,
    BondMode,
    BridgeDomain,
    BridgeSettings,
    Dataplane,
    Encapsulation,
    Interface,
    InterfaceKind,
    Sflow,
    Tap,
    TapHost,
    VxlanTunnel,
)
from vppcfg.objects import execute
from vppcfg.planner import plan

vpp = pytest.importorskip("vppcfg.vpp")

G0, G1, G2, G3 = (f"GigabitEthernet3/0/{n}" for n in range(4))
BOND = "BondEthernet0"


@st.composite
def configs(draw: st.DrawFn) -> Dataplane:
    mtu = st.sampled_from((1500, 9000))
    itfs: dict[str, Interface] = {}
    for name in (G0, G1, G2, G3):
        itfs[name] = phy(name, mtu=draw(mtu))
    for vlan in draw(st.sets(st.sampled_from((10, 20, 30)))):
        enc = draw(st.sampled_from((Encapsulation(dot1q=vlan), Encapsulation(dot1ad=vlan),
                                    Encapsulation(dot1q=vlan, inner_dot1q=5))))
        itfs[f"{G0}.{vlan}"] = sub(G0, vlan, encapsulation=enc, mtu=draw(mtu))
    for n in draw(st.sets(st.sampled_from((0, 1)))):
        itfs[f"loop{n}"] = loop(n, mtu=draw(mtu))
    taps, tunnels = [], []
    if draw(st.booleans()):
        taps.append(Tap("tap0", 0, TapHost(draw(st.sampled_from(("vpp-a", "vpp-b"))))))
        itfs["tap0"] = Interface(name="tap0", kind=InterfaceKind.TAP, mtu=draw(mtu))
    if draw(st.booleans()):
        vni = draw(st.sampled_from((100, 200)))
        tunnels.append(VxlanTunnel("vxlan_tunnel0", 0, "192.0.2.1", "192.0.2.2", vni))
        itfs["vxlan_tunnel0"] = Interface(name="vxlan_tunnel0", kind=InterfaceKind.VXLAN,
                                          mtu=draw(mtu))
    bonds = []
    members = draw(st.sets(st.sampled_from((G2, G3))))
    if draw(st.booleans()):
        mode = draw(st.sampled_from((BondMode.LACP, BondMode.XOR, BondMode.ROUND_ROBIN)))
        lb = None if mode is BondMode.ROUND_ROBIN else Bond("x", 0).load_balance
        bonds.append(Bond(BOND, 0, mode=mode, load_balance=lb, members=tuple(sorted(members))))
        itfs[BOND] = Interface(name=BOND, kind=InterfaceKind.BOND, mtu=draw(mtu))
        if draw(st.booleans()):
            itfs[f"{BOND}.100"] = sub(BOND, 100, mtu=draw(mtu))
    else:
        members = set()
    # Roles: bridge port, xconnect, or L3 (maybe with an address and an lcp).
    candidates = sorted(n for n in itfs if n not in members and n not in (G2, G3)
                        and not n.startswith("loop"))
    bridged = draw(st.sets(st.sampled_from(candidates))) if candidates else set()
    loops = sorted(n for n in itfs if n.startswith("loop"))
    bvi = draw(st.sampled_from([None, *loops]))
    bridges = []
    if bridged or bvi or draw(st.booleans()):
        settings = BridgeSettings(learn=draw(st.booleans()), arp_termination=draw(st.booleans()),
                                  mac_age_minutes=draw(st.sampled_from((0, 5))))
        bridges.append(BridgeDomain("bd1", 1, bvi=bvi, members=tuple(sorted(bridged)),
                                    settings=settings))
    l3 = [n for n in candidates + loops if n not in bridged]
    free = [n for n in l3 if n != bvi]
    if G1 in free and f"{G0}.30" in free and draw(st.booleans()):
        itfs[G1] = _set(itfs[G1], l2xc=f"{G0}.30")
        itfs[f"{G0}.30"] = _set(itfs[f"{G0}.30"], l2xc=G1)
        l3 = [n for n in l3 if n not in (G1, f"{G0}.30")]
    nets = draw(st.permutations(range(16)))
    hosts = draw(st.permutations(range(4)))
    for i, name in enumerate(l3):
        if draw(st.booleans()):
            itfs[name] = _set(itfs[name], addresses=(f"10.{nets[i]}.0.1/24",))
        if not itfs[name].is_sub and i < len(hosts) and draw(st.booleans()):
            itfs[name] = _set(itfs[name], lcp=f"h{hosts[i]}")
    sflow = Sflow(sampling_rate=draw(st.sampled_from((1000, 10000))))
    return dp(*itfs.values(), bonds=bonds, bridge_domains=bridges, sflow=sflow, taps=taps,
              vxlan_tunnels=tunnels)


def _set(itf: Interface, **changes: object) -> Interface:
    from dataclasses import replace

    return replace(itf, **changes)


EXAMPLES = int(os.environ.get("PLAN_EXAMPLES", "25"))  # raise it to hunt for bugs


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(configs(), min_size=2, max_size=3))
def test_random_transitions_converge(vpp_sim_factory: Callable, steps: list[Dataplane]) -> None:
    handle = vpp_sim_factory()
    try:
        with vpp.VppConnection.open(handle.socket, handle.api_dir) as conn:
            for desired in steps:
                ops = plan(desired, conn.dump())
                ctx = conn.context()
                for op in ops:
                    try:
                        execute(op, ctx)
                    except Exception as err:
                        raise AssertionError(f"{op.action} {op.key}: {err}") from err
                assert plan(desired, conn.dump()) == []
    finally:
        handle.close()
