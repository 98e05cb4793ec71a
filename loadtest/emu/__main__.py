"""Command line: `trex-emu`, an emulated T-Rex STL server with a modelled device under test."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from vppcfg import __version__, numbers
from vppcfg.exits import INTERRUPTED, OK, USAGE, guarded

from .config import EmuConfig
from .server import TrexEmulator


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="trex-emu",
        description="Emulated Cisco T-Rex v3.08 stateless server (JSON-RPC over ZeroMQ) "
        "with a modelled device under test between port 0 and port 1.")
    ap.add_argument("--version", action="version", version=f"trex-emu {__version__}")
    ap.add_argument("--bind", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    ap.add_argument("--rpc-port", type=numbers.port(),
                    default=4501, help="JSON-RPC REP port (4501)")
    ap.add_argument("--pub-port", type=numbers.port(), default=4500, help="async PUB port (4500)")
    ap.add_argument("--capacity-pps", type=numbers.rate_pps(),
                    help="device capacity in pps, both directions (default: no loss)")
    ap.add_argument("--capacity-pps-0", type=numbers.rate_pps(), help="capacity of port 0 → 1")
    ap.add_argument("--capacity-pps-1", type=numbers.rate_pps(), help="capacity of port 1 → 0")
    ap.add_argument("--latency-us", type=numbers.Number("µs", 0, 1e6), default=10.0,
                    help="device latency at low load, µs (10)")
    ap.add_argument("--loss-ramp", type=numbers.fraction(), nargs=2, metavar=("WIDTH", "MAX"),
                    default=(0.0, 0.0),
                    help="start losing at (1-WIDTH)×capacity, up to MAX fraction at capacity")
    ap.add_argument("--max-tx-pps", type=numbers.rate_pps(), default=1e9,
                    help="the generator's own limit per port, pps (1e9)")
    ap.add_argument("--time-scale", type=numbers.Number("", 0, 1e6, low_open=True), default=1.0,
                    help="emulated seconds per wall second (10 = ten times faster)")
    ap.add_argument("--no-off-by-one", action="store_true",
                    help="a duration sends exactly rate×duration packets (real T-Rex: +1)")
    ap.add_argument("--ports", type=numbers.count(2, 64),
                    default=2, help="number of ports (even, default 2)")
    ap.add_argument("--dut-delay-ms", type=numbers.Number("ms", 0, 1e5), default=0.0, metavar="MS",
                    help="time a packet spends in the device, in flight (default 0)")
    ap.add_argument("--dut-own-pps", type=numbers.rate_pps(zero_ok=True), default=0.0, metavar="N",
                    help="packets per second the device sends by itself out of each port "
                    "(ARP, LLDP, routing protocols; counted by port RX, not flow stats)")
    ap.add_argument("--vpp-sim", metavar="PATH",
                    help="the device under test is vppcfg-sim: its wire socket "
                    "(vppcfg-sim --wire-socket); its counters move with this traffic")
    ap.add_argument("--on-vpp-loss", choices=("link-down", "ideal"), default="link-down",
                    help="when the --vpp-sim simulator goes away: the ports' links go down "
                    "and nothing is forwarded (default), or the emulator goes on as an "
                    "ideal device (everything forwarded)")
    return ap


def config_from_args(args: argparse.Namespace) -> EmuConfig:
    cap0 = args.capacity_pps_0 or args.capacity_pps
    cap1 = args.capacity_pps_1 or args.capacity_pps
    return EmuConfig(bind=args.bind, rpc_port=args.rpc_port, pub_port=args.pub_port,
                     capacity_pps=(cap0, cap1), latency_us=args.latency_us,
                     loss_ramp_width=args.loss_ramp[0], loss_ramp_max=args.loss_ramp[1],
                     max_tx_pps=args.max_tx_pps, time_scale=args.time_scale,
                     off_by_one=not args.no_off_by_one, port_count=args.ports,
                     dut_own_pps=args.dut_own_pps, dut_delay_ms=args.dut_delay_ms,
                     vpp_sim=args.vpp_sim, on_vpp_loss=args.on_vpp_loss)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # a stray OSError or a bug: one line and a documented code (vppcfg.exits)
    return guarded("trex-emu", lambda: _serve(args))


def _serve(args: argparse.Namespace) -> int:
    try:
        cfg = config_from_args(args)
        emulator = TrexEmulator(cfg)
    except ValueError as err:
        print(f"trex-emu: error: {err}", file=sys.stderr)
        return USAGE
    except OSError as err:
        print(f"trex-emu: error: {err}", file=sys.stderr)
        return USAGE
    got: list[int] = []

    def _stop(signum: int, frame: object) -> None:
        got.append(signum)
        emulator.stop()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    caps = "/".join("unlimited" if c is None else f"{c:g}" for c in cfg.capacity_pps)
    if emulator.state.vpp is not None:
        caps = "vppcfg-sim (ports: " + ", ".join(emulator.state.vpp.interfaces) + ")"
    print(f"trex-emu ready: rpc tcp://{cfg.bind}:{emulator.rpc_port} "
          f"pub tcp://{cfg.bind}:{emulator.pub_port} capacity-pps {caps} "
          f"time-scale {cfg.time_scale:g}", flush=True)
    worker = threading.Thread(target=emulator.serve, name="trex-emu")
    worker.start()
    while worker.is_alive():  # the main thread stays free to take signals
        worker.join(0.2)
    # SIGTERM (a service manager's stop): 0; SIGINT (Ctrl-C): 130, as every command here
    return INTERRUPTED if got and got[0] == signal.SIGINT else OK


if __name__ == "__main__":
    sys.exit(main())
