"""A seeded random walk through configs of the whole language.

``random_config(rng, phys)`` draws one config (a plain dict in the YAML
language) over the given PHY names, using every object type and field:
bonds (every mode, members changing, sub-interfaces in use, L3 or as a bridge
member or cross-connected), dot1q / dot1ad / QinQ / QinAD sub-interfaces, l2xc,
bridges with BVI and tag-rewrite (sub-interface members), lcp on PHYs, bonds,
loopbacks and sub-interfaces, vxlan, taps (host MAC, MTU, namespace, Linux
bridge, both ring sizes), MPLS, unnumbered on loopbacks, PHYs and
sub-interfaces, ACLs and prefix lists whose terms change in place, sFlow,
device-type, MTUs up and down, one or more addresses per family drawn from one
shared pool so consecutive configs move them between interfaces.

Taps go into the Linux namespaces passed as ``tap_namespaces`` (which must
exist) and onto Linux bridge ``tbr0`` (which should exist where the tap's host
side lands) or ``tbr-absent`` (VPP accepts a bridge that does not exist).

``snapshot()`` reads the full state a VPP reports (every field of the replies
vppcfg reads: MACs, lcp host taps, tag-rewrite, ...) in a form two VPPs in the
same state agree on.

Each PHY takes one role per config (L3 with subs, bond member, bridge
member, cross-connected, untouched), so most draws are valid by construction;
``walk()`` still checks every draw with vppcfg's own loader and redraws the
few the semantic rules refuse, counting them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from vppcfg import config
from vppcfg.model import Dataplane

MTUS = (1500, 9000, 1400, 2000, 9216)
V4 = [f"10.{n}.0.1/24" for n in range(12)]
V6 = [f"2001:db8:{n:x}::1/64" for n in range(12)]
SUB_IDS = (100, 200, 300, 400)
BOND_MODES = ("lacp", "xor", "round-robin", "active-backup", "broadcast")
TAP_BRIDGES = ("tbr0", "tbr-absent")


@dataclass
class _Draw:
    rng: random.Random
    v4: list[str]
    v6: list[str]
    lcp_n: int = 0
    tap_namespaces: Sequence[str] = ()
    # L3 interfaces drawn without addresses: candidates for unnumbered
    bare_l3: list[dict[str, Any]] = field(default_factory=list)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def addresses(self) -> list[str]:
        out = []
        for pool, p in ((self.v4, 0.6), (self.v6, 0.4)):
            if pool and self.chance(p):
                out.append(pool.pop())
                if pool and self.chance(0.25):  # a second one of the family
                    out.append(pool.pop())
        return out

    def lcp(self, base: str) -> str:
        self.lcp_n += 1
        return f"{base}{self.lcp_n}"


def random_config(rng: random.Random, phys: list[str],
                  tap_namespaces: Sequence[str] = ()) -> dict[str, Any]:
    d = _Draw(rng, rng.sample(V4, len(V4)), rng.sample(V6, len(V6)),
              tap_namespaces=tap_namespaces)
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
        if d.chance(0.3):  # the bond cross-connected (an l2xc takes its subs' frames)
            itfs[name] = {"mtu": mtu}
            xc_ports.append((name, mtu))
            continue
        if d.chance(0.3):  # the bond a bridge member
            itfs[name] = {"mtu": mtu}
            l2_ports.append((name, mtu))
        else:
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
            _device_type(d, itfs.get(p))
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
        _device_type(d, itfs[p])
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


def _device_type(d: _Draw, body: dict[str, Any] | None) -> None:
    """IPng's informational PHY class: accepted on any PHY, never sent to VPP."""
    if body is not None and d.chance(0.1):
        body["device-type"] = "dpdk"


def _l3(d: _Draw, mtu: int, lcp_base: str, l3_targets: list[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"mtu": mtu}
    addresses = d.addresses()
    if addresses:
        body["addresses"] = addresses
    else:
        d.bare_l3.append(body)
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
        kind = d.rng.choice(("dot1q", "dot1q", "dot1ad", "qinq", "qinad", "l2", "xc"))
        # a QinQ sub fits in its outer dot1q sub: 1400 is the smallest MTU drawn
        mtu = 1400 if kind in ("qinq", "qinad") else min(pmtu, d.rng.choice(MTUS))
        body: dict[str, Any] = {"mtu": mtu}
        if kind == "dot1ad":
            body["encapsulation"] = {"dot1ad": sub_id + 1, "exact-match": True}
        elif kind == "qinad":
            body["encapsulation"] = {"dot1ad": d.rng.choice((sub_id + 1, 999)),
                                     "inner-dot1q": d.rng.randrange(1, 50),
                                     "exact-match": d.chance(0.8)}
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
        elif exact:
            d.bare_l3.append(body)
        outer_lcp = dot1q_lcp.get(body.get("encapsulation", {}).get("dot1q", -1))
        can_lcp = ("lcp" in pbody and exact and kind != "qinad"
                   and (kind != "qinq" or outer_lcp))
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
        if d.tap_namespaces and d.chance(0.4):
            host["namespace"] = d.rng.choice(d.tap_namespaces)
        if d.chance(0.3):
            host["bridge"] = d.rng.choice(TAP_BRIDGES)
        taps[f"tap{n}"] = {"host": host}
        for ring in ("rx-ring-size", "tx-ring-size"):
            if d.chance(0.3):
                taps[f"tap{n}"][ring] = d.rng.choice((256, 512, 1024))
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
    """Some loopbacks, PHYs, bonds and sub-interfaces without addresses borrow
    those of another interface."""
    loops = cfg.get("loopbacks", {})
    bvis = {b.get("bvi") for b in cfg.get("bridgedomains", {}).values()}
    # targets have addresses, so none of them becomes unnumbered itself
    if not l3_targets:
        return
    for name, body in loops.items():
        if name in bvis or "addresses" in body or not d.chance(0.5):
            continue
        body["unnumbered"] = d.rng.choice(l3_targets)
        body.pop("mpls", None)
    loop_bodies = [id(b) for b in loops.values()]
    for body in d.bare_l3:
        free = id(body) not in loop_bodies and "l2xc" not in body
        if free and d.chance(0.4):
            body["unnumbered"] = d.rng.choice(l3_targets)


def _acls(d: _Draw, cfg: dict[str, Any]) -> None:
    if not d.chance(0.5):
        return
    # the same names with other contents: consecutive configs change them in place
    members = ["192.0.2.0/24", "2001:db8::/48", "198.51.100.7", "2001:db8:5::/64"]
    cfg["prefixlists"] = {"trusted": {"members": d.rng.sample(members, d.rng.randrange(1, 5))}}
    acls = {
        "ssh-in": {"terms": [
            {"action": d.rng.choice(("permit", "permit+reflect")), "source": "trusted",
             "protocol": "tcp", "destination-port": d.rng.choice((22, 2222, "1024-2048"))},
            *([{"action": "permit", "protocol": "udp", "destination-port": 53}]
              if d.chance(0.5) else []),
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


def walk(seed: int, phys: list[str], steps: int, stats: dict[str, int] | None = None,
         tap_namespaces: Sequence[str] = ()) -> Iterator[Step]:
    """``steps`` valid configs; draws the rules refuse are redrawn (and counted)."""
    rng = random.Random(seed)
    stats = stats if stats is not None else {}
    for n in range(steps):
        for _ in range(50):
            text = to_text(random_config(rng, phys, tap_namespaces))
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


# -- the full state VPP reports -----------------------------------------------------------------

# Fields that differ between two VPPs given the same changes without being state: the
# reply's context, Linux's ifindex of an lcp host (the kernel's counter, which the other
# VPP's namespace advances differently) and the af_packet link's speed and duplex.
VOLATILE = frozenset({"context", "vif_index", "link_speed", "link_duplex"})
NONE = 0xFFFFFFFF
INDEX_FIELDS = ("sw_if_index", "sup_sw_if_index", "bvi_sw_if_index", "uu_fwd_sw_if_index",
                "rx_sw_if_index", "tx_sw_if_index", "phy_sw_if_index", "host_sw_if_index",
                "ip_sw_if_index")
MAC_FIELDS = ("l2_address", "host_mac_addr", "b_dmac", "b_smac")
NAMESPACE_FIELDS = ("host_namespace", "netns")
UNORDERED = frozenset({"sw_if_details"})  # a bridge's members: a set, in VPP's hash order


@dataclass
class MacNames:
    """How MACs read in a snapshot: the ones a config wrote stay as they are, a PHY's
    own (copied to bonds, members and lcp host taps) becomes ``mac-of-<PHY>``, and the
    ones VPP or Linux draws at random become ``drawn`` (two VPPs draw differently)."""

    phys: dict[str, str]  # MAC -> the PHY that had it first
    written: set[str]  # every MAC a config of the walk wrote so far

    def __call__(self, mac: str) -> str:
        mac = mac.lower()
        if mac == "00:00:00:00:00:00" or mac in self.written:
            return mac
        return f"mac-of-{self.phys[mac]}" if mac in self.phys else "drawn"


    @classmethod
    def of_phys(cls, conn: Any) -> MacNames:
        """Named after the PHYs of a VPP as it starts."""
        details = conn.call("sw_interface_dump", sw_if_index=NONE)
        return cls({str(d.l2_address): d.interface_name for d in details
                    if d.interface_name.startswith("host-")}, set())

    def learn(self, desired: Dataplane) -> None:
        """The MACs a config sets (interfaces, bonds, tap hosts) stay literal from now on."""
        macs = {i.mac for i in desired.interfaces.values()}
        macs |= {b.mac for b in desired.bonds.values()}
        macs |= {t.host.mac for t in desired.taps.values()}
        self.written |= {m.lower() for m in macs if m}


def snapshot(conn: Any, macs: MacNames, namespaces: dict[str, str] | None = None
             ) -> dict[str, Any]:
    """Everything vppcfg's reads return from VPP, raw (every field of every reply, not
    only what the model keeps), with indexes replaced by names, MACs by ``macs`` and
    Linux namespaces renamed by ``namespaces``: two VPPs in the same state give equal
    snapshots."""
    from vppcfg.objects.sflow import SETTERS
    from vppcfg.vpp.dump import collect

    sflow_fields = [(name, field) for name, (_, field, _) in SETTERS.items()]
    raw = collect(conn)
    names = {d["sw_if_index"]: d["interface_name"] for d in raw.rows("interfaces")}
    names[NONE] = "none"
    # An lcp host tap is named by its pair: VPP numbers them (tap4096, ...) in the
    # order pairs are made, which the API and the CLI paths need not share.
    hosts = {p["host_sw_if_index"]: f"lcp-host-{p['host_if_name']}"
             for p in raw.rows("lcp_pairs")}
    names.update(hosts)
    hw_names = {hw: names[sw] for hw, sw in raw.keyed("hw_to_sw").items()}
    clean = _Cleaner(names, macs, namespaces or {})
    numbered = ("interface_name", "dev_name", "id")
    acl_tags = {a["acl_index"]: a["tag"] for a in raw.rows("acls")}
    return {
        "interfaces": {names[d["sw_if_index"]]: clean(
            d, drop=numbered if d["sw_if_index"] in hosts else ())
            for d in raw.rows("interfaces")},
        "addresses": {names[i]: sorted(a) for i, a in raw.keyed("addresses").items()},
        "bridge_domains": {d["bd_id"]: clean(d) for d in raw.rows("bridge_domains")},
        "l2xc": sorted(tuple(sorted(clean(d).items())) for d in raw.rows("l2xc")),
        "bonds": {names[d["sw_if_index"]]: clean(d) for d in raw.rows("bonds")},
        "bond_members": {names[b]: sorted((clean(m) for m in ms), key=str)
                         for b, ms in raw.keyed("bond_members").items()},
        "taps": {names[d["sw_if_index"]]: clean(
            d, drop=numbered if d["sw_if_index"] in hosts else ()) for d in raw.rows("taps")},
        "vxlans": {names[d["sw_if_index"]]: clean(d) for d in raw.rows("vxlans")},
        "lcp_pairs": {names[d["phy_sw_if_index"]]: clean(d) for d in raw.rows("lcp_pairs")},
        "unnumbered": sorted(tuple(sorted(clean(d).items())) for d in raw.rows("unnumbered")),
        "mpls": sorted(names[d["sw_if_index"]] for d in raw.rows("mpls")),
        "sflow_interfaces": sorted(hw_names.get(d["hw_if_index"], f"hw{d['hw_if_index']}")
                                   for d in raw.rows("sflow_interfaces")),
        "sflow": {name: raw[f"sflow_{name}"][field] for name, field in sflow_fields
                  if f"sflow_{name}" in raw},
        "acls": {a["tag"]: clean(a, drop=("acl_index",)) for a in raw.rows("acls")},
        "acl_interfaces": {names[d["sw_if_index"]]: {
            "input": [acl_tags[i] for i in d["acls"][:d["n_input"]]],
            "output": [acl_tags[i] for i in d["acls"][d["n_input"]:]]}
            for d in raw.rows("acl_interfaces") if d["count"]},
    }


@dataclass
class _Cleaner:
    names: dict[int, str]
    macs: MacNames
    namespaces: dict[str, str]

    def __call__(self, d: dict[str, Any], drop: tuple[str, ...] = ()) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in d.items():
            if key in VOLATILE or key in drop:
                continue
            if key in INDEX_FIELDS:
                value = self.names.get(value, f"index{value}")
            elif key in MAC_FIELDS:
                value = self.macs(str(value))
            elif key in NAMESPACE_FIELDS:
                value = self.namespaces.get(value, value)
            elif isinstance(value, list):
                value = [self(v) if isinstance(v, dict) else v for v in value]
                if key in UNORDERED:
                    value.sort(key=str)
            out[key] = value
        return out


def snapshot_differences(a: dict[str, Any], b: dict[str, Any], labels: tuple[str, str],
                         path: str = "") -> list[str]:
    """Where two snapshots differ, one line per leaf, named by its path."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(a.keys() | b.keys(), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append(f"{where}: {labels[0]} {a.get(key, '<absent>')!r} "
                           f"{labels[1]} {b.get(key, '<absent>')!r}")
            else:
                out += snapshot_differences(a[key], b[key], labels, where)
        return out
    return [] if a == b else [f"{path}: {labels[0]} {a!r} {labels[1]} {b!r}"]
