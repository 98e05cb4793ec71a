"""How long planning takes for 100 / 1,000 / 10,000 objects.

    python bench/bench_plan.py [--sizes 100,1000,10000] [--repeat 3]

Models are generated directly (no YAML): per PHY, sub-interfaces with an lcp
pair and addresses, every tenth sub in a bridge domain with a loopback BVI.
"Objects" counts interfaces + bridge domains. For each size it prints the best
time of: a full plan against a fresh VPP (everything created), the plan of an
unchanged config (empty), a plan with ~1% of the interfaces changed, and the
CLI rendering of the full plan; plus microseconds per object, which stays flat
when planning is linear.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vppcfg.model import (
    BridgeDomain,
    Dataplane,
    Encapsulation,
    FrozenDict,
    Interface,
    InterfaceKind,
)
from vppcfg.objects import render_cli
from vppcfg.planner import plan

SUBS_PER_PHY = 9


def generate(objects: int) -> Dataplane:
    """A config of about `objects` interfaces and bridge domains."""
    itfs: dict[str, Interface] = {}
    bridges: dict[str, BridgeDomain] = {}
    phys = max(1, objects // (SUBS_PER_PHY + 1))
    n = 0
    for p in range(phys):
        name = f"GigabitEthernet{p // 256}/{p % 256}/0"
        itfs[name] = Interface(name=name, kind=InterfaceKind.PHY, mtu=9000, lcp=f"e{p}",
                               addresses=(f"10.{p >> 8 & 255}.{p & 255}.1/31",))
        for s in range(1, SUBS_PER_PHY + 1):
            if len(itfs) + len(bridges) >= objects:
                break
            vlan = 100 + s
            sub = f"{name}.{vlan}"
            n += 1
            if s == SUBS_PER_PHY:  # bridged, with a loopback BVI
                loop = f"loop{n}"
                itfs[loop] = Interface(name=loop, kind=InterfaceKind.LOOPBACK,
                                       addresses=(f"172.{16 + (n >> 16 & 15)}.{n >> 8 & 255}."
                                                  f"{n & 255}/32",))
                bridges[f"bd{n}"] = BridgeDomain(f"bd{n}", n, bvi=loop, members=(sub,))
                itfs[sub] = Interface(name=sub, kind=InterfaceKind.SUB, parent=name, sub_id=vlan,
                                      encapsulation=Encapsulation(dot1q=vlan), mtu=1500)
                continue
            itfs[sub] = Interface(
                name=sub, kind=InterfaceKind.SUB, parent=name, sub_id=vlan,
                encapsulation=Encapsulation(dot1q=vlan), mtu=1500, lcp=f"e{p}.{vlan}",
                addresses=(f"192.{168 + (n >> 16 & 7)}.{n >> 8 & 255}.{n & 255}/32",
                           f"2001:db8:{n:x}::1/64"))
    return Dataplane(interfaces=FrozenDict(itfs), bridge_domains=FrozenDict(bridges))


def fresh(desired: Dataplane) -> Dataplane:
    return Dataplane(interfaces=FrozenDict({
        k: Interface(name=k, kind=InterfaceKind.PHY, mtu=9000, state="down")
        for k, v in desired.interfaces.items() if v.kind is InterfaceKind.PHY}))


def changed(desired: Dataplane) -> Dataplane:
    """About 1% of the interfaces with another MTU."""
    itfs = dict(desired.interfaces)
    for name in list(itfs)[::100]:
        itfs[name] = replace(itfs[name], mtu=itfs[name].mtu - 100)
    return replace(desired, interfaces=FrozenDict(itfs))


def best(func: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'objects':>8} {'ops':>7} {'full plan':>10} {'unchanged':>10} {'1% changed':>11} "
          f"{'render':>8} {'us/object':>10}")
    for size in (int(s) for s in args.sizes.split(",")):
        desired = generate(size)
        objects = len(desired.interfaces) + len(desired.bridge_domains)
        live, other = fresh(desired), changed(desired)
        ops = plan(desired, live)
        t_full = best(lambda d=desired, lv=live: plan(d, lv), args.repeat)
        t_same = best(lambda d=desired: plan(d, d), args.repeat)
        t_changed = best(lambda d=desired, o=other: plan(d, o), args.repeat)
        t_render = best(lambda o=ops: render_cli(o), args.repeat)
        print(f"{objects:>8} {len(ops):>7} {t_full:>9.3f}s {t_same:>9.3f}s {t_changed:>10.3f}s "
              f"{t_render:>7.3f}s {t_full / objects * 1e6:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
