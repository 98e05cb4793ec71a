"""ZeroMQ front end of the emulator: REP for JSON-RPC, PUB for the async channel.

Only the zmq API that both pyzmq and the T-Rex client's bundled ctypes binding offer is
used (the client replaces `zmq` in sys.modules when imported first, and tests run both in
one process): no Poller, receive timeouts through RCVTIMEO instead.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from types import ModuleType

from . import zmqbind
from .config import EmuConfig
from .state import TrexState
from .wire import Dispatcher, compress

PUBLISH_PERIOD = 0.5  # emulated seconds between trex-global snapshots
MIN_WALL_PERIOD = 0.05  # never publish faster than this, whatever the time scale
MAX_WAIT = 0.05  # bound on one poll, so stop() is noticed quickly


class TrexEmulator:
    """Binds the sockets in the constructor (so port errors surface at once); `serve` loops."""

    def __init__(self, cfg: EmuConfig, seed: int | None = None,
                 zmq: ModuleType | None = None) -> None:
        self.zmq = zmq = zmq or zmqbind.pyzmq()
        self.cfg = cfg
        self.state = TrexState(cfg, seed=seed)
        self.dispatcher = Dispatcher(self.state.call, self.state.known)
        self.ctx = zmq.Context()
        self.rep = self.ctx.socket(zmq.REP)
        self.pub = self.ctx.socket(zmq.PUB)
        try:
            self.rpc_port = _bind(self.rep, cfg.bind, cfg.rpc_port)
            self.pub_port = _bind(self.pub, cfg.bind, cfg.pub_port)
        except zmq.ZMQError as err:
            self.close()
            raise OSError(f"cannot bind {cfg.bind} ports {cfg.rpc_port}/{cfg.pub_port}: "
                          f"{err}") from None
        self._stop = threading.Event()

    def serve(self) -> None:
        """Run until stop() is called."""
        wall_period = max(MIN_WALL_PERIOD, PUBLISH_PERIOD / self.cfg.time_scale)
        next_pub = time.monotonic()
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                if now >= next_pub:
                    self._publish_global()
                    next_pub = now + wall_period
                timeout = min(MAX_WAIT, max(0.0, next_pub - now), self._until_deadline())
                self.rep.setsockopt(self.zmq.RCVTIMEO, max(1, int(timeout * 1000)))
                try:
                    request = self.rep.recv()
                except self.zmq.Again:
                    request = None
                if request is not None:
                    with self.state.frozen_clock():
                        reply = self.dispatcher.handle(request)
                    self.rep.send(reply)
                self.state.poll()
                self._flush_async()
        finally:
            self.close()

    def _until_deadline(self) -> float:
        deadline = self.state.next_deadline()
        if deadline == float("inf"):
            return MAX_WAIT
        return max(0.0, (deadline - self.state.clock()) / self.cfg.time_scale)

    def _flush_async(self) -> None:
        if self.state.publish:
            self.state.publish = False
            self._publish_global()
            self.state.trigger = True
        if self.state.trigger:
            self.state.trigger = False
            self.pub.send(b"{}")

    def _publish_global(self) -> None:
        snapshot = json.dumps(self.state.trex_global(), separators=(",", ":"))
        self.pub.send(compress(snapshot.encode()))

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        if self.state.vpp is not None:
            self.state.vpp.close()
        for sock in (self.rep, self.pub):
            if not sock.closed:
                sock.close(linger=0)
        self.ctx.term()


def _bind(sock: object, host: str, port: int) -> int:
    """Bind to host:port; port 0 picks a free ephemeral port. Returns the bound port."""
    if port == 0:
        return sock.bind_to_random_port(f"tcp://{host}", min_port=20000, max_port=60000)
    sock.bind(f"tcp://{host}:{port}")
    return port


@dataclass
class EmulatorHandle:
    """A running emulator in a background thread."""

    emulator: TrexEmulator
    thread: threading.Thread

    @property
    def rpc_port(self) -> int:
        return self.emulator.rpc_port

    @property
    def pub_port(self) -> int:
        return self.emulator.pub_port

    @property
    def state(self) -> TrexState:
        return self.emulator.state

    def stop(self, timeout: float = 5.0) -> None:
        self.emulator.stop()
        self.thread.join(timeout)

    def __enter__(self) -> EmulatorHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_in_thread(config: EmuConfig | None = None, seed: int | None = None) -> EmulatorHandle:
    """Start an emulator in a daemon thread; ports 0 in the config mean "pick free ones".

    It uses the zmq binding the T-Rex client will use, so both can share the process.
    """
    emulator = TrexEmulator(config or EmuConfig(rpc_port=0, pub_port=0), seed=seed,
                            zmq=zmqbind.client_compatible())
    thread = threading.Thread(target=emulator.serve, name="trex-emu", daemon=True)
    thread.start()
    return EmulatorHandle(emulator, thread)
