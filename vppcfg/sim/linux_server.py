"""The sim's Linux side on a unix socket: the stand-in for netlink that clients use.

Newline-delimited JSON: one request object per line, one reply object per line,
many requests per connection. Requests:

    {"op": "netns"}                                  -> {"ok": true, "netns": ["", ...]}
    {"op": "links", "netns": NS}                     -> {"ok": true, "links": [{"name", "ifindex",
                                                        "state": "up"|"down", "mtu",
                                                        "addresses": ["ip/len", ...],
                                                        "parent": NAME|null}, ...]}
    {"op": "set", "netns": NS, "name": DEV, "state": "up"|"down" (optional), "mtu": N (optional)}
    {"op": "addr", "action": "add"|"del", "netns": NS, "name": DEV, "address": "ip/len"}
    {"op": "del_link", "netns": NS, "name": DEV}     -> {"ok": true}

Any error: {"ok": false, "errno": N, "error": strerror(N)}; a malformed request
is EINVAL (22). "" is the sim's root netns. A line longer than MAX_LINE is
answered with EINVAL and the connection closed.

What is done here stays in Linux: VPP learns of Linux changes only through
the linux_nl plugin, which the real VPPs vppcfg is tested on do not load
(`show plugins`), so nothing reaches the VPP side (a pair whose netdev is
deleted here stays in VPP, as it does there).

It shares the API server's lock: both see one SimState, one request at a time.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import socket
import threading
from typing import Any

from vppcfg.sim.linux import LinuxError, LinuxHost
from vppcfg.sim.sockets import accept_each, remove_stale_socket

log = logging.getLogger("vppcfg.sim.linux")

MAX_LINE = 64 * 1024


class BadRequest(Exception):
    """A request that is not what the protocol says (answered EINVAL)."""


def error(number: int) -> dict[str, Any]:
    return {"ok": False, "errno": number, "error": os.strerror(number)}


def _text(request: dict[str, Any], key: str) -> str:
    value = request.get(key)
    if not isinstance(value, str):
        raise BadRequest(key)
    return value


def _set(host: LinuxHost, request: dict[str, Any]) -> None:
    ns, name = _text(request, "netns"), _text(request, "name")
    state, mtu = request.get("state"), request.get("mtu")
    if state not in (None, "up", "down") or (
            mtu is not None and (not isinstance(mtu, int) or isinstance(mtu, bool))):
        raise BadRequest("state/mtu")
    host.device(ns, name)  # ENOENT / ENODEV before anything changes
    if mtu is not None:  # ip link set DEV mtu N up: the MTU first
        host.set_mtu(ns, name, mtu)
    if state is not None:
        host.set_state(ns, name, state == "up")


def _addr(host: LinuxHost, request: dict[str, Any]) -> None:
    action = request.get("action")
    if action not in ("add", "del"):
        raise BadRequest("action")
    ns, name, address = (_text(request, k) for k in ("netns", "name", "address"))
    if "/" not in address:
        raise BadRequest("address")
    (host.add_address if action == "add" else host.del_address)(ns, name, address)


def answer(host: LinuxHost, request: Any) -> dict[str, Any]:
    """The reply to one decoded request."""
    try:
        if not isinstance(request, dict):
            raise BadRequest("not an object")
        op = request.get("op")
        if op == "netns":
            return {"ok": True, "netns": sorted(host.netdevs)}
        if op == "links":
            devices = host.namespace(_text(request, "netns")).values()
            return {"ok": True, "links": [d.row() for d in
                                          sorted(devices, key=lambda d: d.ifindex)]}
        if op == "set":
            _set(host, request)
        elif op == "addr":
            _addr(host, request)
        elif op == "del_link":
            host.del_link(_text(request, "netns"), _text(request, "name"))
        else:
            raise BadRequest("op")
        return {"ok": True}
    except LinuxError as err:
        return error(err.errno)
    except BadRequest:
        return error(errno.EINVAL)


class LinuxServer:
    """Serves a LinuxHost under the API server's lock, a thread per client."""

    def __init__(self, host: LinuxHost, path: str, lock: Any) -> None:
        self.host = host
        self.path = path
        self.lock = lock
        self._listener: socket.socket | None = None
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._conns: set[socket.socket] = set()

    def start(self) -> LinuxServer:
        remove_stale_socket(self.path, what="simulator")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        listener.listen(16)
        listener.settimeout(0.2)  # lets the accept loop notice stop()
        self._listener = listener
        self._spawn(self._accept_loop, "vppcfg-sim-linux")
        return self

    def stop(self) -> None:
        """Close every connection, stop accepting, remove the socket file."""
        if self._stopping.is_set() or self._listener is None:
            return
        self._stopping.set()
        for conn in list(self._conns):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(5)
        self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def _spawn(self, target: Any, name: str, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        accept_each(self._listener, self._stopping, self._take)

    def _take(self, conn: socket.socket) -> None:
        self._conns.add(conn)
        self._spawn(self._serve, "vppcfg-sim-linux-client", conn)

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn, conn.makefile("rb") as reader:
                while not self._stopping.is_set():
                    line = reader.readline(MAX_LINE + 1)
                    if not line:
                        return
                    too_long = len(line) > MAX_LINE and not line.endswith(b"\n")
                    conn.sendall(self._reply(line, too_long))
                    if too_long:  # the rest of that line would read as garbage
                        return
        except OSError as err:  # the client went away
            log.debug("linux socket client: %s", err)
        finally:
            self._conns.discard(conn)

    def _reply(self, line: bytes, too_long: bool) -> bytes:
        if too_long:
            reply = error(errno.EINVAL)
        else:
            try:
                request = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                reply = error(errno.EINVAL)
            else:
                reply = self._answer(request)
        return json.dumps(reply).encode() + b"\n"


    def _answer(self, request: Any) -> dict[str, Any]:
        with self.lock:
            try:
                return answer(self.host, request)
            except Exception:  # a bug must not end the sim: log it, answer EINVAL
                log.exception("linux socket: %r failed", request)
                return error(errno.EINVAL)


def default_path(api_socket: str) -> str:
    return f"{api_socket}.linux"
