"""Replay the recorded T-Rex 3.08 JSON-RPC traffic against the emulator and compare shapes.

Every reply must have the recorded reply's shape: the same keys and value types,
recursively (list elements compared by shape), the same compression, and for errors the
same code and texts. Values that change between runs (api_h, handlers) are substituted
from the emulator's own earlier replies. Skips when ../shared (beside the repo) is absent.
"""

from __future__ import annotations

import json
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from loadtest.emu import EmuConfig, run_in_thread
from loadtest.emu.zmqbind import client_compatible
from tests.trex_client import require_trex_api

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TRACES = SHARED / "trex" / "traces"
TRACE_FILES = sorted(p for p in TRACES.glob("[0-9][0-9]-*.jsonl")
                     if not p.name.endswith(".steps.jsonl")) if TRACES.is_dir() else []
TIME_SCALE = 20.0
MAGIC = 0xABE85CEA

pytestmark = pytest.mark.skipif(not TRACE_FILES, reason="../shared/trex/traces not present")


# -- shape comparison ---------------------------------------------------------------------
def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    return "dict"


def shape_diff(want: Any, got: Any, path: str = "$") -> list[str]:
    """Differences in shape between a recorded value and the emulator's value."""
    if kind(want) != kind(got):
        return [f"{path}: recorded {kind(want)}, emulator {kind(got)}"]
    if isinstance(want, list):
        return _list_diff(want, got, path)
    if isinstance(want, dict):
        return _dict_diff(want, got, path)
    return []


def _any_diff(wants: list, got: Any, path: str) -> list[str]:
    """`got` must have the shape of at least one of `wants`."""
    best: list[str] | None = None
    for want in wants:
        diff = shape_diff(want, got, path)
        if not diff:
            return []
        if best is None or len(diff) < len(best):
            best = diff
    return best or []


def _list_diff(want: list, got: list, path: str) -> list[str]:
    if not want or not got:
        return []  # an empty list says nothing about element shape
    out: list[str] = []
    for i, item in enumerate(got):
        out += _any_diff(want, item, f"{path}[{i}]")
    return out


def _dict_diff(want: dict, got: dict, path: str) -> list[str]:
    # keys that are numbers (port ids, pg ids, histogram buckets) are data, not shape
    want_named = {k for k in want if not k.isdigit()}
    got_named = {k for k in got if not k.isdigit()}
    out = []
    if want_named != got_named:
        out.append(f"{path}: keys missing {sorted(want_named - got_named)}, "
                   f"extra {sorted(got_named - want_named)}")
    for key in sorted(want_named & got_named):
        out += shape_diff(want[key], got[key], f"{path}.{key}")
    want_data = [v for k, v in want.items() if k.isdigit()]
    for key in sorted(k for k in got if k.isdigit()):
        if want_data:
            out += _any_diff(want_data, got[key], f"{path}.{key}")
    return out


def test_shape_diff_catches_differences():
    assert shape_diff({"a": 1, "b": [1.0]}, {"a": 2, "b": [3.5, 4.0]}) == []
    assert shape_diff({"a": 1}, {"a": 1.0})
    assert shape_diff({"a": 1}, {"a": 1, "b": 2})
    assert shape_diff([{"x": 1}], [{"y": 1}])
    assert shape_diff({"10": 1, "g": None}, {"20": 5, "g": None}) == []
    assert shape_diff({"g": None}, {"g": {}})


def test_batch_and_error_comparison():
    assert reply_diff([{"a": 1}, {"b": 1}], [{"b": 1}, {"a": 1}])  # order matters in a batch
    assert reply_diff([{"a": 1}], [{"a": 1}, {"a": 1}])
    err = {"error": {"code": -32600, "message": "Missing Method Name"}, "id": 1}
    assert error_diff(err, err) == []
    assert error_diff(err, {**err, "error": {"code": -32600, "message": "other"}})
    assert error_diff(err, {"result": {}, "id": 1})


def reply_diff(want: Any, got: Any) -> list[str]:
    """A batch reply is compared element by element, in request order."""
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [f"batch of {len(want)} replies recorded, emulator gave {len(got)}"]
        out: list[str] = []
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            out += shape_diff(w, g, f"$[{i}]")
        return out
    return shape_diff(want, got)


def error_diff(want: Any, got: Any) -> list[str]:
    """Error replies must match exactly in code, message and specific_err."""
    wants = want if isinstance(want, list) else [want]
    gots = got if isinstance(got, list) else [got]
    out = []
    for w, g in zip(wants, gots, strict=False):
        if isinstance(w, dict) and "error" in w and (not isinstance(g, dict) or
                                                     g.get("error") != w["error"]):
            out.append(f"error: recorded {w['error']}, emulator "
                       f"{g.get('error') if isinstance(g, dict) else g}")
    return out


# -- replay ---------------------------------------------------------------------------------
class Conn:
    """One REQ socket, like one client connection in the recording."""

    def __init__(self, ctx: Any, zmq: Any, port: int) -> None:
        self.sock = ctx.socket(zmq.REQ)
        self.sock.setsockopt(zmq.RCVTIMEO, 5000)
        self.sock.setsockopt(zmq.SNDTIMEO, 5000)
        self.sock.connect(f"tcp://127.0.0.1:{port}")

    def call(self, text: str, compressed: bool) -> tuple[str, bool]:
        raw = text.encode()
        if compressed:
            raw = struct.pack(">II", MAGIC, len(raw)) + zlib.compress(raw)
        self.sock.send(raw)
        reply = self.sock.recv()
        was_compressed = len(reply) >= 8 and struct.unpack_from(">II", reply)[0] == MAGIC
        if was_compressed:
            reply = zlib.decompress(reply[8:])
        return reply.decode(), was_compressed


class Replayer:
    def __init__(self, handle: Any) -> None:
        self.zmq = zmq = client_compatible()
        self.ctx = zmq.Context()
        self.handle = handle
        self.conns: dict[int, Conn] = {}
        self.api_h: dict[str, str] = {}
        self.handlers: dict[str, str] = {}

    def close(self) -> None:
        for conn in self.conns.values():
            conn.sock.close(linger=0)
        self.ctx.term()

    def substitute(self, msg: Any) -> Any:
        if isinstance(msg, list):
            return [self.substitute(m) for m in msg]
        if not isinstance(msg, dict) or not isinstance(msg.get("params"), dict):
            return msg
        params = dict(msg["params"])
        if params.get("api_h") in self.api_h:
            params["api_h"] = self.api_h[params["api_h"]]
        if params.get("handler") in self.handlers:
            params["handler"] = self.handlers[params["handler"]]
        return {**msg, "params": params}

    def learn(self, req: Any, want: Any, got: Any) -> None:
        reqs = req if isinstance(req, list) else [req]
        wants = want if isinstance(want, list) else [want]
        gots = got if isinstance(got, list) else [got]
        for r, w, g in zip(reqs, wants, gots, strict=False):
            if not (isinstance(r, dict) and isinstance(w, dict) and isinstance(g, dict)):
                continue
            if "result" not in w or "result" not in g:
                continue
            if r.get("method") == "api_sync_v2":
                self.api_h[w["result"]["api_h"]] = g["result"]["api_h"]
            elif r.get("method") == "acquire":
                self.handlers[w["result"]] = g["result"]

    def wait_idle_before_start(self, msg: Any, want: Any) -> None:
        """A start recorded as a success needs the emulated duration to be over too."""
        if not (isinstance(msg, dict) and msg.get("method") == "start_traffic"):
            return
        if not (isinstance(want, dict) and "result" in want):
            return
        port = self.handle.state.ports[msg["params"]["port_id"]]
        deadline = time.monotonic() + 5
        while port.state == "TX" and time.monotonic() < deadline:
            time.sleep(0.005)

    def replay(self, lines: list[dict]) -> list[str]:
        problems: list[str] = []
        pending: dict[int, dict] = {}
        t_first = lines[0]["t"] if lines else 0.0
        wall0 = time.monotonic()
        for line in lines:
            if line["dir"] == "req":
                pending[line["conn"]] = line
                continue
            if line["dir"] != "rep" or line["conn"] not in pending:
                continue
            req = pending.pop(line["conn"])
            delay = (req["t"] - t_first) / TIME_SCALE - (time.monotonic() - wall0)
            if delay > 0:
                time.sleep(delay)
            problems += self.exchange(req, line)
        return problems

    def exchange(self, req: dict, rep: dict) -> list[str]:
        conn = self.conns.get(req["conn"])
        if conn is None:
            conn = self.conns[req["conn"]] = Conn(self.ctx, self.zmq, self.handle.rpc_port)
        if req.get("json") is False:
            msg, text = None, req["text"]
        else:
            msg = self.substitute(req["msg"])
            text = req["text"] if msg == req["msg"] else json.dumps(msg)
        want = json.loads(rep["text"])
        self.wait_idle_before_start(msg, want)
        got_text, compressed = conn.call(text, req["compressed"])
        where = f"t={req['t']} {str(req.get('msg'))[:120]}"
        problems = []
        if compressed != rep["compressed"]:
            problems.append(f"{where}: compressed {compressed}, recorded {rep['compressed']}")
        if not got_text.endswith("\n"):
            problems.append(f"{where}: reply does not end with a newline")
        got = json.loads(got_text)
        problems += [f"{where}: {d}" for d in reply_diff(want, got) + error_diff(want, got)]
        self.learn(msg, want, got)
        return problems


@pytest.mark.parametrize("trace", TRACE_FILES, ids=lambda p: p.stem)
def test_replayed_replies_have_recorded_shapes(trace: Path):
    lines = [json.loads(x) for x in trace.read_text().splitlines() if x.strip()]
    cfg = EmuConfig(rpc_port=0, pub_port=0, time_scale=TIME_SCALE, stats_tick=0.05)
    handle = run_in_thread(cfg)
    replayer = Replayer(handle)
    try:
        problems = replayer.replay(lines)
    finally:
        replayer.close()
        handle.stop()
    assert not problems, "\n".join(problems[:20])


def test_published_global_snapshot_has_recorded_keys():
    """The PUB channel's trex-global carries the recorded keys in the recorded order."""
    zmq = client_compatible()

    recorded = None
    for line in (TRACES / "01-connect-info.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["dir"] == "pub" and entry["msg"] != {}:
            recorded = entry["msg"]
            break
    assert recorded is not None
    handle = run_in_thread(EmuConfig(rpc_port=0, pub_port=0, time_scale=TIME_SCALE))
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    try:
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.setsockopt(zmq.RCVTIMEO, 3000)
        sub.connect(f"tcp://127.0.0.1:{handle.pub_port}")
        msg = None
        for _ in range(50):
            raw = sub.recv()
            if raw != b"{}":
                assert struct.unpack_from(">II", raw)[0] == MAGIC  # published compressed
                msg = json.loads(zlib.decompress(raw[8:]))
                break
        assert msg is not None
        assert list(msg) == list(recorded)
        assert list(msg["data"]) == list(recorded["data"])
        assert shape_diff(recorded, msg) == []
    finally:
        sub.close(linger=0)
        ctx.term()
        handle.stop()


def recorded_step(name: str, step: str) -> Any:
    """The client API's return value recorded in a steps file (first occurrence)."""
    for line in (TRACES / f"{name}.steps.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["step"] == step:
            return entry["data"]["result"]
    raise AssertionError(f"{step} not in {name}")


def as_json(value: Any) -> Any:
    """What the recorder stored: the client's dicts through JSON (int keys become text)."""
    return json.loads(json.dumps(value, default=str))


def udp_frame() -> Any:
    """A 64-byte Ether/IP/UDP frame built with the client's bundled scapy.

    That scapy is importable only once the client is imported, hence the late import.
    """
    from scapy.all import IP, UDP, Ether

    return Ether() / IP() / UDP() / ("x" * 18)


def test_client_api_results_have_recorded_shapes():
    """Scenario 04 through the real client: get_stats() and get_pgid_stats() as recorded."""
    require_trex_api()  # skips (CI: fails) when the client does not import
    from trex.stl.api import (
        STLClient,
        STLFlowLatencyStats,
        STLFlowStats,
        STLPktBuilder,
        STLStream,
        STLTXCont,
    )

    handle = run_in_thread(EmuConfig(rpc_port=0, pub_port=0, time_scale=TIME_SCALE))
    client = STLClient(server="127.0.0.1", sync_port=handle.rpc_port,
                       async_port=handle.pub_port, verbose_level="error")
    try:
        client.connect()
        client.reset(ports=[0, 1])
        pkt = STLPktBuilder(pkt=udp_frame())
        client.add_streams([
            STLStream(packet=pkt, mode=STLTXCont(pps=1000),
                      flow_stats=STLFlowLatencyStats(pg_id=5)),
            STLStream(packet=pkt, mode=STLTXCont(pps=10000), flow_stats=STLFlowStats(pg_id=7)),
        ], ports=[0])
        client.clear_stats()
        client.start(ports=[0], mult="1")
        time.sleep(2.5 / TIME_SCALE)
        running = as_json(client.get_stats())
        pgids = as_json(client.get_pgid_stats([5, 7]))
        active = as_json(client.get_active_pgids())
        client.stop(ports=[0])
        time.sleep(1 / TIME_SCALE)
        after = as_json(client.get_stats())
        client.release(ports=[0, 1])
    finally:
        client.disconnect()
        handle.stop()
    checks = [
        ("<get_stats", running),
        ("<get_pgid_stats([5,7])", pgids),
        ("<get_active_pgids", active),
        ("<get_stats(after stop)", after),
    ]
    problems = []
    for step, got in checks:
        problems += [f"{step}: {d}" for d in shape_diff(recorded_step("04-latency", step), got)]
    assert not problems, "\n".join(problems[:20])
    assert active == {"flow_stats": [7], "latency": [5]}
