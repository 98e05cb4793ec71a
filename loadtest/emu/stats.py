"""Statistics replies computed from the ports' traffic models, in the real server's shapes."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .traffic import Stream, f32

if TYPE_CHECKING:
    from .state import Port

DUT_OWN_FRAME = 64  # bytes (incl. FCS) of each packet the device sends by itself
TSC_HZ = 2596119032  # the recorded server's TSC; ts.value = emulated seconds × TSC_HZ

_ZERO_FLOATS = ("m_active_flows", "m_open_flows", "m_rx_cpu_util", "m_rx_drop_bps",
                "m_socket_util", "m_tx_cps", "m_tx_expected_bps", "m_tx_expected_cps",
                "m_tx_expected_pps", "m_cpu_util_raw")
_ZERO_INTS = ("m_active_sockets", "m_total_alloc_error", "m_total_clients",
              "m_total_nat_active", "m_total_nat_learn_error", "m_total_nat_no_fid",
              "m_total_nat_open", "m_total_nat_syn_wait", "m_total_nat_time_out",
              "m_total_nat_time_out_wait_ack", "m_total_queue_drop", "m_total_queue_full",
              "m_total_servers")
# key order of the published trex-global snapshot (it is not sorted)
_PUB_GLOBAL_KEYS = (
    "m_cpu_util", "m_cpu_util_raw", "m_bw_per_core", "m_rx_cpu_util", "m_rx_core_pps",
    "m_platform_factor", "m_tx_bps", "m_rx_bps", "m_tx_pps", "m_rx_pps", "m_tx_cps",
    "m_tx_expected_cps", "m_tx_expected_pps", "m_tx_expected_bps", "m_total_alloc_error",
    "m_total_queue_full", "m_total_queue_drop", "m_rx_drop_bps", "m_active_flows",
    "m_open_flows", "m_total_tx_pkts", "m_total_rx_pkts", "m_total_tx_bytes",
    "m_total_rx_bytes", "m_total_clients", "m_total_servers", "m_active_sockets",
    "m_socket_util", "m_total_nat_time_out", "m_total_nat_time_out_wait_ack",
    "m_total_nat_no_fid", "m_total_nat_active", "m_total_nat_syn_wait", "m_total_nat_open",
    "m_total_nat_learn_error")
_PUB_PORT_KEYS = ("opackets", "obytes", "ipackets", "ibytes", "ierrors", "oerrors",
                  "m_total_tx_bps", "m_total_tx_pps", "m_total_rx_bps", "m_total_rx_pps",
                  "m_cpu_util")


def port_counters(ports: list[Port], port_id: int, now: float) -> dict:
    """get_port_stats: TX from this port's model, RX from what its peer sends through the DUT."""
    port, peer = ports[port_id], ports[port_id ^ 1]
    for p in (port, peer):
        p.traffic.advance_rates(now)
    op, ob, _, _ = port.traffic.totals(port.traffic.visible(now))
    _, _, ip, ib = peer.traffic.totals(peer.traffic.visible(now))
    own = dut_own_packets(port, now)
    ip, ib = ip + own, ib + own * DUT_OWN_FRAME
    return {"ibytes": ib, "ierrors": 0, "ipackets": ip,
            "m_cpu_util": f32(port.traffic.cpu.value),
            "m_total_rx_bps": f32(peer.traffic.rx_bps.value),
            "m_total_rx_pps": f32(peer.traffic.rx_pps.value),
            "m_total_tx_bps": f32(port.traffic.tx_bps.value),
            "m_total_tx_pps": f32(port.traffic.tx_pps.value),
            "obytes": ob, "oerrors": 0, "opackets": op}


def dut_own_packets(port: Port, now: float) -> int:
    """Packets the device under test has sent by itself to `port` since the emulator
    started (a steady trickle: ARP, ND, LLDP, routing protocols)."""
    pps = port.traffic.cfg.dut_own_pps
    return math.floor(pps * port.traffic.tick_floor(now) + 1e-9) if pps > 0 else 0


def xstats_values(c: dict) -> list[int]:
    """Values in the order of state.XSTATS_NAMES."""
    return [c["ipackets"], c["opackets"], c["ibytes"], c["obytes"], 0, 0, 0, 0,
            c["ipackets"], c["ibytes"], 0, c["opackets"], c["obytes"]]


def global_stats(ports: list[Port], now: float) -> dict:
    counters = [port_counters(ports, i, now) for i in range(len(ports))]

    def total(key: str) -> Any:
        return sum(c[key] for c in counters)

    out: dict[str, Any] = dict.fromkeys(_ZERO_FLOATS, 0.0)
    out.update(dict.fromkeys(_ZERO_INTS, 0))
    out.update({"m_bw_per_core": f32(total("m_total_tx_bps") / 1e9),
                "m_cpu_util": f32(max((c["m_cpu_util"] for c in counters), default=0.0)),
                "m_platform_factor": 1.0, "m_rx_bps": f32(total("m_total_rx_bps")),
                "m_rx_core_pps": f32(total("m_total_rx_pps")),
                "m_rx_pps": f32(total("m_total_rx_pps")),
                "m_total_rx_bytes": total("ibytes"), "m_total_rx_pkts": total("ipackets"),
                "m_total_tx_bytes": total("obytes"), "m_total_tx_pkts": total("opackets"),
                "m_tx_bps": f32(total("m_total_tx_bps")),
                "m_tx_pps": f32(total("m_total_tx_pps"))})
    return out


def trex_global(ports: list[Port], now: float) -> dict:
    """The PUB `trex-global` message, in the server's (unsorted) key order."""
    g = global_stats(ports, now)
    data: dict[str, Any] = {"ts": {"value": int(now * TSC_HZ), "freq": TSC_HZ}}
    for key in _PUB_GLOBAL_KEYS:
        data[key] = g[key]
    for i in range(len(ports)):
        c = port_counters(ports, i, now)
        for key in _PUB_PORT_KEYS:
            data[f"{key}-{i}"] = c[key]
    data["template"] = [0] * 32
    data["unknown"] = 0
    return {"name": "trex-global", "type": 0, "data": data}


def pg_streams(ports: list[Port], pg_id: int) -> list[tuple[Port, Stream]]:
    return [(port, s) for port in ports for s in port.streams.values() if s.pg_id == pg_id]


def active_pgids(ports: list[Port]) -> dict:
    flow, lat = set(), set()
    for port in ports:
        for s in port.streams.values():
            if s.pg_id is not None:
                (lat if s.latency else flow).add(s.pg_id)
    return {"flow_stats": sorted(flow), "latency": sorted(lat)}


def flow_entry(ports: list[Port], pg_id: int, now: float) -> dict:
    """Per-port tx/rx packets, bytes and rates of one pg_id; rates are 0 once stopped."""
    names = [str(i) for i in range(len(ports))]
    entry = {k: dict.fromkeys(names, 0) for k in ("rb", "rp", "tb", "tp")}
    entry.update({k: dict.fromkeys(names, 0.0) for k in ("rbs", "rps", "tbs", "tps")})
    for port, s in pg_streams(ports, pg_id):
        counts = port.traffic.visible(now)
        tx, rx = counts.tx.get(s.key, 0), port.flow_rx(s.key, counts)
        src, dst = str(port.port_id), str(port.port_id ^ 1)
        entry["tp"][src] += tx
        entry["tb"][src] += tx * s.frame_len
        entry["rp"][dst] += rx
        entry["rb"][dst] += rx * s.frame_len
        seg = port.traffic.current_segment(now)
        if seg is not None and s.key in seg.tx_pps:
            pps = seg.tx_pps[s.key]
            entry["tps"][src] += round(pps, 2)
            entry["tbs"][src] += round(pps * s.frame_len * 8, 2)
            entry["rps"][dst] += round(pps * seg.fwd_of(s.key), 2)
            entry["rbs"][dst] += round(pps * seg.fwd_of(s.key) * s.frame_len * 8, 2)
    return entry


def latency_sample(ports: list[Port], pg_id: int, now: float, base_us: float
                   ) -> tuple[int, int, float]:
    """(packets sent, packets received, current mean DUT latency in µs) of a latency pg_id."""
    sent, received, latency = 0, 0, base_us
    for port, s in pg_streams(ports, pg_id):
        counts = port.traffic.visible(now)
        sent += counts.tx.get(s.key, 0)
        received += port.flow_rx(s.key, counts)
        if port.traffic.segments:
            latency = max(latency, port.traffic.segments[-1].latency_us)
    return sent, received, latency
