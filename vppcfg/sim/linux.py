"""The simulator's Linux: namespaces holding netdevs, with the kernel's own rules.

Each netdev has an ifindex (counted per namespace), an admin state, an MTU,
addresses ("ip/len" as Python's ipaddress.ip_interface prints them, IPv4 then
IPv6, each in the order added; no IPv6 link-local) and, for a VLAN, its parent.
linux-cp (vppcfg.sim.plugins.lcp) and the taps make and change netdevs through
the same calls a client of the Linux socket (vppcfg.sim.linux_server) does, so
both meet the same rules, which raise LinuxError(errno) as the kernel answers:

* unknown namespace ENOENT, unknown device ENODEV, a bad value EINVAL;
* an address already there EEXIST, deleting an absent one EADDRNOTAVAIL;
* 802.1q (net/8021q): a VLAN's MTU above its parent's is ERANGE; lowering a
  parent's MTU clamps its VLANs; a VLAN set up while its parent is down is
  ENETDOWN; a parent going down closes its VLANs, and coming up opens them
  again (vlan_device_event NETDEV_DOWN / NETDEV_UP); deleting a parent deletes
  its VLANs. The real VPPs' machines have no 802.1q (a tap stands in for each
  VLAN), so these are modelled from the kernel's source, not seen there.
* a device going down loses its IPv6 addresses (keep_addr_on_down=0, the
  default; seen on vpp-real: `ip link set xe0.100 down` dropped 2001:db8::1/64).
"""

from __future__ import annotations

import errno
import ipaddress
import os
from dataclasses import dataclass, field
from typing import Any

LO_MTU = 65536
DEFAULT_MTU = 1500  # what the kernel gives a new tap (vpp-real: a pair of an MTU-0 phy)
MIN_MTU, MAX_MTU = 68, 65535  # ethernet's min_mtu; a tap's max_mtu


class LinuxError(Exception):
    """A refusal of the kernel: errno and strerror's text."""

    def __init__(self, number: int) -> None:
        super().__init__(os.strerror(number))
        self.errno = number


@dataclass
class Netdev:
    name: str
    ifindex: int
    up: bool = False
    mtu: int = DEFAULT_MTU
    addresses: list[str] = field(default_factory=list)
    parent: str | None = None  # a VLAN's lower device

    def row(self) -> dict[str, Any]:
        """The Linux socket's `links` entry."""
        return {"name": self.name, "ifindex": self.ifindex, "state": "up" if self.up else "down",
                "mtu": self.mtu, "addresses": list(self.addresses), "parent": self.parent}


def canonical(address: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    try:
        return ipaddress.ip_interface(str(address))
    except ValueError:
        raise LinuxError(errno.EINVAL) from None


def _same(old: Any, new: Any) -> bool:
    return bool(old.ip == new.ip and (new.version == 6 or old.network == new.network))


@dataclass
class LinuxHost:
    """The Linux side of the simulated box: namespaces, bridges, netdevs.

    The root namespace is "". Tests and scenarios add namespaces or bridges
    (``ip netns add`` / ``ip link add type bridge``) with add_namespace() and
    add_bridge(); taps and lcp pairs consult and extend it.
    """

    netdevs: dict[str, dict[str, Netdev]] = field(
        default_factory=lambda: {"": {"lo": Netdev("lo", 1, mtu=LO_MTU)}})
    bridges: set[str] = field(default_factory=set)
    # A normal kernel has 802.1q: lcp pairs on sub-interfaces create Linux VLANs.
    # The recorded VPP ran without it (pairs on subs refused with -73); the
    # trace replays switch it off (SimDataplane(kernel_vlan=False)).
    vlan_support: bool = True
    next_ifindex: dict[str, int] = field(default_factory=lambda: {"": 100})
    # (namespace, prefix) -> number below which every "<prefix><n>" exists
    _name_hints: dict[tuple[str, str], int] = field(default_factory=dict)

    # -- namespaces and names ------------------------------------------------------

    def has_namespace(self, ns: str) -> bool:
        return ns in self.netdevs

    def add_namespace(self, ns: str) -> None:
        self.netdevs.setdefault(ns, {"lo": Netdev("lo", 1, mtu=LO_MTU)})
        self.next_ifindex.setdefault(ns, 2)

    def add_bridge(self, name: str, ns: str = "") -> None:
        self.bridges.add(name)
        self.add_netdev(name, ns)

    def namespace(self, ns: str) -> dict[str, Netdev]:
        if ns not in self.netdevs:
            raise LinuxError(errno.ENOENT)
        return self.netdevs[ns]

    def device(self, ns: str, name: str) -> Netdev:
        dev = self.namespace(ns).get(name)
        if dev is None:
            raise LinuxError(errno.ENODEV)
        return dev

    def add_netdev(self, name: str, ns: str = "", mtu: int = DEFAULT_MTU,
                   parent: str | None = None) -> int:
        """Create a netdev (down, no addresses); returns its per-namespace ifindex."""
        ifindex = self.next_ifindex[ns]
        self.next_ifindex[ns] = ifindex + 1
        self.netdevs[ns][name] = Netdev(name, ifindex, mtu=mtu, parent=parent)
        return ifindex

    def add_vlan(self, name: str, ns: str, parent: str) -> int:
        """A VLAN starts with its parent's MTU, down (ip link add link P type vlan)."""
        return self.add_netdev(name, ns, self.device(ns, parent).mtu, parent)

    def ifindex(self, name: str, ns: str = "") -> int:
        return self.netdevs[ns][name].ifindex

    def remove_netdev(self, name: str, ns: str = "") -> None:
        """Delete a netdev if present, and its VLANs with it (as the kernel does)."""
        devices = self.netdevs.get(ns, {})
        if devices.pop(name, None) is None:
            return
        self._forget_name(name, ns)
        for child in [d.name for d in devices.values() if d.parent == name]:
            self.remove_netdev(child, ns)

    def _forget_name(self, name: str, ns: str) -> None:
        for (hint_ns, prefix), hint in self._name_hints.items():
            number = name[len(prefix):]
            if hint_ns == ns and name.startswith(prefix) and number.isdigit():
                self._name_hints[(ns, prefix)] = min(hint, int(number))

    def first_free(self, prefix: str, ns: str = "") -> str:
        """The kernel's "<prefix>%d" naming: lowest unused number."""
        n = self._name_hints.get((ns, prefix), 0)
        while f"{prefix}{n}" in self.netdevs[ns]:
            n += 1
        self._name_hints[(ns, prefix)] = n
        return f"{prefix}{n}"

    # -- the kernel's operations (raise LinuxError) ---------------------------------

    def vlans(self, ns: str, parent: str) -> list[Netdev]:
        return [d for d in self.netdevs[ns].values() if d.parent == parent]

    def set_state(self, ns: str, name: str, up: bool) -> None:
        dev = self.device(ns, name)
        if up == dev.up:
            return
        if up:
            if dev.parent is not None and not self.device(ns, dev.parent).up:
                raise LinuxError(errno.ENETDOWN)  # vlan_dev_open
            dev.up = True
        else:
            dev.up = False
            dev.addresses = [a for a in dev.addresses if ":" not in a]  # keep_addr_on_down=0
        for vlan in self.vlans(ns, name):  # NETDEV_UP / NETDEV_DOWN carry to the VLANs
            self.set_state(ns, vlan.name, up)

    def set_mtu(self, ns: str, name: str, mtu: int) -> None:
        dev = self.device(ns, name)
        if not MIN_MTU <= mtu <= (LO_MTU if name == "lo" else MAX_MTU):
            raise LinuxError(errno.EINVAL)
        if dev.parent is not None and mtu > self.device(ns, dev.parent).mtu:
            raise LinuxError(errno.ERANGE)  # vlan_dev_change_mtu
        dev.mtu = mtu
        for vlan in self.vlans(ns, name):  # NETDEV_CHANGEMTU clamps the VLANs
            if vlan.mtu > mtu:
                self.set_mtu(ns, vlan.name, mtu)

    def add_address(self, ns: str, name: str, address: str) -> None:
        dev = self.device(ns, name)
        new = canonical(address)
        # IPv4 may hold one address under two prefix lengths; IPv6 may not
        if any(_same(canonical(a), new) for a in dev.addresses):
            raise LinuxError(errno.EEXIST)
        dev.addresses.append(str(new))
        # ip addr lists IPv4 before IPv6; each family in the order added
        dev.addresses.sort(key=lambda a: ":" in a)

    def del_address(self, ns: str, name: str, address: str) -> None:
        dev = self.device(ns, name)
        old = canonical(address)
        for text in dev.addresses:
            if canonical(text) == old:
                dev.addresses.remove(text)
                return
        raise LinuxError(errno.EADDRNOTAVAIL)

    def del_link(self, ns: str, name: str) -> None:
        self.device(ns, name)
        self.remove_netdev(name, ns)
