"""The simulator's wire side: our API definitions, the socket protocol, the command line.

The model here is a small recording handler, so these tests exercise exactly what
vpp_papi 2.4.2 sends and expects, independently of the behaviour model.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from vpp_papi import VPPApiClient

from vppcfg.sim.codec import DEFAULT_API_DIR, ApiDefinitions
from vppcfg.sim.inventory import (
    InventoryError,
    Phy,
    default_inventory,
    load_inventory,
    parse_phy_option,
)
from vppcfg.sim.protocol import Response
from vppcfg.sim.server import SimServer

ROOT = Path(__file__).resolve().parents[1]
SHARED_API = ROOT.parent / "shared" / "vpp" / "api"
TRACES = ROOT.parent / "shared" / "vpp" / "traces"


def wait_for(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


class Recorder:
    """A tiny model: a few messages, remembering what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.inside = False
        self.overlaps = 0

    def handle(self, name: str, args: dict[str, Any]) -> Response:
        if self.inside:  # the server must never let two requests in at once
            self.overlaps += 1
        self.inside = True
        try:
            self.calls.append((name, args))
            return self._answer(name, args)
        finally:
            self.inside = False

    def _answer(self, name: str, args: dict[str, Any]) -> Response:
        if name == "show_version":
            return Response(reply={"retval": 0, "program": "vpe", "version": "26.10-sim"})
        if name == "sw_interface_dump":
            return Response(details=[
                {"sw_if_index": i, "interface_name": f"GigabitEthernet3/0/{i}",
                 "l2_address": f"02:fe:00:00:00:0{i + 1}", "flags": 3,
                 "mtu": [9000, 0, 0, 0], "link_mtu": 9000}
                for i in range(2)
            ])
        if name == "ip_address_dump":
            return Response(details=[{"sw_if_index": 1, "prefix": "10.0.0.1/24"},
                                     {"sw_if_index": 1, "prefix": "2001:db8::1/64"}])
        if name == "lcp_itf_pair_get":
            return Response(reply={"retval": 0, "cursor": 0xFFFFFFFF},
                            details=[{"phy_sw_if_index": 1, "host_sw_if_index": 5,
                                      "vif_index": 12, "host_if_name": "e0", "netns": ""}])
        if name == "lcp_itf_pair_get_v2":  # VPP answers ~0 with the v1 reply
            return Response(reply={"retval": 0, "cursor": 0xFFFFFFFF},
                            reply_name="lcp_itf_pair_get_reply")
        if name == "create_loopback":
            return Response(reply={"retval": 0, "sw_if_index": 7})
        if name == "boom_dump":
            raise RuntimeError("model bug")
        if name in ("sw_interface_add_del_address", "acl_add_replace", "bond_create2",
                    "sw_interface_set_flags", "tap_create_v3", "vxlan_add_del_tunnel_v3"):
            return Response(reply={"retval": 0})
        if name == "sw_interface_set_mtu":
            raise RuntimeError("model bug")
        if name == "sw_interface_set_table":  # an answer that does not fit the reply
            return Response(reply={"retval": "oops"})
        raise KeyError(name)


@pytest.fixture
def recorder_sim(vpp_sim_factory: Any) -> Any:
    return vpp_sim_factory(handler=Recorder())


# -- definitions --------------------------------------------------------------------


def _strip_comments(value: Any) -> Any:
    if isinstance(value, list):
        return [_strip_comments(v) for v in value
                if not (isinstance(v, dict) and set(v) <= {"comment"})]
    if isinstance(value, dict):
        return {k: _strip_comments(v) for k, v in value.items() if k != "comment"}
    return value


def _our_files() -> list[Path]:
    return sorted(DEFAULT_API_DIR.rglob("*.api.json"))


@pytest.mark.parametrize("path", _our_files(), ids=lambda p: p.name)
def test_definitions_equal_vpp_2610(path: Path) -> None:
    """Every message/type/service we define is VPP 26.10's, field for field, CRC for CRC."""
    reference = SHARED_API / path.relative_to(DEFAULT_API_DIR)
    if not SHARED_API.is_dir():
        pytest.skip("../shared/vpp/api not available")
    ours = json.loads(path.read_text())
    real = _strip_comments(json.loads(reference.read_text()))
    real_messages = {m[0]: m for m in real["messages"]}
    for message in ours["messages"]:
        assert message == real_messages.get(message[0]), message[0]
    for kind in ("types", "unions", "enums", "enumflags"):
        real_types = {t[0]: t for t in real.get(kind, [])}
        for typedef in ours[kind]:
            assert typedef == real_types.get(typedef[0]), (kind, typedef[0])
    for alias, target in ours["aliases"].items():
        assert real["aliases"].get(alias) == target, alias
    for request, service in ours["services"].items():
        assert real["services"].get(request) == service, request
    assert (ours["options"], ours["vl_api_version"]) == (real["options"], real["vl_api_version"])


def test_definitions_cover_the_traces_and_the_wire() -> None:
    if not TRACES.is_dir():
        pytest.skip("../shared/vpp/traces not available")
    called = {
        json.loads(line)["call"]
        for trace in TRACES.glob("*.jsonl")
        for line in trace.read_text().splitlines()
        if line.strip()
    }
    assert len(called) == 81
    api = ApiDefinitions()
    wanted = called | {"control_ping", "sockclnt_create", "sockclnt_delete", "cli_inband",
                       "memclnt_keepalive", "sw_interface_tag_add_del", "get_first_msg_id",
                       "api_versions", "sw_interface_set_vxlan_bypass"}
    assert wanted <= set(api.ids)
    for request in wanted:  # and what answers them
        assert all(n in api.ids for n in api.reply_names(request) if n), request


def test_every_message_of_the_model_is_defined() -> None:
    """A message the model answers but we do not define would never reach it."""
    dataplane = pytest.importorskip("vppcfg.sim.dataplane", reason="no model yet")
    model = dataplane.SimDataplane(default_inventory())
    assert sorted(set(model.messages) - set(ApiDefinitions().ids)) == []


def _without_context(value: Any) -> Any:
    """The traces drop `context` everywhere, also inside nested types."""
    if isinstance(value, list):
        return [_without_context(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_context(v) for k, v in value.items() if k != "context"}
    return value


def test_codec_plain_form_is_the_trace_form() -> None:
    """Every recorded request, reply and detail survives encode + decode unchanged."""
    if not TRACES.is_dir():
        pytest.skip("../shared/vpp/traces not available")
    api = ApiDefinitions()
    checked = 0
    for trace in sorted(TRACES.glob("*.jsonl")):
        for number, line in enumerate(trace.read_text().splitlines(), 1):
            if not line.strip():
                continue
            call = json.loads(line)
            reply_name, details_name = api.reply_names(call["call"])
            messages = [(call["call"], call["args"])]
            if "reply" in call and reply_name:
                messages.append((reply_name, call["reply"]))
            messages += [(details_name, d) for d in call.get("replies", [])]
            for name, fields in messages:
                _, decoded = api.decode(api.encode(name, fields))
                got = {k: _without_context(decoded[k]) for k in fields}
                assert got == fields, f"{trace.name}:{number} {name}"
                checked += 1
    assert checked > 1800


def test_generated_definitions_are_current() -> None:
    script = ROOT / "scripts" / "gen_sim_api.py"
    run = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def test_generating_the_defined_release_from_a_tag_is_refused(tmp_path: Path) -> None:
    """26.10 comes from sim_api.def; a tag's vppapigen must not overwrite it."""
    before = {p: p.read_bytes() for p in (ROOT / "vppcfg/sim/api/26.10").rglob("*.api.json")}
    script = ROOT / "scripts" / "gen_sim_api.py"
    run = subprocess.run([sys.executable, str(script), "--vpp-repo", str(tmp_path),
                          "--release", "26.10"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "26.10 is generated from sim_api.def" in run.stderr
    assert before and before == {p: p.read_bytes()
                                  for p in (ROOT / "vppcfg/sim/api/26.10").rglob("*.api.json")}


def test_message_ids_follow_vpp() -> None:
    api = ApiDefinitions()
    # vpp_papi hard-codes these two; memclnt is numbered first, from 1
    assert (api.ids["sockclnt_create"], api.ids["sockclnt_create_reply"]) == (15, 16)
    assert min(api.ids.values()) == 1
    assert len(set(api.ids.values())) == len(api.ids)
    blocks = {m.name: m for m in api.modules}
    assert blocks["acl"].plugin and not blocks["interface"].plugin
    # each module owns one contiguous block, plugins after the core
    for module in api.modules:
        ids = sorted(api.ids[n] for n in module.messages)
        assert ids == list(range(module.first_msg_id, module.first_msg_id + len(ids)))
    core_top = max(m.first_msg_id for m in api.modules if not m.plugin)
    assert all(m.first_msg_id >= core_top for m in api.modules if m.plugin)


# -- the wire ----------------------------------------------------------------------


def test_vpp_papi_talks_to_the_simulator(recorder_sim: Any) -> None:
    client = recorder_sim.client()
    version = client.api.show_version()
    assert (version.retval, version.program, version.version) == (0, "vpe", "26.10-sim")
    interfaces = client.api.sw_interface_dump()
    names = [i.interface_name for i in interfaces]
    assert names == ["GigabitEthernet3/0/0", "GigabitEthernet3/0/1"]
    assert str(interfaces[1].l2_address) == "02:fe:00:00:00:02"
    assert int(interfaces[0].flags) == 3 and interfaces[0].mtu == [9000, 0, 0, 0]
    ping = client.api.control_ping()
    assert ping.retval == 0 and ping.vpe_pid == os.getpid()
    addresses = client.api.ip_address_dump(sw_if_index=1, is_ipv6=False)
    assert [str(a.prefix) for a in addresses] == ["10.0.0.1/24", "2001:db8::1/64"]


def test_requests_reach_the_model_in_plain_form(recorder_sim: Any) -> None:
    client = recorder_sim.client()
    client.api.sw_interface_add_del_address(sw_if_index=1, is_add=True, prefix="10.0.0.1/24")
    client.api.sw_interface_set_flags(sw_if_index=2, flags=1)
    client.api.bond_create2(mode=5, lb=1, use_custom_mac=True, mac_address="02:00:00:00:00:0a")
    client.api.acl_add_replace(acl_index=0xFFFFFFFF, tag="web", count=1, r=[{
        "is_permit": 1, "src_prefix": "192.0.2.0/24", "dst_prefix": "2001:db8::/32",
        "proto": 6, "dstport_or_icmpcode_first": 80, "dstport_or_icmpcode_last": 80}])
    client.api.vxlan_add_del_tunnel_v3(src_address="192.0.2.1", dst_address="192.0.2.2", vni=7)
    calls = dict(recorder_sim.dataplane.calls)
    assert calls["sw_interface_add_del_address"] == {
        "sw_if_index": 1, "is_add": True, "del_all": False, "prefix": "10.0.0.1/24"}
    assert calls["sw_interface_set_flags"] == {"sw_if_index": 2, "flags": 1}
    bond = calls["bond_create2"]
    assert (bond["mode"], bond["lb"], bond["mac_address"]) == (5, 1, "02:00:00:00:00:0a")
    assert bond["id"] == 0xFFFFFFFF  # the .api default
    assert type(bond["mode"]) is int
    rule = calls["acl_add_replace"]["r"][0]
    assert (rule["src_prefix"], rule["dst_prefix"]) == ("192.0.2.0/24", "2001:db8::/32")
    assert (rule["is_permit"], rule["proto"], rule["dstport_or_icmpcode_first"]) == (1, 6, 80)
    vxlan = calls["vxlan_add_del_tunnel_v3"]
    assert (vxlan["src_address"], vxlan["dst_address"], vxlan["vni"]) == (
        "192.0.2.1", "192.0.2.2", 7)
    assert vxlan["is_add"] is True and vxlan["instance"] == 0xFFFFFFFF
    assert not any(k in args for _, args in recorder_sim.dataplane.calls
                   for k in ("context", "client_index", "_vl_msg_id"))


def test_stream_service_and_reply_override(vpp_sim_factory: Any) -> None:
    sim = vpp_sim_factory(handler=Recorder())
    client = sim.client()
    reply, details = client.api.lcp_itf_pair_get(cursor=0)
    assert reply.retval == 0 and reply.cursor == 0xFFFFFFFF
    assert [(d.phy_sw_if_index, d.host_if_name, d.vif_index) for d in details] == [(1, "e0", 12)]
    # like VPP, answering v2 with the v1 reply leaves the client waiting: it times out
    with pytest.raises(VPPApiClient.VPPIOError):
        client.api.lcp_itf_pair_get_v2(cursor=0, sw_if_index=0xFFFFFFFF, _timeout=0.3)


def test_model_errors_become_retvals(recorder_sim: Any) -> None:
    client = recorder_sim.client()
    assert client.api.create_loopback(mac_address="00:00:00:00:00:00").sw_if_index == 7
    assert client.api.sw_interface_set_mtu(sw_if_index=1, mtu=[1500, 0, 0, 0]).retval == -1
    assert client.api.sw_interface_set_table(sw_if_index=1, vrf_id=1).retval == -1
    assert client.api.bridge_domain_dump() == []  # KeyError in a dump: no details
    assert client.api.delete_loopback(sw_if_index=7).retval == -9  # UNIMPLEMENTED
    assert client.api.show_version().retval == 0  # the server survived


def test_message_table_offers_what_the_model_implements(vpp_sim_factory: Any) -> None:
    class Small(Recorder):
        messages = ("show_version", "sw_interface_dump")

    client = vpp_sim_factory(handler=Small()).client()
    assert client.api.show_version().retval == 0
    assert len(client.api.sw_interface_dump()) == 2
    assert client.api.control_ping().retval == 0
    assert client.api.cli_inband  # the CLI is always there
    with pytest.raises(AttributeError):
        client.api.create_loopback  # noqa: B018 - not offered: the client refuses it itself


def test_real_vpp_definitions_work_against_the_simulator(recorder_sim: Any) -> None:
    if not SHARED_API.is_dir():
        pytest.skip("../shared/vpp/api not available")
    real = sorted(str(p) for p in SHARED_API.rglob("*.api.json"))
    client = recorder_sim.client(apifiles=real)
    assert client.api.show_version().version == "26.10-sim"
    assert len(client.api.sw_interface_dump()) == 2
    reply, details = client.api.lcp_itf_pair_get(cursor=0)
    assert reply.retval == 0 and details[0].host_if_name == "e0"
    # the recorded VPP build offers messages we do not; those stay unavailable here
    with pytest.raises(AttributeError):
        client.api.ip_route_add_del  # noqa: B018


def test_our_definitions_work_against_vpp_numbering(vpp_sim_factory: Any) -> None:
    """A server numbering messages from VPP's full 26.10 API, as a real VPP does."""
    if not SHARED_API.is_dir():
        pytest.skip("../shared/vpp/api not available")
    sim = vpp_sim_factory(handler=Recorder(), api_dir=SHARED_API)
    assert sim.server.api.ids["show_version"] != ApiDefinitions().ids["show_version"]
    client = sim.client(apifiles=sorted(str(p) for p in DEFAULT_API_DIR.rglob("*.api.json")))
    assert client.api.show_version().version == "26.10-sim"
    assert [str(a.prefix) for a in client.api.ip_address_dump(sw_if_index=1)] == [
        "10.0.0.1/24", "2001:db8::1/64"]


def test_memclnt_services(recorder_sim: Any) -> None:
    client = recorder_sim.client()
    api = recorder_sim.server.api
    first = client.api.get_first_msg_id(name="acl")
    assert (first.retval, first.first_msg_id) == (0, api.module("acl").first_msg_id)
    crc_name = f"lcp_{api.module('lcp').crc:08x}"
    assert client.api.get_first_msg_id(name=crc_name).first_msg_id == api.module("lcp").first_msg_id
    assert client.api.get_first_msg_id(name="nosuch").retval != 0
    versions = {v.name: (v.major, v.minor, v.patch) for v in client.api.api_versions().api_versions}
    assert versions["interface"] == (3, 2, 5) and versions["lcp"] == (1, 0, 0)
    assert client.api.memclnt_keepalive().retval == 0


def test_bootstrap_client_loads_definitions_from_the_server(recorder_sim: Any) -> None:
    client = VPPApiClient(bootstrapapi=True, use_socket=True, server_address=recorder_sim.socket,
                          read_timeout=5)
    client.connect("bootstrap")
    try:
        assert client.api.show_version().version == "26.10-sim"
    finally:
        client.disconnect()


def test_sequential_and_concurrent_clients(recorder_sim: Any) -> None:
    for n in range(3):
        client = recorder_sim.client(f"seq{n}")
        assert client.api.show_version().retval == 0
        client.disconnect()
    assert wait_for(lambda: recorder_sim.server.clients == 0)

    clients = [recorder_sim.client(f"par{n}") for n in range(4)]
    errors: list[BaseException] = []

    def work(client: Any) -> None:
        try:
            for _ in range(40):
                assert len(client.api.sw_interface_dump()) == 2
                assert client.api.show_version().retval == 0
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors and not any(t.is_alive() for t in threads)
    assert recorder_sim.dataplane.overlaps == 0
    assert len(recorder_sim.dataplane.calls) >= 3 + 4 * 80


def test_keepalive_reaches_the_client(vpp_sim_factory: Any) -> None:
    sim = vpp_sim_factory(handler=Recorder(), keepalive=0.1)
    client = sim.client()
    seen = threading.Event()
    client.register_event_callback(lambda name, msg: name == "memclnt_keepalive" and seen.set())
    time.sleep(0.4)
    # vpp_papi queues context-0 messages behind the next reply, then hands them to the callback
    assert client.api.show_version().retval == 0
    assert seen.wait(3)


def _raw_connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.connect(path)
    return sock


def test_garbage_does_not_hurt_the_server(recorder_sim: Any) -> None:
    sock = _raw_connect(recorder_sim.socket)
    body = struct.pack(">HII", 60000, 0, 1)  # an id nobody has
    sock.sendall(struct.pack(">QII", 0, len(body), 0) + body)
    sock.sendall(struct.pack(">QII", 0, 3, 0) + b"\x00\x0f\x00")  # truncated sockclnt_create
    sock.sendall(struct.pack(">QII", 0, 100, 0) + b"x")  # then hang up mid-frame
    sock.close()
    assert recorder_sim.client().api.show_version().retval == 0


def test_stop_removes_the_socket_and_stale_sockets_are_replaced(tmp_path: Path) -> None:
    import tempfile

    directory = tempfile.mkdtemp(prefix="vppsim-")
    path = os.path.join(directory, "api.sock")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)  # a socket file nobody listens on, as left by a killed VPP
    stale.close()
    server = SimServer(Recorder(), path).start()
    try:
        with pytest.raises(FileExistsError):
            SimServer(Recorder(), path).start()  # a live one is not stolen
    finally:
        server.stop()
    assert not os.path.exists(path)
    os.rmdir(directory)


# -- inventory and command line ------------------------------------------------------


def test_inventory_files(tmp_path: Path) -> None:
    good = tmp_path / "phys.yaml"
    good.write_text('phys:\n  - name: TenGigabitEthernet1/0/0\n    mac: "02:00:00:00:aa:01"\n'
                    "    mtu: 1500\n  - name: TenGigabitEthernet1/0/1\n    dev_type: af-packet\n")
    assert load_inventory(good) == [
        Phy("TenGigabitEthernet1/0/0", "02:00:00:00:aa:01", 1500, "dpdk"),
        Phy("TenGigabitEthernet1/0/1", "02:fe:00:00:00:02", 9000, "af-packet"),
    ]
    assert [p.name for p in default_inventory()] == [f"GigabitEthernet3/0/{n}" for n in range(4)]
    cases = {
        "phys: []\n": "expected a list",
        "- name: a\n  mac: 12:00:00:00:00:01\n": "quoted string",  # YAML 1.1 reads a number
        "- name: a\n  mtu: 10\n": "64..65535",
        "- name: a\n- name: a\n": "duplicate name a",
        "- name: a\n  speed: 10\n": "unknown key(s) speed",
        "- name: [a\n": "not valid YAML",
    }
    for text, message in cases.items():
        bad = tmp_path / "bad.yaml"
        bad.write_text(text)
        with pytest.raises(InventoryError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load_inventory(bad)
    with pytest.raises(InventoryError, match="No such file"):
        load_inventory(tmp_path / "absent.yaml")


def test_phy_option() -> None:
    assert parse_phy_option("Gi0/0/0,mac=02:00:00:00:00:09,mtu=1500", 0) == Phy(
        "Gi0/0/0", "02:00:00:00:00:09", 1500)
    assert parse_phy_option("eth1", 1).mac == "02:fe:00:00:00:02"
    for spec in ("Gi0,mtu=big", "Gi0,mac", "Gi0,color=red", ",mtu=1500"):
        with pytest.raises(InventoryError):
            parse_phy_option(spec, 0)


def _sim_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "vppcfg.sim", *args]


def test_command_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- name: a\n  mtu: 1\n")
    run = subprocess.run(_sim_command("--socket", str(tmp_path / "s"), "--inventory", str(bad)),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip().count("\n") == 0 and str(bad) in run.stderr
    assert "Traceback" not in run.stderr
    run = subprocess.run(_sim_command(), capture_output=True, text=True, timeout=60)
    assert run.returncode == 2  # --socket is required


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_command_line_serves_until_signalled(tmp_path: Path, stop_signal: int) -> None:
    pytest.importorskip("vppcfg.sim.dataplane", reason="the simulator model is not available yet")
    import tempfile

    directory = tempfile.mkdtemp(prefix="vppsim-")
    path = os.path.join(directory, "api.sock")
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        _sim_command("--socket", path, "--phy", "GigabitEthernet9/0/0,mtu=1500",
                     "--ready-file", str(ready)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(ready.exists, 30), proc.stderr.read() if proc.poll() is not None else ""
        files = sorted(str(p) for p in DEFAULT_API_DIR.rglob("*.api.json"))
        client = VPPApiClient(apifiles=files, use_socket=True, server_address=path, read_timeout=5)
        client.connect("cli-test")
        names = [i.interface_name for i in client.api.sw_interface_dump()]
        client.disconnect()
        assert "GigabitEthernet9/0/0" in names and "GigabitEthernet3/0/0" not in names
    finally:
        proc.send_signal(stop_signal)
        out, err = proc.communicate(timeout=30)
    # SIGTERM, a service manager's stop: 0; SIGINT (Ctrl-C): 130, as every command here
    assert proc.returncode == (130 if stop_signal == signal.SIGINT else 0), err
    assert f"vppcfg-sim: listening on {path}" in out
    assert not os.path.exists(path) and not ready.exists()
    os.rmdir(directory)
