"""How fast the simulator's core model is at scale: prints figures, asserts nothing.

    python bench/bench_sim_core.py [N] [--memory]

Creates N dot1q sub-interfaces (default 10,000) on one PHY with an address each,
then dumps every interface, bridges them all into one bridge domain, sets the
parent's MTU and deletes the subs, timing each step against SimDataplane.handle.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory


def step(label: str, start: float, count: int) -> float:
    now = time.perf_counter()
    took = now - start
    rate = count / took if took else float("inf")
    print(f"{label:46} {took:8.3f} s  {rate:12,.0f} /s")
    return now


def main(count: int = 10_000) -> None:
    if "--memory" in sys.argv:
        tracemalloc.start()
    model = SimDataplane(default_inventory())
    parent = model.state.by_name("GigabitEthernet3/0/0").sw_if_index
    t = time.perf_counter()
    for vlan in range(1, count + 1):
        outer, inner = divmod(vlan, 4000)
        model.handle(
            "create_subif",
            {
                "sw_if_index": parent,
                "sub_id": vlan,
                "outer_vlan_id": outer + 1,
                "inner_vlan_id": inner + 1,
                "sub_if_flags": 4 | 16,
            },
        )
    t = step(f"create_subif x {count}", t, count)
    for n, sw in enumerate(sorted(model.state.subs[parent])):
        prefix = f"10.{n >> 8 & 255}.{n & 255}.1/30" if n < 65536 else f"2001:db8:{n:x}::1/64"
        model.handle(
            "sw_interface_add_del_address", {"sw_if_index": sw, "is_add": True, "prefix": prefix}
        )
    t = step(f"sw_interface_add_del_address x {count}", t, count)
    dump = model.handle("sw_interface_dump", {"sw_if_index": 0xFFFFFFFF})
    t = step(f"sw_interface_dump ({len(dump.details)} details)", t, len(dump.details))
    for sw in sorted(model.state.subs[parent]):
        model.handle("ip_address_dump", {"sw_if_index": sw, "is_ipv6": False})
    t = step(f"ip_address_dump x {count}", t, count)
    model.handle(
        "sw_interface_dump",
        {
            "name_filter_valid": True,
            "name_filter": f"GigabitEthernet3/0/0.{count}",
            "sw_if_index": 0xFFFFFFFF,
        },
    )
    t = step("sw_interface_dump name filter", t, 1)
    for sw in sorted(model.state.subs[parent]):
        model.handle("sw_interface_set_l2_bridge", {"rx_sw_if_index": sw, "bd_id": 10})
    t = step(f"sw_interface_set_l2_bridge x {count} (one bd)", t, count)
    (bd,) = model.handle("bridge_domain_dump", {"bd_id": 10, "sw_if_index": 0xFFFFFFFF}).details
    t = step(f"bridge_domain_dump ({bd['n_sw_ifs']} members)", t, 1)
    model.handle("hw_interface_set_mtu", {"sw_if_index": parent, "mtu": 1500})
    t = step(f"hw_interface_set_mtu (resets {count} subs)", t, 1)
    model.handle("sw_interface_set_flags", {"sw_if_index": parent, "flags": 1})
    for sw in sorted(model.state.subs[parent]):
        model.handle("delete_subif", {"sw_if_index": sw})
    t = step(f"delete_subif x {count}", t, count)
    if tracemalloc.is_tracing():
        _, peak = tracemalloc.get_traced_memory()
        print(f"{'peak traced memory':46} {peak / 2**20:8.1f} MiB")


if __name__ == "__main__":
    numbers = [int(a) for a in sys.argv[1:] if a.isdigit()]
    main(numbers[0] if numbers else 10_000)
