"""A large router's config in the shape of issue 20's 100,000-object file.

    python bench/scale_config.py [OBJECTS] > big.yaml     # default 95,905

At 95,905 objects (interfaces, bridge domains and vxlan tunnels each count one):
506 PHYs (MTU 9000, an lcp and a v4 + v6 address each), 83,399 dot1q
sub-interfaces (of which 4,000 are L2 members of bridge domains, the rest carry
an lcp and a v4 + v6 address), 4,000 bridge domains (an L2 sub-interface, a
vxlan tunnel and a loopback BVI with an lcp and an address each), 4,000 vxlan
tunnels, 4,000 loopbacks: about 162,000 addresses and 12 MB of YAML, the
issue's file being 76,599 sub-interfaces, 156,000 addresses and 11.6 MB. Smaller
sizes scale every part by the same factor; the loopbacks (at most 4,096 in the
language) and bridge domains stop growing at 4,000.
"""

from __future__ import annotations

import ipaddress
import sys
from dataclasses import dataclass

FULL = 95_905
PHYS, BRIDGES = 506, 4_000


@dataclass(frozen=True)
class Shape:
    phys: int
    bridges: int  # = vxlan tunnels = loopbacks = L2 sub-interfaces
    subs: int  # all sub-interfaces, the L2 ones included

    @property
    def objects(self) -> int:
        return self.phys + self.subs + 3 * self.bridges


def shape(objects: int, phys: int | None = None) -> Shape:
    scale = objects / FULL
    phys = phys or max(1, round(PHYS * scale))
    bridges = max(1, min(BRIDGES, round(BRIDGES * scale)))
    return Shape(phys, bridges, max(bridges, objects - phys - 3 * bridges))


def _v4(n: int, host: int) -> str:
    return f"10.{n >> 14 & 255}.{n >> 6 & 255}.{(n & 63) << 2 | host}"


def _v6(n: int, host: int) -> str:
    return str(ipaddress.IPv6Address((0x20010DB8 << 96) | (n << 64) | host))  # canonical


def _addresses(net: int, indent: str) -> str:
    """An interface's line of addresses: the `net`-th /30 and /64."""
    return f"{indent}addresses: [{_v4(net, 1)}/30, {_v6(net, 1)}/64]"


def _qinq(sub: int) -> str:
    """Past VLAN 4000 (a few PHYs holding many sub-interfaces), QinQ from outer tag 4001."""
    if sub <= 4000:
        return ""
    outer, inner = divmod(sub - 4001, 4094)
    return (f"        encapsulation: {{dot1q: {4001 + outer}, inner-dot1q: {inner + 1}, "
            "exact-match: true}\n")


def generate(objects: int = FULL, phy_names: list[str] | None = None, lcp: bool = True,
             addresses: bool = True) -> str:
    """The config text (see the module's docstring for its composition). `phy_names`:
    these PHYs instead (a real VPP's; sub-interfaces past the 4,000th of a PHY are QinQ);
    `lcp=False`: no lcp pairs (a test VPP whose kernel would hold a tap for each);
    `addresses=False`: no interface addresses (a sub-interface says its MTU instead),
    to tell VPP's cost of addresses from the rest."""

    def l3(net: int, indent: str) -> str:
        return _addresses(net, indent) if addresses else f"{indent}mtu: 1500"

    s = shape(objects, len(phy_names) if phy_names else None)
    per_phy, extra = divmod(s.subs, s.phys)
    l2_per_phy = -(-s.bridges // s.phys)  # the first VLANs of each PHY, until enough
    out = ["interfaces:"]
    add = out.append
    net = 0  # a /30 and a /64 per addressed interface
    l2_subs: list[str] = []
    for p in range(s.phys):
        name = phy_names[p] if phy_names else f"HundredGigabitEthernet{p // 256 + 1:x}/{p % 256}/0"
        add(f"  {name}:\n    mtu: 9000\n" + (f"    lcp: e{p}\n" if lcp else "") +
            (_addresses(net, "    ") + "\n" if addresses else "") +
            "    sub-interfaces:")
        net += 1
        for sub in range(1, per_phy + (p < extra) + 1):
            if len(l2_subs) < s.bridges and sub <= l2_per_phy:
                add(f"      {sub}:\n        mtu: 1500")  # a bridge domain's member
                l2_subs.append(f"{name}.{sub}")
                continue
            add(f"      {sub}:\n" + _qinq(sub) + (f"        lcp: e{p}.{sub}\n" if lcp else "") +
                l3(net, "        "))
            net += 1
    for b in range(s.bridges):
        add(f"  vxlan_tunnel{b}:\n    mtu: 1500")
    add("loopbacks:")
    for b in range(s.bridges):
        add(f"  loop{b}:\n" + (f"    lcp: bvi{b}\n" if lcp else "") + l3(net, "    "))
        net += 1
    add("vxlan_tunnels:")
    for b in range(s.bridges):
        add(f"  vxlan_tunnel{b}:\n    local: {_v4(net, 1)}\n    remote: {_v4(net, 2)}\n"
            f"    vni: {b + 1}")
        net += 1
    add("bridgedomains:")
    for b in range(s.bridges):
        add(f"  bd{b + 1}:\n    bvi: loop{b}\n    interfaces: [{l2_subs[b]}, vxlan_tunnel{b}]")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else FULL))
