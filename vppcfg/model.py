"""The dataplane model: one set of immutable value types for both the desired
config (read from YAML) and the live state (dumped from VPP).

Because both sides are the same kind of value, planning is a pure function of
two `Dataplane` values and verification is "plan again and expect nothing".

Conventions, so that two models compare equal exactly when VPP would be in
the same state:
- every name is the VPP interface name (``GigabitEthernet3/0/0.100``, ``loop0``);
- MACs are lower-case ``aa:bb:cc:dd:ee:ff``; IP addresses and prefixes are in
  Python's canonical ``ipaddress`` spelling (``2001:db8::1/64``);
- collections whose order VPP does not keep are sorted tuples;
- ``None`` means "not set / leave as VPP chooses" where the language allows it.
"""

from __future__ import annotations

import enum
from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass, field, fields
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(Mapping[K, V], Generic[K, V]):
    """A read-only, hashable mapping that keeps insertion order."""

    __slots__ = ("_data", "_hash")

    def __init__(self, *args: object, **kwargs: V) -> None:
        self._data: dict[K, V] = dict(*args, **kwargs)  # type: ignore[arg-type]
        self._hash: int | None = None

    @classmethod
    def adopt(cls, data: dict[K, V]) -> FrozenDict[K, V]:
        """Wrap a dict the caller hands over and never changes again (no copy)."""
        frozen = cls.__new__(cls)
        frozen._data, frozen._hash = data, None
        return frozen

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    # The dict's own (read-only) views and lookups: the Mapping mixins go
    # through __getitem__ once per entry, a third of planning 10,000 objects.
    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        return self._data.get(key, default)

    def to_dict(self) -> dict[K, V]:
        """A plain dict of the entries (the dict's own copy, not one per item)."""
        return self._data.copy()

    def keys(self) -> KeysView[K]:
        return self._data.keys()

    def values(self) -> ValuesView[V]:
        return self._data.values()

    def items(self) -> ItemsView[K, V]:
        return self._data.items()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def replace(self, key: K, value: V) -> FrozenDict[K, V]:
        """A copy with one entry set."""
        data = dict(self._data)
        data[key] = value
        return FrozenDict(data)


class InterfaceKind(enum.StrEnum):
    PHY = "phy"
    SUB = "sub"
    LOOPBACK = "loopback"
    BOND = "bond"
    VXLAN = "vxlan"
    TAP = "tap"


@dataclass(frozen=True)
class Encapsulation:
    """How a sub-interface matches frames. Exactly one of dot1q/dot1ad is set."""

    dot1q: int = 0
    dot1ad: int = 0
    inner_dot1q: int = 0
    exact_match: bool = True

    @property
    def outer(self) -> int:
        return self.dot1q or self.dot1ad

    @property
    def tags(self) -> int:
        """Number of VLAN tags matched (1 for dot1q/dot1ad, 2 for QinQ/QinAD)."""
        return 2 if self.inner_dot1q else 1


@dataclass(frozen=True)
class InterfaceAcls:
    """ACL names applied to an interface, in evaluation order."""

    input: tuple[str, ...] = ()
    output: tuple[str, ...] = ()


# slots: the builder makes one per interface of a file (see new_interface)
@dataclass(frozen=True, slots=True)
class Interface:
    """The L2/L3 settings of any VPP interface: a PHY, a sub-interface, a
    loopback, or the interface side of a bond, vxlan tunnel or tap."""

    name: str
    kind: InterfaceKind
    description: str = ""
    mac: str | None = None
    mtu: int = 1500
    state: str = "up"  # "up" | "down"
    lcp: str | None = None
    addresses: tuple[str, ...] = ()  # canonical "ip/len", sorted
    unnumbered: str | None = None
    l2xc: str | None = None
    mpls: bool = False
    sflow: bool = False
    acls: InterfaceAcls = field(default_factory=InterfaceAcls)
    device_type: str | None = None
    # sub-interfaces only
    parent: str | None = None
    sub_id: int | None = None
    encapsulation: Encapsulation | None = None

    @property
    def is_sub(self) -> bool:
        return self.kind is InterfaceKind.SUB


class _InterfaceDraft:
    """Interface's slots without its frozen __setattr__ (see new_interface)."""

    __slots__ = Interface.__slots__  # type: ignore[attr-defined]


NO_ACLS = InterfaceAcls()  # shared (immutable): most interfaces have none


def new_interface(
    name: str,
    kind: InterfaceKind,
    description: str = "",
    mac: str | None = None,
    mtu: int = 1500,
    state: str = "up",
    lcp: str | None = None,
    addresses: tuple[str, ...] = (),
    unnumbered: str | None = None,
    l2xc: str | None = None,
    mpls: bool = False,
    sflow: bool = False,
    acls: InterfaceAcls = NO_ACLS,
    device_type: str | None = None,
    parent: str | None = None,
    sub_id: int | None = None,
    encapsulation: Encapsulation | None = None,
) -> Interface:
    """Interface(...) in a sixth of the time, for the builder that makes one
    per interface of a file: a frozen dataclass sets each field through
    object.__setattr__; this fills a mutable twin with plain stores and then
    gives it Interface's class (the same slots, so nothing moves)."""
    draft = _InterfaceDraft()
    draft.name = name
    draft.kind = kind
    draft.description = description
    draft.mac = mac
    draft.mtu = mtu
    draft.state = state
    draft.lcp = lcp
    draft.addresses = addresses
    draft.unnumbered = unnumbered
    draft.l2xc = l2xc
    draft.mpls = mpls
    draft.sflow = sflow
    draft.acls = acls
    draft.device_type = device_type
    draft.parent = parent
    draft.sub_id = sub_id
    draft.encapsulation = encapsulation
    draft.__class__ = Interface  # type: ignore[assignment]
    return draft  # type: ignore[return-value]


# VPP gives every ethernet PHY (DPDK, af_packet, ...) this hw and packet MTU
# when it starts (its `ethernet { default-mtu }`, 9000 unless startup.conf
# says otherwise): the MTU a PHY returns to when the config no longer names it.
PHY_DEFAULT_MTU = 9000
# The device classes (sw_interface_dump's interface_dev_type) of NICs: a PHY of
# one of these that the config does not name goes back to its defaults. Any
# other top-level interface vppcfg does not model (wireguard, GRE, memif, a
# VM's virtio, ...) was made by someone else and is left alone.
NIC_DEVICE_TYPES = frozenset({"dpdk", "af-packet", "rdma", "avf", "vmxnet3", "af_xdp"})


def phy_at_defaults(name: str) -> Interface:
    """A PHY as a freshly started VPP has it: admin down, the default MTU, in
    L3 mode with no address, lcp, binding or feature. Its MAC is None ("leave
    as it is"): VPP's API does not say what a PHY's own MAC was."""
    return Interface(name=name, kind=InterfaceKind.PHY, mtu=PHY_DEFAULT_MTU, state="down")


class BondMode(enum.StrEnum):
    ROUND_ROBIN = "round-robin"
    ACTIVE_BACKUP = "active-backup"
    XOR = "xor"
    BROADCAST = "broadcast"
    LACP = "lacp"


class BondLoadBalance(enum.StrEnum):
    L2 = "l2"
    L23 = "l23"
    L34 = "l34"


@dataclass(frozen=True)
class Bond:
    """A BondEthernetN: its LAG settings and members (its L3 side is an Interface)."""

    name: str
    instance: int
    description: str = ""
    mode: BondMode = BondMode.LACP
    load_balance: BondLoadBalance | None = BondLoadBalance.L34  # None unless xor/lacp
    members: tuple[str, ...] = ()  # sorted
    mac: str | None = None


@dataclass(frozen=True)
class VxlanTunnel:
    name: str
    instance: int
    local: str
    remote: str
    vni: int
    description: str = ""


@dataclass(frozen=True)
class TapHost:
    """The Linux side of a tap."""

    name: str
    mac: str | None = None
    mtu: int = 1500
    bridge: str | None = None
    namespace: str | None = None


@dataclass(frozen=True)
class Tap:
    name: str
    instance: int
    host: TapHost
    description: str = ""
    rx_ring_size: int = 256
    tx_ring_size: int = 256


@dataclass(frozen=True)
class BridgeSettings:
    learn: bool = True
    unicast_flood: bool = True
    unknown_unicast_flood: bool = True
    unicast_forward: bool = True
    arp_termination: bool = False
    arp_unicast_forward: bool = False
    mac_age_minutes: int = 0


@dataclass(frozen=True)
class BridgeDomain:
    name: str  # "bdN"
    bd_id: int
    description: str = ""
    mtu: int = 1500
    bvi: str | None = None
    members: tuple[str, ...] = ()  # sorted; the BVI is not listed here
    settings: BridgeSettings = field(default_factory=BridgeSettings)


@dataclass(frozen=True)
class PrefixList:
    name: str
    description: str = ""
    members: tuple[str, ...] = ()  # canonical prefixes, in config order


@dataclass(frozen=True)
class PortRange:
    first: int
    last: int


@dataclass(frozen=True)
class AclTerm:
    """One term as written; it may expand to several VPP rules (per family,
    per prefix-list member)."""

    action: str  # "permit" | "deny" | "permit+reflect"
    description: str = ""
    family: str = "any"  # "ipv4" | "ipv6" | "any"
    source: str | None = None  # a prefix, or a prefix-list name
    destination: str | None = None
    protocol: int = 0  # 0 = any
    source_port: PortRange = PortRange(0, 65535)
    destination_port: PortRange = PortRange(0, 65535)
    icmp_type: PortRange = PortRange(0, 255)
    icmp_code: PortRange = PortRange(0, 255)


@dataclass(frozen=True)
class Acl:
    name: str  # also the VPP ACL tag
    description: str = ""
    terms: tuple[AclTerm, ...] = ()


@dataclass(frozen=True)
class Sflow:
    """Global sFlow settings (per-interface enablement is Interface.sflow)."""

    sampling_rate: int = 10000
    polling_interval: int = 20
    header_bytes: int = 128


@dataclass(frozen=True)
class LinuxCp:
    """linux-cp's settings as the running VPP has them (``show lcp``; VPP's
    defaults here): they decide what VPP does to the Linux side by itself."""

    sync: bool = False  # lcp-sync: state, MTU and addresses follow VPP's
    auto_subint: bool = False  # lcp-auto-subint: a new sub of a paired parent is paired
    default_netns: str = ""  # where a pair made without a netns lives ("": VPP's own)
    sync_unnumbered: bool = True  # lcp-sync-unnumbered (VPP's default is on)

    def words(self) -> str:
        """The settings as the words of a startup.conf ``linux-cp { }`` stanza."""
        words = [w for w, on in (("lcp-sync", self.sync), ("lcp-auto-subint", self.auto_subint))
                 if on]
        if self.default_netns:
            words.append(f"default netns {self.default_netns}")
        return " ".join(words) or "(VPP's defaults)"


@dataclass(frozen=True)
class HostLink:
    """The Linux side of one lcp pair: its netdev in the pair's netns, as
    netlink shows it (addresses without IPv6 link-local, canonical, sorted)."""

    name: str
    netns: str
    state: str  # "up" | "down" (IFF_UP, the admin state)
    mtu: int
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class LinuxSide:
    """What vppcfg knows of the Linux side: linux-cp's settings and, in a live
    dataplane, each pair's host netdev by the VPP interface it pairs (absent:
    the netdev is not there). `managed`: vppcfg plans and verifies the Linux
    side; False when the operator says another tool owns it (then plan and
    apply only report its differences)."""

    settings: LinuxCp = field(default_factory=LinuxCp)
    hosts: FrozenDict[str, HostLink] = field(default_factory=FrozenDict)
    managed: bool = True


@dataclass(frozen=True)
class Dataplane:
    """A whole dataplane: desired (from a config file) or live (from VPP)."""

    interfaces: FrozenDict[str, Interface] = field(default_factory=FrozenDict)
    bonds: FrozenDict[str, Bond] = field(default_factory=FrozenDict)
    vxlan_tunnels: FrozenDict[str, VxlanTunnel] = field(default_factory=FrozenDict)
    taps: FrozenDict[str, Tap] = field(default_factory=FrozenDict)
    bridge_domains: FrozenDict[str, BridgeDomain] = field(default_factory=FrozenDict)
    prefixlists: FrozenDict[str, PrefixList] = field(default_factory=FrozenDict)
    acls: FrozenDict[str, Acl] = field(default_factory=FrozenDict)
    sflow: Sflow = field(default_factory=Sflow)
    # Live state only: keys ("interfaces/<name>", "bridge_domains/<name>", ...)
    # of objects present in VPP that vppcfg did not create (no vppcfg tag).
    # The planner never prunes or changes them unless the config names them.
    foreign: frozenset[str] = frozenset()
    # Live state only, when the Linux side was read (vppcfg.linux): linux-cp's
    # settings and each pair's host netdev. None: not read (a config; --novpp).
    linux: LinuxSide | None = None

    def collections(self) -> list[tuple[str, FrozenDict[str, Any]]]:
        """(field name, objects) of each collection of named objects: the
        field name is the first part of its objects' node keys."""
        return [(f.name, value) for f in fields(self)
                if isinstance(value := getattr(self, f.name), FrozenDict)]
