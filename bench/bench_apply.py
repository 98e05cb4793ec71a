"""How long `vppcfg apply` takes for 100 / 1,000 / 10,000 objects on the simulator.

    python bench/bench_apply.py [--sizes 100,1000,10000]

An object here is a sub-interface with its MTU, one IPv4 address and admin
state up (spread over enough PHYs, at most 1,000 subs each). For each size a
simulator runs in its own process; the config is applied to a fresh VPP, then
applied again (nothing to do). Printed: wall time of the apply (dump, plan,
execute, verify), operations and API calls per second, and the no-op re-apply.
Plan time alone is the planner's own benchmark.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_dump import API_DIR, simulator  # noqa: E402

from vppcfg.apply import apply_config, format_outcome  # noqa: E402
from vppcfg.model import Dataplane, Encapsulation, FrozenDict, Interface, InterfaceKind  # noqa: E402
from vppcfg.vpp import VppConnection  # noqa: E402

SUBS_PER_PHY = 1000


def phy_name(n: int) -> str:
    return f"GigabitEthernet{n // 256}/{n % 256}/0"


def desired(objects: int) -> Dataplane:
    phys = (objects + SUBS_PER_PHY - 1) // SUBS_PER_PHY
    itfs: dict[str, Interface] = {}
    for p in range(phys):
        name = phy_name(p)
        itfs[name] = Interface(name=name, kind=InterfaceKind.PHY, mtu=9000)
    for n in range(objects):
        parent, vlan = phy_name(n // SUBS_PER_PHY), n % SUBS_PER_PHY + 1
        name = f"{parent}.{vlan}"
        itfs[name] = Interface(
            name=name, kind=InterfaceKind.SUB, parent=parent, sub_id=vlan, mtu=1500,
            encapsulation=Encapsulation(dot1q=vlan),
            addresses=(f"10.{n >> 14 & 255}.{n >> 6 & 255}.{(n & 63) << 2 | 1}/30",),
        )
    return Dataplane(interfaces=FrozenDict(itfs))


def bench(objects: int) -> None:
    want = desired(objects)
    phys = sum(1 for i in want.interfaces.values() if i.kind is InterfaceKind.PHY)
    with simulator(phys) as sock, VppConnection.open(sock, API_DIR, timeout=60) as conn:
        started = time.perf_counter()
        outcome = apply_config(conn, want)
        wall = time.perf_counter() - started
        if not outcome.ok:
            print(format_outcome(outcome), file=sys.stderr)
            raise SystemExit(1)
        t = outcome.timings
        ops = len(outcome.executed)
        started = time.perf_counter()
        again = apply_config(conn, want)
        noop = time.perf_counter() - started
        assert again.ok and not again.executed
    print(f"{objects:>6} objects: apply {wall:7.2f}s  ({ops} ops, {outcome.calls} API calls; "
          f"{ops / wall:7.0f} ops/s, {outcome.calls / t['execute']:7.0f} calls/s executing)  "
          f"dump {t['dump']:.2f}s plan {t['plan']:.2f}s execute {t['execute']:.2f}s "
          f"verify {t['verify']:.2f}s; no-op re-apply {noop:.2f}s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        bench(size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
