"""VPP's API socket for vpp_papi, without a reader thread, plus pipelining.

vpp_papi's own socket transport hands every reply from a reader thread to the
caller through a multiprocessing queue: two thread switches and a pickle per
message, most of the cost of a call. This class has the same interface (the
client calls connect, write, read, get_msg_index, ...) but reads the socket in
the caller's thread, from one buffer. vpp_papi still packs and unpacks every
message; the wire format is VPP's: a 16-byte header (big-endian q, length,
0) and the message.

`cork` / `uncork` batch writes into one send, which is how many requests go
out before the first reply is read (VPP answers them in order).
"""

from __future__ import annotations

import contextlib
import socket
import struct
from typing import Any

HEADER = struct.Struct(">QII")
RECV_SIZE = 1 << 18
SOCKCLNT_CREATE_ID, SOCKCLNT_CREATE_REPLY_ID = 15, 16  # fixed by VPP's memclnt


class TransportError(IOError):
    """The socket failed or VPP answered out of protocol."""


class NoAnswer(TransportError):
    """The socket accepted the connection and said nothing within the timeout."""


class DirectTransport:
    """A drop-in for vpp_papi.vpp_transport_socket.VppTransport."""

    VppTransportSocketIOError = TransportError

    def __init__(self, parent: Any, read_timeout: float | None, server_address: str) -> None:
        self.parent = parent
        self.read_timeout = read_timeout if read_timeout and read_timeout > 0 else None
        self.server_address = server_address
        self.connected = False
        self.socket: socket.socket | None = None
        self.socket_index = 0
        self.message_table: dict[str, int] = {}
        self._in = bytearray()
        self._pos = 0  # start of the unread part of _in
        self._out: list[bytes] | None = None  # corked writes

    # -- the vpp_papi transport interface -------------------------------------

    def connect(self, name: str, pfx: Any, msg_handler: Any, rx_qlen: int,
                do_async: bool = False) -> int:
        if self.socket is not None:
            raise TransportError(1, "already connected")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.read_timeout)
        sock.connect(self.server_address)
        self.socket, self.connected, self._in, self._pos = sock, True, bytearray(), 0
        create = self.parent.messages["sockclnt_create"]
        self.write(create.pack({"_vl_msg_id": SOCKCLNT_CREATE_ID, "name": name,
                                "context": 124}))
        msg = self.read()
        if not msg:
            raise NoAnswer(f"VPP did not answer within {self.read_timeout or 0:g} s")
        if struct.unpack_from(">H", msg)[0] != SOCKCLNT_CREATE_REPLY_ID:
            raise TransportError("it answered, but not as VPP's API does (is it VPP's API "
                                 "socket?)")
        reply, _ = self.parent.messages["sockclnt_create_reply"].unpack(msg)
        self.socket_index = reply.index
        self.message_table = {m.name: m.index for m in reply.message_table}
        return 0

    def disconnect(self) -> int:
        # lets VPP free the client's resources; best effort, it may close first
        with contextlib.suppress(Exception):
            self.parent.api.sockclnt_delete(index=self.socket_index)
        self.connected = False
        if self.socket is not None:
            self.socket.close()
        self.socket, self.message_table = None, {}
        return 0

    def suspend(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def get_callback(self, do_async: bool) -> None:
        return None

    def get_msg_index(self, name: str) -> int:
        return self.message_table.get(name, 0)

    def msg_table_max_index(self) -> int:
        return max(self.message_table.values(), default=0)

    def write(self, buf: bytes) -> None:
        if not self.connected or self.socket is None:
            raise TransportError(1, "not connected")
        data = HEADER.pack(0, len(buf), 0) + buf
        if self._out is not None:
            self._out.append(data)
            return
        self._send(data)

    def read(self, timeout: float | None = None) -> bytes | None:
        """The next message, or None when none came within the timeout."""
        if not self.connected or self.socket is None:
            raise TransportError(1, "not connected")
        wanted = self.read_timeout if timeout is None else (timeout if timeout > 0 else None)
        if wanted != self.socket.gettimeout():
            self.socket.settimeout(wanted)
        if not self._fill(HEADER.size):
            return None
        _, length, _ = HEADER.unpack_from(self._in, self._pos)
        if not self._fill(HEADER.size + length):
            return None
        start = self._pos + HEADER.size
        self._pos = start + length
        return bytes(self._in[start:self._pos])

    # -- pipelining -----------------------------------------------------------

    def cork(self) -> None:
        """Hold writes until `uncork`, which sends them at once."""
        if self._out is None:
            self._out = []

    def uncork(self) -> None:
        out, self._out = self._out, None
        if out:
            self._send(b"".join(out))

    # -- internals ------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        assert self.socket is not None
        try:
            self.socket.sendall(data)
        except OSError as err:  # a message may be cut short: the stream is unusable
            self.connected = False
            raise TransportError(1, f"send failed: {err!r}") from err

    def _fill(self, size: int) -> bool:
        """Read until `size` unread bytes are buffered; False on timeout."""
        assert self.socket is not None
        if len(self._in) - self._pos >= size:
            return True
        del self._in[:self._pos]  # drop what was read, once per receive
        self._pos = 0
        while len(self._in) < size:
            try:
                chunk = self.socket.recv(RECV_SIZE)
            except TimeoutError:
                return False
            except OSError as err:
                raise TransportError(1, f"receive failed: {err!r}") from err
            if not chunk:
                raise TransportError(1, "VPP closed the API socket")
            self._in += chunk
        return True
