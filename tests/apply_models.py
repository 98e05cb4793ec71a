"""Desired dataplanes for the apply tests, built directly as models.

`sample_a`/`sample_b` are two fixed configs for the simulator's default
inventory (GigabitEthernet3/0/0..3); `dataplanes()` is a hypothesis strategy
of small valid configs, valid by construction: each PHY gets one role (L3
with subs, bridge member, bond member, cross-connected), so no interface is
used twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

from hypothesis import strategies as st

from vppcfg.model import (
    Acl,
    AclTerm,
    Bond,
    BondLoadBalance,
    BondMode,
    BridgeDomain,
    BridgeSettings,
    Dataplane,
    Encapsulation,
    FrozenDict,
    Interface,
    InterfaceAcls,
    InterfaceKind,
    PortRange,
    Sflow,
    VxlanTunnel,
    phy_at_defaults,
)
from vppcfg.objects.acl import acl_indexes

G = [f"GigabitEthernet3/0/{n}" for n in range(4)]


def phy(name: str, **kw: Any) -> Interface:
    return Interface(name=name, kind=InterfaceKind.PHY, **kw)


def sub(parent: str, vlan: int, **kw: Any) -> Interface:
    return Interface(name=f"{parent}.{vlan}", kind=InterfaceKind.SUB, parent=parent, sub_id=vlan,
                     encapsulation=kw.pop("encapsulation", Encapsulation(dot1q=vlan)), **kw)


def loop(n: int, **kw: Any) -> Interface:
    return Interface(name=f"loop{n}", kind=InterfaceKind.LOOPBACK, **kw)


def dp(*itfs: Interface, **collections: Any) -> Dataplane:
    extra = {k: collections.pop(k) for k in ("sflow",) if k in collections}
    parts = {k: FrozenDict({v.name: v for v in vals}) for k, vals in collections.items()}
    return Dataplane(interfaces=FrozenDict({i.name: i for i in itfs}), **parts, **extra)


SSH = Acl("ssh-in", terms=(
    AclTerm("permit", family="ipv4", source="192.0.2.0/24", protocol=6,
            destination_port=PortRange(22, 22)),
    AclTerm("deny"),
))


def sample_a() -> Dataplane:
    """Every kind of object, once."""
    return dp(
        phy(G[0], mtu=9000, lcp="e0", addresses=("192.0.2.1/30", "2001:db8::1/64"), mpls=True,
            acls=InterfaceAcls(input=("ssh-in",))),
        sub(G[0], 100, mtu=1500, addresses=("10.0.0.1/24",)),
        sub(G[0], 200, mtu=1500),
        phy(G[1], mtu=1500, l2xc=f"{G[0]}.200"),
        phy(G[2], mtu=9000), phy(G[3], mtu=9000),
        Interface(name="BondEthernet0", kind=InterfaceKind.BOND, mtu=9000,
                  addresses=("198.51.100.1/24",)),
        sub("BondEthernet0", 10, mtu=1500),
        loop(0, lcp="bvi10", addresses=("10.1.0.1/24",), mtu=1500),
        loop(1, unnumbered="loop0", mtu=1500),
        Interface(name="vxlan_tunnel0", kind=InterfaceKind.VXLAN, mtu=1500),
        bonds=[Bond("BondEthernet0", 0, mode=BondMode.LACP, members=(G[2], G[3]))],
        vxlan_tunnels=[VxlanTunnel("vxlan_tunnel0", 0, "192.0.2.1", "192.0.2.2", 100)],
        bridge_domains=[BridgeDomain("bd10", 10, mtu=1500, bvi="loop0",
                                     members=("BondEthernet0.10", "vxlan_tunnel0"))],
        acls=[SSH],
        sflow=Sflow(sampling_rate=1000),
    )


def bare() -> Dataplane:
    """Only the PHYs, with default settings (named, so their settings are reset)."""
    return dp(*(phy(name) for name in G))


def sample_b() -> Dataplane:
    """Changes, deletes and creates against sample_a."""
    return dp(
        phy(G[0], mtu=1500, addresses=("192.0.2.5/30",)),
        sub(G[0], 100, mtu=1400, addresses=("10.0.0.1/24", "10.0.9.1/24"), state="down"),
        phy(G[1], mtu=9000), phy(G[2], mtu=9000), phy(G[3], mtu=9000),
        Interface(name="BondEthernet0", kind=InterfaceKind.BOND, mtu=9000),
        loop(0, addresses=("10.1.0.1/24",), mtu=9000),
        loop(2, lcp="lo2", mtu=1500),
        bonds=[Bond("BondEthernet0", 0, mode=BondMode.XOR, members=(G[3],))],
        bridge_domains=[BridgeDomain("bd20", 20, mtu=9000, members=(G[1], G[2]),
                                     settings=BridgeSettings(learn=False))],
    )


# -- generated configs ----------------------------------------------------------

ROLES = ("l3", "bridge", "bond", "plain")


@st.composite
def dataplanes(draw: Any) -> Dataplane:
    """A small valid config for the default inventory."""
    itfs: list[Interface] = []
    roles = [draw(st.sampled_from(ROLES)) for _ in G]
    mtus = st.sampled_from([1500, 9000])
    bridge_members: list[str] = []
    bond_members: list[str] = []
    net = 0
    for n, (name, role) in enumerate(zip(G, roles, strict=True)):
        mtu = draw(mtus)
        if role == "l3":
            state = draw(st.sampled_from(["up", "down"]))
            acls = InterfaceAcls(input=("ssh-in",)) if draw(st.booleans()) else InterfaceAcls()
            itfs.append(phy(name, mtu=mtu, state=state,
                            addresses=(f"10.{n}.0.1/24",) if draw(st.booleans()) else (),
                            mpls=draw(st.booleans()), acls=acls,
                            lcp=f"e{n}" if draw(st.booleans()) else None))
            for vlan in draw(st.lists(st.sampled_from([100, 200]), unique=True, max_size=2)):
                net += 1
                # VPP refuses a sub up under an admin-down parent
                itfs.append(sub(name, vlan, mtu=min(mtu, 1500), state=state,
                                addresses=(f"172.16.{net}.1/24",) if draw(st.booleans()) else ()))
        else:
            itfs.append(phy(name, mtu=mtu if role != "bond" else 9000))
            if role == "bridge":
                bridge_members.append(name)
            elif role == "bond":
                bond_members.append(name)
    loops = draw(st.lists(st.integers(0, 2), unique=True, max_size=2))
    for n in loops:
        itfs.append(loop(n, mtu=draw(mtus), addresses=(f"192.168.{n}.1/32",),
                         lcp=f"lo{n}" if draw(st.booleans()) else None))
    plain = [i for i in itfs if i.kind is InterfaceKind.PHY and roles[G.index(i.name)] == "plain"]
    if len(plain) >= 2 and draw(st.booleans()):  # a cross-connect, both ways
        x, y = plain[0].name, plain[1].name
        itfs = [replace(i, l2xc=y) if i.name == x else replace(i, l2xc=x) if i.name == y else i
                for i in itfs]
    collections: dict[str, list[Any]] = {}
    if any(i.acls.input for i in itfs):
        collections["acls"] = [SSH]
    if bond_members:
        mode = draw(st.sampled_from([BondMode.LACP, BondMode.XOR, BondMode.ACTIVE_BACKUP]))
        lb = None if mode is BondMode.ACTIVE_BACKUP else BondLoadBalance.L34
        collections["bonds"] = [Bond("BondEthernet0", 0, mode=mode, load_balance=lb,
                                     members=tuple(sorted(bond_members)))]
        itfs.append(Interface(name="BondEthernet0", kind=InterfaceKind.BOND, mtu=9000))
    if bridge_members:
        bvi = "loop9" if draw(st.booleans()) else None
        if bvi:
            itfs.append(loop(9, mtu=1500, addresses=("10.99.0.1/24",)))
        if draw(st.booleans()):
            itfs.append(Interface(name="vxlan_tunnel0", kind=InterfaceKind.VXLAN, mtu=1500))
            collections["vxlan_tunnels"] = [VxlanTunnel("vxlan_tunnel0", 0, "192.0.2.1",
                                                        "192.0.2.2", draw(st.sampled_from(
                                                            [100, 200])))]
            bridge_members.append("vxlan_tunnel0")
        collections["bridge_domains"] = [BridgeDomain(
            "bd10", 10, mtu=1500, bvi=bvi, members=tuple(sorted(bridge_members)),
            settings=BridgeSettings(learn=draw(st.booleans())))]
        itfs = [replace(i, mtu=1500) if i.name in bridge_members else i for i in itfs]
    if draw(st.booleans()):
        collections["sflow"] = Sflow(sampling_rate=draw(st.sampled_from([1000, 10000])))
    return dp(*itfs, **collections)


# -- comparing a dump with a config -------------------------------------------------

# Config-only fields: VPP does not store them, so a dump cannot show them.
CONFIG_ONLY = {"description"}


def matches(desired: Dataplane, live: Dataplane) -> list[str]:
    """Where `live` differs from `desired` under "None = don't care" (foreign
    objects and config-only fields are ignored; a PHY the config does not name
    must be at its defaults, as a fresh VPP has it)."""
    problems: list[str] = []
    for coll in ("interfaces", "bonds", "vxlan_tunnels", "taps", "bridge_domains", "acls"):
        want, have = getattr(desired, coll), getattr(live, coll)
        for name, obj in want.items():
            if name not in have:
                problems.append(f"{coll}/{name} missing")
            elif coll == "acls":
                if _rules(obj, desired) != _rules(have[name], live):
                    problems.append(f"acls/{name}: rules differ")
            elif not _same(obj, have[name]):
                problems.append(f"{coll}/{name}: want {obj} have {have[name]}")
        for name, obj in have.items():
            key = f"{coll}/{name}"
            if name in want or key in live.foreign:
                continue
            if coll == "interfaces" and obj.kind is InterfaceKind.PHY:
                if not _same(phy_at_defaults(name), obj):
                    problems.append(f"{key}: not named, so at its defaults; have {obj}")
                continue
            problems.append(f"{key} should not exist")
    if desired.sflow != live.sflow:
        problems.append(f"sflow: want {desired.sflow} have {live.sflow}")
    return problems


def _rules(acl: Acl, dp: Dataplane) -> list[tuple[Any, ...]]:
    """ACLs compare as their expanded VPP rules."""
    from vppcfg.objects.acl import expand

    lists = dict(dp.prefixlists)
    return [rule for term in acl.terms for rule in expand(term, lists)]


def _same(want: Any, have: Any) -> bool:
    for f in fields(want):
        a, b = getattr(want, f.name), getattr(have, f.name)
        if f.name in CONFIG_ONLY or a is None:
            continue  # None: don't care
        if hasattr(a, "__dataclass_fields__") and not isinstance(a, type):
            if not _same(a, b):
                return False
        elif a != b:
            return False
    return True


# -- applying a plan as CLI text --------------------------------------------------

RUN_AGAIN = "run vppcfg plan again"


def run_cli_plan(conn: Any, desired: Dataplane, run_text: Any = None,
                 may_stay: Any = None) -> list[str]:
    """Apply as an operator would: run the plan's CLI text (``run_text(text)``,
    default: each line through cli_inband), then, when it created ACLs whose
    bindings it had to leave (VPP picks their index), the next plan's text.
    Returns the texts; the plan is then empty, or an AssertionError says what is left.
    With ``conn.linux`` set, the plan covers the Linux side too (CLI cannot reach
    it: only linux-cp's `lcp lcp-sync on`, written when VPP runs lcp-sync, can);
    ``may_stay(op)`` says which operations may be left (a known gap)."""
    from vppcfg.apply import describe
    from vppcfg.objects import render_cli
    from vppcfg.planner import plan

    def by_line(text: str) -> None:
        for line in text.splitlines():
            conn.cli(line)

    texts: list[str] = []
    for _ in range(2):
        live = conn.dump()
        # with the Linux side read and lcp-sync on, the text ends with `lcp lcp-sync on`
        # (as `vppcfg plan` prints it): linux-cp then makes every pair's netdev right
        sync = live.linux is not None and live.linux.settings.sync
        text = render_cli(plan(desired, live), acl_indexes(conn), linux_sync=sync)
        texts.append(text)
        (run_text or by_line)(text)
        if RUN_AGAIN not in text:
            break
    left = [op for op in plan(desired, conn.dump()) if may_stay is None or not may_stay(op)]
    assert left == [], ("CLI plan left:\n" + "\n".join(describe(op) for op in left)
                        + "\n--- CLI text run:\n" + "\n".join(texts))
    return texts


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0) -> bool:
    """Whether `predicate` came true within `timeout` seconds (polled every 50 ms)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False
