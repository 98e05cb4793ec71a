"""How long `vppcfg check` takes, and how much memory it needs, as configs grow.

Generates configs of 100, 1,000 and 10,000 objects (PHYs with many dot1q
sub-interfaces carrying addresses and lcp names, bridge domains with members
and a BVI loopback, loopbacks, bonds, vxlan tunnels) and prints, per size, the
wall time of a full check (YAML, schema, semantic rules, model) and its peak
Python memory. Run: `.venv/bin/python bench/bench_check.py [sizes...]`.
"""

from __future__ import annotations

import gc
import ipaddress
import sys
import time
import tracemalloc

from vppcfg import config

SUBS_PER_PHY = 8


def generate(objects: int) -> str:
    """A valid config text with about `objects` objects (interfaces of every kind,
    sub-interfaces, bridge domains, bonds, tunnels all count as one)."""
    lines = {
        k: []
        for k in ("interfaces", "loopbacks", "bridgedomains", "bondethernets", "vxlan_tunnels")
    }
    v4 = ipaddress.IPv4Network("10.0.0.0/8").subnets(new_prefix=30)
    v6 = ipaddress.IPv6Network("2001:db8::/32").subnets(new_prefix=64)
    count = unit = 0
    while count < objects:
        phy = f"GigabitEthernet{unit // 4 + 1:x}/0/{unit % 4}"
        lines["interfaces"] += [
            f"  {phy}:",
            "    mtu: 9000",
            f"    lcp: e{unit}",
            "    sub-interfaces:",
        ]
        for sub in range(1, SUBS_PER_PHY + 1):
            a4, a6 = next(v4), next(v6)
            lines["interfaces"] += [
                f"      {sub * 10}:",
                f"        lcp: e{unit}.{sub * 10}",
                f"        addresses: [{a4[1]}/30, {a6[1]}/64]",
            ]
        # one L2 sub-interface that joins this unit's bridge, with its BVI and a tunnel
        lines["interfaces"] += ["      4000:", "        mtu: 1500"]
        lines["interfaces"] += [f"  vxlan_tunnel{unit}:", "    mtu: 1500"]
        lines["vxlan_tunnels"] += [
            f"  vxlan_tunnel{unit}:",
            f"    local: {next(v4)[1]}",
            f"    remote: {next(v4)[2]}",
            f"    vni: {unit + 1}",
        ]
        loop = f"loop{unit % 4096}"
        a4, a6 = next(v4), next(v6)
        lines["loopbacks"] += [
            f"  {loop}:",
            f"    lcp: bvi{unit}",
            f"    addresses: [{a4[1]}/30, {a6[1]}/64]",
        ]
        lines["bridgedomains"] += [
            f"  bd{unit + 1}:",
            f"    bvi: {loop}",
            f"    interfaces: [{phy}.4000, vxlan_tunnel{unit}]",
        ]
        count += 1 + SUBS_PER_PHY + 1 + 1 + 1 + 1  # phy, subs, l2 sub, tunnel, loopback, bridge
        if unit % 10 == 0:  # a bond with two member PHYs every tenth unit
            members = [f"TenGigabitEthernet{unit // 10 + 1:x}/0/{i}" for i in (0, 1)]
            for member in members:
                lines["interfaces"] += [f"  {member}:", "    mtu: 9000"]
            bond = f"BondEthernet{unit // 10}"
            lines["bondethernets"] += [f"  {bond}:", f"    interfaces: [{', '.join(members)}]"]
            lines["interfaces"] += [f"  {bond}:", "    mtu: 9000", f"    lcp: be{unit // 10}"]
            count += 4  # two members, the bond interface and the bond
        unit += 1
        if unit >= 4096:
            break
    out = []
    for section, body in lines.items():
        out += [f"{section}:", *body]
    return "\n".join(out) + "\n"


def measure(text: str) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak MiB, objects) of one check of `text`."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    dp = config.loads(text, "bench.yaml")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    objects = len(dp.interfaces) + len(dp.bridge_domains) + len(dp.bonds)
    tracemalloc.start()
    config.loads(text, "bench.yaml")
    peak = tracemalloc.get_traced_memory()[1] / (1024 * 1024)
    tracemalloc.stop()
    return seconds, cpu, peak, objects


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [100, 1000, 10000]
    print(
        f"{'objects':>8} {'lines':>7} {'KiB':>6} {'wall s':>7} {'cpu s':>6} "
        f"{'us/object':>9} {'peak MiB':>8}"
    )
    for size in sizes:
        text = generate(size)
        seconds, cpu, peak, objects = measure(text)
        print(
            f"{objects:>8} {text.count(chr(10)):>7} {len(text) // 1024:>6} {seconds:>7.3f} "
            f"{cpu:>6.3f} {seconds / objects * 1e6:>9.1f} {peak:>8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
