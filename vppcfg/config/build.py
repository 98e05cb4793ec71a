"""From structurally valid config data to the typed `Dataplane` model.

Defaults are applied here (and only here); spellings are made canonical so
that a config and a dump of the same VPP state compare equal. Where each
object came from is kept in `Built.where` for the semantic rules' messages.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any

from vppcfg.config import names, tables
from vppcfg.config.problems import Path
from vppcfg.model import (
    NO_ACLS,
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
    PrefixList,
    Sflow,
    Tap,
    TapHost,
    VxlanTunnel,
    new_interface,
)

LB_MODES = (BondMode.XOR, BondMode.LACP)
FULL_PORTS = PortRange(0, 65535)
FULL_ICMP = PortRange(0, 255)


# An interface address's subnet as one int, (is IPv6 << 128 | network) << 8 |
# prefix length: it sorts as the address rules need (IPv4 first, then by
# network, then by length), and `subnet >> 8` puts the networks of both
# families on one line of numbers.
Subnet = int
_FAMILY = (0, 0, 0, 0, 0, 0, 1 << 128)  # by IP version


@dataclass
class Addresses:
    """Every address of the model's interfaces, as the builder read them (one
    entry each, in reading order): the address rules' input, so that no text
    is read twice and no walk of the model is needed to find them."""

    subnets: list[Subnet] = field(default_factory=list)
    owners: list[str] = field(default_factory=list)  # interface names
    texts: list[str] = field(default_factory=list)  # canonical


class Where(Mapping[str, Path]):
    """Model key ("interfaces/loop0", "bonds/BondEthernet0", ...) -> config
    path. A sub-interface's path follows from the model (its parent and id)
    and is made when asked: a large file has tens of thousands, the rules
    ask for a few, and storing them cost a tenth of building."""

    def __init__(self, named: dict[str, Path], interfaces: Mapping[str, Interface]) -> None:
        self.named = named  # every object's path but the sub-interfaces'
        self.interfaces = interfaces

    def get(self, key: str, default: Any = None) -> Any:  # without Mapping's try/except
        found = self.named.get(key)
        if found is None and key.startswith("interfaces/"):
            sub = self.interfaces.get(key[len("interfaces/"):])
            if sub is not None and sub.parent is not None:
                found = ("interfaces", sub.parent, "sub-interfaces", sub.sub_id)
        return default if found is None else found

    def __getitem__(self, key: str) -> Path:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        yield from self.named
        for iface in self.interfaces.values():
            if iface.parent is not None:
                yield f"interfaces/{iface.name}"

    def __len__(self) -> int:
        return len(self.named) + sum(i.parent is not None for i in self.interfaces.values())


@dataclass
class Built:
    dataplane: Dataplane
    raw: dict[str, Any]
    where: Mapping[str, Path] = field(default_factory=dict)
    addresses: Addresses = field(default_factory=Addresses)


class _Values:
    """The values of one build that are costly to read or shared by many
    objects. Interface addresses are spelled canonically, keeping each one's
    subnet: reading address text is the costliest step of building a large
    config, and the address rules need the subnets again. Encapsulations
    (immutable) are made once per distinct value: sub-interfaces of many
    parents have the same few."""

    def __init__(self) -> None:
        self.addresses = Addresses()
        self.encapsulations: dict[tuple[int, int, int, bool], Encapsulation] = {}

    def encapsulation(
        self, dot1q: int, dot1ad: int, inner_dot1q: int, exact_match: bool
    ) -> Encapsulation:
        key = (dot1q, dot1ad, inner_dot1q, exact_match)
        found = self.encapsulations.get(key)
        if found is None:
            found = self.encapsulations[key] = Encapsulation(*key)
        return found

    def canonical(self, owner: str, texts: list[str]) -> tuple[str, ...]:
        """The addresses (valid: the schema checked them) of the interface
        `owner`, canonical and sorted; each one recorded in self.addresses."""
        subnets, read, family = self.addresses.subnets, names.read_interface, _FAMILY
        out = []
        for text in texts:
            spelled, version, network, _, length = read(text)  # type: ignore[misc]
            subnets.append((family[version] | network) << 8 | length)
            out.append(spelled)
        self.addresses.owners += [owner] * len(out)
        self.addresses.texts += out
        out.sort()
        return tuple(out)


def build(data: dict[str, Any]) -> Built:
    where: dict[str, Path] = {}
    interfaces: dict[str, Interface] = {}  # all but the subs: the ones looked up by name here
    subs: list[tuple[str, Interface]] = []  # (name, sub): only sorted in with the others
    values = _Values()
    for name, body in data.get("loopbacks", {}).items():
        interfaces[name] = _interface(name, InterfaceKind.LOOPBACK, body, values)
        where[f"interfaces/{name}"] = ("loopbacks", name)
    for name, body in data.get("interfaces", {}).items():
        kind = names.interface_kind(name)
        if kind is InterfaceKind.LOOPBACK:
            continue  # reported by the interface rules: loopbacks live under `loopbacks`
        parent = _interface(name, kind, body, values)
        interfaces[name] = parent
        where[f"interfaces/{name}"] = ("interfaces", name)
        for sub_id, sub_body in body.get("sub-interfaces", {}).items():
            sub = _sub_interface(parent, sub_id, sub_body, values)
            subs.append((sub.name, sub))  # its place: see Where

    bonds = _section(data, "bondethernets", "bonds", where, _bond)
    vxlans = _section(data, "vxlan_tunnels", "vxlan_tunnels", where, _vxlan)
    taps = _section(data, "taps", "taps", where, _tap)
    # A bond, tunnel or tap not listed under `interfaces` still is an interface.
    for section, objects, kind in (
        ("bondethernets", bonds, InterfaceKind.BOND),
        ("vxlan_tunnels", vxlans, InterfaceKind.VXLAN),
        ("taps", taps, InterfaceKind.TAP),
    ):
        for name, obj in objects.items():
            if name not in interfaces:
                mtu = obj.host.mtu if isinstance(obj, Tap) else 1500
                interfaces[name] = Interface(name=name, kind=kind, mtu=mtu)
                where[f"interfaces/{name}"] = (section, name)
    _tap_mtus(interfaces, taps, data)

    dp = Dataplane(
        interfaces=FrozenDict(sorted([*interfaces.items(), *subs], key=itemgetter(0))),
        bonds=FrozenDict(bonds),
        vxlan_tunnels=FrozenDict(vxlans),
        taps=FrozenDict(taps),
        bridge_domains=FrozenDict(
            _section(data, "bridgedomains", "bridge_domains", where, _bridge)
        ),
        prefixlists=FrozenDict(_section(data, "prefixlists", "prefixlists", where, _prefixlist)),
        acls=FrozenDict(_section(data, "acls", "acls", where, _acl)),
        sflow=_sflow(data.get("sflow") or {}),
    )
    where["sflow"] = ("sflow",)
    return Built(dp, data, Where(where, dp.interfaces), values.addresses)


def _section(
    data: dict[str, Any], section: str, key: str, where: dict[str, Path], make: Any
) -> dict:
    out = {}
    for name, body in data.get(section, {}).items():
        out[name] = make(name, body)
        where[f"{key}/{name}"] = (section, name)
    return out


def _tap_mtus(interfaces: dict[str, Interface], taps: dict[str, Tap], data: dict[str, Any]) -> None:
    """A tap's interface MTU defaults to its host MTU (they must be equal)."""
    listed = data.get("interfaces", {})
    for name, tap in taps.items():
        if name in listed and "mtu" not in listed[name]:
            interfaces[name] = replace(interfaces[name], mtu=tap.host.mtu)


def _with_common(
    name: str,
    kind: InterfaceKind,
    body: dict[str, Any],
    values: _Values,
    mtu: int,
    *,
    mac: str | None = None,
    sflow: bool = False,
    device_type: str | None = None,
    parent: str | None = None,
    sub_id: int | None = None,
    encapsulation: Encapsulation | None = None,
) -> Interface:
    """The Interface `name` of the settings every kind has, from `body`, and
    the fields only some kinds have; `mtu` is the default MTU. One call and no
    dict of fields or keywords in between: this runs once per interface of the file."""
    get = body.get
    acls = get("acls")
    addresses = get("addresses")
    # Positional, in Interface's field order (which new_interface's parameters
    # keep: tests/test_model_interface.py): its 17 keywords took a tenth of building.
    return new_interface(
        name,
        kind,
        get("description", ""),  # description
        mac,
        get("mtu", mtu),  # mtu
        get("state", "up"),  # state
        get("lcp"),  # lcp
        values.canonical(name, addresses) if addresses else (),  # addresses
        get("unnumbered"),  # unnumbered
        get("l2xc"),  # l2xc
        get("mpls", False),  # mpls
        sflow,
        InterfaceAcls(_names(acls.get("input")), _names(acls.get("output")))  # acls
        if acls else NO_ACLS,
        device_type,
        parent,
        sub_id,
        encapsulation,
    )


def _names(value: str | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _interface(
    name: str, kind: InterfaceKind | None, body: dict[str, Any], values: _Values
) -> Interface:
    return _with_common(
        name,
        kind or InterfaceKind.PHY,
        body,
        values,
        1500,
        mac=names.mac(body["mac"]) if "mac" in body else None,
        sflow=body.get("sflow", False),
        device_type=body.get("device-type"),
    )


def _sub_interface(
    parent: Interface, sub_id: int, body: dict[str, Any], values: _Values
) -> Interface:
    encap = body.get("encapsulation")
    if encap is None:
        encapsulation = values.encapsulation(sub_id, 0, 0, True)
    else:
        # As in IPng's vppcfg: an explicit encapsulation is exact-match only if it says so.
        encapsulation = values.encapsulation(
            encap.get("dot1q", 0),
            encap.get("dot1ad", 0),
            encap.get("inner-dot1q", 0),
            encap.get("exact-match", False),
        )
    return _with_common(
        f"{parent.name}.{sub_id}",
        InterfaceKind.SUB,
        body,
        values,
        parent.mtu,  # a sub follows its parent's MTU
        parent=parent.name,
        sub_id=sub_id,
        encapsulation=encapsulation,
    )


def _bond(name: str, body: dict[str, Any]) -> Bond:
    mode = BondMode(body.get("mode", "lacp"))
    balance = BondLoadBalance(body.get("load-balance", "l34")) if mode in LB_MODES else None
    return Bond(
        name=name,
        instance=names.instance(name),
        description=body.get("description", ""),
        mode=mode,
        load_balance=balance,
        members=tuple(sorted(body.get("interfaces", ()))),
        mac=names.mac(body["mac"]) if "mac" in body else None,
    )


def _vxlan(name: str, body: dict[str, Any]) -> VxlanTunnel:
    return VxlanTunnel(
        name=name,
        instance=names.instance(name),
        local=names.ip_address(body["local"]),
        remote=names.ip_address(body["remote"]),
        vni=body["vni"],
        description=body.get("description", ""),
    )


def _tap(name: str, body: dict[str, Any]) -> Tap:
    host = body["host"]
    return Tap(
        name=name,
        instance=names.instance(name),
        host=TapHost(
            name=host["name"],
            mac=names.mac(host["mac"]) if "mac" in host else None,
            mtu=host.get("mtu", 1500),
            bridge=host.get("bridge"),
            namespace=host.get("namespace"),
        ),
        description=body.get("description", ""),
        rx_ring_size=body.get("rx-ring-size", 256),
        tx_ring_size=body.get("tx-ring-size", 256),
    )


SETTINGS = {
    "learn": "learn",
    "unicast-flood": "unicast_flood",
    "unknown-unicast-flood": "unknown_unicast_flood",
    "unicast-forward": "unicast_forward",
    "arp-termination": "arp_termination",
    "arp-unicast-forward": "arp_unicast_forward",
    "mac-age-minutes": "mac_age_minutes",
}


def _bridge(name: str, body: dict[str, Any]) -> BridgeDomain:
    settings = body.get("settings", {})
    return BridgeDomain(
        name=name,
        bd_id=names.instance(name),
        description=body.get("description", ""),
        mtu=body.get("mtu", 1500),
        bvi=body.get("bvi"),
        members=tuple(sorted(body.get("interfaces", ()))),
        settings=BridgeSettings(**{SETTINGS[k]: v for k, v in settings.items()}),
    )


def _prefixlist(name: str, body: dict[str, Any]) -> PrefixList:
    return PrefixList(
        name=name,
        description=body.get("description", ""),
        members=tuple(names.ip_prefix(m) for m in body.get("members", ())),
    )


def _endpoint(value: str | None) -> str | None:
    if value is None or value == "any":
        return None
    return names.ip_prefix(value) or value


def _range(value: Any, top: int, services: dict[str, int] | None = None) -> PortRange:
    if value is None:
        return PortRange(0, top)
    first, last = tables.value_range(value, top, services) or (0, top)
    return PortRange(first, last)


def _term(body: dict[str, Any]) -> AclTerm:
    return AclTerm(
        action=body["action"],
        description=body.get("description", ""),
        family=body.get("family", "any"),
        source=_endpoint(body.get("source")),
        destination=_endpoint(body.get("destination")),
        protocol=tables.protocol(body.get("protocol", 0)) or 0,
        source_port=_range(body.get("source-port"), 65535, tables.SERVICES),
        destination_port=_range(body.get("destination-port"), 65535, tables.SERVICES),
        icmp_type=_range(body.get("icmp-type"), 255),
        icmp_code=_range(body.get("icmp-code"), 255),
    )


def _acl(name: str, body: dict[str, Any]) -> Acl:
    return Acl(
        name=name,
        description=body.get("description", ""),
        terms=tuple(_term(t) for t in body.get("terms", ())),
    )


def _sflow(body: dict[str, Any]) -> Sflow:
    default = Sflow()
    return Sflow(
        sampling_rate=body.get("sampling-rate", default.sampling_rate),
        polling_interval=body.get("polling-interval", default.polling_interval),
        header_bytes=sflow_header_bytes(body.get("header-bytes", default.header_bytes)),
    )


def sflow_header_bytes(asked: int) -> int:
    """What VPP keeps when asked for `asked` header bytes: rounded up to a
    multiple of 32, within 64-256 (so a config of 100 plans to nothing after
    VPP stored 128)."""
    return min(max(-(-asked // 32) * 32, 64), 256)
