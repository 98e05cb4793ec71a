"""The Linux side through netlink (pyroute2), inside each pair's netns.

A netns is entered only if it exists (pyroute2 would create a missing one),
and each is opened once per command: reading 5,000 pairs is a dump of links
and one of addresses per netns, not a call per pair. The dumps are read
from a plain rtnetlink socket (made in the netns by pyroute2), taking only
the name, flags, MTU and addresses: pyroute2 decodes every attribute of
every link (stats, per-family settings), about 0.7 ms a link here, which
made `plan --linux-side manage` of 5,000 pairs seconds slower than `off`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import socket
import struct
from collections.abc import Iterator
from typing import Any

from vppcfg.linux import LinuxError, canonical_addresses
from vppcfg.model import HostLink

IFF_UP = 0x1
NETLINK_ROUTE = 0
RTM_GETLINK, RTM_GETADDR = 18, 22
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_DUMP_REQUEST = 0x1 | 0x300  # NLM_F_REQUEST | NLM_F_DUMP
IFLA_IFNAME, IFLA_MTU = 3, 4
IFA_ADDRESS, IFA_LOCAL = 1, 2
LINK_ATTRS, ADDRESS_ATTRS = frozenset((IFLA_IFNAME, IFLA_MTU)), frozenset((IFA_ADDRESS, IFA_LOCAL))
NLMSGHDR = struct.Struct("=IHHII")  # length, type, flags, seq, pid
IFINFOMSG = struct.Struct("=BxHiII")  # family, type, index, flags, change
IFADDRMSG = struct.Struct("=BBBBI")  # family, prefix length, flags, scope, index
NLATTR = struct.Struct("=HH")  # length, type
NETNS_DIR = "/run/netns"
CLONE_NEWNET = 0x40000000
_LIBC = ctypes.CDLL(None, use_errno=True)  # where `ip netns` and linux-cp keep named netns


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


def _raw() -> socket.socket:
    return socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)


def _align(length: int) -> int:
    return (length + 3) & ~3


def _dump(sock: socket.socket, kind: int, body: bytes) -> Iterator[memoryview]:
    """The payload of each message of one rtnetlink dump (OSError: refused)."""
    sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), kind, NLM_F_DUMP_REQUEST, 1, 0) + body)
    while True:
        data = memoryview(sock.recv(1 << 20))
        offset = 0
        while offset + NLMSGHDR.size <= len(data):
            length, kind, _, _, _ = NLMSGHDR.unpack_from(data, offset)
            if length < NLMSGHDR.size:
                raise OSError(errno.EPROTO, "malformed netlink message")
            payload = data[offset + NLMSGHDR.size:offset + length]
            if kind in (NLMSG_DONE, NLMSG_ERROR):
                code = -struct.unpack_from("=i", payload)[0] if len(payload) >= 4 else 0
                if code:
                    raise OSError(code, os.strerror(code))
                if kind == NLMSG_DONE:
                    return
            else:
                yield payload
            offset += _align(length)


def _attrs(payload: memoryview, offset: int, wanted: frozenset[int]) -> dict[int, memoryview]:
    """The `wanted` attributes after a message's fixed header, by type (the
    walk stops once it has them: a link carries some 50, the name and MTU first)."""
    found = {}
    while offset + NLATTR.size <= len(payload) and len(found) < len(wanted):
        length, kind = NLATTR.unpack_from(payload, offset)
        if length < NLATTR.size:
            break
        if kind & 0x3FFF in wanted:
            found[kind & 0x3FFF] = payload[offset + NLATTR.size:offset + length]
        offset += _align(length)
    return found


def _read_links(sock: socket.socket, netns: str) -> list[HostLink]:
    """Every netdev of the socket's netns: one dump of addresses, one of links.
    IPv4 addresses from inet_ntop are already canonical; IPv6 ones go through
    canonical_addresses (which also drops link-local)."""
    v4: dict[int, list[str]] = {}
    v6: dict[int, list[str]] = {}
    for payload in _dump(sock, RTM_GETADDR, bytes(IFADDRMSG.size)):
        family, length, _, _, index = IFADDRMSG.unpack_from(payload)
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        attrs = _attrs(payload, IFADDRMSG.size, ADDRESS_ATTRS)
        ip = attrs.get(IFA_LOCAL) or attrs.get(IFA_ADDRESS)
        if ip is not None:
            (v4 if family == socket.AF_INET else v6).setdefault(index, []).append(
                f"{socket.inet_ntop(family, ip)}/{length}")
    links = []
    for payload in _dump(sock, RTM_GETLINK, bytes(IFINFOMSG.size)):
        _, _, index, flags, _ = IFINFOMSG.unpack_from(payload)
        attrs = _attrs(payload, IFINFOMSG.size, LINK_ATTRS)
        name = bytes(attrs[IFLA_IFNAME]).split(b"\0", 1)[0].decode()
        addresses = tuple(sorted({*v4.get(index, ()), *canonical_addresses(v6.get(index, ()))}))
        links.append(HostLink(name, netns, "up" if flags & IFF_UP else "down",
                              struct.unpack_from("=I", attrs[IFLA_MTU])[0], addresses))
    return links


def _in_netns(netns: str, make: Any) -> Any:
    """make() with this thread in `netns`, then back: a netlink socket stays in
    the netns it was made in. No child process (pyroute2's NetNS forks one and
    sends it SIGTERM, and a child running vppcfg apply's signal handlers
    unwound a copy of vppcfg: "interrupted by SIGTERM", the API socket closed),
    and the same on Debian 12's pyroute2 0.7 and the locked 0.9."""
    own = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        target = os.open(os.path.join(NETNS_DIR, netns), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        os.close(own)
        raise
    try:
        _setns(target, netns)
        try:
            return make()
        finally:
            _setns(own, "(back)")
    finally:
        os.close(target)
        os.close(own)


def _setns(fd: int, what: str) -> None:
    if _LIBC.setns(fd, CLONE_NEWNET) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"setns {what}: {os.strerror(code)}")


class Netlink:
    """LinuxBackend over netlink sockets, one per netns used."""

    def __init__(self) -> None:
        self._sockets: dict[str, Any] = {}
        self._readers: dict[str, socket.socket] = {}

    def _reader(self, netns: str) -> socket.socket:
        """A plain rtnetlink socket in `netns`, for the dumps."""
        sock = self._readers.get(netns)
        if sock is not None:
            return sock
        _check_netns(netns)
        try:
            sock = (_raw() if not netns else _in_netns(netns, _raw))
        except _FAILURES as err:
            raise _error(err, f"netns {netns!r}") from err
        self._readers[netns] = sock
        return sock

    def _socket(self, netns: str) -> Any:
        sock = self._sockets.get(netns)
        if sock is not None:
            return sock
        pyroute2 = _pyroute2()
        _check_netns(netns)
        try:
            sock = pyroute2.IPRoute() if not netns else _in_netns(netns, pyroute2.IPRoute)
        except _FAILURES as err:
            raise _error(err, f"netns {netns!r}") from err
        self._sockets[netns] = sock
        return sock

    def links(self, netns: str) -> list[HostLink]:
        sock = self._reader(netns)
        try:
            return _read_links(sock, netns)
        except _FAILURES as err:
            raise _error(err, f"netns {netns or '(root)'}") from err

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
        for sock in [*self._sockets.values(), *self._readers.values()]:
            with contextlib.suppress(OSError):
                sock.close()
        self._sockets, self._readers = {}, {}


def _check_netns(netns: str) -> None:
    """LinuxError ENOENT unless `netns` is the root one or exists (never made here)."""
    if netns and ("/" in netns or netns in (".", "..") or not os.path.exists(
            os.path.join(NETNS_DIR, netns))):
        raise LinuxError(errno.ENOENT, f"netns {netns!r}: no such netns")
