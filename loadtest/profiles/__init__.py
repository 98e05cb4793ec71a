"""Traffic profiles: what the generator sends, independent of how fast.

A profile is a size mix (64, imix, 1514 or any frame size), a flow pattern
(one flow, or many flows whose addresses and UDP ports walk configurable
ranges so the device's RSS spreads them over cores), a direction (port 0 to 1,
or both ways) and an IP version. `loadtest.profiles.streams` turns a
`TrafficSpec` into T-Rex streams; this module only describes and validates.
A T-Rex profile file (`loadtest.profiles.pyfile`) replaces the size mix and
flows with its own streams.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from loadtest.linerate import SizeMix, check_frame_size

if TYPE_CHECKING:
    from loadtest.profiles.pyfile import FileProfile

# Frame sizes include the FCS. Simple IMIX 7:4:1 is 64/594/1518.
NAMED_MIXES: dict[str, SizeMix] = {
    "64": ((64, 1),),
    "imix": ((64, 7), (594, 4), (1518, 1)),
    "1514": ((1514, 1),),
}
# Ether + IP + UDP + FCS must fit. IPv6/UDP needs 66 bytes, so named mixes use
# 78-byte frames in place of 64 for IPv6 (as FD.io CSIT does).
MIN_FRAME = {4: 64, 6: 66}
IPV6_SMALL_FRAME = 78

DEFAULT_RANGES = {
    4: {"src": "16.0.0.1-16.0.0.254", "dst": "48.0.0.1-48.0.0.254"},
    6: {"src": "2001:db8:16::1-2001:db8:16::fe", "dst": "2001:db8:48::1-2001:db8:48::fe"},
}
DEFAULT_SPORTS = "1024-65535"
DEFAULT_DPORTS = "1024-65535"


class ProfileError(ValueError):
    """A profile or range the harness cannot build."""


def size_mix(profile: str, ip_version: int = 4) -> SizeMix:
    """The size mix for a profile name: a named mix or a plain frame size."""
    if profile in NAMED_MIXES:
        mix = NAMED_MIXES[profile]
        if ip_version == 6:
            mix = tuple((max(size, IPV6_SMALL_FRAME), weight) for size, weight in mix)
        return mix
    if profile.isdigit():
        try:
            size = check_frame_size(int(profile))
        except ValueError as err:
            raise ProfileError(f"profile {profile!r}: {err}") from None
        if size < MIN_FRAME[ip_version]:
            raise ProfileError(
                f"profile {profile!r}: IPv{ip_version}/UDP needs frames of at least "
                f"{MIN_FRAME[ip_version]} bytes"
            )
        return ((size, 1),)
    names = ", ".join(NAMED_MIXES)
    raise ProfileError(f"unknown profile {profile!r} (use {names} or a frame size in bytes)")


@dataclass(frozen=True)
class AddrRange:
    """An inclusive address range; only the low 32 bits may vary (IPv6 too)."""

    first: ipaddress.IPv4Address | ipaddress.IPv6Address
    last: ipaddress.IPv4Address | ipaddress.IPv6Address

    @property
    def version(self) -> int:
        return self.first.version

    @property
    def count(self) -> int:
        return int(self.last) - int(self.first) + 1

    @classmethod
    def parse(cls, text: str) -> AddrRange:
        first_text, _, last_text = text.partition("-")
        try:
            first = ipaddress.ip_address(first_text.strip())
            last = ipaddress.ip_address((last_text or first_text).strip())
        except ValueError as err:
            raise ProfileError(f"address range {text!r}: {err}") from None
        if first.version != last.version or last < first:
            raise ProfileError(f"address range {text!r}: need FIRST-LAST of one IP version")
        if int(first) >> 32 != int(last) >> 32:
            raise ProfileError(f"address range {text!r}: only the low 32 bits may vary")
        return cls(first, last)


@dataclass(frozen=True)
class PortRange:
    first: int
    last: int

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @classmethod
    def parse(cls, text: str) -> PortRange:
        first_text, _, last_text = text.partition("-")
        try:
            first, last = int(first_text), int(last_text or first_text)
        except ValueError:
            raise ProfileError(f"port range {text!r}: need FIRST-LAST") from None
        if not 0 <= first <= last <= 65535:
            raise ProfileError(f"port range {text!r}: need 0 <= FIRST <= LAST <= 65535")
        return cls(first, last)


@dataclass(frozen=True)
class Flows:
    """Address and port ranges of direction 0 (port 0 to port 1).

    Direction 1 mirrors them: its source is this destination and vice versa,
    so replies of a stateful device would match.
    """

    src: AddrRange
    dst: AddrRange
    sport: PortRange
    dport: PortRange

    @property
    def count(self) -> int:
        return self.src.count * self.dst.count * self.sport.count * self.dport.count

    def mirrored(self) -> Flows:
        return Flows(self.dst, self.src, self.dport, self.sport)


def make_flows(
    ip_version: int = 4,
    many: bool = False,
    src: str | None = None,
    dst: str | None = None,
    sport: str | None = None,
    dport: str | None = None,
) -> Flows:
    """Flows for one or many flows; one flow uses the first value of each range."""
    defaults = DEFAULT_RANGES[ip_version]
    flows = Flows(
        AddrRange.parse(src or defaults["src"]),
        AddrRange.parse(dst or defaults["dst"]),
        PortRange.parse(sport or DEFAULT_SPORTS),
        PortRange.parse(dport or DEFAULT_DPORTS),
    )
    for rng in (flows.src, flows.dst):
        if rng.version != ip_version:
            raise ProfileError(f"address {rng.first} is not IPv{ip_version}")
    if many:
        return flows
    return Flows(
        AddrRange(flows.src.first, flows.src.first),
        AddrRange(flows.dst.first, flows.dst.first),
        PortRange(flows.sport.first, flows.sport.first),
        PortRange(flows.dport.first, flows.dport.first),
    )


@dataclass(frozen=True)
class TrafficSpec:
    """Everything about the traffic except its rate."""

    profile: str = "64"
    flows: Flows = field(default_factory=make_flows)
    bidirectional: bool = False
    latency: bool = False
    file: FileProfile | None = None  # a T-Rex profile file: its streams replace ours

    def __post_init__(self) -> None:
        if self.file is None:
            size_mix(self.profile, self.ip_version)  # fail early on a bad profile

    @property
    def mix(self) -> SizeMix:
        return self.file.mix if self.file else size_mix(self.profile, self.ip_version)

    @property
    def ip_version(self) -> int:
        return self.flows.src.version

    @property
    def directions(self) -> tuple[int, ...]:
        """Direction d sends from port d to port 1 - d."""
        return (0, 1) if self.bidirectional else (0,)

    def flow_ranges(self) -> list[tuple[str, int]]:
        """The ranges the flows walk, as (name, values), for "253 src x 253 dst"."""
        if self.file:
            return [(r.name, r.count) for r in self.file.ranges]
        f = self.flows
        pairs = (("src", f.src), ("dst", f.dst), ("sport", f.sport), ("dport", f.dport))
        return [(name, rng.count) for name, rng in pairs if rng.count > 1]

    def describe(self) -> dict:
        """JSON-friendly summary for the `vars` of a run."""
        sizes = [[size, float(weight)] for size, weight in self.mix]
        common = {
            "profile": self.profile,
            "sizes": sizes,
            "flow_ranges": [list(pair) for pair in self.flow_ranges()],
            "bidirectional": self.bidirectional,
            "latency": self.latency,
        }
        if self.file:
            return {**common, "profile_file": self.file.path, "tunables": self.file.tunables,
                    "flows": self.file.flow_count}
        f = self.flows
        return {
            **common,
            "ip_version": self.ip_version,
            "flows": f.count,
            "src": f"{f.src.first}-{f.src.last}",
            "dst": f"{f.dst.first}-{f.dst.last}",
            "sport": f"{f.sport.first}-{f.sport.last}",
            "dport": f"{f.dport.first}-{f.dport.last}",
        }
