"""The Linux side of vppcfg-sim, through its stand-in for netlink: a unix
socket carrying one JSON request and one JSON reply per line (the protocol
is in docs/simulator.md)."""

from __future__ import annotations

import errno
import json
import socket
from typing import Any

from vppcfg.linux import LinuxError
from vppcfg.model import HostLink

TIMEOUT = 10.0


class SimSocket:
    """LinuxBackend over the simulator's socket."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(TIMEOUT)
        try:
            self._sock.connect(path)
        except OSError as err:
            self._sock.close()
            raise LinuxError(err.errno or errno.EIO, f"{path}: {err.strerror or err}") from err
        self._file = self._sock.makefile("rwb")

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            self._file.write(json.dumps(request).encode() + b"\n")
            self._file.flush()
            line = self._file.readline()
        except OSError as err:
            raise LinuxError(err.errno or errno.EIO, f"{self.path}: {err}") from err
        if not line:
            raise LinuxError(errno.ECONNRESET, f"{self.path}: the simulator closed the socket")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise LinuxError(int(reply.get("errno") or errno.EIO),
                             str(reply.get("error") or "refused"))
        return reply

    def links(self, netns: str) -> list[HostLink]:
        from vppcfg.linux import canonical_addresses

        reply = self._ask({"op": "links", "netns": netns})
        return [HostLink(link["name"], netns, link["state"], int(link["mtu"]),
                         canonical_addresses(link.get("addresses") or ()))
                for link in reply["links"]]

    def set_link(self, netns: str, name: str, state: str | None = None,
                 mtu: int | None = None) -> None:
        request: dict[str, Any] = {"op": "set", "netns": netns, "name": name}
        if state is not None:
            request["state"] = state
        if mtu is not None:
            request["mtu"] = mtu
        self._ask(request)

    def address(self, netns: str, name: str, action: str, prefix: str) -> None:
        self._ask({"op": "addr", "action": action, "netns": netns, "name": name,
                   "address": prefix})

    def close(self) -> None:
        try:
            self._file.close()
            self._sock.close()
        except OSError:
            pass
