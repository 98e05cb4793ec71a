"""The Linux side of lcp pairs: each pair's host netdev in its netns.

linux-cp makes a Linux netdev for every pair; the router's control plane sees
the VPP interface through it, so its admin state, MTU and addresses must be
the file's too. This package reads and writes those netdevs: through netlink
(pyroute2, `vppcfg.linux.netlink`) on a router, or through the simulator's
stand-in socket (`vppcfg.linux.simsocket`) against vppcfg-sim. Both offer
the same few calls (LinuxBackend); everything else (what should be there,
in what order) is the planner's, through `vppcfg.objects.linux`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from vppcfg.config.names import read_interface
from vppcfg.model import FrozenDict, HostLink, LinuxCp, LinuxSide


class LinuxError(OSError):
    """Linux refused or could not be asked (errno and what it said)."""


class LinuxBackend(Protocol):
    """The calls vppcfg makes on the Linux side ("" is the root netns)."""

    def links(self, netns: str) -> list[HostLink]:
        """Every netdev of `netns` (LinuxError ENOENT: no such netns)."""
        ...

    def set_link(self, netns: str, name: str, state: str | None = None,
                 mtu: int | None = None) -> None: ...

    def address(self, netns: str, name: str, action: str, prefix: str) -> None:
        """Add ("add") or remove ("del") one address of a netdev."""
        ...

    def close(self) -> None: ...


@dataclass
class LinuxAccess:
    """The Linux side as a command reaches it: a backend (opened on first
    use, so a dataplane without lcp pairs never touches netlink) and whether
    vppcfg owns it (`managed`) or only reports it."""

    opener: Callable[[], LinuxBackend]
    managed: bool = True
    socket: str = ""  # the simulator's socket it uses ("": netlink)
    _backend: LinuxBackend | None = field(default=None, repr=False)

    @property
    def backend(self) -> LinuxBackend:
        if self._backend is None:
            self._backend = self.opener()
        return self._backend

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None


def canonical_addresses(prefixes: Iterable[str]) -> tuple[str, ...]:
    """Addresses as the model spells them (config.names.read_interface: the
    C library reads the plain spellings, a netdev has thousands), IPv6
    link-local left out (the kernel makes those itself); ValueError for text
    that is no address/length."""
    kept = set()
    for prefix in prefixes:
        read = read_interface(prefix)
        if read is None:
            raise ValueError(f"{prefix!r} does not appear to be an IPv4 or IPv6 interface")
        spelled, version = read[0], read[1]
        if version == 6 and _link_local(spelled):
            continue
        kept.add(spelled)
    return tuple(sorted(kept))


def _link_local(spelled: str) -> bool:
    """Whether a canonical IPv6 address/length is in fe80::/10 (its first group)."""
    first = spelled.split(":", 1)[0]
    return bool(first) and 0xFE80 <= int(first, 16) <= 0xFEBF


def parse_show_lcp(text: str) -> LinuxCp:
    """linux-cp's settings from ``show lcp`` (no API message reads lcp-sync or
    lcp-auto-subint). Lines: ``lcp default netns 'NAME'`` (``'<unset>'``
    without one), ``lcp lcp-auto-subint on|off``, ``lcp lcp-sync on|off``,
    ``lcp lcp-sync-unnumbered on|off``."""
    settings: dict[str, object] = {}
    for line in text.splitlines():
        words = line.split()
        if words[:3] == ["lcp", "default", "netns"] and len(words) > 3:
            name = " ".join(words[3:])
            quoted = len(name) >= 2 and name[0] == name[-1] == "'"
            name = name[1:-1] if quoted else ""
            settings["default_netns"] = "" if name == "<unset>" else name
        elif len(words) == 3 and words[0] == "lcp" and words[2] in ("on", "off"):
            option = {"lcp-sync": "sync", "lcp-auto-subint": "auto_subint",
                      "lcp-sync-unnumbered": "sync_unnumbered"}.get(words[1])
            if option:
                settings[option] = words[2] == "on"
    return LinuxCp(**settings)  # type: ignore[arg-type]


def parse_words(words: str) -> LinuxCp:
    """linux-cp's settings from the words of a startup.conf ``linux-cp { }``
    stanza ("lcp-sync lcp-auto-subint default netns dataplane"); ValueError
    names a word it does not know."""
    tokens = words.replace("{", " ").replace("}", " ").split()
    settings: dict[str, object] = {}
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word == "lcp-sync":
            settings["sync"] = True
        elif word == "lcp-auto-subint":
            settings["auto_subint"] = True
        elif word == "default" and tokens[i + 1:i + 2] == ["netns"] and i + 2 < len(tokens):
            settings["default_netns"] = tokens[i + 2]
            i += 2
        elif word != "linux-cp":
            raise ValueError(f"unknown linux-cp setting {word!r} (known: lcp-sync, "
                             "lcp-auto-subint, default netns NAME)")
        i += 1
    return LinuxCp(**settings)  # type: ignore[arg-type]


def read_hosts(backend: LinuxBackend, pairs: Iterable[tuple[str, str, str]]
               ) -> dict[str, HostLink]:
    """Each pair's host netdev, by the VPP interface it pairs: `pairs` are
    (VPP name, host name, netns); one dump of links and addresses per netns.
    A pair whose netdev (or netns) is gone is left out."""
    wanted: dict[str, list[tuple[str, str]]] = {}
    for vpp_name, host, netns in pairs:
        wanted.setdefault(netns, []).append((vpp_name, host))
    hosts: dict[str, HostLink] = {}
    for netns, names in wanted.items():
        try:
            links = {link.name: link for link in backend.links(netns)}
        except LinuxError as err:
            if err.errno == errno.ENOENT:
                continue
            raise
        for vpp_name, host in names:
            if host in links:
                hosts[vpp_name] = links[host]
    return hosts


def sim_socket_beside(api_socket: str) -> str | None:
    """The simulator's stand-in for netlink, served beside its API socket
    (vppcfg-sim --linux-socket's default), if there is one."""
    path = f"{api_socket}.linux"
    try:
        return path if stat.S_ISSOCK(os.stat(path).st_mode) else None
    except OSError:
        return None


def open_access(api_socket: str, linux_socket: str | None, managed: bool) -> LinuxAccess:
    """How a command reaches the Linux side: the socket given, else the
    simulator's beside its API socket, else netlink in this host's netns."""
    path = linux_socket or sim_socket_beside(api_socket)
    if path:
        from vppcfg.linux.simsocket import SimSocket

        return LinuxAccess(lambda: SimSocket(path), managed, path)
    from vppcfg.linux.netlink import Netlink

    return LinuxAccess(Netlink, managed)


def read_settings(conn: Any) -> LinuxCp:
    """linux-cp's settings as the connected VPP has them (VPP's defaults when
    it has no linux-cp)."""
    if not conn.has_message("lcp_itf_pair_get"):
        return LinuxCp()
    try:
        return parse_show_lcp(conn.cli("show lcp"))
    except Exception as err:  # a VPP whose CLI lacks it: say so, assume VPP's defaults
        if getattr(err, "retval", None) is None:
            raise
        return LinuxCp()


def collect_linux(conn: Any, raw: Any) -> None:
    """Put the Linux side into a dump's RawDump (table "linux"): linux-cp's
    settings and the host netdev of each pair it lists (objects.linux reads
    it into Dataplane.linux)."""
    access: LinuxAccess = conn.linux
    names = {d["sw_if_index"]: d["interface_name"] for d in raw.rows("interfaces")}
    pairs = [(names[p["phy_sw_if_index"]], p["host_if_name"], p["netns"])
             for p in raw.rows("lcp_pairs") if p["phy_sw_if_index"] in names]
    hosts = read_hosts(access.backend, pairs) if pairs else {}
    raw["linux"] = LinuxSide(read_settings(conn), FrozenDict(hosts), access.managed)


def linux_refusals(access: LinuxAccess | None, side: LinuxSide | None, ops: Iterable[Any],
                   locate: Any = None) -> list[str]:
    """Why Linux would refuse the plan's new lcp pairs, before any change: a
    default netns that does not exist, a host name a netdev of that netns has
    (and no pair of this plan gives up). Each names the config line."""
    if access is None or side is None:
        return []
    creates = [op for op in ops if op.obj == "lcp" and op.action == "create"
               and op.params.get("host") and op.params.get("auto") != op.params["host"]]
    if not creates:
        return []
    netns = side.settings.default_netns
    freed = {op.params.get("host") for op in ops if op.obj == "lcp" and op.action == "delete"}
    where = f"netns {netns!r}" if netns else "VPP's netns"
    try:
        taken = {link.name for link in access.backend.links(netns)} - freed
    except LinuxError as err:
        if err.errno != errno.ENOENT:
            raise
        return [f"{_at(locate, creates[0])}linux-cp's default {where} does not exist "
                f"(`ip netns add {netns}`, or change `linux-cp {{ default netns }}`)"]
    return [f"{_at(locate, op)}{op.params['name']}: lcp {op.params['host']!r}: {where} "
            "has a netdev of that name already" for op in creates if op.params["host"] in taken]


def _at(locate: Any, op: Any) -> str:
    return f"{locate(op)}: " if locate is not None else ""
