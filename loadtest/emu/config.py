"""Configuration of the T-Rex emulator and of the device under test it models."""

from __future__ import annotations

from dataclasses import dataclass

# 10 Gbit/s, as the recorded software-mode ports report in attr.speed (Gb/s).
DEFAULT_SPEED_GBPS = 10.0


@dataclass(frozen=True)
class EmuConfig:
    """Everything the emulator needs; defaults match the recorded T-Rex 3.08 server.

    Capacities are in packets per second per direction: direction 0 is port 0 TX → port 1 RX,
    direction 1 is port 1 TX → port 0 RX. `None` means an ideal device (no loss).
    """

    bind: str = "127.0.0.1"
    rpc_port: int = 4501
    pub_port: int = 4500
    # per direction; a single number applies to both directions
    capacity_pps: tuple[float | None, float | None] | float | None = (None, None)
    latency_us: float = 10.0  # one-way latency of the device at low load
    latency_load_us: float = 200.0  # extra latency as the load approaches capacity
    overload_latency_us: float = 2000.0  # latency once the device queues are full
    loss_ramp_width: float = 0.0  # fraction of capacity below it where loss starts (0 = sharp knee)
    loss_ramp_max: float = 0.0  # loss fraction reached at capacity by the ramp
    max_tx_pps: float = 1e9  # the generator's own limit per port (pps)
    time_scale: float = 1.0  # emulated seconds per wall-clock second
    off_by_one: bool = True  # a duration sends rate×duration + 1 packets, like the real server
    port_count: int = 2
    speed_gbps: float = DEFAULT_SPEED_GBPS
    # packets per second the device sends by itself out of each port towards T-Rex (ARP, ND,
    # LLDP, routing protocols): the ports' RX counters see them, flow statistics do not
    dut_own_pps: float = 0.0
    # how long a packet spends in the device: meanwhile it is sent but not yet received (the
    # real VPP on af_packet held about 7,000 packets at 160 kpps, some 40 ms)
    dut_delay_ms: float = 0.0
    # counters move in steps of this many emulated seconds; 0: current at every read, as the
    # real server's opackets/ipackets are (its smoothed rates still change once a second)
    stats_tick: float = 0.0
    # the VPP simulator's wire socket (vppcfg-sim --wire-socket): the device under test is
    # the simulator then, which decides what is forwarded (see vppsim.py)
    vpp_sim: str | None = None
    # when the simulator goes away: "link-down" (the ports' links go down and nothing is
    # forwarded, as when a real DUT stops) or "ideal" (the emulator's own model takes over:
    # only when asked for, as a run would otherwise certify a device that is gone)
    on_vpp_loss: str = "link-down"

    def __post_init__(self) -> None:
        if not isinstance(self.capacity_pps, tuple | list):
            object.__setattr__(self, "capacity_pps", (self.capacity_pps, self.capacity_pps))
        elif isinstance(self.capacity_pps, list):
            object.__setattr__(self, "capacity_pps", tuple(self.capacity_pps))
        if len(self.capacity_pps) != 2:
            raise ValueError("capacity_pps needs one value per direction (2)")
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        if self.port_count < 2 or self.port_count % 2:
            raise ValueError("port_count must be an even number >= 2")
        for cap in self.capacity_pps:
            if cap is not None and cap < 0:
                raise ValueError("capacity must be >= 0 pps")
        if self.dut_own_pps < 0:
            raise ValueError("dut_own_pps must not be negative")
        if not 0 <= self.dut_delay_ms <= 1000:
            raise ValueError("dut_delay_ms must be between 0 and 1000")
        if self.max_tx_pps <= 0:
            raise ValueError("max_tx_pps must be positive")
        if min(self.latency_us, self.latency_load_us, self.overload_latency_us) < 0:
            raise ValueError("latencies must be >= 0 µs")
        if not (0 <= self.loss_ramp_width <= 1 and 0 <= self.loss_ramp_max <= 1):
            raise ValueError("loss ramp width and max must be fractions between 0 and 1")
        if self.stats_tick < 0:
            raise ValueError("stats_tick must not be negative")
        if self.vpp_sim and (any(c is not None for c in self.capacity_pps)
                             or self.loss_ramp_max):
            raise ValueError("with the VPP simulator as the device its capacity applies "
                             "(vppcfg-sim --capacity-pps): drop --capacity-pps/--loss-ramp")

    def capacity(self, tx_port: int) -> float | None:
        """Capacity of the direction that starts at `tx_port` (pairs 0↔1, 2↔3, ...)."""
        return self.capacity_pps[tx_port % 2]

    @classmethod
    def with_capacity(cls, pps: float | None, **kwargs) -> EmuConfig:
        """Same capacity in both directions."""
        return cls(capacity_pps=(pps, pps), **kwargs)
