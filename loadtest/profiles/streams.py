"""Build T-Rex STL streams from a `TrafficSpec`.

`api` is the imported `trex.stl.api` (or legacy `trex_stl_lib.api`) module, so
the caller decides which client installation is used. Each stream's own rate
is its weight in the size mix, so the per-direction base rate is the sum of
the weights and the start multiplier is simply `pps / base_pps`.
"""

from __future__ import annotations

from decimal import Decimal
from types import ModuleType

from loadtest.profiles import MIN_FRAME, Flows, TrafficSpec
from loadtest.profiles.pyfile import with_flow_stats

# latency probes per second and direction. The real T-Rex sends a latency stream at its own
# rate: the start multiplier, which sets the test streams' rate, does not apply to it (on
# trex-real a 100 pps latency stream sent 100 pps at multipliers 1, 2 and 3)
LATENCY_PPS = 100.0
LATENCY_PG_BASE = 10  # pg_id of the latency stream of direction d is 10 + d
# pg_id the test streams of direction d count in (T-Rex per-stream flow statistics): loss is
# counted on test packets only, never on what the device under test sends by itself
FLOW_PG_BASE = 20
HEADERS = {4: 14 + 20 + 8, 6: 14 + 40 + 8}  # Ether + IP + UDP, no FCS


def base_pps(spec: TrafficSpec) -> float:
    """Packets per second one direction's test streams send at multiplier 1 (the latency
    stream, if any, sends LATENCY_PPS whatever the multiplier)."""
    return float(sum(weight for _, weight in spec.mix))


def multiplier(spec: TrafficSpec, pps: float) -> float:
    """The T-Rex multiplier that makes one direction send `pps`."""
    return pps / base_pps(spec)


def mult_arg(spec: TrafficSpec, pps: float) -> str:
    """`multiplier` as the `mult` text the client takes: 12 significant digits in plain
    decimal, since the client's parser has no exponent (it rejects "1.5e-07")."""
    return format(Decimal(f"{multiplier(spec, pps):.12g}"), "f")


def _packet(api: ModuleType, flows: Flows, frame_size: int):
    """Ether/IP/UDP padded so the frame incl. FCS is `frame_size` bytes."""
    from scapy.all import IP, UDP, Ether, IPv6  # scapy comes with the T-Rex client

    ip_cls = IP if flows.src.version == 4 else IPv6
    l3 = ip_cls(src=str(flows.src.first), dst=str(flows.dst.first))
    udp = UDP(sport=flows.sport.first, dport=flows.dport.first)
    if flows.src.version == 4:
        udp.chksum = 0  # optional in IPv4, so VM rewrites need no L4 fix-up
    pkt = Ether() / l3 / udp
    pad = frame_size - 4 - HEADERS[flows.src.version]
    if pad < 0:
        raise ValueError(f"frame size {frame_size} is too small for IPv{flows.src.version}/UDP")
    return pkt / (b"\x00" * pad)


def _vm(api: ModuleType, flows: Flows):
    """Field engine program that walks the address and port ranges."""
    v6 = flows.src.version == 6
    l3 = "IPv6" if v6 else "IP"
    fixup = 12 if v6 else 0  # IPv6: vary the low 32 bits of the address
    instructions = []
    for name, rng, field in (("src", flows.src, "src"), ("dst", flows.dst, "dst")):
        if rng.count > 1:
            lo, hi = int(rng.first) & 0xFFFFFFFF, int(rng.last) & 0xFFFFFFFF
            instructions += [
                api.STLVmFlowVar(name=name, min_value=lo, max_value=hi, size=4, op="inc"),
                api.STLVmWrFlowVar(fv_name=name, pkt_offset=f"{l3}.{field}", offset_fixup=fixup),
            ]
    for name, rng in (("sport", flows.sport), ("dport", flows.dport)):
        if rng.count > 1:
            instructions += [
                api.STLVmFlowVar(
                    name=name, min_value=rng.first, max_value=rng.last, size=2, op="inc"
                ),
                api.STLVmWrFlowVar(fv_name=name, pkt_offset=f"UDP.{name}"),
            ]
    if not instructions:
        return None
    if v6:
        udp_type = getattr(getattr(api, "CTRexVmInsFixHwCs", None), "L4_TYPE_UDP", 11)
        instructions.append(
            api.STLVmFixChecksumHw(l3_offset="IPv6", l4_offset="UDP", l4_type=udp_type)
        )
    else:
        instructions.append(api.STLVmFixIpv4(offset="IP"))
    return api.STLScVmRaw(instructions)


def build_streams(api: ModuleType, spec: TrafficSpec, direction: int) -> list:
    """Streams for direction 0 (port 0 to 1) or 1 (port 1 to 0)."""
    if spec.file:
        streams = with_flow_stats(api, spec.file.streams[direction], FLOW_PG_BASE + direction)
        return streams + _latency(api, spec, direction)
    flows = spec.flows if direction == 0 else spec.flows.mirrored()
    vm = _vm(api, flows)
    streams = []
    for size, weight in spec.mix:
        pkt = _packet(api, flows, size)
        builder = api.STLPktBuilder(pkt=pkt, vm=vm) if vm else api.STLPktBuilder(pkt=pkt)
        streams.append(
            api.STLStream(
                name=f"d{direction}-{size}",
                packet=builder,
                mode=api.STLTXCont(pps=float(weight)),
                flow_stats=api.STLFlowStats(pg_id=FLOW_PG_BASE + direction),
            )
        )
    return streams + _latency(api, spec, direction)


def _latency(api: ModuleType, spec: TrafficSpec, direction: int) -> list:
    """The latency stream of a direction (LATENCY_PPS), if asked for."""
    streams = []
    if spec.latency:
        streams.append(
            api.STLStream(
                name=f"d{direction}-latency",
                packet=_latency_packet(api, spec, direction),
                mode=api.STLTXCont(pps=LATENCY_PPS),
                flow_stats=api.STLFlowLatencyStats(pg_id=LATENCY_PG_BASE + direction),
            )
        )
    return streams


def _latency_packet(api: ModuleType, spec: TrafficSpec, direction: int):
    """The latency probe: the first flow of the direction, so the device routes it like the
    test traffic (a profile file's own first packet, its field engine left out)."""
    if spec.file:
        return api.STLPktBuilder(pkt_buffer=spec.file.streams[direction][0].get_pkt())
    flows = spec.flows if direction == 0 else spec.flows.mirrored()
    return api.STLPktBuilder(pkt=_packet(api, flows, MIN_FRAME[spec.ip_version]))
