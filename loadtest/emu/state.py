"""The emulated T-Rex STL server: ports, ownership, streams, traffic states, events, stats.

Every public `rpc_<method>` takes (Params) and returns the JSON result or raises RpcError.
Time comes from an injected clock (emulated seconds), so tests can drive it directly.
"""

from __future__ import annotations

import math
import random
import string
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import stats
from .config import EmuConfig
from .traffic import Counts, LatencyAcc, PortTraffic, Stream, multiplier_for
from .vppsim import VppSimLink
from .wire import Params, RpcError, bad_param, exec_failed

API_NAME, API_MAJOR, API_MINOR = "STL", 5, 1
VERSION = {"build_date": "Nov 22 2026", "build_time": "11:25:50", "built_by": "unknown",
           "mode": "STL", "version": "v3.08"}
# methods that work without api_h
NO_API_H = {"api_sync_v2", "api_sync", "get_version", "ping"}
DEFAULT_PROFILE = "_"
XSTATS_NAMES = ["rx_good_packets", "tx_good_packets", "rx_good_bytes", "tx_good_bytes",
                "rx_missed_errors", "rx_errors", "tx_errors", "rx_mbuf_allocation_errors",
                "rx_q0_packets", "rx_q0_bytes", "rx_q0_errors", "tx_q0_packets", "tx_q0_bytes"]
# the 69 methods the real server lists (get_supported_cmds), in its order
SUPPORTED_CMDS = [
    "clear_tpg_unknown_tags", "get_tpg_unknown_tags", "clear_tpg_tx_stats", "get_tpg_tx_stats",
    "get_tpg_stats", "get_tpg_tags", "clear_updated", "update_tpg_tags", "set_l2",
    "get_rx_queue_pkts", "enable_tpg", "get_port_xstats_values", "set_capture_port_bpf",
    "get_global_cfg", "disable_tpg", "get_async_results", "get_global_stats", "resume_traffic",
    "get_tpg_status", "get_port_xstats_names", "set_port_attr", "capture", "api_sync",
    "start_capture_port", "push_pkts", "conf_ns_batch", "get_supported_cmds",
    "stop_capture_port", "conf_ipv6", "start_traffic", "get_utilization", "remove_all_streams",
    "get_version", "get_system_info", "publish_now", "get_owner", "ping", "get_all_streams",
    "clear_tpg_stats", "shutdown", "update_traffic", "get_port_stats", "push_remote", "set_l3",
    "cancel_async_task", "api_sync_v2", "set_vlan", "set_global_cfg", "get_async_events",
    "acquire", "set_rx_feature", "get_port_status", "stop_traffic", "release", "service",
    "get_profile_list", "get_stream_list", "pause_streams", "get_active_pgids",
    "get_pgid_stats", "get_stream", "add_stream", "remove_stream", "pause_traffic",
    "resume_streams", "update_streams", "validate", "remove_rx_filters", "get_tpg_state",
]
# methods that need the port's handler and reply {} with no further effect here
OWNED_NOOPS = {"set_rx_feature", "service", "set_l2", "set_l3",
               "set_vlan", "conf_ipv6", "conf_ns_batch", "push_pkts", "start_capture_port",
               "stop_capture_port", "set_capture_port_bpf", "pause_streams",
               "resume_streams", "update_streams"}
MAX_EVENTS = 10000  # per session; a session that never polls is dropped, not grown forever

EV_PORT_STARTED, EV_PORT_STOPPED, EV_PORT_PAUSED, EV_PORT_RESUMED = 0, 1, 2, 3
EV_PORT_JOB_DONE, EV_PORT_ACQUIRED, EV_PORT_RELEASED = 4, 5, 6
EV_PROFILE_STARTED, EV_PROFILE_STOPPED, EV_PROFILE_PAUSED = 10, 11, 12
EV_PROFILE_RESUMED, EV_PROFILE_FINISHED_TX = 13, 14
EV_PORT_ATTR_CHG = 8


def random_token(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(8))


@dataclass
class Session:
    events: deque = field(default_factory=deque)
    seq: int = 0


@dataclass
class Port:
    port_id: int
    traffic: PortTraffic
    owner: str = ""
    session_id: int = 0
    handler: str = ""
    streams: dict[int, Stream] = field(default_factory=dict)
    state: str = "IDLE"  # IDLE, STREAMS, TX, PAUSE
    profile: str = DEFAULT_PROFILE
    mult: float = 1.0
    duration_left: float = -1.0  # scheduler virtual seconds still to run; <0: unlimited
    t_end: float = math.inf
    promiscuous: bool = False
    multicast: bool = False
    service: bool = False
    # RX filters of flow-statistics streams, set by a start and kept until remove_rx_filters
    # (the client removes them after stop and wait_on_traffic). Over filters still set by an
    # earlier run the real server counts no flow-statistics RX at all for the new run.
    rx_filters: bool = False
    # flow-statistics RX per stream frozen when the filters were removed: what arrives later
    # (still in the device) is not counted, and stays uncounted (rx_missed) after a new start
    rx_frozen: dict[int, int] | None = None
    rx_missed: dict[int, int] = field(default_factory=dict)

    def running(self) -> list[Stream]:
        return [s for s in self.streams.values() if s.enabled and s.self_start]

    def flow_rx(self, key: int, counts: Counts) -> int:
        """Flow-statistics RX of one stream, given the port's visible counts."""
        live = counts.flow_rx(key) - self.rx_missed.get(key, 0)
        return live if self.rx_frozen is None else self.rx_frozen.get(key, live)

    def remove_rx_filters(self, now: float) -> None:
        if self.rx_filters:
            counts = self.traffic.visible(now)
            self.rx_frozen = {k: self.flow_rx(k, counts) for k in counts.rx}
        self.rx_filters = False

    def arm_rx_filters(self, now: float) -> bool:
        """A start sets the filters afresh; False when those of an earlier run are still
        set (then the run gets no flow-statistics RX at all)."""
        if self.rx_frozen is not None:
            counts = self.traffic.visible(now)
            for key, frozen in self.rx_frozen.items():
                self.rx_missed[key] = counts.flow_rx(key) - frozen
            self.rx_frozen = None
        stale = self.rx_filters
        self.rx_filters = any(s.pg_id is not None for s in self.running())
        return not stale

    def run_counts_flow_rx(self) -> bool:
        """Whether flow statistics count what the current (or last) run delivers."""
        segments = self.traffic.segments
        return segments[-1].flow_rx if segments else True


class TrexState:
    """All server state. Not thread-safe: the server loop owns it."""

    def __init__(self, cfg: EmuConfig, clock: Callable[[], float] | None = None,
                 seed: int | None = None) -> None:
        self.cfg = cfg
        self.rng = random.Random(seed)
        t0 = time.monotonic()
        self._clock = clock or (lambda: (time.monotonic() - t0) * cfg.time_scale)
        self._frozen: float | None = None
        self.api_h = random_token(self.rng)
        self.speed_bps = cfg.speed_gbps * 1e9
        self.ports = [Port(i, PortTraffic(i, cfg)) for i in range(cfg.port_count)]
        self.vpp: VppSimLink | None = None
        self.links_up = True  # False once the simulated device is gone (see poll)
        if cfg.vpp_sim:
            self.vpp = VppSimLink(cfg.vpp_sim, cfg.port_count,
                                  ideal_on_loss=cfg.on_vpp_loss == "ideal")
            for port in self.ports:
                port.traffic.link = self.vpp.offer
        self.sessions: dict[int, Session] = {}
        self.pg_ver: dict[int, int] = {}
        self.pg_lat: dict[int, LatencyAcc] = {}
        self.next_key = 0
        self.uptime = time.strftime("%b %d %Y @ %H:%M:%S")
        self.trigger = False  # an event is queued: the PUB side should send "{}"
        self.publish = False  # publish_now asked for a trex-global + trigger

    # -- time ----------------------------------------------------------------------------
    def clock(self) -> float:
        """Emulated seconds since start; one value for a whole request while frozen."""
        return self._frozen if self._frozen is not None else self._clock()

    @contextmanager
    def frozen_clock(self) -> Iterator[None]:
        """All replies of one message (a stats batch) see the same instant, as a snapshot."""
        self._frozen = self._clock()
        try:
            yield
        finally:
            self._frozen = None

    # -- dispatch ------------------------------------------------------------------------
    def known(self, method: str) -> bool:
        return method in SUPPORTED_CMDS

    def call(self, method: str, params: dict, text: str) -> Any:
        p = Params(params, text)
        if method not in NO_API_H:
            api_h = p.get("api_h", "string")
            if api_h != self.api_h:
                raise exec_failed("API verification failed - API handler provided mismatch "
                                  "for class: 'common'")
        self.poll()
        handler = getattr(self, "rpc_" + method, None)
        if handler is not None:
            return handler(p)
        if method in OWNED_NOOPS:
            self._owned_port(p)
            return {}
        return {}

    def poll(self) -> None:
        """Finish runs whose duration or bursts have run out by now."""
        now = self.clock()
        for port in self.ports:
            if port.state == "TX" and self._finish_time(port) <= now:
                port.traffic.stop(port.t_end)
                port.state = "STREAMS"
                port.duration_left = -1.0
                port.t_end = math.inf
                self.emit(EV_PROFILE_FINISHED_TX, {"port_id": port.port_id,
                                                   "profile_id": port.profile})
                self.emit(EV_PORT_JOB_DONE, {"port_id": port.port_id})
        if self.vpp is not None:
            self.vpp.report(now, {p.port_id: p.traffic.totals(p.traffic.counts_at(now))
                                  for p in self.ports if p.traffic.frame_len})
            if self.links_up and not self.vpp.links_up:
                self._links_down(now)

    def _links_down(self, now: float) -> None:
        """The device is gone: every port's link goes down (an event, as the real server
        sends), and what is being sent is no longer forwarded."""
        self.links_up = False
        for port in self.ports:
            self.emit(EV_PORT_ATTR_CHG, {"port_id": port.port_id,
                                         "attr": self._port_attr(port)})
            if port.state == "TX":
                port.traffic.reoffer(now)

    def _finish_time(self, port: Port) -> float:
        """The end is reported when the last packet has gone, like the real server (10 kpps
        × 3 s ended 3.0 s after the start), not at the next stats tick."""
        return port.t_end

    def next_deadline(self) -> float:
        return min((self._finish_time(p) for p in self.ports if p.state == "TX"),
                   default=math.inf)

    # -- helpers -------------------------------------------------------------------------
    def _port(self, p: Params) -> Port:
        port_id = p.get("port_id", "byte")
        if port_id >= len(self.ports):
            valid = " ".join(chr(i) for i in reversed(range(len(self.ports))))
            raise exec_failed(f"invalid port id - should be: {valid}")
        return self.ports[port_id]

    def _owned_port(self, p: Params) -> Port:
        port = self._port(p)
        handler = p.get("handler", "string")
        if not port.owner or handler != port.handler:
            raise exec_failed("port is not owned by you or your current executing session")
        return port

    def _profile(self, p: Params, port: Port) -> str:
        profile = p.get("profile_id", "string", DEFAULT_PROFILE)
        return port.profile if profile == "*" else profile

    def emit(self, etype: int, data: dict) -> None:
        for sid, sess in list(self.sessions.items()):
            if len(sess.events) >= MAX_EVENTS:
                del self.sessions[sid]
                continue
            sess.events.append({"data": data, "name": "trex-event", "seq": sess.seq,
                                "type": etype})
            sess.seq += 1
        self.trigger = True

    def _state_error(self, command: str, port: Port, profile: str) -> RpcError:
        return exec_failed(f"command '{command}' cannot be executed on current state: "
                           f"'{port.state} on profile_id({profile}).")

    # -- handshake and info --------------------------------------------------------------
    def _check_version(self, name: Any, major: int, minor: int) -> None:
        if name != API_NAME:
            raise exec_failed(f"RPC configuration mismatch - server RPC configuration: "
                              f"'{API_NAME}', client RPC configuration: '{name}'")
        detail = (f"(API type '{API_NAME}':  - server: '{API_MAJOR}.{API_MINOR}', "
                  f"client: '{major}.{minor}')")
        if major < API_MAJOR:
            raise exec_failed("RPC version mismatch: a newer client version is required\n"
                              + detail)
        if major > API_MAJOR or minor > API_MINOR:
            raise exec_failed("Version mismatch: your client version is too new to be "
                              "supported by the server\n" + detail)

    def rpc_api_sync_v2(self, p: Params) -> dict:
        self._check_version(p.get("name", "string"), p.get("major", "int"),
                            p.get("minor", "int"))
        return {"api_h": self.api_h}

    def rpc_api_sync(self, p: Params) -> dict:
        versions = p.get("api_vers", "array")
        first = versions[0] if versions and isinstance(versions[0], dict) else {}
        self._check_version(API_NAME, int(first.get("major", 0)), int(first.get("minor", 0)))
        return {"api_vers": [{"type": first.get("type", "core"), "api_h": self.api_h}]}

    def rpc_get_version(self, p: Params) -> dict:
        return dict(VERSION)

    def rpc_ping(self, p: Params) -> dict:
        return {"ts": self.clock()}

    def rpc_get_supported_cmds(self, p: Params) -> list:
        return list(SUPPORTED_CMDS)

    def rpc_get_system_info(self, p: Params) -> dict:
        ports = [self._port_info(i) for i in reversed(range(len(self.ports)))]
        return {"advanced_per_stream_stats": True, "core_type": "emulated",
                "dp_core_count": 1, "dp_core_count_per_port": 1, "hostname": "trex-emu",
                "is_multiqueue_mode": False, "port_count": len(self.ports), "ports": ports,
                "uptime": self.uptime}

    def _port_info(self, i: int) -> dict:
        return {"cores": [0], "description": "Unknown", "driver": "net_af_packet",
                "hw_mac": _mac(i), "index": i, "is_fc_supported": False,
                "is_ieee1588_supported": False, "is_led_supported": False,
                "is_link_supported": False, "is_prom_supported": True, "is_virtual": True,
                "is_vxlan_supported": False, "numa": -1, "pci_addr": "N/A",
                "rx": {"caps": ["flow_stats", "latency", "rx_bytes", "tpg"], "counters": 1023},
                "stack": "legacy", "supp_speeds": []}

    def rpc_get_port_xstats_names(self, p: Params) -> dict:
        self._port(p)
        return {"xstats_names": list(XSTATS_NAMES)}

    def rpc_get_owner(self, p: Params) -> dict:
        return {"owner": self._port(p).owner}

    def _port_attr(self, port: Port) -> dict:
        peer = port.port_id ^ 1
        return {"fc": {"mode": -1},
                "layer_cfg": {"ether": {"dst": _mac(peer), "src": _mac(port.port_id),
                                        "state": "configured"},
                              "ipv4": {"state": "none"}, "ipv6": {"enabled": False}},
                "link": {"up": self.links_up}, "multicast": {"enabled": port.multicast},
                "promiscuous": {"enabled": port.promiscuous}, "rx_filter_mode": "hw",
                "speed": self.cfg.speed_gbps, "vlan": {"tags": []}, "vxlan_fs": []}

    def rpc_get_port_status(self, p: Params) -> dict:
        port = self._port(p)
        attr = self._port_attr(port)
        inactive = {"is_active": False}
        rx_info = {"capture_port": dict(inactive), "capwap_proxy": dict(inactive),
                   "grat_arp": dict(inactive), "latency": dict(inactive),
                   "queue": dict(inactive), "stack": {"is_active": True}}
        return {"attr": attr, "max_stream_id": max(port.streams, default=0),
                "owner": port.owner, "profile_count": 1, "rx_info": rx_info,
                "service": port.service, "service_filtered": False, "state": port.state,
                "state_profile": {port.profile: port.state}}

    def rpc_get_tpg_status(self, p: Params) -> dict:
        return {"data": {"acquired_ports": [], "num_tags": 0, "num_tpgids": 0,
                         "rx_ports": [], "username": "-"}, "enabled": False}

    def rpc_capture(self, p: Params) -> list:
        return []

    def rpc_get_profile_list(self, p: Params) -> list:
        return [self._port(p).profile]

    def rpc_get_utilization(self, p: Params) -> dict:
        return {"cpu": [], "mbuf_stats": {}}

    # -- events --------------------------------------------------------------------------
    def rpc_publish_now(self, p: Params) -> dict:
        self.publish = True
        return {}

    def rpc_get_async_events(self, p: Params) -> dict:
        sid = p.get("session_id", "uint64")
        sess = self.sessions.setdefault(sid, Session())
        data = list(sess.events)
        sess.events.clear()
        return {"data": data}

    # -- ownership -----------------------------------------------------------------------
    def rpc_acquire(self, p: Params) -> str:
        port = self._port(p)
        user = p.get("user", "string")
        session_id = p.get("session_id", "uint64")
        force = p.get("force", "bool")
        if port.owner and not force:
            raise exec_failed(f"port is already taken by '{port.owner}'")
        port.owner, port.session_id = user, session_id
        port.handler = random_token(self.rng)
        self.emit(EV_PORT_ACQUIRED, {"force": force, "port_id": port.port_id,
                                     "session_id": session_id, "who": user})
        return port.handler

    def rpc_release(self, p: Params) -> dict:
        port = self._owned_port(p)
        if port.state in ("TX", "PAUSE"):
            self._stop(port)
        who, sid = port.owner, port.session_id
        port.owner, port.handler, port.session_id = "", "", 0
        self.emit(EV_PORT_RELEASED, {"port_id": port.port_id, "session_id": sid, "who": who})
        return {}

    def rpc_set_port_attr(self, p: Params) -> dict:
        port = self._owned_port(p)
        attr = p.get("attr", "object")
        if isinstance(attr.get("promiscuous"), dict):
            port.promiscuous = bool(attr["promiscuous"].get("enabled"))
        if isinstance(attr.get("multicast"), dict):
            port.multicast = bool(attr["multicast"].get("enabled"))
        return {}

    def rpc_service(self, p: Params) -> dict:
        port = self._owned_port(p)
        port.service = bool(p.get("enabled", "bool"))
        return {}

    # -- streams -------------------------------------------------------------------------
    def rpc_add_stream(self, p: Params) -> dict:
        port = self._owned_port(p)
        port.profile = self._profile(p, port)
        stream_id = p.get("stream_id", "int")
        js = p.get("stream", "object")
        if port.state in ("TX", "PAUSE"):
            raise self._state_error("add_stream", port, port.profile)
        if stream_id in port.streams:
            raise exec_failed(f"stream {stream_id} already exists")
        try:
            stream = Stream.from_json(stream_id, self.next_key, js, self.speed_bps)
        except (KeyError, TypeError, ValueError) as err:
            raise bad_param(f"bad stream: {err}") from None
        self.next_key += 1
        port.streams[stream_id] = stream
        if stream.pg_id is not None:
            self.pg_ver.setdefault(stream.pg_id, len(self.pg_ver))
        if port.state == "IDLE":
            port.state = "STREAMS"
        return {}

    def rpc_remove_stream(self, p: Params) -> dict:
        port = self._owned_port(p)
        profile = self._profile(p, port)
        stream_id = p.get("stream_id", "int")
        if stream_id not in port.streams:
            raise exec_failed(f"stream {stream_id} does not exists in profile_id({profile})")
        if port.state in ("TX", "PAUSE"):
            raise self._state_error("remove_stream", port, profile)
        del port.streams[stream_id]
        if not port.streams:
            port.state = "IDLE"
        return {}

    def rpc_remove_all_streams(self, p: Params) -> dict:
        port = self._owned_port(p)
        profile = self._profile(p, port)
        if port.state in ("TX", "PAUSE"):
            raise self._state_error("remove_all_streams", port, profile)
        port.streams.clear()
        port.state = "IDLE"
        return {}

    def rpc_get_all_streams(self, p: Params) -> dict:
        port = self._port(p)
        if not port.streams:
            return {"profiles": {}}
        streams = {str(sid): s.json for sid, s in sorted(port.streams.items())}
        return {"profiles": {port.profile: streams}}

    def rpc_get_stream_list(self, p: Params) -> list:
        return sorted(self._port(p).streams)

    def rpc_get_stream(self, p: Params) -> dict:
        port = self._port(p)
        stream_id = p.get("stream_id", "int")
        if stream_id not in port.streams:
            raise exec_failed(f"stream {stream_id} does not exists in "
                              f"profile_id({self._profile(p, port)})")
        return {"stream": port.streams[stream_id].json}

    # -- traffic -------------------------------------------------------------------------
    def rpc_start_traffic(self, p: Params) -> dict:
        port = self._owned_port(p)
        profile = self._profile(p, port)
        mul = p.get("mul", "object")
        duration = float(p.get("duration", "double", -1.0))
        force = p.get("force", "bool", False)
        if port.state in ("TX", "PAUSE") and force:
            self._stop(port)
        streams = port.running()
        if port.state != "STREAMS" or not streams:
            raise self._state_error("start", port, profile)
        now = self.clock()
        port.mult = multiplier_for(mul, streams, self.speed_bps)
        port.duration_left = duration if duration > 0 else -1.0
        fresh = port.arm_rx_filters(now)
        port.t_end = port.traffic.start(now, streams, port.mult, duration, flow_rx=fresh)
        port.state, port.profile = "TX", profile
        self.emit(EV_PROFILE_STARTED, {"port_id": port.port_id, "profile_id": profile})
        self.emit(EV_PORT_STARTED, {"port_id": port.port_id})
        return {"multiplier": port.mult, "ts": now}

    def _continue(self, port: Port, now: float) -> None:
        """Restart the current run at `now` with the port's (new) multiplier."""
        seg = port.traffic.segments[-1] if port.traffic.segments else None
        if port.duration_left > 0 and seg is not None:
            port.duration_left = max(port.duration_left - seg.virtual_elapsed(now), 1e-9)
        port.t_end = port.traffic.start(now, port.running(), port.mult, port.duration_left,
                                        first=False, flow_rx=port.run_counts_flow_rx())

    def rpc_update_traffic(self, p: Params) -> dict:
        port = self._owned_port(p)
        profile = self._profile(p, port)
        mul = p.get("mul", "object")
        if port.state not in ("TX", "PAUSE"):
            raise self._state_error("update", port, profile)
        factor = multiplier_for(mul, port.running(), self.speed_bps)
        op = mul.get("op", "abs")
        mult = port.mult + factor if op == "add" else port.mult - factor if op == "sub" \
            else factor
        if mult <= 0:
            raise exec_failed("multiplier must be positive")
        port.mult = mult
        if port.state == "TX":
            self._continue(port, self.clock())
        return {"multiplier": port.mult}

    def _stop(self, port: Port) -> None:
        if port.state == "TX":
            port.traffic.stop(self.clock())
        port.state = "STREAMS" if port.streams else "IDLE"
        port.t_end, port.duration_left = math.inf, -1.0
        self.emit(EV_PROFILE_STOPPED, {"port_id": port.port_id, "profile_id": port.profile})
        self.emit(EV_PORT_STOPPED, {"port_id": port.port_id})

    def rpc_remove_rx_filters(self, p: Params) -> dict:
        self._owned_port(p).remove_rx_filters(self.clock())
        return {}

    def rpc_stop_traffic(self, p: Params) -> dict:
        port = self._owned_port(p)
        self._profile(p, port)
        if port.state in ("TX", "PAUSE"):
            self._stop(port)
        return {}

    def rpc_pause_traffic(self, p: Params) -> dict:
        port = self._owned_port(p)
        profile = self._profile(p, port)
        if port.state != "TX":
            raise self._state_error("pause", port, profile)
        now = self.clock()
        seg = port.traffic.segments[-1]
        if port.duration_left > 0:
            port.duration_left = max(port.duration_left - seg.virtual_elapsed(now), 1e-9)
        port.traffic.stop(now)
        port.state, port.t_end = "PAUSE", math.inf
        self.emit(EV_PROFILE_PAUSED, {"port_id": port.port_id, "profile_id": profile})
        self.emit(EV_PORT_PAUSED, {"port_id": port.port_id})
        return {}

    def rpc_resume_traffic(self, p: Params) -> dict:
        port = self._owned_port(p)
        profile = self._profile(p, port)
        if port.state != "PAUSE":
            raise self._state_error("resume", port, profile)
        now = self.clock()
        port.t_end = port.traffic.start(now, port.running(), port.mult, port.duration_left,
                                        first=False, flow_rx=port.run_counts_flow_rx())
        port.state = "TX"
        self.emit(EV_PROFILE_RESUMED, {"port_id": port.port_id, "profile_id": profile})
        self.emit(EV_PORT_RESUMED, {"port_id": port.port_id})
        return {}

    # -- statistics (computed in stats.py) ----------------------------------------------
    def rpc_get_port_stats(self, p: Params) -> dict:
        return stats.port_counters(self.ports, self._port(p).port_id, self.clock())

    def rpc_get_port_xstats_values(self, p: Params) -> dict:
        c = stats.port_counters(self.ports, self._port(p).port_id, self.clock())
        return {"xstats_values": stats.xstats_values(c)}

    def rpc_get_global_stats(self, p: Params) -> dict:
        return stats.global_stats(self.ports, self.clock())

    def trex_global(self) -> dict:
        """The PUB `trex-global` snapshot."""
        return stats.trex_global(self.ports, self.clock())

    def rpc_get_active_pgids(self, p: Params) -> dict:
        return {"ids": stats.active_pgids(self.ports)}

    def rpc_get_pgid_stats(self, p: Params) -> dict:
        pgids = [g for g in p.get("pgids", "array") if isinstance(g, int)]
        known = [g for g in pgids if g in self.pg_ver and stats.pg_streams(self.ports, g)]
        if not known:
            return {"flow_stats": None, "latency": {"g": None}, "ver_id": None}
        now = self.clock()
        flow: dict[str, Any] = {}
        lat: dict[str, Any] = {"g": None}
        for g in known:
            flow[str(g)] = stats.flow_entry(self.ports, g, now)
            if any(s.latency for _, s in stats.pg_streams(self.ports, g)):
                lat[str(g)] = self._latency_entry(g, now)
        return {"flow_stats": flow, "latency": lat,
                "ver_id": {str(g): self.pg_ver[g] for g in known}}

    def _latency_entry(self, pg_id: int, now: float) -> dict:
        sent, received, latency = stats.latency_sample(self.ports, pg_id, now,
                                                       self.cfg.latency_us)
        acc = self.pg_lat.setdefault(pg_id, LatencyAcc())
        if received < acc.counted:  # counters of a new stream set: start over
            acc = self.pg_lat[pg_id] = LatencyAcc()
        acc.add(received - acc.counted, latency)
        entry = acc.to_json()
        if sent > received:
            # sequence-error counters; the recorded lossless run carried none at all
            entry["er"] = {"drp": sent - received, "dup": 0, "ooo": 0, "sth": 0, "stl": 0}
        return entry


def _mac(port_id: int) -> str:
    return f"02:00:00:00:00:{0x10 + port_id:02x}"
