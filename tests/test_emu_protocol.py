"""The emulator's JSON-RPC layer, driven in-process with a controlled clock.

These do not need ../shared; the expected texts are the real server's, as documented in
docs/trex-emu.md.
"""

from __future__ import annotations

import json
import struct
import zlib

import pytest

from loadtest.emu.config import EmuConfig
from loadtest.emu.state import TrexState
from loadtest.emu.wire import MAGIC, Dispatcher


class Server:
    """A TrexState behind its Dispatcher, with a hand-driven emulated clock."""

    def __init__(self, **fields) -> None:
        self.now = 0.0
        self.state = TrexState(EmuConfig(**fields), clock=lambda: self.now, seed=1)
        self.dispatcher = Dispatcher(self.state.call, self.state.known)
        self.api_h = self.state.api_h

    def raw(self, body: bytes | str, compress: bool = False) -> tuple[str, bool]:
        data = body.encode() if isinstance(body, str) else body
        if compress:
            data = struct.pack(">II", MAGIC, len(data)) + zlib.compress(data)
        reply = self.dispatcher.handle(data)
        compressed = struct.unpack_from(">II", reply)[0] == MAGIC if len(reply) >= 8 else False
        return (zlib.decompress(reply[8:]) if compressed else reply).decode(), compressed

    def call(self, method: str, rid: object = "x", **params) -> dict:
        params.setdefault("api_h", self.api_h)
        text, _ = self.raw(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                       "params": params}))
        return json.loads(text)

    def ok(self, method: str, **params):
        reply = self.call(method, **params)
        assert "result" in reply, reply
        return reply["result"]

    def err(self, method: str, **params) -> dict:
        reply = self.call(method, **params)
        assert "error" in reply, reply
        return reply["error"]


STREAM = {"enabled": True, "self_start": True, "isg": 0.0, "flags": 0, "action_count": 0,
          "core_id": -1, "start_paused": False, "next_stream_id": -1,
          "mode": {"rate": {"type": "pps", "value": 100}, "type": "continuous"},
          "packet": {"binary": "AAAAAQAAAAAAAgAACABFAAAuAAEAAEAROr0QAAABMAAAAQQBAAwAGn9veHh4eHh4"
                               "eHh4eHh4eHh4eHh4", "meta": ""},
          "vm": {"instructions": []}, "flow_stats": {"enabled": False}}


def owned(server: Server, port: int = 0, session: int = 7) -> str:
    return server.ok("acquire", port_id=port, user="me", session_id=session, force=False)


def test_reply_text_compression_and_batches():
    s = Server()
    text, compressed = s.raw('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}')
    assert not compressed and text.endswith("}\n") and text.startswith('{"id":1,"jsonrpc"')
    _, compressed = s.raw('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}', True)
    assert compressed
    assert s.raw("[]") == ("null\n", False)
    one, _ = s.raw('[{"jsonrpc": "2.0", "id": 5, "method": "get_version", "params": {}}]')
    assert json.loads(one)["id"] == 5  # a batch of one is a bare object
    two = json.loads(s.raw('[{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}},'
                           '{"jsonrpc": "2.0", "id": 2, "method": "nope", "params": {}}]')[0])
    assert [r["id"] for r in two] == [1, 2]
    assert "result" in two[0]
    assert two[1]["error"] == {"code": -32601, "message": "Method nope not registered"}


@pytest.mark.parametrize(("body", "error"), [
    ('{"jsonrpc": "2.0", "id": 1, "method": ', {"code": -32700, "message": "Bad JSON Format"}),
    ('{"jsonrpc": "2.0", "id": 1, "params": {}}',
     {"code": -32600, "message": "Missing Method Name"}),
    ('{"jsonrpc": "1.0", "id": 1, "method": "ping", "params": {}}',
     {"code": -32600, "message": "Invalid JSONRPC Version"}),
    ('{"jsonrpc": "2.0", "method": "ping", "params": {}}',
     {"code": -32600, "message": "Missing 'id' field"}),
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1, 2]}',
     {"code": -32000, "message": "Failed To Execute Method",
      "specific_err": "JSON-RPC2 params should be object in TRex case "}),
    ('{"jsonrpc": "2.0", "id": 1, "method": "get_global_stats", "params": {}}',
     {"code": -32602, "message": "Bad parameters for method",
      "specific_err": "field 'api_h' value is null"}),
    ('{"jsonrpc": "2.0", "id": 1, "method": "get_global_stats", "params": {"api_h": "ZZ"}}',
     {"code": -32000, "message": "Failed To Execute Method",
      "specific_err": "API verification failed - API handler provided mismatch for class: "
                      "'common'"}),
])
def test_envelope_errors(body, error):
    reply = json.loads(Server().raw(body)[0])
    assert reply["error"] == error
    if error["code"] in (-32700,) or "Missing 'id'" in error["message"]:
        assert reply["id"] is None


def test_api_sync_versions():
    s = Server()
    assert s.ok("api_sync_v2", name="STL", major=5, minor=1) == {"api_h": s.api_h}
    assert s.ok("api_sync_v2", name="STL", major=5, minor=0) == {"api_h": s.api_h}
    old = s.err("api_sync_v2", name="STL", major=4, minor=1)["specific_err"]
    assert old == ("RPC version mismatch: a newer client version is required\n"
                   "(API type 'STL':  - server: '5.1', client: '4.1')")
    new = s.err("api_sync_v2", name="STL", major=5, minor=9)["specific_err"]
    assert new.startswith("Version mismatch: your client version is too new")
    astf = s.err("api_sync_v2", name="ASTF", major=2, minor=3)["specific_err"]
    assert astf == ("RPC configuration mismatch - server RPC configuration: 'STL', "
                    "client RPC configuration: 'ASTF'")


def test_port_id_errors():
    s = Server()
    assert s.err("get_port_status")["specific_err"] == "field 'port_id' value is null"
    body = json.dumps({"jsonrpc": "2.0", "method": "get_port_status", "id": "mgc2rgvp",
                       "params": {"port_id": "zero", "api_h": s.api_h}})
    err = json.loads(s.raw(body)[0])["error"]
    assert err["specific_err"] == "error at offset: 88 - 'port_id' is 'string', expecting 'byte'"
    assert s.err("get_port_status", port_id=7)["specific_err"] == \
        "invalid port id - should be: \x01 \x00"


def test_ownership_and_events_reach_every_session():
    s = Server()
    assert s.ok("get_async_events", session_id=1, user="sub") == {"data": []}
    assert s.ok("get_async_events", session_id=2, user="sub") == {"data": []}
    handler = owned(s, session=1)
    taken = s.err("acquire", port_id=0, user="other", session_id=2, force=False)
    assert taken["specific_err"] == "port is already taken by 'me'"
    stolen = s.ok("acquire", port_id=0, user="other", session_id=2, force=True)
    assert stolen != handler
    assert s.err("release", port_id=0, handler=handler)["specific_err"] == \
        "port is not owned by you or your current executing session"
    ev1 = s.ok("get_async_events", session_id=1, user="sub")["data"]
    ev2 = s.ok("get_async_events", session_id=2, user="sub")["data"]
    assert [(e["seq"], e["type"]) for e in ev1] == [(0, 5), (1, 5)]
    assert ev1 == ev2
    assert ev1[1]["data"] == {"force": True, "port_id": 0, "session_id": 2, "who": "other"}
    assert s.ok("get_owner", port_id=0) == {"owner": "other"}
    s.ok("release", port_id=0, handler=stolen)
    assert s.ok("get_owner", port_id=0) == {"owner": ""}
    (ev,) = s.ok("get_async_events", session_id=1, user="sub")["data"]
    assert (ev["seq"], ev["type"], ev["data"]["who"]) == (2, 6, "other")


def test_traffic_states_and_errors():
    s = Server()
    h = owned(s)
    common = {"port_id": 0, "handler": h, "profile_id": "_"}
    mul = {"type": "pps", "value": 10000.0, "op": "abs"}
    assert s.err("start_traffic", mul=mul, duration=-1, **common)["specific_err"] == \
        "command 'start' cannot be executed on current state: 'IDLE on profile_id(_)."
    assert s.err("update_traffic", mul=mul, **common)["specific_err"].startswith(
        "command 'update' cannot be executed on current state: 'IDLE")
    assert s.ok("stop_traffic", **common) == {}
    assert s.err("remove_stream", stream_id=99, **common)["specific_err"] == \
        "stream 99 does not exists in profile_id(_)"
    s.ok("add_stream", stream_id=1, stream=STREAM, **common)
    started = s.ok("start_traffic", mul=mul, duration=-1, **common)
    assert started == {"multiplier": 100.0, "ts": 0.0}
    assert s.ok("get_port_status", port_id=0)["state"] == "TX"
    pct = {"type": "percentage", "value": 100.0, "op": "abs"}
    assert s.ok("update_traffic", mul=pct, **common)["multiplier"] == \
        pytest.approx(148809.52380952382)
    s.ok("stop_traffic", **common)
    assert s.ok("get_port_status", port_id=0)["state"] == "STREAMS"
    events = s.ok("get_async_events", session_id=7, user="sub")["data"]
    assert events == []  # session 7 never registered before: no backlog
    assert s.ok("get_pgid_stats", pgids=[1, 2]) == {"flow_stats": None,
                                                   "latency": {"g": None}, "ver_id": None}


def test_duration_end_events_and_counters():
    s = Server()
    s.ok("get_async_events", session_id=7, user="sub")
    h = owned(s)
    common = {"port_id": 0, "handler": h, "profile_id": "_"}
    s.ok("add_stream", stream_id=1, stream=STREAM, **common)
    s.now = 0.2
    s.ok("start_traffic", mul={"type": "pps", "value": 10000.0, "op": "abs"}, duration=3,
         **common)
    s.now = 3.19
    assert s.ok("get_port_status", port_id=0)["state"] == "TX"
    s.now = 3.21  # 30 001 packets sent: reported at once, not at the next stats tick (3.5)
    assert s.ok("get_port_status", port_id=0)["state"] == "STREAMS"
    types = [e["type"] for e in s.ok("get_async_events", session_id=7, user="sub")["data"]]
    assert types == [5, 10, 0, 14, 4]
    port0 = s.ok("get_port_stats", port_id=0)
    port1 = s.ok("get_port_stats", port_id=1)
    assert port0["opackets"] == 30001 and port0["obytes"] == 30001 * 64
    assert port1["ipackets"] == 30001


@pytest.mark.parametrize(
    "method, params",
    [
        ("api_sync", {"api_vers": [{"type": "core", "major": "x", "minor": 1}]}),
        ("start_traffic", {"port_id": 0, "mul": {"type": "raw", "value": "fast"}}),
        ("start_traffic", {"port_id": 0, "mul": {"type": "raw", "value": [1]}}),
    ],
)
def test_a_malformed_value_gets_an_error_reply_and_the_server_goes_on(method, params):
    # these used to raise out of the dispatcher: the server loop died without a reply
    s = Server()
    handler = owned(s)
    s.ok("add_stream", port_id=0, handler=handler, stream_id=1, stream=STREAM)
    error = s.err(method, handler=handler, **params)
    assert error["code"] == -32602 and error["message"] == "Bad parameters for method"
    assert s.ok("get_version")["version"] == "v3.08"
    assert s.state.ports[0].state == "STREAMS"  # nothing was started


def test_a_deeply_nested_request_gets_an_error_reply_and_the_server_goes_on():
    server = Server()
    for compress in (False, True):
        text, _ = server.raw("[" * 200_000 + "]" * 200_000, compress=compress)
        assert json.loads(text)["error"] == {"code": -32600,
                                             "message": "Request nested too deeply"}
    deep = {"jsonrpc": "2.0", "id": 1, "method": "api_sync_v2", "params": {}}
    body = json.dumps(deep)[:-1] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert "error" in json.loads(server.raw(body)[0])
    assert "result" in server.call("get_version")  # still serving


def test_a_zlib_bomb_is_refused_without_inflating_it():
    server = Server()
    bomb = zlib.compress(b"\0" * (256 * 1024 * 1024), 9)  # 256 MiB in a few hundred KiB
    assert len(bomb) < 1024 * 1024
    for claimed in (100, 256 * 1024 * 1024):
        reply = server.dispatcher.handle(struct.pack(">II", MAGIC, claimed) + bomb)
        error = json.loads(zlib.decompress(reply[8:]))["error"]
        assert error["code"] == -32600 and "Request too large" in error["message"]
    assert "result" in server.call("get_version")
