#!/usr/bin/env python3
"""Trials and seconds of traffic an NDR search needs: MLRsearch vs plain binary search.

Both searches run through the real T-Rex client against the emulator (trex-emu,
started here in a thread with a time scale so emulated seconds pass quickly),
use the same trial measurer, and stop at the same relative precision. The
binary search runs every trial at the final duration; MLRsearch starts with
short trials and uses the forwarding rate of the first one to jump close.

    .venv/bin/python bench/bench_ndr.py [--capacities 0.5e6,1.23e6,5e6,12e6]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loadtest.client import TrexSession, load_api

API = load_api()  # before the emulator imports zmq

from MLRsearch import MultipleLossRatioSearch  # noqa: E402

from loadtest.emu import EmuConfig, run_in_thread  # noqa: E402
from loadtest.linerate import line_rate_pps  # noqa: E402
from loadtest.ndr import NdrPlan, TrexMeasurer, goal_results  # noqa: E402
from loadtest.profiles import TrafficSpec  # noqa: E402
from loadtest.stats import directions  # noqa: E402


def binary_search(measurer: TrexMeasurer, lo: float, hi: float, precision: float,
                  duration: float) -> tuple[float, float]:
    """Classic NDR bisection: every trial at the final duration."""
    if measurer.measure(duration, hi).loss_ratio == 0:
        return hi, hi
    while (hi - lo) / hi > precision:
        mid = (lo + hi) / 2
        if measurer.measure(duration, mid).loss_ratio == 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


def run(capacity: float, args: argparse.Namespace) -> list[tuple]:
    cfg = EmuConfig.with_capacity(capacity, rpc_port=0, pub_port=0, time_scale=args.time_scale)
    spec = TrafficSpec(args.profile)
    line = float(line_rate_pps(spec.mix, 10e9))
    lo, hi = line * 0.001, line
    plan = NdrPlan(lo, hi, goals=(0.0,), precision=args.precision,
                   trial_duration=args.trial_duration, initial_duration=1.0,
                   drain=0.01, stats_tick=0.5 / args.time_scale)
    rows = []
    with run_in_thread(cfg) as emu, TrexSession(API, "127.0.0.1", (0, 1), emu.rpc_port,
                                                emu.pub_port) as session:
        dirs = directions((0, 1), False)
        measurer = TrexMeasurer(session, spec, dirs, plan)
        started = time.monotonic()
        search = MultipleLossRatioSearch(config=plan.config())
        search.search(measurer=measurer, debug=lambda _: None)
        (goal,) = goal_results(search, plan, measurer.trials, line)
        rows.append(("MLRsearch", capacity, goal["lower_bound_pps"], len(measurer.trials),
                     sum(t["duration"] for t in measurer.trials), time.monotonic() - started))
        measurer.trials.clear()
        started = time.monotonic()
        found, _ = binary_search(measurer, lo, hi, args.precision, args.trial_duration)
        rows.append(("binary", capacity, found, len(measurer.trials),
                     sum(t["duration"] for t in measurer.trials), time.monotonic() - started))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capacities", default="0.5e6,1.23e6,5e6,12e6",
                        help="device capacities in pps, comma separated")
    parser.add_argument("--profile", default="64")
    parser.add_argument("--precision", type=float, default=0.005)
    parser.add_argument("--trial-duration", type=float, default=10.0,
                        help="final trial duration in (emulated) seconds")
    parser.add_argument("--time-scale", type=float, default=50.0,
                        help="emulated seconds per wall second")
    args = parser.parse_args()
    print(f"NDR search to {args.precision * 100:g}% precision, profile {args.profile}, "
          f"final trials of {args.trial_duration:g} s, line rate 10 Gbit/s")
    print(f"{'search':10s} {'capacity Mpps':>13s} {'found Mpps':>11s} {'error %':>8s} "
          f"{'trials':>6s} {'traffic s':>9s} {'wall s':>7s}")
    for capacity in (float(c) for c in args.capacities.split(",")):
        for name, cap, found, trials, traffic, wall in run(capacity, args):
            print(f"{name:10s} {cap / 1e6:13.3f} {found / 1e6:11.4f} "
                  f"{(found - cap) / cap * 100:8.3f} {trials:6d} {traffic:9.1f} {wall:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
