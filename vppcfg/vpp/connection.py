"""The connection to VPP's binary API through vpp_papi.

One VppConnection per command run. Every call goes through `call`, which
checks the reply's retval (vpp_papi does not) and turns transport failures
into one-line VppError messages.
"""

from __future__ import annotations

import errno
import logging
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vppcfg.vpp.definitions import api_messages, subset
from vppcfg.vpp.errors import (
    EAGAIN,
    VppApiError,
    VppDefinitionsMissing,
    VppError,
    VppMessageMissing,
    VppNotRunning,
    VppPermissionDenied,
    VppTimeout,
)

if TYPE_CHECKING:
    from vppcfg.model import Dataplane
    from vppcfg.vpp.context import ApiContext, PipelinedContext
    from vppcfg.vpp.preflight import Offer

class _Declared(frozenset):
    """The default request list: every message the object types declare."""


DECLARED: frozenset[str] = _Declared()
LCP_MAX_PAGES = 10000  # bound on lcp_itf_pair_get cursor pages (EAGAIN retries)
PIPELINE_WINDOW = 256  # requests in flight in call_many


# The API modules of connecting and of the interface index map; the object
# types add theirs (tests/test_pipeline.py checks every message the code names
# is loaded). Every *_types module is loaded too, for the types they share.
# vpp_papi builds a class per message of every file it loads: loading these
# instead of all of VPP's ~60 files saves most of the connect time.
BASIC_MODULES = frozenset({"memclnt", "vpe", "vlib", "interface"})


def api_modules() -> frozenset[str]:
    """The API files to load: the basic ones and those the object types
    declare (`api_modules` of each descriptor)."""
    from vppcfg.objects import DESCRIPTORS

    return BASIC_MODULES.union(*(d.api_modules for d in DESCRIPTORS))


def api_files(json_dir: str | os.PathLike[str], modules: frozenset[str] | None = None
              ) -> list[str]:
    """The *.api.json under json_dir (VPP installs core/ and plugins/ below it):
    all of them, or those of `modules` and every *_types one."""
    root = Path(json_dir)
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise VppDefinitionsMissing(f"VPP API definitions directory {root} {what}")
    # rglob passes over what it may not enter: say so, rather than "no definitions"
    if not os.access(root, os.R_OK | os.X_OK):
        raise VppDefinitionsMissing(f"VPP API definitions directory {root}: permission denied")
    files = sorted(str(p) for p in root.rglob("*.api.json"))
    if not files:
        raise VppDefinitionsMissing(f"no *.api.json VPP API definitions under {root}")
    if modules is None:
        return files
    return [f for f in files if _module(f) in modules or _module(f).endswith("_types")]


def _module(path: str) -> str:
    return os.path.basename(path)[:-len(".api.json")]


class VppConnection:
    """A connected vpp_papi client with retval checking and version choice."""

    def __init__(self, client: Any, api_socket: str) -> None:
        self._client = client
        self._api = client.api
        self.api_socket = api_socket
        self.calls = 0  # number of API requests sent (for benchmarks)
        self._messages: dict[str, tuple[Any, int]] = {}  # name -> (definition, index)
        self._dumped_index: dict[str, int] | None = None  # name -> index of the last dump
        self.json_dir = ""  # where the definitions came from (for the preflight's reports)
        self._reopen: tuple[Any, ...] | None = None  # _connect's arguments, for reconnect()
        # The Linux side of the lcp pairs (vppcfg.linux.LinuxAccess), set by a
        # command that reads it: dump() then reads it too, the executor writes it.
        self.linux: Any = None

    @classmethod
    @contextmanager
    def open(
        cls,
        api_socket: str | os.PathLike[str],
        json_dir: str | os.PathLike[str],
        timeout: float = 5.0,
        name: str = "vppcfg",
        requests: frozenset[str] | None = DECLARED,
    ) -> Iterator[VppConnection]:
        """Connect to VPP; disconnect on exit. Only the API messages in
        `requests` (and their answers) can be sent: by default those the
        object types declare (vppcfg.vpp.definitions); None: every message of
        api_modules() (for tests that set VPP up by hand)."""
        files = api_files(json_dir, api_modules())
        if requests is DECLARED:
            requests = api_messages()
        reopen = (str(api_socket), files, timeout, name, requests)
        conn = cls(_connect(*reopen), str(api_socket))
        conn.json_dir, conn._reopen = str(json_dir), reopen
        try:
            yield conn
        finally:
            conn._disconnect()

    @property
    def connected(self) -> bool:
        """False once the socket failed (a message may have been cut short)."""
        return bool(getattr(self._client.transport, "connected", True))

    def reconnect(self) -> None:
        """A fresh connection in place of one whose socket failed (what a
        rollback needs after VPP stopped answering for a while)."""
        if self._reopen is None:
            raise VppNotRunning("this connection cannot be reopened")
        self._disconnect()
        self._client = _connect(*self._reopen)
        self._api = self._client.api
        self._messages.clear()
        self._dumped_index = None

    def _disconnect(self) -> None:
        try:
            self._client.disconnect()
        except Exception:
            logging.getLogger(__name__).debug("disconnect failed", exc_info=True)

    # -- messages ---------------------------------------------------------

    def has_message(self, message: str) -> bool:
        """Whether the connected VPP knows this message (name and CRC match)."""
        return hasattr(self._api, message)

    def offer(self, messages: Iterable[str] | None = None) -> Offer:
        """What this VPP offers of `messages` (default: every declared one),
        for the preflight: usable ones, and VPP's and our CRCs to tell a
        missing plugin from definitions that are not this VPP's."""
        from vppcfg.vpp.preflight import Offer

        wanted = api_messages() if messages is None else frozenset(messages)
        vpp: dict[str, str] = {}
        for key in getattr(self._client.transport, "message_table", {}):
            name, _, crc = key.rpartition("_")
            vpp[name] = crc
        ours = {m: self._client.messages[m].crc for m in wanted if m in self._client.messages}
        usable = frozenset(m for m in wanted if self.has_message(m))
        return Offer(usable, vpp, ours, self.json_dir)

    def missing(self, message: str) -> VppMessageMissing:
        """The error for a message this VPP does not offer: whose it is, and
        whether VPP lacks it or has it under another CRC."""
        from vppcfg.vpp.preflight import MISMATCH, plugin_of

        offer = self.offer((message,))
        if offer.status(message) == MISMATCH:
            return VppMessageMissing(f"{offer.explain(message)} (API definitions mismatch)")
        plugin = plugin_of(message)
        where = f" ({plugin.describe()})" if plugin is not None and plugin.so else ""
        return VppMessageMissing(f"this VPP lacks {message}{where}")

    def pick(self, *messages: str) -> str:
        """The first message of `messages` this VPP offers (newest first)."""
        for message in messages:
            if self.has_message(message):
                return message
        raise self.missing(messages[0])

    def call(self, message: str, **args: Any) -> Any:
        """Send one request; return the reply (or list of details for a dump).

        A non-zero retval raises VppApiError. For streamed replies the
        (reply, details) pair of vpp_papi is returned as is.
        """
        return self.check(message, args, self._invoke(message, args))

    def _invoke(self, message: str, args: dict[str, Any]) -> Any:
        """The vpp_papi call itself, its failures turned into VppErrors."""
        func = getattr(self._api, message, None)
        if func is None:
            raise self.missing(message)
        self.calls += 1
        try:
            return func(**args)
        except self._client.VPPIOError as err:
            raise VppTimeout(f"{message}: no answer from VPP ({err})") from err
        except (OSError, self._client.VPPValueError) as err:
            raise VppError(f"{message}: {err}") from err

    def call_many(self, requests: list[tuple[str, dict[str, Any]]],
                  window: int = PIPELINE_WINDOW,
                  on_batch: Callable[[int, list[Any]], bool] | None = None) -> list[Any]:
        """Many requests, pipelined: `window` go out in one write, and the next
        write goes out before the replies to the previous one are read (VPP
        works while we decode). Returns each request's result in request
        order: the reply (its retval unchecked: see `check`), a dump's list of
        details, or a "get" stream's (reply, details) pair. VPP answers
        requests in order on one socket.

        `on_batch(start, results)` sees each write's results; when it returns
        True nothing more is sent (the results of what was sent are still read,
        shown to it and returned), so the list may be shorter than `requests`.
        """
        results: list[Any] = []
        in_flight: deque[_Batch] = deque()
        routes: dict[int, _Batch] = {}  # context -> its batch, for every batch in flight
        stopped = False
        try:
            for start in range(0, len(requests) + window, window):
                batch = requests[start:start + window]
                if batch and not stopped:
                    in_flight.append(self._send_batch(start, batch, routes))
                elif not in_flight:
                    break
                if len(in_flight) > 1 or not batch or stopped:
                    done = in_flight.popleft()
                    self._collect(done, routes)
                    results.extend(done.results)
                    # every batch read is shown to on_batch, those in flight when it
                    # said stop too: VPP carried them out, the caller must know
                    if on_batch is not None and on_batch(done.start, done.results):
                        stopped = True
        except OSError as err:  # the socket failed: VPP is gone
            raise VppError(f"{requests[0][0]}: {err}") from err
        return results

    def check(self, message: str, args: dict[str, Any], result: Any) -> Any:
        """`result` of `message`, or VppApiError when its retval is not zero."""
        # a streamed "get" answers (reply, details); a plain reply is a namedtuple
        streamed = isinstance(result, tuple) and not hasattr(result, "_fields")
        head = result[0] if streamed else result
        retval = getattr(head, "retval", 0)
        if retval != 0:
            raise VppApiError(message, retval, args)
        return result

    def _send_batch(self, start: int, requests: list[tuple[str, dict[str, Any]]],
                    routes: dict[int, _Batch]) -> _Batch:
        """Write the requests at once; the batch collects their replies."""
        batch = _Batch(start, [None] * len(requests), requests[0][0])
        services = self._client.services
        self._client.transport.cork()
        try:
            for position, (message, args) in enumerate(requests):
                kind = _kind(services[message])
                context = self._send_async(message, args)
                batch.pending[context] = (position, kind)
                routes[context] = batch
                if kind != "plain":
                    batch.results[position] = [] if kind == "dump" else (None, [])
            # one ping after all the dumps: its reply says every dump is complete
            if any(kind == "dump" for _, kind in batch.pending.values()):
                batch.ping = self._send_async("control_ping", {})
                routes[batch.ping] = batch
        finally:
            self._client.transport.uncork()
        batch.left = sum(1 for _, k in batch.pending.values() if k != "dump") + bool(batch.ping)
        self.calls += len(requests)
        return batch

    def _send_async(self, message: str, args: dict[str, Any]) -> int:
        msg, index = self._message(message)
        context = self._client.get_context()
        unknown = args.keys() - msg.field_by_name.keys()
        if unknown:
            raise VppError(f"{message}: unknown argument(s) {', '.join(sorted(unknown))}")
        fields = {**args, "_vl_msg_id": index, "context": context,
                  "client_index": self._client.transport.socket_index}
        try:
            self._client.transport.write(msg.pack(fields))
        except (TypeError, ValueError, AttributeError) as err:  # vpp_papi's packing errors
            raise VppError(f"{message}: {err}") from err
        return context

    def _message(self, message: str) -> tuple[Any, int]:
        """vpp_papi's definition of `message` and its index in this VPP."""
        found = self._messages.get(message)
        if found is None:
            msg = self._client.messages.get(message)
            index = self._client.transport.get_msg_index(f"{message}_{msg.crc[2:]}") \
                if msg is not None else 0
            if index <= 0:
                raise self.missing(message)
            found = self._messages[message] = (msg, index)
        return found

    def _collect(self, batch: _Batch, routes: dict[int, _Batch]) -> None:
        """Read until `batch` is complete, filing replies of later batches
        (already arriving) with their own batch."""
        client = self._client
        while batch.left:
            raw = client.transport.read(client.read_timeout)
            if raw is None:
                raise VppTimeout(f"{batch.first}: no answer from VPP")
            reply = client.decode_incoming_msg(raw)
            owner = routes.get(getattr(reply, "context", None))
            if owner is None:
                continue  # an event or a stray reply: not ours
            if owner.file(reply):
                del routes[reply.context]

    def dump_stream(self, message: str, cursor: int = 0, **args: Any) -> list[Any]:
        """A cursor-paged "get" (reply + details), following EAGAIN pages."""
        details: list[Any] = []
        for _ in range(LCP_MAX_PAGES):
            reply, page = self._invoke(message, {**args, "cursor": cursor})
            details.extend(page)
            if reply.retval == EAGAIN:  # more to come: ask again from this cursor
                cursor = reply.cursor
                continue
            if reply.retval != 0:
                raise VppApiError(message, reply.retval, args)
            return details
        raise VppTimeout(f"{message}: still paging after {LCP_MAX_PAGES} calls")

    def context(self, after_dump: bool = False) -> ApiContext:
        """An executor context whose interface index map is filled from VPP.

        after_dump=True takes the map from the dump just made on this
        connection instead of asking again (only right after `dump()`, with
        nothing changed in between: the apply's dump-plan-execute sequence).
        """
        from vppcfg.vpp.context import ApiContext

        index = self._dumped_index if after_dump else None
        return ApiContext(self, index)

    def pipelined_context(self, after_dump: bool = False) -> PipelinedContext:
        """Like `context`, but mutating calls are queued and sent in waves."""
        from vppcfg.vpp.context import PipelinedContext

        return PipelinedContext(self, self._dumped_index if after_dump else None)

    def dump(self) -> Dataplane:
        """The whole live dataplane as a model value."""
        from vppcfg.gcpause import gc_paused
        from vppcfg.vpp.dump import build_dataplane, collect

        with gc_paused():  # thousands of replies and dicts, no cycles
            raw = collect(self)
            if self.linux is not None:
                from vppcfg.linux import collect_linux

                collect_linux(self, raw)
            self._dumped_index = {d["interface_name"]: d["sw_if_index"]
                                  for d in raw.rows("interfaces")}
            return build_dataplane(raw)

    def cli(self, command: str) -> str:
        """Run one VPP CLI command (cli_inband) and return its output."""
        return self.call("cli_inband", cmd=command).reply


@dataclass
class _Batch:
    """One write of pipelined requests and the replies collected for it."""

    start: int  # position of the first request in call_many's list
    results: list[Any]
    first: str  # the first request's message, for error messages
    pending: dict[int, tuple[int, str]] = field(default_factory=dict)  # context -> (pos, kind)
    ping: int = 0  # context of the control_ping closing the dumps (0: none)
    left: int = 0  # replies still expected

    def file(self, reply: Any) -> bool:
        """Keep a reply; True when it was the last one for its context."""
        if reply.context == self.ping:
            self.left -= 1
            return True
        position, kind = self.pending[reply.context]
        if kind == "plain":
            self.results[position] = reply
        elif kind == "dump":
            self.results[position].append(reply)
            return False
        elif type(reply).__name__.endswith("_reply"):  # a "get": the reply ends it
            self.results[position] = (reply, self.results[position][1])
        else:
            self.results[position][1].append(reply)
            return False
        self.left -= 1
        return True


def _kind(service: dict[str, Any]) -> str:
    """How a request is answered: "plain" (one reply), "dump" (details, ended
    by the control_ping sent after it) or "get" (details, then the reply)."""
    if "stream" not in service:
        return "plain"
    return "get" if "stream_msg" in service else "dump"


def _definitions(files: list[str], requests: frozenset[str]) -> tuple[dict, dict] | None:
    """vpp_papi's messages and services for `requests` only (see
    vppcfg.vpp.definitions), or None to load whole files: definitions in an
    unexpected shape are vpp_papi's to judge, as before."""
    from vpp_papi import VPPApiJSONFiles

    try:
        return VPPApiJSONFiles.process_json_str(subset(files, requests))
    except Exception:  # any surprise: the full load reports it
        logging.getLogger(__name__).debug("API subset failed", exc_info=True)
        return None


def _connect(api_socket: str, files: list[str], timeout: float, name: str,
             requests: frozenset[str] | None) -> Any:
    # Check the socket first: vpp_papi's own errors for these cases are cryptic.
    if not os.path.exists(api_socket):
        raise VppNotRunning(f"VPP API socket {api_socket} does not exist (is VPP running?)")
    if not os.access(api_socket, os.R_OK | os.W_OK):
        raise VppPermissionDenied(
            f"no permission to open VPP API socket {api_socket} (run as root or join group vpp)"
        )
    from vpp_papi import VPPApiClient

    from vppcfg.vpp.sockets import is_wrong_type, wrong_socket
    from vppcfg.vpp.transport import DirectTransport, NoAnswer

    # the client needs one file of its own to start from: memclnt
    memclnt = [f for f in files if _module(f) == "memclnt"]
    definitions = _definitions(files, requests) if requests is not None and memclnt else None
    try:
        client = VPPApiClient(apifiles=memclnt if definitions else files, use_socket=True,
                              server_address=api_socket, read_timeout=timeout,
                              async_thread=False)
    except Exception as err:  # vpp_papi raises bare ValueError/RuntimeError variants
        raise VppDefinitionsMissing(f"cannot load VPP API definitions: {err}") from err
    if definitions:
        client.messages.update(definitions[0])
        client.services.update(definitions[1])
    # our thread-less transport: same protocol, a fraction of the cost per message
    client.transport = DirectTransport(client, timeout, api_socket)
    try:
        client.connect(name)
    except NoAnswer as err:  # a socket that accepts and says nothing: VPP hung, or not VPP
        raise VppTimeout(f"{err} on {api_socket}") from err
    except PermissionError as err:
        raise VppPermissionDenied(f"no permission to open VPP API socket {api_socket}") from err
    except (ConnectionRefusedError, FileNotFoundError) as err:
        raise VppNotRunning(f"VPP is not listening on {api_socket} ({err.strerror})") from err
    except (TimeoutError, OSError) as err:
        if is_wrong_type(err):
            raise VppNotRunning(wrong_socket(api_socket, "api")) from err
        if getattr(err, "errno", None) == errno.EACCES:
            raise VppPermissionDenied(f"no permission to open {api_socket}") from err
        raise VppNotRunning(f"cannot connect to VPP on {api_socket}: {err}") from err
    except Exception as err:  # vpp_papi's own IOError subclasses
        raise VppNotRunning(f"cannot connect to VPP on {api_socket}: {err}") from err
    return client

