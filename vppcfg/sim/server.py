"""The simulator's wire side: VPP's binary API over a unix socket, as vpp_papi speaks it.

Each client connection gets a thread (and one more that writes its replies,
in order). The connection starts with
sockclnt_create (answered with the message table), then carries requests;
dumps are followed by the client's control_ping, which we answer after the
details like VPP does. The memclnt messages (ping, keepalive, first-msg-id,
api versions, delete) are the server's business; cli_inband goes to
`vppcfg.sim.cli`; everything else goes to the behaviour model (a
`vppcfg.sim.protocol.Handler`), one request at a time under one lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import select
import socket
import threading
from collections.abc import Iterable
from typing import Any

from vppcfg.sim.cli import SimCli
from vppcfg.sim.codec import FRAME_HEADER, HEADER_FIELDS, ApiDefinitions, frame
from vppcfg.sim.protocol import Handler, Response
from vppcfg.sim.sockets import accept_each, remove_stale_socket
from vppcfg.vpp_numbers import UNIMPLEMENTED, UNSPECIFIED

log = logging.getLogger("vppcfg.sim")

MAX_MESSAGE = 64 << 20  # refuse absurd frame lengths instead of allocating them

# Messages served by the wire side itself, whatever the model implements.
MEMCLNT_SERVED = (
    "sockclnt_create",
    "sockclnt_delete",
    "control_ping",
    "memclnt_keepalive",
    "memclnt_keepalive_reply",
    "get_first_msg_id",
    "api_versions",
    "get_api_json",
)


class SimServer:
    """A VPP API socket server in front of a behaviour model."""

    def __init__(
        self,
        handler: Handler,
        socket_path: str | os.PathLike[str],
        *,
        api: ApiDefinitions | None = None,
        api_dir: str | os.PathLike[str] | None = None,
        keepalive: float | None = None,
    ) -> None:
        self.handler = handler
        self.socket_path = str(socket_path)
        self.api = api or ApiDefinitions(api_dir)
        self.keepalive = keepalive  # seconds of client silence before a memclnt_keepalive
        self.lock = threading.Lock()  # one request at a time reaches the model
        self.offered = self._offered_messages()
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._sessions: dict[int, _Session] = {}
        self._sessions_lock = threading.Lock()
        self._next_index = 1
        self._stopping = threading.Event()
        self.cli = SimCli(handler, self.api)
        self.linux: Any = None  # vppcfg-sim's Linux socket server (linux_server), if any

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> SimServer:
        remove_stale_socket(self.socket_path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.socket_path)
        listener.listen(16)
        listener.settimeout(0.2)  # lets the accept loop notice stop()
        self._listener = listener
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name="vppcfg-sim-accept", daemon=True
        )
        self._accept_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close every connection, stop accepting and remove the socket file."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        if self._accept_thread:
            self._accept_thread.join(timeout)
        with self._sessions_lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            session.close()
        for session in sessions:
            session.thread.join(timeout)
        if self._listener:
            self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until stop() (True) or the timeout (False)."""
        return self._stopping.wait(timeout)

    @property
    def clients(self) -> int:
        with self._sessions_lock:
            return len(self._sessions)

    def __enter__(self) -> SimServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        accept_each(self._listener, self._stopping, self._start_session)

    def _start_session(self, conn: socket.socket) -> None:
        with self._sessions_lock:
            index = self._next_index
            self._next_index += 1
            session = _Session(self, conn, index)
            self._sessions[index] = session
        session.thread.start()

    def _forget(self, session: _Session) -> None:
        with self._sessions_lock:
            self._sessions.pop(session.index, None)

    # -- message table ----------------------------------------------------------

    def _offered_messages(self) -> set[str]:
        """What the message table offers: memclnt, the CLI, and what the model implements.

        A model may list the requests it implements in a ``messages`` attribute; the
        client then refuses anything else itself, as with a VPP lacking a plugin.
        """
        known = set(self.api.ids)
        implemented: Iterable[str] | None = getattr(self.handler, "messages", None)
        if implemented is None:
            return known
        memclnt = next((m for m in self.api.modules if m.name == "memclnt"), None)
        offered = set(memclnt.messages if memclnt else MEMCLNT_SERVED)
        for request in [*implemented, "cli_inband"]:
            if request not in known:
                continue
            offered.add(request)
            offered.update(n for n in self.api.reply_names(request) if n)
        # names a model answers with instead of the usual reply (e.g. lcp_itf_pair_get_reply)
        offered.update(getattr(self.handler, "extra_replies", ()))
        return offered & known

    # -- dispatch ----------------------------------------------------------------

    def dispatch(self, session: _Session, name: str, fields: dict[str, Any]) -> list[bytes]:
        """Encoded messages answering one request, in order."""
        context = fields.get("context", 0)
        served = getattr(self, "_serve_" + name, None) if name in MEMCLNT_SERVED else None
        if served is not None:
            return served(session, fields)
        args = {k: v for k, v in fields.items() if k not in HEADER_FIELDS}
        with self.lock:  # encoding too: an answer may share lists with the model's state
            response = self._ask_model(name, args)
            try:
                return self._encode_response(name, response, context)
            except Exception:  # a model answer that does not fit the message definition
                log.exception("%s: cannot encode the model's answer %r", name, response)
        reply_name, _ = self.api.reply_names(name)
        return [self._encode(reply_name, {"retval": UNSPECIFIED}, context)] if reply_name else []

    def _ask_model(self, name: str, args: dict[str, Any]) -> Response:
        try:
            if name == "cli_inband":
                return self.cli.handle(args)
            return self.handler.handle(name, args)
        except KeyError as err:
            log.warning("%s: not implemented by the model (%s)", name, err)
            return Response(reply={"retval": UNIMPLEMENTED})
        except Exception:
            # A model bug must not hang the client: log it, answer "unspecified error".
            log.exception("%s%r failed in the model", name, args)
            return Response(reply={"retval": UNSPECIFIED})

    def _encode_response(self, request: str, response: Response, context: int) -> list[bytes]:
        reply_name, details_name = self.api.reply_names(request)
        details_name = response.details_name or details_name
        reply_name = response.reply_name or reply_name
        out = []
        if details_name:
            out += [self._encode(details_name, d, context) for d in response.details]
        if reply_name and (response.reply is not None or response.reply_name):
            out.append(self._encode(reply_name, response.reply or {}, context))
        elif reply_name and not details_name:  # a reply is due even when the model gave none
            out.append(self._encode(reply_name, {"retval": 0}, context))
        return out

    def _encode(self, name: str, fields: dict[str, Any], context: int) -> bytes:
        return self.api.encode(name, {**fields, "context": context})

    # -- memclnt, served here ----------------------------------------------------

    def _serve_sockclnt_create(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        session.name = fields.get("name", "")
        table = self.api.table(self.offered)
        reply = {
            "response": 0,
            "index": session.index,
            "count": len(table),
            "message_table": table,
            "client_index": session.index,
        }
        return [self._encode("sockclnt_create_reply", reply, fields.get("context", 0))]

    def _serve_sockclnt_delete(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        session.closing = True  # VPP drops the registration after the reply
        return [self._encode("sockclnt_delete_reply", {"response": 0}, fields["context"])]

    def _serve_control_ping(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        reply = {"retval": 0, "client_index": session.index, "vpe_pid": os.getpid()}
        return [self._encode("control_ping_reply", reply, fields["context"])]

    def _serve_memclnt_keepalive(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        return [self._encode("memclnt_keepalive_reply", {"retval": 0}, fields["context"])]

    def _serve_memclnt_keepalive_reply(self, session: _Session, fields: dict[str, Any]) -> list:
        return []  # the client is alive; nothing to say

    def _serve_get_first_msg_id(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        module = self.api.module(fields.get("name", ""))
        reply = (
            {"retval": 0, "first_msg_id": module.first_msg_id}
            if module
            else {"retval": UNSPECIFIED, "first_msg_id": 0xFFFF}
        )
        return [self._encode("get_first_msg_id_reply", reply, fields["context"])]

    def _serve_api_versions(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        versions = []
        for module in self.api.modules:
            major, minor, patch = ([*map(int, module.version.split(".")), 0, 0, 0])[:3]
            versions.append({"major": major, "minor": minor, "patch": patch, "name": module.name})
        reply = {"retval": 0, "count": len(versions), "api_versions": versions}
        return [self._encode("api_versions_reply", reply, fields["context"])]

    def _serve_get_api_json(self, session: _Session, fields: dict[str, Any]) -> list[bytes]:
        # What vpp_papi's bootstrap mode loads: all our definitions as one JSON array.
        files = sorted(self.api.api_dir.rglob("*.api.json"))
        apis = [json.loads(p.read_text(encoding="utf-8")) for p in files]
        reply = {"retval": 0, "json": json.dumps(apis)}
        return [self._encode("get_api_json_reply", reply, fields["context"])]

    def send_keepalive(self, session: _Session) -> None:
        session.send(self._encode("memclnt_keepalive", {"client_index": session.index}, 0))


class _Session:
    """One client connection and the thread serving it."""

    def __init__(self, server: SimServer, conn: socket.socket, index: int) -> None:
        self.server = server
        self.conn = conn
        self.index = index
        self.name = ""
        self.closing = False
        self.thread = threading.Thread(target=self._run, name=f"vppcfg-sim-{index}", daemon=True)
        # Replies go out from a thread of their own, queued like VPP queues a
        # client's output: a client that pipelines many requests before
        # reading never blocks our reading (which would block its writing).
        self._out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write, name=f"vppcfg-sim-{index}-tx",
                                        daemon=True)
        self._writer.start()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.shutdown(socket.SHUT_RDWR)

    def send(self, payload: bytes) -> None:
        self._out.put(frame(payload))

    def _write(self) -> None:
        while (data := self._out.get()) is not None:
            try:
                self.conn.sendall(data)
            except OSError as err:  # the client went away: drop the rest
                log.debug("client %d: %s", self.index, err)
                return

    def _run(self) -> None:
        try:
            while not self.closing:
                if not self._wait_readable():
                    self.server.send_keepalive(self)
                    continue
                payload = self._read_frame()
                if payload is None:
                    break
                self._serve(payload)
        except OSError as err:  # the client went away mid-message
            log.debug("client %d: %s", self.index, err)
        finally:
            self._out.put(None)
            self._writer.join(timeout=5)
            self.conn.close()
            self.server._forget(self)

    def _serve(self, payload: bytes) -> None:
        api = self.server.api
        try:
            name, fields = api.decode(payload)
        except Exception as err:  # VPP drops what it cannot parse
            log.warning("client %d: undecodable message (%s)", self.index, err)
            return
        if name not in self.server.offered:
            log.warning("client %d: %s is not in the message table", self.index, name)
            return
        answer = self.server.dispatch(self, name, fields)
        if answer:  # one write for all of it: fewer wake-ups on both sides
            self._out.put(b"".join(frame(out) for out in answer))

    def _wait_readable(self) -> bool:
        """True when data (or EOF) is waiting; False after a keepalive interval of silence."""
        interval = self.server.keepalive
        if not interval:
            return True
        readable, _, _ = select.select([self.conn], [], [], interval)
        return bool(readable)

    def _read_frame(self) -> bytes | None:
        header = self._read_exactly(FRAME_HEADER.size)
        if header is None:
            return None
        _, length, _ = FRAME_HEADER.unpack(header)
        if length > MAX_MESSAGE:
            raise OSError(f"frame of {length} bytes")
        return self._read_exactly(length)

    def _read_exactly(self, size: int) -> bytes | None:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            n = self.conn.recv_into(view[got:], size - got)
            if n == 0:
                return None
            got += n
        return bytes(buf)


def run_in_thread(
    handler: Handler, socket_path: str | os.PathLike[str], **kwargs: Any
) -> SimServer:
    """Start a server on socket_path in background threads; stop() it when done."""
    return SimServer(handler, socket_path, **kwargs).start()

