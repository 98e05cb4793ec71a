"""The Linux side through netlink (pyroute2), inside each pair's netns.

A netns is entered only if it exists (pyroute2 would create a missing one),
and each is opened once per command: reading 5,000 pairs is a dump of links
and one of addresses per netns, not a call per pair.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
from typing import Any

from vppcfg.linux import LinuxError, canonical_addresses
from vppcfg.model import HostLink

IFF_UP = 0x1
NETNS_DIR = "/run/netns"  # where `ip netns` and linux-cp keep named netns


def _pyroute2() -> Any:
    try:
        import pyroute2
    except ImportError as err:  # declared; a system install may lack python3-pyroute2
        raise LinuxError(errno.ENOSYS, "the Linux side needs pyroute2 (Debian: python3-pyroute2)"
                         ) from err
    return pyroute2


def _failures() -> tuple[type[Exception], ...]:
    """What a refusal raises: pyroute2's NetlinkError (not an OSError) or OSError."""
    try:
        from pyroute2.netlink.exceptions import NetlinkError
    except ImportError:
        return (OSError,)
    return (OSError, NetlinkError)


_FAILURES = _failures()


def _error(err: Exception, what: str) -> LinuxError:
    code = getattr(err, "code", None) or getattr(err, "errno", None) or errno.EIO
    return LinuxError(code, f"{what}: {os.strerror(code)}")


def _open_netns(pyroute2: Any, netns: str) -> Any:
    """pyroute2's socket in `netns` (flags=0: never create it), with every
    signal blocked meanwhile: pyroute2 forks a child that enters the netns,
    hands the socket back and is sent SIGTERM at once. The child inherits this
    process's Python handlers (vppcfg apply's SignalGuard raises Interrupted):
    one run before the child's os._exit would unwind a copy of vppcfg (seen:
    "interrupted by SIGTERM", and its exit closing the shared API socket).
    Blocked, the signal dies with the child; one meant for us waits until the
    mask is restored."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        return pyroute2.NetNS(netns, flags=0)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class Netlink:
    """LinuxBackend over netlink sockets, one per netns used."""

    def __init__(self) -> None:
        self._sockets: dict[str, Any] = {}

    def _socket(self, netns: str) -> Any:
        sock = self._sockets.get(netns)
        if sock is not None:
            return sock
        pyroute2 = _pyroute2()
        if not netns:
            sock = pyroute2.IPRoute()
        elif "/" in netns or netns in (".", "..") or not os.path.exists(
                os.path.join(NETNS_DIR, netns)):
            raise LinuxError(errno.ENOENT, f"netns {netns!r}: no such netns")
        else:
            try:
                sock = _open_netns(pyroute2, netns)
            except _FAILURES as err:
                raise _error(err, f"netns {netns!r}") from err
        self._sockets[netns] = sock
        return sock

    def links(self, netns: str) -> list[HostLink]:
        sock = self._socket(netns)
        try:
            links = sock.get_links()
            addrs = sock.get_addr()
        except _FAILURES as err:
            raise _error(err, f"netns {netns or '(root)'}") from err
        by_index: dict[int, list[str]] = {}
        for addr in addrs:
            if addr["family"] not in (socket.AF_INET, socket.AF_INET6):
                continue
            ip = addr.get_attr("IFA_LOCAL") or addr.get_attr("IFA_ADDRESS")
            by_index.setdefault(addr["index"], []).append(f"{ip}/{addr['prefixlen']}")
        return [HostLink(link.get_attr("IFLA_IFNAME"), netns,
                         "up" if link["flags"] & IFF_UP else "down", link.get_attr("IFLA_MTU"),
                         canonical_addresses(by_index.get(link["index"], ())))
                for link in links]

    def _index(self, sock: Any, netns: str, name: str) -> int:
        found = sock.link_lookup(ifname=name)
        if not found:
            raise LinuxError(errno.ENODEV, f"{name} in netns {netns or '(root)'}: no such device")
        return int(found[0])

    def set_link(self, netns: str, name: str, state: str | None = None,
                 mtu: int | None = None) -> None:
        sock = self._socket(netns)
        index = self._index(sock, netns, name)
        try:
            if mtu is not None:
                sock.link("set", index=index, mtu=mtu)
            if state is not None:
                sock.link("set", index=index, state=state)
        except _FAILURES as err:
            raise _error(err, f"{name} in netns {netns or '(root)'}") from err

    def address(self, netns: str, name: str, action: str, prefix: str) -> None:
        sock = self._socket(netns)
        index = self._index(sock, netns, name)
        ip, length = prefix.split("/")
        try:
            sock.addr(action, index=index, address=ip, prefixlen=int(length))
        except _FAILURES as err:
            raise _error(err, f"{action} {prefix} on {name} in netns {netns or '(root)'}"
                         ) from err

    def close(self) -> None:
        for sock in self._sockets.values():
            with contextlib.suppress(OSError):
                sock.close()
        self._sockets = {}
