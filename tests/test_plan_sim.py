"""Smoke test: plans executed on the simulator (through the API and through
the CLI) leave a VPP that dumps back to the config (it plans to nothing)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.apply_models import run_cli_plan
from tests.test_plan import dp, loop, phy, sub
from vppcfg.model import (
    Acl,
    AclTerm,
    Bond,
    BondMode,
    BridgeDomain,
    BridgeSettings,
    Dataplane,
    FrozenDict,
    Interface,
    InterfaceAcls,
    InterfaceKind,
    PortRange,
    PrefixList,
    Sflow,
    Tap,
    TapHost,
    VxlanTunnel,
)
from vppcfg.objects import execute, render_cli
from vppcfg.planner import plan

G0, G1, G2, G3 = (f"GigabitEthernet3/0/{n}" for n in range(4))


def config() -> Dataplane:
    bond = Bond("BondEthernet0", 0, mode=BondMode.LACP, members=(G2, G3))
    return dp(
        phy(G0, mtu=9000, lcp="e0", addresses=("192.0.2.1/30", "2001:db8::1/64"), mpls=True,
            sflow=True, acls=InterfaceAcls(input=("ssh",), output=("any",))),
        sub(G0, 100, mtu=1500, addresses=("10.0.0.1/24",)),  # sim kernel: no VLAN lcp
        sub(G0, 200, mtu=1500),
        phy(G1, mtu=1500, l2xc=f"{G0}.200"),
        sub(G0, 300, mtu=1500),
        phy(G2, mtu=9000), phy(G3, mtu=9000),
        Interface(name="BondEthernet0", kind=InterfaceKind.BOND, mtu=9000,
                  addresses=("198.51.100.1/24",)),
        sub("BondEthernet0", 10, mtu=1500),
        loop(0, lcp="bvi10", addresses=("10.1.0.1/24",), mtu=1500, mac="02:00:00:00:10:01"),
        Interface(name="tap0", kind=InterfaceKind.TAP, mtu=1500),
        loop(1, unnumbered="loop0", mtu=1500),
        Interface(name="vxlan_tunnel0", kind=InterfaceKind.VXLAN, mtu=1500),
        bonds=[bond],
        taps=[Tap("tap0", 0, TapHost("vpp-tap0", mtu=1500))],
        acls=[Acl("ssh", terms=(AclTerm("permit", source="mgmt", protocol=6,
                                        destination_port=PortRange(22, 22)),)),
              Acl("any", terms=(AclTerm("permit"),))],
        prefixlists=[PrefixList("mgmt", members=("192.0.2.0/24", "2001:db8::/48"))],
        sflow=Sflow(sampling_rate=1000),
        vxlan_tunnels=[VxlanTunnel("vxlan_tunnel0", 0, "192.0.2.1", "192.0.2.2", 100)],
        bridge_domains=[BridgeDomain("bd10", 10, bvi="loop0",
                                     members=("BondEthernet0.10", f"{G0}.300",
                                              "vxlan_tunnel0", "tap0"))],
    )


def _open(vpp_sim):
    vpp = pytest.importorskip("vppcfg.vpp")
    return vpp.VppConnection.open(vpp_sim.socket, vpp_sim.api_dir)


def test_plan_executed_through_the_api_converges(vpp_sim) -> None:
    with _open(vpp_sim) as conn:
        desired = config()
        ops = plan(desired, conn.dump())
        assert ops
        ctx = conn.context()
        for op in ops:
            execute(op, ctx)
        assert plan(desired, conn.dump()) == []
        # a bond mode change and a pruned sub converge too
        bond = desired.bonds["BondEthernet0"]
        changed = replace(
            desired,
            bonds=FrozenDict({bond.name: replace(bond, mode=BondMode.XOR)}),
            interfaces=FrozenDict({k: v for k, v in desired.interfaces.items()
                                   if k != f"{G0}.200" and k != G1}),
        )
        changed = replace(changed, interfaces=changed.interfaces.replace(G1, phy(G1)))
        # an ACL replaced in place, bridge settings changed in place
        ssh = desired.acls["ssh"]
        bd = desired.bridge_domains["bd10"]
        changed = replace(
            changed,
            acls=changed.acls.replace("ssh", replace(ssh, terms=(*ssh.terms, AclTerm("deny")))),
            bridge_domains=FrozenDict({"bd10": replace(bd, settings=BridgeSettings(
                learn=False, arp_termination=True, mac_age_minutes=5))}),
        )
        ctx = conn.context()
        ops = plan(changed, conn.dump())
        done = {(op.action, op.key) for op in ops}
        assert {("update", "acls/ssh"), ("update", "bridge_domains/bd10"),
                ("delete", "bonds/BondEthernet0"), ("create", "bonds/BondEthernet0")} <= done
        for op in ops:
            execute(op, ctx)
        assert plan(changed, conn.dump()) == []


def test_plan_executed_as_cli_converges(vpp_sim) -> None:
    with _open(vpp_sim) as conn:
        desired = config()

        def run(text: str) -> None:
            for line in text.splitlines():
                output = conn.cli(line)
                assert "unknown" not in output.lower() and "error" not in output.lower(), (
                    line, output)

        run_cli_plan(conn, desired, run)


VTR_DISABLED, VTR_POP_1 = 0, 3


def _vtr_ops(conn, names: list[str]) -> list[int]:
    by_name = {d.interface_name: d.vtr_op for d in conn.call("sw_interface_dump",
                                                              sw_if_index=0xFFFFFFFF)}
    return [by_name[name] for name in names]


@pytest.mark.parametrize("via", ["api", "cli"])
def test_xconnected_sub_interfaces_pop_their_tag(vpp_sim, via) -> None:
    # As bridge members do: the tag is popped on the way in (and pushed back
    # by the target's rewrite on the way out), so VLAN 100 <-> VLAN 200 works.
    from tests.apply_models import G
    from tests.apply_models import sub as vlan_sub
    from vppcfg.apply import apply_config
    from vppcfg.vpp import VppConnection

    a, b = f"{G[0]}.100", f"{G[1]}.200"
    xc = dp(phy(G[0]), phy(G[1]), vlan_sub(G[0], 100, l2xc=b), vlan_sub(G[1], 200, l2xc=a))
    l3 = dp(phy(G[0]), phy(G[1]), vlan_sub(G[0], 100), vlan_sub(G[1], 200))
    with VppConnection.open(vpp_sim.socket, vpp_sim.api_dir) as conn:
        assert apply_config(conn, l3).ok
        for target, want in ((xc, VTR_POP_1), (l3, VTR_DISABLED)):
            if via == "api":
                assert apply_config(conn, target).ok
            else:
                for line in render_cli(plan(target, conn.dump())).splitlines():
                    conn.cli(line)
            assert _vtr_ops(conn, [a, b]) == [want, want]
            assert plan(target, conn.dump()) == []
