"""A seeded random walk through configs of the whole language.

``random_config(rng, phys)`` draws one config (a plain dict in the YAML
language) over the given PHY names, using every object type and field:
bonds (every mode, members changing, sub-interfaces in use), dot1q / dot1ad /
QinQ sub-interfaces, l2xc, bridges with BVI and tag-rewrite (sub-interface
members), lcp on PHYs, bonds, loopbacks and sub-interfaces, vxlan, taps, MPLS,
unnumbered, ACLs, sFlow, MTUs up and down, addresses drawn from one shared
pool so consecutive configs move them between interfaces.

Each PHY takes one role per config (L3 with subs, bond member, bridge
member, cross-connected, untouched), so most draws are valid by construction;
``walk()`` still checks every draw with vppcfg's own loader and redraws the
few the semantic rules refuse, counting them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from vppcfg import config
from vppcfg.model import Dataplane

MTUS = (1500, 9000, 1400, 2000, 9216)
V4 = [f"10.{n}.0.1/24" for n in range(12)]
V6 = [f"2001:db8:{n:x}::1/64" for n in range(12)]
SUB_IDS = (100, 200, 300, 400)
BOND_MODES = ("lacp", "xor", "round-robin", "active-backup", "broadcast")


@dataclass
class _Draw:
    rng: random.Random
    v4: list[str]
    v6: list[str]
    lcp_n: int = 0

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def addresses(self) -> list[str]:
        out = []
        if self.v4 and self.chance(0.6):
            out.append(self.v4.pop())
        if self.v6 and self.chance(0.4):
            out.append(self.v6.pop())
        return out

    def lcp(self, base: str) -> str:
        self.lcp_n += 1
        return f"{base}{self.lcp_n}"


def random_config(rng: random.Random, phys: list[str]) -> dict[str, Any]:
    d = _Draw(rng, rng.sample(V4, len(V4)), rng.sample(V6, len(V6)))
    cfg: dict[str, Any] = {"interfaces": {}}
    itfs = cfg["interfaces"]
    roles = {p: rng.choice(("l3", "l3", "bond", "bridge", "l2xc", "none")) for p in phys}
    l3_targets: list[str] = []  # interfaces with addresses (for unnumbered)
    l2_ports: list[tuple[str, int]] = []  # (name, mtu) free for bridge or l2xc
    xc_ports: list[tuple[str, int]] = []

    # bonds first: their members are PHYs in the "bond" role
    members = [p for p in phys if roles[p] == "bond"]
    bonds: dict[str, Any] = {}
    n_bonds = 0 if not members else rng.choice((1, 1, 2))
    for b in range(n_bonds):
        name = f"BondEthernet{b}"
        mode = rng.choice(BOND_MODES)
        body: dict[str, Any] = {"mode": mode}
        if mode in ("xor", "lacp") and d.chance(0.7):
            body["load-balance"] = rng.choice(("l2", "l23", "l34"))
        mine = members[b::n_bonds]
        if mine:
            body["interfaces"] = mine
        if d.chance(0.2):
            body["mac"] = f"02:fe:be:{rng.randrange(256):02x}:00:0{b}"
        if d.chance(0.3):
            body["description"] = f"bond {b} " + "x" * rng.randrange(0, 90)
        bonds[name] = body
        mtu = rng.choice(MTUS)
        for m in mine:
            itfs[m] = {"mtu": mtu}
        itfs[name] = _l3(d, mtu, f"be{b}", l3_targets)
        _subs(d, name, itfs[name], mtu, l3_targets, l2_ports, xc_ports)
    if bonds:
        cfg["bondethernets"] = bonds
    for p in phys:
        role = roles[p]
        if role == "bond" and p not in itfs:
            role = "none"
        if role == "none" or role == "bond":
            # named with defaults: a PHY the config leaves out keeps its addresses
            # (vppcfg leaves it alone), and a later config could not reuse them
            if role == "none":
                itfs[p] = {"mtu": rng.choice(MTUS)} if d.chance(0.3) else {}
            continue
        mtu = rng.choice(MTUS)
        if role == "l3":
            body = _l3(d, mtu, f"e{phys.index(p)}", l3_targets)
            if d.chance(0.4):
                body["sflow"] = True
            if d.chance(0.2):
                body["mac"] = f"02:fe:aa:{rng.randrange(256):02x}:00:{phys.index(p):02x}"
            itfs[p] = body
            _subs(d, p, body, mtu, l3_targets, l2_ports, xc_ports)
        else:
            itfs[p] = {"mtu": mtu}
            (l2_ports if role == "bridge" else xc_ports).append((p, mtu))
    _loopbacks(d, cfg, l3_targets)
    _tunnels_and_taps(d, cfg, l2_ports)
    _bridges(d, cfg, l2_ports)
    _xconnects(d, cfg, xc_ports + l2_ports)
    _unnumbered(d, cfg, l3_targets)
    _acls(d, cfg)
    if d.chance(0.5):
        cfg["sflow"] = {k: v for k, v in {
            "sampling-rate": rng.choice((100, 1000, 10000)),
            "polling-interval": rng.choice((None, 10, 30)),
            "header-bytes": rng.choice((None, 64, 128, 256)),
        }.items() if v is not None}
    return cfg


def _l3(d: _Draw, mtu: int, lcp_base: str, l3_targets: list[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"mtu": mtu}
    addresses = d.addresses()
    if addresses:
        body["addresses"] = addresses
    if d.chance(0.5):
        body["lcp"] = d.lcp(lcp_base)
    if d.chance(0.25):
        body["mpls"] = True
    if d.chance(0.15):
        body["state"] = "down"
    if d.chance(0.3):
        body["description"] = "d" * d.rng.randrange(1, 100)
    return body


def _subs(d: _Draw, parent: str, pbody: dict[str, Any], pmtu: int, l3_targets: list[str],
          l2_ports: list[tuple[str, int]], xc_ports: list[tuple[str, int]]) -> None:
    if "addresses" in pbody:
        l3_targets.append(parent)
    ids = d.rng.sample(SUB_IDS, d.rng.randrange(0, 4))
    subs: dict[int, Any] = {}
    dot1q_lcp: dict[int, str] = {}
    for sub_id in sorted(ids):
        name = f"{parent}.{sub_id}"
        kind = d.rng.choice(("dot1q", "dot1q", "dot1ad", "qinq", "l2", "xc"))
        # a QinQ sub fits in its outer dot1q sub: 1400 is the smallest MTU drawn
        mtu = 1400 if kind == "qinq" else min(pmtu, d.rng.choice(MTUS))
        body: dict[str, Any] = {"mtu": mtu}
        if kind == "dot1ad":
            body["encapsulation"] = {"dot1ad": sub_id + 1, "exact-match": True}
        elif kind == "qinq":
            outer = d.rng.choice([s for s in ids if s != sub_id] or [sub_id + 7])
            body["encapsulation"] = {"dot1q": outer, "inner-dot1q": d.rng.randrange(1, 50),
                                     "exact-match": True}
        elif d.chance(0.3):
            body["encapsulation"] = {"dot1q": sub_id, "exact-match": d.chance(0.7)}
        if pbody.get("state") == "down" and d.chance(0.7):  # else up under a down parent
            body["state"] = "down"
        if kind in ("l2", "xc"):
            (l2_ports if kind == "l2" else xc_ports).append((name, mtu))
            subs[sub_id] = body
            continue
        exact = body.get("encapsulation", {}).get("exact-match", True)
        addresses = d.addresses() if exact else []
        if addresses:
            body["addresses"] = addresses
            l3_targets.append(name)
        outer_lcp = dot1q_lcp.get(body.get("encapsulation", {}).get("dot1q", -1))
        can_lcp = "lcp" in pbody and exact and (kind != "qinq" or outer_lcp)
        if can_lcp and d.chance(0.6):
            body["lcp"] = d.lcp(f"{pbody['lcp'][:6]}.")
            if kind in ("dot1q",) and "inner-dot1q" not in body.get("encapsulation", {}):
                dot1q_lcp[body.get("encapsulation", {}).get("dot1q", sub_id)] = body["lcp"]
        if exact and d.chance(0.2):
            body["mpls"] = True
        subs[sub_id] = body
    if subs:
        pbody["sub-interfaces"] = subs


def _loopbacks(d: _Draw, cfg: dict[str, Any], l3_targets: list[str]) -> None:
    loops: dict[str, Any] = {}
    for n in d.rng.sample(range(4), d.rng.randrange(0, 4)):
        name = f"loop{n}"
        body = _l3(d, d.rng.choice(MTUS), "lo", l3_targets)
        if d.chance(0.2):
            body["mac"] = f"02:fe:10:00:00:{n:02x}"
        loops[name] = body
        if "addresses" in body:
            l3_targets.append(name)
    if loops:
        cfg["loopbacks"] = loops


def _tunnels_and_taps(d: _Draw, cfg: dict[str, Any], l2_ports: list[tuple[str, int]]) -> None:
    tunnels: dict[str, Any] = {}
    for n in d.rng.sample(range(3), d.rng.randrange(0, 3)):
        local = d.rng.choice(("192.0.2.1", "2001:db8::1"))
        remote = "192.0.2.9" if ":" not in local else "2001:db8::9"
        tunnels[f"vxlan_tunnel{n}"] = {"local": local, "remote": f"{remote[:-1]}{n + 2}",
                                       "vni": d.rng.choice((100, 200, 300)) + n}
    taps: dict[str, Any] = {}
    for n in d.rng.sample(range(3), d.rng.randrange(0, 3)):
        mtu = d.rng.choice((1500, 9000))
        host: dict[str, Any] = {"name": f"vtap{n}", "mtu": mtu}
        if d.chance(0.3):
            host["mac"] = f"02:fe:ab:00:00:{n:02x}"
        taps[f"tap{n}"] = {"host": host}
        if d.chance(0.3):
            taps[f"tap{n}"]["rx-ring-size"] = d.rng.choice((256, 1024))
    itfs = cfg["interfaces"]
    for name in tunnels:
        mtu = d.rng.choice((1500, 9000))
        itfs[name] = {"mtu": mtu}
        l2_ports.append((name, mtu))
    for name, body in taps.items():
        itfs[name] = {"mtu": body["host"]["mtu"]}
        l2_ports.append((name, body["host"]["mtu"]))
    if tunnels:
        cfg["vxlan_tunnels"] = tunnels
    if taps:
        cfg["taps"] = taps


def _bridges(d: _Draw, cfg: dict[str, Any], l2_ports: list[tuple[str, int]]) -> None:
    d.rng.shuffle(l2_ports)
    bridges: dict[str, Any] = {}
    loops = cfg.get("loopbacks", {})
    free_bvis = [n for n, b in loops.items() if "unnumbered" not in b]
    for bd in (10, 20):
        if not l2_ports or d.chance(0.3):
            continue
        mtu = l2_ports[0][1]
        mine = [name for name, m in l2_ports if m == mtu][: d.rng.randrange(1, 4)]
        l2_ports[:] = [(n, m) for n, m in l2_ports if n not in mine]
        body: dict[str, Any] = {"mtu": mtu, "interfaces": mine}
        if free_bvis and d.chance(0.5):
            bvi = free_bvis.pop()
            body["bvi"] = bvi
            loops[bvi]["mtu"] = mtu
        if d.chance(0.5):
            body["settings"] = {
                "learn": d.chance(0.7), "unicast-flood": d.chance(0.7),
                "unknown-unicast-flood": d.chance(0.7), "unicast-forward": d.chance(0.8),
                "arp-termination": d.chance(0.3), "arp-unicast-forward": d.chance(0.3),
                "mac-age-minutes": d.rng.choice((0, 5, 60)),
            }
        bridges[f"bd{bd}"] = body
    if bridges:
        cfg["bridgedomains"] = bridges


def _xconnects(d: _Draw, cfg: dict[str, Any], ports: list[tuple[str, int]]) -> None:
    """Pairs of equal-MTU ports cross-connected both ways (sub-interfaces too)."""
    free = [(n, m) for n, m in ports if not n.startswith(("vxlan", "tap"))]
    d.rng.shuffle(free)
    while len(free) >= 2:
        (a, mtu), rest = free[0], free[1:]
        partner = next((n for n, m in rest if m == mtu), None)
        free = [(n, m) for n, m in rest if n != partner]
        if partner is None or d.chance(0.3):
            continue
        _body(cfg, a)["l2xc"] = partner
        _body(cfg, partner)["l2xc"] = a


def _body(cfg: dict[str, Any], name: str) -> dict[str, Any]:
    itfs = cfg["interfaces"]
    if name in itfs:
        return itfs[name]
    parent, sub_id = name.rsplit(".", 1)
    return itfs[parent]["sub-interfaces"][int(sub_id)]


def _unnumbered(d: _Draw, cfg: dict[str, Any], l3_targets: list[str]) -> None:
    """Some loopbacks without addresses borrow those of another interface."""
    loops = cfg.get("loopbacks", {})
    bvis = {b.get("bvi") for b in cfg.get("bridgedomains", {}).values()}
    for name, body in loops.items():
        # targets have addresses, so none of them becomes unnumbered itself
        targets = [t for t in l3_targets if t != name]
        if name in bvis or "addresses" in body or not targets or not d.chance(0.5):
            continue
        body["unnumbered"] = d.rng.choice(targets)
        body.pop("mpls", None)


def _acls(d: _Draw, cfg: dict[str, Any]) -> None:
    if not d.chance(0.5):
        return
    cfg["prefixlists"] = {"trusted": {"members": ["192.0.2.0/24", "2001:db8::/48"]}}
    acls = {
        "ssh-in": {"terms": [
            {"action": "permit", "source": "trusted", "protocol": "tcp", "destination-port": 22},
            {"action": "deny"},
        ]},
        "icmp": {"terms": [
            {"action": "permit", "family": "ipv4", "protocol": "icmp", "icmp-type": 8},
            {"action": "permit+reflect", "family": "ipv6", "protocol": "udp",
             "source-port": "1024-65535"},
        ]},
    }
    cfg["acls"] = {k: v for k, v in acls.items() if d.chance(0.7)} or {"ssh-in": acls["ssh-in"]}
    l3 = [body for body in _all_bodies(cfg) if "addresses" in body]
    for body in l3:
        if d.chance(0.4):
            names = list(cfg["acls"])
            direction = d.rng.choice(("input", "output"))
            body["acls"] = {direction: d.rng.sample(names, d.rng.randrange(1, len(names) + 1))}


def _all_bodies(cfg: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for section in ("interfaces", "loopbacks"):
        for body in cfg.get(section, {}).values():
            yield body
            yield from body.get("sub-interfaces", {}).values()


def to_text(cfg: dict[str, Any]) -> str:
    return yaml.safe_dump(cfg, sort_keys=False)


@dataclass
class Step:
    n: int
    text: str
    desired: Dataplane


def walk(seed: int, phys: list[str], steps: int, stats: dict[str, int] | None = None
         ) -> Iterator[Step]:
    """``steps`` valid configs; draws the rules refuse are redrawn (and counted)."""
    rng = random.Random(seed)
    stats = stats if stats is not None else {}
    for n in range(steps):
        for _ in range(50):
            text = to_text(random_config(rng, phys))
            try:
                desired = config.loads(text, filename=f"walk-{seed}-{n}.yaml")
            except config.ConfigError as err:
                stats["refused"] = stats.get("refused", 0) + 1
                stats.setdefault("examples", []).append(str(err).splitlines()[0])  # type: ignore[attr-defined]
                continue
            stats["valid"] = stats.get("valid", 0) + 1
            yield Step(n, text, desired)
            break
        else:
            raise AssertionError(f"seed {seed} step {n}: 50 draws in a row refused")
