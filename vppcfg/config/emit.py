"""From a model back to the config language (used by `vppcfg dump`).

Only what differs from the default is written, so a dump reads like a
hand-written config; `loads(to_yaml(dp)) == dp` for every model that `loads`
can produce. Fields the language cannot set (the MAC of a sub-interface,
tunnel or tap, which VPP chooses) are left out.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from vppcfg.config import tables
from vppcfg.config.build import SETTINGS
from vppcfg.config.names import DEVICE_TYPES
from vppcfg.config.sections import SECTIONS
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
    Interface,
    InterfaceKind,
    PortRange,
    PrefixList,
    Sflow,
    Tap,
    VxlanTunnel,
)

FOREIGN_COMMENT = "# not created by vppcfg"


# Said above a dump's `vppcfg: {allow: [...]}` section.
ALLOW_COMMENT = (
    "# This dataplane holds states that the vppcfg language refuses by default\n"
    "# (`vppcfg check --list-rules`); they are allowed here so that this file\n"
    "# checks and applies as it is. Fix a state, then drop its name.\n"
)


def to_dict(dp: Dataplane, allow_section: bool = True) -> dict[str, Any]:
    """The config-language form; with `allow_section`, a `vppcfg: {allow:
    [...]}` section naming the language rules the model needs allowed, so
    that the result always checks."""
    out = _sections(dp)
    needed = needed_allows(out) if allow_section else []
    return {"vppcfg": {"allow": needed}, **out} if needed else out


def needed_allows(data: dict[str, Any]) -> list[str]:
    """The language rules (vppcfg.config.verdicts) that config data breaks."""
    from vppcfg.config import loader, rules, verdicts
    from vppcfg.config.build import build

    doc = loader.Document("<model>", data, marks={})
    warnings = rules.run_all(build(data), doc, frozenset(verdicts.RULES), language_only=True)[1]
    return sorted({w.rule for w in warnings if w.rule})


def _sections(dp: Dataplane) -> dict[str, Any]:
    out: dict[str, Any] = {}
    interfaces = _interfaces(dp)
    sections = (
        ("interfaces", interfaces),
        ("loopbacks", {i.name: _iface_fields(i, None) for i in _kind(dp, InterfaceKind.LOOPBACK)}),
        ("bondethernets", {n: _bond(b) for n, b in sorted(dp.bonds.items())}),
        ("vxlan_tunnels", {n: _vxlan(v) for n, v in sorted(dp.vxlan_tunnels.items())}),
        ("taps", {n: _tap(t) for n, t in sorted(dp.taps.items())}),
        ("bridgedomains", {n: _bridge(b, dp) for n, b in sorted(dp.bridge_domains.items(),
                                                                 key=_bd)}),
        ("prefixlists", {n: _prefixlist(p) for n, p in sorted(dp.prefixlists.items())}),
        ("acls", {n: _acl(a) for n, a in sorted(dp.acls.items())}),
    )
    for name, body in sections:
        if body:
            out[name] = body
    sflow = _sflow(dp.sflow)
    if sflow:
        out["sflow"] = sflow
    return out


def to_yaml(dp: Dataplane, annotate_foreign: bool = False, allow_section: bool = True) -> str:
    data = to_dict(dp, allow_section)
    if not data:  # said explicitly: an empty file is refused (a truncated one looks the same)
        return "# an empty dataplane\ninterfaces: {}\n"
    text = _yaml(data)
    if annotate_foreign and dp.foreign:
        text = _annotate(text, dp)
    if "vppcfg" in data:
        text = ALLOW_COMMENT + text
    return text


def _yaml(data: dict[str, Any]) -> str:
    text = _dump(data, _FastDumper)
    if '"' in text:
        # libyaml folds a long double-quoted scalar (one with escapes) at
        # other points than PyYAML: those few files keep PyYAML's bytes.
        text = _dump(data, _Dumper)
    return text


def _dump(data: dict[str, Any], dumper: type) -> str:
    return yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=False, width=100)


class _Dumper(yaml.SafeDumper):
    """Short lists of plain values on one line (`addresses: [a, b]`), as people
    write them; lists of maps (ACL terms) stay in block style."""


def _list(dumper: yaml.SafeDumper, items: list[Any]) -> yaml.Node:
    flow = all(not isinstance(i, dict | list) for i in items)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


_Dumper.add_representer(list, _list)


class _FastDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """_Dumper's style, written by libyaml (PyYAML's C extension, in its wheels;
    PyYAML's own emitter where it is absent): the same bytes, 4x faster."""


_FastDumper.add_representer(list, _list)


# --- interfaces ----------------------------------------------------------------


def _kind(dp: Dataplane, kind: InterfaceKind) -> list[Interface]:
    return sorted(
        (i for i in dp.interfaces.values() if i.kind is kind), key=lambda i: _natural(i.name)
    )


def _natural(name: str) -> tuple:
    """Sort `GigabitEthernet3/0/10` after `GigabitEthernet3/0/9`, `loop10` after `loop9`."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"([0-9]+)", name))


def _bd(item: tuple[str, BridgeDomain]) -> int:
    return item[1].bd_id


def _interfaces(dp: Dataplane) -> dict[str, Any]:
    subs: dict[str, list[Interface]] = {}
    for iface in dp.interfaces.values():
        if iface.is_sub and iface.parent:
            subs.setdefault(iface.parent, []).append(iface)
    out: dict[str, Any] = {}
    nested = (InterfaceKind.SUB, InterfaceKind.LOOPBACK)
    tops = [i for i in dp.interfaces.values() if i.kind not in nested]
    # A model of only some objects (dump's block of foreign ones) can hold a
    # sub-interface without its parent: it is listed under the parent's name.
    orphans = [Interface(name=p, kind=InterfaceKind.PHY) for p in subs if p not in dp.interfaces]
    for iface in sorted([*tops, *orphans], key=lambda i: _natural(i.name)):
        orphan = iface.name not in dp.interfaces
        body = {} if orphan else _iface_fields(iface, None, _default_mtu(dp, iface))
        children = sorted(subs.get(iface.name, ()), key=lambda s: s.sub_id or 0)
        if children:
            parent = None if orphan else iface
            body["sub-interfaces"] = {s.sub_id: _iface_fields(s, parent) for s in children}
        # a bond always has its entry (the language wants one, rule bond-interface)
        if body or iface.kind in (InterfaceKind.PHY, InterfaceKind.BOND):
            out[iface.name] = body
    return out


def _default_mtu(dp: Dataplane, iface: Interface) -> int:
    tap = dp.taps.get(iface.name) if iface.kind is InterfaceKind.TAP else None
    return tap.host.mtu if tap else 1500


def _iface_fields(
    iface: Interface, parent: Interface | None, default_mtu: int = 1500
) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if iface.description:
        body["description"] = iface.description
    if iface.mac and iface.kind in (InterfaceKind.PHY, InterfaceKind.LOOPBACK):
        body["mac"] = iface.mac
    if iface.mtu != (parent.mtu if parent else default_mtu):
        body["mtu"] = iface.mtu
    if iface.lcp:
        body["lcp"] = iface.lcp
    if iface.addresses:
        body["addresses"] = list(iface.addresses)
    if iface.unnumbered:
        body["unnumbered"] = iface.unnumbered
    if iface.l2xc:
        body["l2xc"] = iface.l2xc
    if iface.state != "up":
        body["state"] = iface.state
    if iface.mpls:
        body["mpls"] = True
    if iface.sflow:
        body["sflow"] = True
    if iface.device_type in DEVICE_TYPES:  # VPP's other classes (af-packet, ...) have no spelling
        body["device-type"] = iface.device_type
    acls = {
        d: list(v) for d, v in (("input", iface.acls.input), ("output", iface.acls.output)) if v
    }
    if acls:
        body["acls"] = acls
    if iface.is_sub and iface.encapsulation and iface.sub_id is not None:
        encap = _encapsulation(iface.encapsulation, iface.sub_id)
        if encap:
            body["encapsulation"] = encap
        elif not body:  # the language refuses an empty sub-interface: say its tag
            body["encapsulation"] = {"dot1q": iface.sub_id, "exact-match": True}
    return body


def _encapsulation(encap: Encapsulation, sub_id: int) -> dict[str, Any]:
    if encap == Encapsulation(dot1q=sub_id):
        return {}
    out: dict[str, Any] = {}
    if encap.dot1q:
        out["dot1q"] = encap.dot1q
    if encap.dot1ad:
        out["dot1ad"] = encap.dot1ad
    if encap.inner_dot1q:
        out["inner-dot1q"] = encap.inner_dot1q
    out["exact-match"] = encap.exact_match
    return out


# --- other objects ---------------------------------------------------------------


def _bond(bond: Bond) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if bond.description:
        out["description"] = bond.description
    if bond.mac:
        out["mac"] = bond.mac
    if bond.members:
        out["interfaces"] = list(bond.members)
    if bond.mode is not BondMode.LACP:
        out["mode"] = bond.mode.value
    if bond.load_balance not in (None, BondLoadBalance.L34):
        out["load-balance"] = bond.load_balance.value
    return out


def _vxlan(tunnel: VxlanTunnel) -> dict[str, Any]:
    out: dict[str, Any] = {"description": tunnel.description} if tunnel.description else {}
    out.update(local=tunnel.local, remote=tunnel.remote, vni=tunnel.vni)
    return out


def _tap(tap: Tap) -> dict[str, Any]:
    out: dict[str, Any] = {"description": tap.description} if tap.description else {}
    host: dict[str, Any] = {"name": tap.host.name}
    if tap.host.mac:
        host["mac"] = tap.host.mac
    if tap.host.mtu != 1500:
        host["mtu"] = tap.host.mtu
    if tap.host.bridge:
        host["bridge"] = tap.host.bridge
    if tap.host.namespace:
        host["namespace"] = tap.host.namespace
    out["host"] = host
    if tap.rx_ring_size != 256:
        out["rx-ring-size"] = tap.rx_ring_size
    if tap.tx_ring_size != 256:
        out["tx-ring-size"] = tap.tx_ring_size
    return out


def _bridge(bridge: BridgeDomain, dp: Dataplane) -> dict[str, Any]:
    out: dict[str, Any] = {"description": bridge.description} if bridge.description else {}
    # A written MTU binds every member and the BVI: only when they all have it.
    ports = [dp.interfaces.get(n) for n in (*bridge.members, bridge.bvi) if n]
    if bridge.mtu != 1500 and all(p is None or p.mtu == bridge.mtu for p in ports):
        out["mtu"] = bridge.mtu
    if bridge.bvi:
        out["bvi"] = bridge.bvi
    if bridge.members:
        out["interfaces"] = list(bridge.members)
    default = BridgeSettings()
    settings = {
        key: getattr(bridge.settings, attr)
        for key, attr in SETTINGS.items()
        if getattr(bridge.settings, attr) != getattr(default, attr)
    }
    if settings:
        out["settings"] = settings
    return out


def _prefixlist(plist: PrefixList) -> dict[str, Any]:
    out: dict[str, Any] = {"description": plist.description} if plist.description else {}
    out["members"] = list(plist.members)
    return out


def _acl(acl: Acl) -> dict[str, Any]:
    out: dict[str, Any] = {"description": acl.description} if acl.description else {}
    out["terms"] = [_term(t) for t in acl.terms]
    return out


def _term(term: AclTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.description:
        out["description"] = term.description
    out["action"] = term.action
    if term.family != "any":
        out["family"] = term.family
    if term.source:
        out["source"] = term.source
    if term.destination:
        out["destination"] = term.destination
    if term.protocol:
        out["protocol"] = tables.PROTOCOL_NAMES.get(term.protocol, term.protocol)
    for key, value, top in (
        ("source-port", term.source_port, 65535),
        ("destination-port", term.destination_port, 65535),
        ("icmp-type", term.icmp_type, 255),
        ("icmp-code", term.icmp_code, 255),
    ):
        if value != PortRange(0, top):
            out[key] = _range(value, top)
    return out


def _range(value: PortRange, top: int) -> int | str:
    if value.first == value.last and (value.first > 0 or top == 255):
        return value.first
    if value.last == top:
        return f"{value.first}-"
    return f"{value.first}-{value.last}"


def _sflow(sflow: Sflow) -> dict[str, Any]:
    default = Sflow()
    out: dict[str, Any] = {}
    if sflow.sampling_rate != default.sampling_rate:
        out["sampling-rate"] = sflow.sampling_rate
    if sflow.polling_interval != default.polling_interval:
        out["polling-interval"] = sflow.polling_interval
    if sflow.header_bytes != default.header_bytes:
        out["header-bytes"] = sflow.header_bytes
    return out


# --- foreign objects ---------------------------------------------------------------


def _annotate(text: str, dp: Dataplane) -> str:
    """Put a comment line above each object that vppcfg did not create."""
    marked: set[tuple[str, ...]] = set()
    for key in dp.foreign:
        collection, _, name = key.partition("/")
        iface = dp.interfaces.get(name) if collection == "interfaces" else None
        if iface and iface.is_sub and iface.parent:
            marked.add(("interfaces", iface.parent, str(iface.sub_id)))
        elif iface and iface.kind is InterfaceKind.LOOPBACK:
            marked.add(("loopbacks", name))
        else:
            marked.add((SECTIONS.get(collection, collection), name))
    out: list[str] = []
    section = parent = ""
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        key = line.strip().split(":", 1)[0].strip("'\"")
        if indent == 0:
            section = key
        elif indent == 2:
            parent = key
            if (section, key) in marked:
                out.append("  " + FOREIGN_COMMENT)
        elif indent == 6 and section == "interfaces" and (section, parent, key) in marked:
            out.append("      " + FOREIGN_COMMENT)
        out.append(line)
    return "\n".join(out) + "\n"
