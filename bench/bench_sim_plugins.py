"""How fast the simulator's plugin models are at scale: prints figures, asserts nothing.

    python bench/bench_sim_plugins.py [N] [--memory]

Creates N interfaces through the plugins (default 10,000: a quarter each of taps,
vxlan tunnels, bonds with a loopback member, and loopbacks with an lcp pair, whose
host taps add N/4 more), dumps them with the plugins' dumps, then deletes them all,
timing each step against SimDataplane.handle directly.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections.abc import Callable

from vppcfg.sim.dataplane import SimDataplane
from vppcfg.sim.inventory import default_inventory

NONE = 0xFFFFFFFF


def timed(label: str, count: int, work: Callable[[], None]) -> None:
    start = time.perf_counter()
    work()
    took = time.perf_counter() - start
    rate = count / took if took else float("inf")
    print(f"{label:44} {took:8.3f} s  {rate:12,.0f} /s")


def main(count: int = 10_000) -> None:
    if "--memory" in sys.argv:
        tracemalloc.start()
    model = SimDataplane(default_inventory())

    def call(message: str, **args: object) -> dict:
        reply = model.handle(message, dict(args)).reply or {}
        assert reply.get("retval", 0) == 0, (message, args, reply)
        return reply

    quarter = count // 4
    created: list[int] = []

    def taps() -> None:
        created.extend(call("tap_create_v3", id=NONE)["sw_if_index"] for _ in range(quarter))

    def tunnels() -> None:
        for vni in range(quarter):
            call("vxlan_add_del_tunnel_v3", is_add=True, instance=NONE, src_address="10.0.0.1",
                 dst_address="10.0.0.2", vni=vni + 1,
                 mcast_sw_if_index=NONE, decap_next_index=NONE)

    def bonds() -> None:
        for _ in range(quarter):
            bond = call("bond_create2", mode=3, lb=0, id=NONE)["sw_if_index"]
            loop = call("create_loopback", mac_address="02:00:00:00:00:01")["sw_if_index"]
            call("bond_add_member", sw_if_index=loop, bond_sw_if_index=bond)
            created.append(bond)

    def pairs() -> None:
        for n in range(quarter):
            loop = call("create_loopback", mac_address="02:00:00:00:00:02")["sw_if_index"]
            call("lcp_itf_pair_add_del_v3", is_add=True, sw_if_index=loop, host_if_name=f"h{n}")
            created.append(loop)

    def dumps() -> None:
        for message in ("sw_interface_tap_v2_dump", "vxlan_tunnel_v2_dump",
                        "sw_bond_interface_dump", "acl_interface_list_dump"):
            model.handle(message, {"sw_if_index": NONE})
        model.handle("lcp_itf_pair_get", {"cursor": 0})

    def deletes() -> None:
        for index in created:
            name = model.state.interfaces[index].name
            if name.startswith("tap"):
                call("tap_delete_v2", sw_if_index=index)
            elif name.startswith("BondEthernet"):
                call("bond_delete", sw_if_index=index)
            else:
                call("delete_loopback", sw_if_index=index)  # takes its lcp pair along

    timed(f"create {quarter} taps", quarter, taps)
    timed(f"create {quarter} vxlan tunnels", quarter, tunnels)
    timed(f"create {quarter} bonds + loopback members", quarter, bonds)
    timed(f"create {quarter} loopbacks + lcp pairs", quarter, pairs)
    print(f"{'interfaces now':44} {len(model.state.interfaces):8}")
    timed("dump taps, tunnels, bonds, acl lists, pairs", 5, dumps)
    timed(f"delete {len(created)} taps/bonds/paired loops", len(created), deletes)
    if "--memory" in sys.argv:
        _, peak = tracemalloc.get_traced_memory()
        print(f"{'peak traced memory':44} {peak / 2**20:8.1f} MiB")


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    main(int(numbers[0]) if numbers else 10_000)
