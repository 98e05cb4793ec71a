"""The simulator's stats side: a stats segment kept in step with the simulated VPP,
and the virtual wire the T-Rex emulator's traffic comes in through.

- The stats socket (`vppcfg-sim --stats-socket`) hands out the segment like
  VPP's /run/vpp/stats.sock; vpp_papi's VPPStats reads it unchanged.
- The segment is laid out when first asked for (a stats client connects or the
  wire is used): a simulator nobody reads stats from spends nothing on them.
  From then on, interfaces created or deleted through the API show up within
  0.1 s (longer for very large directories: at most a tenth of the time goes
  to laying them out), and before any client connecting afterwards gets it.
- The wire socket (`--wire-socket`) speaks JSON lines, one request and one
  answer per line (see docs/simulator.md, "Virtual wire"):
  `{"op": "hello", "ports": 2}` -> the interfaces T-Rex ports 0, 1, ... face;
  `{"op": "offer", "port": P, "t": T, "counts": [...], "streams": [...]}` -> the
  forwarded fraction, the load and each stream's forwarded fraction;
  `{"op": "count", "t": T, "ports": {P: [...]}}` moves the counters.
  counts = [sent packets, sent bytes, received packets, received bytes] since
  the emulator started; streams = [{"pps", "frame_len", "packet" (base64, the
  first bytes suffice)}].
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vppcfg.sim.sockets import remove_stale_socket
from vppcfg.sim.state import SimState
from vppcfg.sim.stats_model import InterfaceInfo, StatsModel
from vppcfg.sim.stats_segment import SegmentFull, StatsSegment, StatsSocket
from vppcfg.sim.stats_traffic import StreamOffer, TrafficModel

log = logging.getLogger("vppcfg.sim.stats")
SYNC_PERIOD = 0.1  # seconds between checks for interface changes
MAX_LINE = 1 << 20


class WireError(Exception):
    """A wire request we cannot serve; its text goes back to the emulator."""


def default_path(api_socket: str, kind: str) -> str:
    """`kind`.sock beside api.sock, else the API socket's name with -`kind`.sock."""
    path = Path(api_socket)
    if path.name == "api.sock":
        return str(path.with_name(f"{kind}.sock"))
    stem = path.name[:-5] if path.name.endswith(".sock") else path.name
    return str(path.with_name(f"{stem}-{kind}.sock"))


def interfaces_of(state: SimState) -> list[InterfaceInfo]:
    return [InterfaceInfo(i.sw_if_index, i.name, i.hw_if_index, i.is_sub,
                          state.hw_owner(i).dev_type) for i in state.interfaces.values()]


class StatsService:
    """Owns the counters, the segment, the stats socket and the wire socket."""

    def __init__(self, state: SimState, state_lock: threading.Lock, stats_socket: str,
                 wire_socket: str | None = None, *, capacity_pps: float | None = None,
                 wire_ports: list[str] | None = None, node_interval: float = 10.0,
                 per_node_counters: bool = True) -> None:
        self.state = state
        self.state_lock = state_lock  # the API server's: the state is read under it
        self.lock = threading.Lock()  # counters and segment; taken after state_lock
        self.model = StatsModel(per_node_counters)
        self.traffic = TrafficModel(self.model, capacity_pps)
        self.segment = StatsSegment()
        self.stats_socket = StatsSocket(self.segment, stats_socket, self.want)
        self.wire_path = wire_socket
        self.wire_ports = wire_ports or self._first_phys()
        self._wire: socket.socket | None = None
        self._clients: set[socket.socket] = set()
        self._dirty = True
        self._wanted = False  # someone reads the stats: keep the segment in step
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._last_t: float | None = None
        # seconds between copies of the per-node counters into the segment (VPP's
        # `statseg { update-interval }`, 10 by default); 0: at every change
        self.node_interval = node_interval
        self._collected = 0.0
        # deleted before a sync saw them; one per index pair, so a simulator nobody reads
        # stats from does not collect them without bound
        self._ghosts: dict[tuple[int, int], InterfaceInfo] = {}
        state.on_change.append(self._changed)
        state.on_delete.append(self._deleting)

    def _first_phys(self) -> list[str]:
        """By default T-Rex port 0 faces the first PHY, port 1 the second, ..."""
        return [i.name for i in sorted(self.state.interfaces.values(), key=lambda i: i.sw_if_index)
                if i.sw_if_index and not i.is_sub][:2]

    def _changed(self, state: SimState, message: str, args: dict[str, Any]) -> None:
        self._dirty = True  # called under the API lock: the rebuild happens elsewhere

    def _deleting(self, state: SimState, sw_if_index: int) -> None:
        itf = state.get(sw_if_index)
        if itf is not None:  # cheap: one record, the sync decides whether it matters
            self._ghosts[(itf.sw_if_index, itf.hw_if_index)] = InterfaceInfo(
                itf.sw_if_index, itf.name, itf.hw_if_index, itf.is_sub,
                state.hw_owner(itf).dev_type)

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> StatsService:
        self.stats_socket.start()
        if self.wire_path:
            self._wire = _listen(self.wire_path)
            self._spawn(self._accept_wire, "vppcfg-sim-wire")
        self._spawn(self._ticker, "vppcfg-sim-stats-sync")
        return self

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(ValueError):
            self.state.on_change.remove(self._changed)
            self.state.on_delete.remove(self._deleting)
        self.stats_socket.stop()
        if self._wire is not None:
            with contextlib.suppress(OSError):
                self._wire.shutdown(socket.SHUT_RDWR)
            self._wire.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.wire_path or "")
        for conn in list(self._clients):  # the emulators on the wire see it go
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(2.0)
        self.segment.close()

    def _spawn(self, target: Callable[..., None], name: str, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _ticker(self) -> None:
        hold_until = 0.0
        while not self._stop.wait(SYNC_PERIOD):
            if not self._wanted:
                continue
            if self.node_interval and time.monotonic() - self._collected >= self.node_interval:
                self._publish_nodes()
            if self._dirty and time.monotonic() >= hold_until:
                started = time.monotonic()
                self.refresh()
                # a big directory takes a while to lay out (3 s for 10,000 interfaces):
                # at most a tenth of the time on it, the API server comes first
                hold_until = time.monotonic() + 9 * (time.monotonic() - started)

    # -- segment ------------------------------------------------------------------------
    def _publish_nodes(self) -> None:
        """VPP's stats collector: node counters, vector rate and heartbeat, in place
        (cheap at any size); a full publish when the node list changed meanwhile."""
        with self.lock:
            self._collected = time.monotonic()
            self.model.collect()
            rows = self.model.node_rows() if self.model.per_node else {}
            if not all(self.segment.set_simple(f"/sys/node/{c}", row)
                       for c, row in rows.items()):
                self._publish()
                return
            rate = self.model.shown_vector_rate
            self.segment.set_simple("/sys/vector_rate_per_worker", [rate])
            self.segment.set_scalar("/sys/vector_rate", rate)
            self.segment.set_scalar("/sys/heartbeat", self.model.heartbeat)

    def _publish(self) -> None:
        """Write the model into the segment (under self.lock)."""
        if not self.node_interval:
            self.model.collect()  # no collector period: node counters as they move
        try:
            self.segment.publish(self.model.entries())
        except SegmentFull as err:  # keep serving the last layout that fitted
            log.error("%s; the stats segment stays as it was", err)

    def _publish_counters(self) -> None:
        """After traffic: the counters it moves, in place (a full publish if the layout
        no longer fits them, e.g. a node the traffic model just added)."""
        if not self.node_interval:
            self._publish()  # node counters too, at every step
            return
        simple, combined = self.model.counter_rows()
        done = all(self.segment.set_simple(name, row) for name, row in simple.items())
        if not (done and all(self.segment.set_combined(name, row)
                             for name, row in combined.items())):
            self._publish()
            return
        self.segment.set_scalar("/sys/input_rate", self.model.gauges["input_rate"])

    def want(self) -> None:
        """Someone reads the stats: lay the segment out now and keep it in step."""
        self._wanted = True
        self.refresh()

    def refresh(self) -> None:
        """Bring the interfaces in step with the simulator's, and publish."""
        if not self._dirty:
            return
        with self.state_lock:
            self._dirty = False
            infos = interfaces_of(self.state)
            ghosts, self._ghosts = list(self._ghosts.values()), {}
        with self.lock:
            for ghost in ghosts:
                self.model.remember(ghost)
            self.model.sync(infos)
            self._publish()

    # -- the wire -----------------------------------------------------------------------
    def _accept_wire(self) -> None:
        assert self._wire is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._wire.accept()
            except OSError:
                return
            self._spawn(self._serve_wire, "vppcfg-sim-wire-client", conn)

    def _serve_wire(self, conn: socket.socket) -> None:
        self._clients.add(conn)
        try:
            with conn, conn.makefile("rwb") as stream:
                for line in stream:
                    if len(line) > MAX_LINE or self._stop.is_set():
                        break
                    stream.write(json.dumps(self.answer(line)).encode() + b"\n")
                    stream.flush()
        except OSError as err:
            log.debug("wire client went away: %s", err)
        finally:
            self._clients.discard(conn)

    def answer(self, line: bytes) -> dict[str, Any]:
        """One wire request -> its answer (errors answered, not raised)."""
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise WireError("a request is a JSON object")
            op = request.get("op")
            handler = {"hello": self._hello, "offer": self._offer, "count": self._count}.get(op)
            if handler is None:
                raise WireError(f"unknown op {op!r} (hello, offer, count)")
            self.want()
            return {"ok": True, **handler(request)}
        except (WireError, ValueError, TypeError, KeyError, binascii.Error) as err:
            return {"ok": False, "error": f"{type(err).__name__}: {err}"
                    if not isinstance(err, WireError) else str(err)}

    def _port(self, port: Any) -> tuple[int, int]:
        """T-Rex port -> (its interface, the interface of the port it pairs with)."""
        if not isinstance(port, int) or not 0 <= port < len(self.wire_ports):
            raise WireError(f"port {port!r}: the simulator's wire has ports "
                            f"0..{len(self.wire_ports) - 1} ({', '.join(self.wire_ports)})")
        names = (self.wire_ports[port], self.wire_ports[(port ^ 1) % len(self.wire_ports)])
        indexes = [self.state.names.get(name) for name in names]
        for name, index in zip(names, indexes, strict=True):
            if index is None:
                raise WireError(f"port {port}: no interface {name!r} in the simulator")
        return indexes[0], indexes[1]

    def _hello(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"interfaces": self.wire_ports, "capacity_pps": self.traffic.capacity}

    def _offer(self, request: dict[str, Any]) -> dict[str, Any]:
        streams = [StreamOffer.of_packet(float(s["pps"]), int(s["frame_len"]),
                                         base64.b64decode(s.get("packet", "")))
                   for s in request["streams"]]
        with self.state_lock, self.lock:
            port = request["port"]
            rx, peer = self._port(port)
            self._apply(float(request["t"]), {port: request["counts"]})
            fwd, load, each = self.traffic.offer(self.state, port, rx, peer, streams)
            self._publish()
        return {"fwd": fwd, "load": load, "streams": each}

    def _count(self, request: dict[str, Any]) -> dict[str, Any]:
        ports = {int(p): counts for p, counts in dict(request["ports"]).items()}
        with self.lock:
            self._apply(float(request["t"]), ports)
            self._publish_counters()
        return {}

    def _apply(self, t: float, ports: dict[int, Any]) -> None:
        accepted = 0
        for port, counts in ports.items():
            values = tuple(int(c) for c in counts)
            if len(values) != 4:
                raise WireError("counts are [sent, sent bytes, received, received bytes]")
            accepted += self.traffic.count(port, t, values, dispatch=False)  # type: ignore[arg-type]
        self.traffic.dispatch()
        if self._last_t is not None and t > self._last_t:
            self.model.gauges["input_rate"] = round(accepted / (t - self._last_t))
        self._last_t = t


def _listen(path: str) -> socket.socket:
    remove_stale_socket(path, socket.SOCK_STREAM, "wire server")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    return listener


