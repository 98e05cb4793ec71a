"""What VPP itself costs per change as its interfaces grow: VPP's CLI alone, no vppcfg.

    sudo .venv/bin/python bench/bench_vpp_growth.py [--subs 12000] [--batch 2000]
        [--phases create,up,v4,v6] [--release 26.10] [--phys 12]

On a fresh real VPP sized like bench_real_scale's, sub-interfaces of --phys veth PHYs
are made and configured phase by phase, each phase in batches of --batch lines through
`vppctl exec` (one file a batch, timed by wall clock): `create` makes the
sub-interfaces, `up` sets them admin-up, `v4` and `v6` give each an address (a /30 and
a /64, all in the default table), `down` sets them admin-down. A flat row is a cost
per change that does not depend on how many interfaces VPP holds; a row that climbs
is a cost that grows with them, so the phase's total grows with their square.

For each phase it prints the seconds per batch, the milliseconds per change in the
first and the last batch, and what the whole phase would take at --extrapolate
sub-interfaces (default 83,399, bench/scale_config.py's 100,000-object router) if the
cost per change keeps growing in a straight line as measured (an estimate, marked so).
Without root or ../shared/vpp-real it prints why and exits 0.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_real_scale import router_sized  # noqa: E402

from tests.real import VPP_RELEASES, unavailable, vpp_real  # noqa: E402

PHASES = ("create", "up", "v4", "v6", "down")


def subs(count: int, phys: list[str]) -> Iterator[tuple[int, str, int]]:
    """(number, parent, vlan) of each sub-interface, spread over the PHYs."""
    for i in range(count):
        yield i, f"host-{phys[i % len(phys)]}", 100 + i // len(phys)


def cli_line(phase: str, i: int, parent: str, vlan: int) -> str:
    """One CLI line of ``phase`` for sub-interface ``i`` (addresses unique per i)."""
    name = f"{parent}.{vlan}"
    if phase == "create":
        return f"create sub-interfaces {parent} {vlan} dot1q {vlan} exact-match"
    if phase in ("up", "down"):
        return f"set interface state {name} {phase}"
    if phase == "v4":
        return (f"set interface ip address {name} "
                f"10.{i >> 14}.{(i >> 6) & 255}.{(i & 63) * 4 + 1}/30")
    return f"set interface ip address {name} 2001:db8:{i >> 16:x}:{i & 0xffff:x}::1/64"


def extrapolate(first_ms: float, last_ms: float, measured: int, batch: int,
                target: int) -> float:
    """Seconds for ``target`` changes if the cost per change grows in a straight line
    through the first and last batch's averages (taken at their batches' middles)."""
    middle_first, middle_last = batch / 2, measured - batch / 2
    slope = (last_ms - first_ms) / (middle_last - middle_first) if measured > batch else 0.0
    at_zero = first_ms - slope * middle_first
    return (at_zero * target + slope * target * target / 2) / 1000


def run_phase(vpp, phase: str, lines: list[str], batch: int) -> list[float]:
    """Seconds for each batch of ``lines`` through `vppctl exec`."""
    seconds = []
    for start in range(0, len(lines), batch):
        began = time.perf_counter()
        vpp.exec_text("\n".join(lines[start:start + batch]))
        seconds.append(time.perf_counter() - began)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subs", type=int, default=12000)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--phases", default="create,up,v4,v6")
    parser.add_argument("--release", default="26.10", choices=sorted(VPP_RELEASES))
    parser.add_argument("--phys", type=int, default=12)
    parser.add_argument("--extrapolate", type=int, default=83399)
    args = parser.parse_args()
    phases = args.phases.split(",")
    if unknown := [p for p in phases if p not in PHASES]:
        parser.error(f"unknown phase(s) {', '.join(unknown)}; known: {', '.join(PHASES)}")
    why = unavailable(VPP_RELEASES[args.release].script)
    if why:
        print(f"bench_vpp_growth: skipped: {why}")
        return 0
    phys = [f"s{i}" for i in range(args.phys)]
    print(f"VPP {args.release}, {args.subs:,} sub-interfaces on {args.phys} PHYs, "
          f"`vppctl exec` of {args.batch:,} lines a batch (seconds per batch):")
    with tempfile.TemporaryDirectory(prefix="bench-vpp-growth-") as tmp, \
            vpp_real(phys, router_sized(VPP_RELEASES[args.release], tmp)) as vpp:
        vpp.exec_text("\n".join(f"set interface state host-{p} up" for p in phys))
        for phase in phases:
            lines = [cli_line(phase, *sub) for sub in subs(args.subs, phys)]
            seconds = run_phase(vpp, phase, lines, args.batch)
            first = seconds[0] / min(args.batch, args.subs) * 1000
            last = seconds[-1] / (args.subs - args.batch * (len(seconds) - 1)) * 1000
            estimate = extrapolate(first, last, args.subs, args.batch, args.extrapolate)
            print(f"  {phase:<6} {sum(seconds):7.2f} s: "
                  f"{' '.join(f'{s:.2f}' for s in seconds)} | {first:.3f} -> {last:.3f} "
                  f"ms/change | at {args.extrapolate:,}: ~{estimate:,.0f} s (estimate)",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
