"""The virtual wire to the VPP simulator (`trex-emu --vpp-sim PATH`).

With it the device under test is `vppcfg-sim`, not the emulator's own capacity
model: when a port starts, changes rate or stops, the emulator tells the
simulator what it offers (rates, frame sizes, each stream's packet) and gets
back the fraction the simulated VPP forwards to the peer port and its load; as
time passes it reports how many packets each port has sent and received, so
the simulator's interface, node and error counters (its stats segment) move
with T-Rex's own. The protocol is vppcfg.sim.stats_service's (JSON lines).

If the simulator cannot be reached at the start, the emulator does not start.
If it goes away, the emulator says so once on stderr and, by default, the
ports' links go down and nothing more is forwarded (as when a real device
stops: the loadtest marks its run invalid); only with --on-vpp-loss ideal does
it go on as an ideal device (everything forwarded).
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from vppcfg.vpp.sockets import is_wrong_type, wrong_socket

from .traffic import Stream

PACKET_HEAD = 64  # bytes of each stream's packet sent along: enough for its headers
TIMEOUT = 2.0  # seconds to wait for an answer


class WireDown(Exception):
    """The simulator did not answer sensibly."""


class VppSimLink:
    """One connection to the simulator's wire socket."""

    def __init__(self, path: str, port_count: int, log: TextIO | None = None,
                 ideal_on_loss: bool = False) -> None:
        self.path = path
        self.ideal_on_loss = ideal_on_loss
        self.log = log or sys.stderr
        self.broken: str | None = None
        self.interfaces: list[str] = []
        self._last: dict[int, tuple[int, int, int, int]] = {}
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(TIMEOUT)
        try:
            self._sock.connect(path)
        except OSError as err:
            self._sock.close()
            why = wrong_socket(path, "wire") if is_wrong_type(err) else f"cannot connect: {err}"
            raise OSError(f"--vpp-sim {path}: {why}") from None
        self._stream = self._sock.makefile("rwb")
        try:
            self.interfaces = list(self._ask({"op": "hello", "ports": port_count})["interfaces"])
        except (WireDown, KeyError, TypeError) as err:
            self.close()
            # VPP's API socket is a stream socket too: it accepts, then says nothing sensible
            raise OSError(f"--vpp-sim {path}: {err} (is it vppcfg-sim's wire socket, "
                          "vppcfg-sim --wire-socket? VPP's API socket is not)") from None
        if len(self.interfaces) < 2:
            self.close()
            raise OSError(f"--vpp-sim {path}: the simulator maps no T-Rex ports")

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            self._stream.write(json.dumps(request).encode() + b"\n")
            self._stream.flush()
            line = self._stream.readline()
        except OSError as err:
            raise WireDown(f"the simulator went away ({err})") from None
        if not line:
            raise WireDown("the simulator closed the wire")
        try:
            answer = json.loads(line)
        except ValueError:
            raise WireDown(f"not a wire answer: {line[:80]!r}") from None
        if not isinstance(answer, dict) or not answer.get("ok"):
            error = answer.get("error") if isinstance(answer, dict) else answer
            raise WireDown(f"the simulator refused: {error}")
        return answer

    def _call(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """Ask; on failure say why once, then stay quiet and answer None."""
        if self.broken is not None:
            return None
        try:
            return self._ask(request)
        except WireDown as err:
            self.broken = str(err)
            then = ("going on as an ideal device (--on-vpp-loss ideal)" if self.ideal_on_loss
                    else "the ports' links go down and nothing more is forwarded")
            print(f"trex-emu: --vpp-sim {self.path}: {err}; {then}", file=self.log, flush=True)
            return None

    @property
    def links_up(self) -> bool:
        """False once the simulator is gone, unless an ideal device takes its place."""
        return self.broken is None or self.ideal_on_loss

    def offer(self, port: int, t: float, counts: tuple[int, int, int, int],
              streams: Sequence[Stream],
              tx_pps: dict[int, float]) -> tuple[float, float, list[float]] | None:
        """Port `port` offers `streams` at `tx_pps` from emulated time t (its counters at t:
        sent, sent bytes, received, received bytes). -> (forwarded fraction, load, forwarded
        fraction of each stream) or None."""
        if port >= len(self.interfaces):
            return None
        offers = [{"pps": tx_pps.get(s.key, 0.0), "frame_len": s.frame_len,
                   "packet": _packet_head(s)} for s in streams]
        answer = self._call({"op": "offer", "port": port, "t": t, "counts": list(counts),
                             "streams": offers})
        self._last[port] = counts
        if answer is None and not self.links_up:  # a device that is gone forwards nothing
            return 0.0, 0.0, [0.0] * len(offers)
        if answer is None:
            return None
        per_stream = [float(f) for f in answer["streams"]]
        if len(per_stream) != len(offers):
            return None
        return float(answer["fwd"]), float(answer["load"]), per_stream

    def report(self, t: float, counts: dict[int, tuple[int, int, int, int]]) -> None:
        """The ports' counters at emulated time t; only the ports whose counters moved."""
        moved = {str(p): list(c) for p, c in counts.items()
                 if p < len(self.interfaces) and self._last.get(p) != c}
        if not moved:
            return
        if self._call({"op": "count", "t": t, "ports": moved}) is not None:
            self._last.update({int(p): tuple(c) for p, c in moved.items()})  # type: ignore[misc]

    def close(self) -> None:
        for closable in (getattr(self, "_stream", None), self._sock):
            if closable is not None:
                with contextlib.suppress(OSError):
                    closable.close()


def _packet_head(stream: Stream) -> str:
    packet = base64.b64decode(stream.json.get("packet", {}).get("binary", "") or b"")
    return base64.b64encode(packet[:PACKET_HEAD]).decode()
