"""Read the live VPP into a `Dataplane` (see the conventions in vppcfg.model).

Two steps: `collect` asks VPP (a fixed, small set of dumps plus two address
dumps per interface) and keeps the replies in plain form; `build_dataplane`
turns them into the model in one O(n) pass. Keeping the second step pure lets
tests feed it recorded replies.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace
from typing import Any

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
    Tap,
    TapHost,
    VxlanTunnel,
)
from vppcfg.vpp.errors import EAGAIN
from vppcfg.vpp.plain import plain_list

NONE = 0xFFFFFFFF
TAG = "vppcfg"  # what vppcfg writes on everything it creates

ADMIN_UP = 1
SUB_TWO_TAGS = 4
SUB_DOT1AD = 8
SUB_EXACT_MATCH = 16

BOND_MODES = {
    1: BondMode.ROUND_ROBIN,
    2: BondMode.ACTIVE_BACKUP,
    3: BondMode.XOR,
    4: BondMode.BROADCAST,
    5: BondMode.LACP,
}
BOND_LBS = {0: BondLoadBalance.L2, 1: BondLoadBalance.L34, 2: BondLoadBalance.L23}
ACL_ACTIONS = {0: "deny", 1: "permit", 2: "permit+reflect"}
ICMP_PROTOCOLS = (1, 58)
ZERO_MAC = "00:00:00:00:00:00"
MAX_ACL_NAME = 56  # the config language's limit


@dataclass
class RawDump:
    """VPP's replies in plain form, keyed as the builder needs them."""

    interfaces: list[dict[str, Any]] = field(default_factory=list)
    addresses: dict[int, list[str]] = field(default_factory=dict)  # sw_if_index -> prefixes
    bridge_domains: list[dict[str, Any]] = field(default_factory=list)
    l2xc: list[dict[str, Any]] = field(default_factory=list)
    bonds: list[dict[str, Any]] = field(default_factory=list)
    bond_members: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    taps: list[dict[str, Any]] = field(default_factory=list)
    vxlans: list[dict[str, Any]] = field(default_factory=list)
    lcp_pairs: list[dict[str, Any]] = field(default_factory=list)
    unnumbered: list[dict[str, Any]] = field(default_factory=list)
    mpls: list[dict[str, Any]] = field(default_factory=list)
    sflow_interfaces: list[int] = field(default_factory=list)  # hw_if_index
    sflow: dict[str, Any] | None = None
    acls: list[dict[str, Any]] = field(default_factory=list)
    acl_interfaces: list[dict[str, Any]] = field(default_factory=list)
    # hw_if_index -> sw_if_index; empty means "a PHY's hw index is its sw index"
    hw_to_sw: dict[int, int] = field(default_factory=dict)


# -- collecting ---------------------------------------------------------------


def collect(conn: Any) -> RawDump:
    """Ask VPP for everything the model holds. `conn` is a VppConnection.

    Two pipelined waves (VPP answers in order, so nothing waits for a round
    trip): every table at once, then what needs their indexes (the addresses
    of each interface, the members of each bond).
    """
    raw = RawDump()
    tables = _tables(conn)
    results = conn.call_many(list(tables.values()))
    got = {name: r if name == "lcp_pairs" else conn.check(m, a, r)  # lcp: paged, below
           for (name, (m, a)), r in zip(tables.items(), results, strict=True)}
    raw.interfaces = plain_list(got["interfaces"])
    raw.lcp_pairs = _lcp_pairs(conn, got.get("lcp_pairs"))
    for name in ("bridge_domains", "l2xc", "unnumbered", "mpls", "bonds", "taps", "vxlans",
                 "acls", "acl_interfaces"):
        if name in got:
            setattr(raw, name, plain_list(got[name]))
    if "sflow_interfaces" in got:
        raw.sflow_interfaces = [d.hw_if_index for d in got["sflow_interfaces"]]
        raw.sflow = {"sampling_rate": got["sflow_rate"].sampling_N,
                     "polling_interval": got["sflow_polling"].polling_S,
                     "header_bytes": got["sflow_header"].header_B}
    _second_wave(conn, raw, tables)
    # Only enabled interfaces need the hw -> sw map (a CLI round trip).
    if raw.sflow_interfaces and hasattr(conn, "hw_to_sw"):
        names = {d["interface_name"]: d["sw_if_index"] for d in raw.interfaces}
        raw.hw_to_sw = dict(conn.hw_to_sw(names))
    return raw


def _tables(conn: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """RawDump field -> the request that reads it, for what this VPP offers."""
    every = {"sw_if_index": NONE}
    tables: dict[str, tuple[str, dict[str, Any]]] = {"interfaces": ("sw_interface_dump", every)}
    if conn.has_message("lcp_itf_pair_get"):
        # Never lcp_itf_pair_get_v2 with sw_if_index ~0: VPP answers with the
        # v1 reply and the client waits forever.
        tables["lcp_pairs"] = ("lcp_itf_pair_get", {"cursor": 0})
    tables["bridge_domains"] = ("bridge_domain_dump", {"bd_id": NONE, "sw_if_index": NONE})
    tables["l2xc"] = ("l2_xconnect_dump", {})
    tables["unnumbered"] = ("ip_unnumbered_dump", every)
    if conn.has_message("mpls_interface_dump"):
        tables["mpls"] = ("mpls_interface_dump", every)
    if conn.has_message("sw_bond_interface_dump"):
        tables["bonds"] = ("sw_bond_interface_dump", every)
    elif conn.has_message("sw_interface_bond_dump"):
        tables["bonds"] = ("sw_interface_bond_dump", {})
    if conn.has_message("sw_interface_tap_v2_dump"):
        tables["taps"] = ("sw_interface_tap_v2_dump", every)
    for message in ("vxlan_tunnel_v2_dump", "vxlan_tunnel_dump"):
        if conn.has_message(message):
            tables["vxlans"] = (message, every)
            break
    if conn.has_message("sflow_interface_dump"):
        tables["sflow_interfaces"] = ("sflow_interface_dump", {"hw_if_index": NONE})
        tables["sflow_rate"] = ("sflow_sampling_rate_get", {})
        tables["sflow_polling"] = ("sflow_polling_interval_get", {})
        tables["sflow_header"] = ("sflow_header_bytes_get", {})
    if conn.has_message("acl_dump"):
        tables["acls"] = ("acl_dump", {"acl_index": NONE})
        tables["acl_interfaces"] = ("acl_interface_list_dump", every)
    return tables


def _lcp_pairs(conn: Any, first: Any) -> list[dict[str, Any]]:
    """The pairs from the first page, and the following pages if VPP has more."""
    if first is None:
        return []
    reply, details = first
    if reply.retval == EAGAIN:
        return plain_list([*details, *conn.dump_stream("lcp_itf_pair_get",
                                                       cursor=reply.cursor)])
    return plain_list(conn.check("lcp_itf_pair_get", {}, (reply, details))[1])


def _second_wave(conn: Any, raw: RawDump, tables: dict[str, Any]) -> None:
    """Addresses per interface and members per bond, in one pipelined batch."""
    # no addresses to read on local0 and linux-cp's host interfaces
    internal = {0} | {p["host_sw_if_index"] for p in raw.lcp_pairs}
    indexes = [i["sw_if_index"] for i in raw.interfaces if i["sw_if_index"] not in internal]
    requests = _address_requests(indexes)
    bonds = [b["sw_if_index"] for b in raw.bonds if b.get("members", b.get("slaves", 1))]
    if bonds:
        member_dump = ("sw_member_interface_dump" if tables["bonds"][0] == "sw_bond_interface_dump"
                       else "sw_interface_slave_dump")
        requests += [(member_dump, {"sw_if_index": b}) for b in bonds]
    results = conn.call_many(requests)
    n = 2 * len(indexes)
    raw.addresses = _addresses(requests[:n], results[:n])
    for bond, details in zip(bonds, results[n:], strict=True):
        raw.bond_members[bond] = plain_list(details)


def _address_requests(indexes: list[int]) -> list[tuple[str, dict[str, Any]]]:
    return [("ip_address_dump", {"sw_if_index": i, "is_ipv6": v6}) for i in indexes
            for v6 in (False, True)]


def _addresses(requests: list[tuple[str, dict[str, Any]]],
               replies: list[Any]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for (_, args), details in zip(requests, replies, strict=True):
        if details:
            out.setdefault(args["sw_if_index"], []).extend(str(d.prefix) for d in details)
    return out


def collect_addresses(conn: Any, indexes: list[int]) -> dict[int, list[str]]:
    """v4 and v6 addresses per interface (VPP has no "all interfaces" form)."""
    requests = _address_requests(indexes)
    return _addresses(requests, conn.call_many(requests))


# -- building -----------------------------------------------------------------


@dataclass
class _Index:
    """Lookups shared by the builders."""

    names: dict[int, str]  # sw_if_index -> name, for every interface VPP has
    kept: dict[int, Interface]  # sw_if_index -> model interface (internal ones skipped)


def build_dataplane(raw: RawDump) -> Dataplane:
    names = {i["sw_if_index"]: i["interface_name"] for i in raw.interfaces}
    classify = _Classifier(raw)
    foreign: set[str] = set()
    kept: dict[int, Interface] = {}
    for d in sorted(raw.interfaces, key=lambda d: d["sw_if_index"]):
        kind = classify(d)
        if kind is None:
            continue
        index = d["sw_if_index"]
        itf = _interface(d, kind, names, raw.addresses.get(index, ()))
        kept[index] = itf
        if kind is not InterfaceKind.PHY and d["tag"] != TAG:
            foreign.add(f"interfaces/{itf.name}")
    idx = _Index(names, kept)

    _apply_lcp(raw, idx)
    _apply_l2xc(raw, idx)
    _apply_unnumbered(raw, idx)
    _apply_flags(raw, idx)
    acls, acl_names = _acls(raw, foreign)
    _apply_interface_acls(raw, idx, acl_names)
    _clear_member_macs(raw, idx)

    interfaces = {itf.name: itf for itf in kept.values()}
    bonds = _bonds(raw, idx, foreign)
    taps = _taps(raw, idx, foreign)
    vxlans = _vxlans(raw, idx, foreign)
    bridges = _bridges(raw, idx, foreign)
    sflow = Sflow(**raw.sflow) if raw.sflow else Sflow()
    return Dataplane(
        interfaces=FrozenDict(sorted(interfaces.items())),
        bonds=FrozenDict(sorted(bonds.items())),
        vxlan_tunnels=FrozenDict(sorted(vxlans.items())),
        taps=FrozenDict(sorted(taps.items())),
        bridge_domains=FrozenDict(sorted(bridges.items(), key=lambda kv: kv[1].bd_id)),
        acls=FrozenDict(acls),
        sflow=sflow,
        foreign=frozenset(foreign),
    )


class _Classifier:
    """The model kind of an interface detail, or None for VPP-internal ones."""

    def __init__(self, raw: RawDump) -> None:
        # linux-cp's host taps/tuns are VPP's own plumbing: known from the pairs
        self.skipped = {0} | {p["host_sw_if_index"] for p in raw.lcp_pairs}
        self.bonds = {b["sw_if_index"] for b in raw.bonds}
        self.vxlans = {v["sw_if_index"] for v in raw.vxlans}
        self.taps = {t["sw_if_index"] for t in raw.taps} - self.skipped
        self.by_index = {d["sw_if_index"]: d for d in raw.interfaces}

    def __call__(self, d: dict[str, Any]) -> InterfaceKind | None:
        index = d["sw_if_index"]
        if index in self.skipped or d["interface_dev_type"] == "local":
            return None
        if d["sup_sw_if_index"] != index:
            parent = self.by_index.get(d["sup_sw_if_index"])
            # only subs of top-level interfaces we model (not local0.N, lcp taps)
            if parent is None or self(parent) is None or self._is_sub(parent):
                return None
            return InterfaceKind.SUB
        if index in self.bonds:
            return InterfaceKind.BOND
        if index in self.vxlans:
            return InterfaceKind.VXLAN
        if index in self.taps:
            return InterfaceKind.TAP
        if d["interface_dev_type"] == "Loopback":
            return InterfaceKind.LOOPBACK
        return InterfaceKind.PHY

    @staticmethod
    def _is_sub(d: dict[str, Any]) -> bool:
        return d["sup_sw_if_index"] != d["sw_if_index"]


def _interface(d: dict[str, Any], kind: InterfaceKind, names: dict[int, str],
               addresses: Any) -> Interface:
    mtu = d["mtu"][0] or d["link_mtu"]  # 0: never set, VPP uses the hw MTU
    mac = d["l2_address"]
    common = {
        "kind": kind,
        "mtu": mtu,
        "state": "up" if d["flags"] & ADMIN_UP else "down",
        "addresses": tuple(sorted(_canonical_prefix(a) for a in addresses)),
    }
    if kind is InterfaceKind.SUB:
        parent = names[d["sup_sw_if_index"]]
        return Interface(
            name=f"{parent}.{d['sub_id']}",
            mac=None if mac == ZERO_MAC else mac,
            parent=parent,
            sub_id=d["sub_id"],
            encapsulation=_encapsulation(d),
            **common,
        )
    device = d["interface_dev_type"] if kind is InterfaceKind.PHY else None
    return Interface(name=d["interface_name"], mac=mac, device_type=device, **common)


def _canonical_prefix(prefix: str) -> str:
    return str(ipaddress.ip_interface(prefix))


def _encapsulation(d: dict[str, Any]) -> Encapsulation:
    flags = d["sub_if_flags"]
    outer = d["sub_outer_vlan_id"]
    two = bool(flags & SUB_TWO_TAGS) or d["sub_number_of_tags"] == 2
    return Encapsulation(
        dot1q=0 if flags & SUB_DOT1AD else outer,
        dot1ad=outer if flags & SUB_DOT1AD else 0,
        inner_dot1q=d["sub_inner_vlan_id"] if two else 0,
        exact_match=bool(flags & SUB_EXACT_MATCH),
    )


def _replace(idx: _Index, index: int, **changes: Any) -> None:
    """Set fields of a kept interface (no-op for interfaces we skip)."""
    itf = idx.kept.get(index)
    if itf is not None:
        idx.kept[index] = replace(itf, **changes)


def _clear_member_macs(raw: RawDump, idx: _Index) -> None:
    """A bond member's MAC is the bond's (VPP gives it to every member): it is
    the bond's setting, and a config may not name it on the member."""
    for members in raw.bond_members.values():
        for member in members:
            _replace(idx, member["sw_if_index"], mac=None)


def _apply_lcp(raw: RawDump, idx: _Index) -> None:
    for pair in raw.lcp_pairs:
        _replace(idx, pair["phy_sw_if_index"], lcp=pair["host_if_name"])


def _apply_l2xc(raw: RawDump, idx: _Index) -> None:
    for xc in raw.l2xc:
        tx = idx.names.get(xc["tx_sw_if_index"])
        if tx is not None:
            _replace(idx, xc["rx_sw_if_index"], l2xc=tx)


def _apply_unnumbered(raw: RawDump, idx: _Index) -> None:
    for u in raw.unnumbered:
        source = idx.names.get(u["ip_sw_if_index"])
        if source is not None:
            _replace(idx, u["sw_if_index"], unnumbered=source)


def _apply_flags(raw: RawDump, idx: _Index) -> None:
    for m in raw.mpls:
        _replace(idx, m["sw_if_index"], mpls=True)
    for hw in raw.sflow_interfaces:
        sw = raw.hw_to_sw.get(hw, hw)
        itf = idx.kept.get(sw)
        if itf is not None and itf.kind is InterfaceKind.PHY:
            _replace(idx, sw, sflow=True)


def acl_names(details: list[dict[str, Any]]) -> dict[int, str]:
    """acl_index -> the ACL's name in the model: its tag, or ``acl-index-N``
    when it has none or an ACL with a lower index has the same tag. Every
    ACL gets a name, so CLI rendering knows every index that is taken."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for a in sorted(details, key=lambda a: a["acl_index"]):
        tag = a["tag"]
        name = tag if tag and tag not in seen else f"acl-index-{a['acl_index']}"
        seen.add(name)
        names[a["acl_index"]] = name
    return names


def _acls(raw: RawDump, foreign: set[str]) -> tuple[dict[str, Acl], dict[int, str]]:
    acls: dict[str, Acl] = {}
    names = acl_names(raw.acls)
    for a in sorted(raw.acls, key=lambda a: a["acl_index"]):
        tag, name = a["tag"], names[a["acl_index"]]
        acls[name] = Acl(name=name, terms=tuple(_acl_term(r) for r in a["r"]))
        if not looks_like_ours(tag) or name != tag:
            foreign.add(f"acls/{name}")
    return acls, names


def looks_like_ours(tag: str) -> bool:
    """An ACL tag vppcfg could have written: a valid config ACL name."""
    from vppcfg.config.names import LIST_NAME_RE

    return len(tag) <= MAX_ACL_NAME and bool(LIST_NAME_RE.fullmatch(tag))


def _acl_term(rule: dict[str, Any]) -> AclTerm:
    src, dst = rule["src_prefix"], rule["dst_prefix"]
    family = "ipv6" if ":" in src else "ipv4"
    proto = rule["proto"]
    first = PortRange(rule["srcport_or_icmptype_first"], rule["srcport_or_icmptype_last"])
    second = PortRange(rule["dstport_or_icmpcode_first"], rule["dstport_or_icmpcode_last"])
    ports: dict[str, PortRange] = (
        # ICMP types and codes are 8 bits: a CLI rule without them holds 0-65535, i.e. any
        {"icmp_type": _icmp(first), "icmp_code": _icmp(second)}
        if proto in ICMP_PROTOCOLS
        else {"source_port": first, "destination_port": second}
    )
    return AclTerm(
        action=ACL_ACTIONS.get(rule["is_permit"], "deny"),
        family=family,
        source=_canonical_prefix(src),
        destination=_canonical_prefix(dst),
        protocol=proto,
        **ports,
    )


def _icmp(values: PortRange) -> PortRange:
    return PortRange(min(values.first, 255), min(values.last, 255))


def _apply_interface_acls(raw: RawDump, idx: _Index, acl_names: dict[int, str]) -> None:
    for entry in raw.acl_interfaces:
        if not entry["acls"]:
            continue
        named = [acl_names.get(a, f"acl-index-{a}") for a in entry["acls"]]
        n_in = entry["n_input"]
        _replace(idx, entry["sw_if_index"],
                 acls=InterfaceAcls(input=tuple(named[:n_in]), output=tuple(named[n_in:])))


def _bonds(raw: RawDump, idx: _Index, foreign: set[str]) -> dict[str, Bond]:
    bonds: dict[str, Bond] = {}
    for b in raw.bonds:
        itf = idx.kept.get(b["sw_if_index"])
        if itf is None:
            continue
        mode = BOND_MODES.get(b["mode"], BondMode.LACP)
        lb = BOND_LBS.get(b["lb"]) if mode in (BondMode.XOR, BondMode.LACP) else None
        members = tuple(sorted(m["interface_name"] for m in raw.bond_members.get(
            b["sw_if_index"], ())))
        bonds[itf.name] = Bond(name=itf.name, instance=b["id"], mode=mode, load_balance=lb,
                               members=members, mac=itf.mac)
        if f"interfaces/{itf.name}" in foreign:
            foreign.add(f"bonds/{itf.name}")
    return bonds


def _taps(raw: RawDump, idx: _Index, foreign: set[str]) -> dict[str, Tap]:
    taps: dict[str, Tap] = {}
    for t in raw.taps:
        itf = idx.kept.get(t["sw_if_index"])
        if itf is None or itf.kind is not InterfaceKind.TAP:
            continue
        host = TapHost(
            name=t["host_if_name"],
            mac=None if t["host_mac_addr"] == ZERO_MAC else t["host_mac_addr"],
            mtu=t["host_mtu_size"] or 1500,  # 0: not set, Linux default
            bridge=t["host_bridge"] or None,
            namespace=t["host_namespace"] or None,
        )
        taps[itf.name] = Tap(name=itf.name, instance=t["id"], host=host,
                             rx_ring_size=t["rx_ring_sz"], tx_ring_size=t["tx_ring_sz"])
        if f"interfaces/{itf.name}" in foreign:
            foreign.add(f"taps/{itf.name}")
    return taps


def _vxlans(raw: RawDump, idx: _Index, foreign: set[str]) -> dict[str, VxlanTunnel]:
    tunnels: dict[str, VxlanTunnel] = {}
    for v in raw.vxlans:
        itf = idx.kept.get(v["sw_if_index"])
        if itf is None:
            continue
        tunnels[itf.name] = VxlanTunnel(
            name=itf.name,
            instance=v["instance"],
            local=str(ipaddress.ip_address(v["src_address"])),
            remote=str(ipaddress.ip_address(v["dst_address"])),
            vni=v["vni"],
        )
        if f"interfaces/{itf.name}" in foreign:
            foreign.add(f"vxlan_tunnels/{itf.name}")
    return tunnels


def _bridges(raw: RawDump, idx: _Index, foreign: set[str]) -> dict[str, BridgeDomain]:
    bridges: dict[str, BridgeDomain] = {}
    for b in raw.bridge_domains:
        if b["bd_id"] == 0:
            continue
        bvi_index = b["bvi_sw_if_index"]
        bvi = idx.names.get(bvi_index) if bvi_index != NONE else None
        member_ids = [m["sw_if_index"] for m in b["sw_if_details"] if m["sw_if_index"] != bvi_index]
        members = tuple(sorted(idx.names[m] for m in member_ids if m in idx.names))
        mtus = [idx.kept[i].mtu for i in [*member_ids, bvi_index] if i in idx.kept]
        name = f"bd{b['bd_id']}"
        bridges[name] = BridgeDomain(
            name=name,
            bd_id=b["bd_id"],
            mtu=max(mtus) if mtus else 1500,
            bvi=bvi,
            members=members,
            settings=BridgeSettings(
                learn=b["learn"],
                unicast_flood=b["flood"],
                unknown_unicast_flood=b["uu_flood"],
                unicast_forward=b["forward"],
                arp_termination=b["arp_term"],
                arp_unicast_forward=b["arp_ufwd"],
                mac_age_minutes=b["mac_age"],
            ),
        )
        if b["bd_tag"] != TAG:
            foreign.add(f"bridge_domains/{name}")
    return bridges


__all__ = ["RawDump", "build_dataplane", "collect", "collect_addresses", "looks_like_ours"]
