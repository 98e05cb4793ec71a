"""How long `vppcfg dump` takes for 100 / 1,000 / 10,000 interfaces on the simulator.

    python bench/bench_dump.py [--sizes 100,1000,10000] [--repeat 3]

For each size a simulator runs in its own process with size/2 physical ports;
each port gets one dot1q sub-interface, and every interface one IPv4 address.
Printed: the population time, then the dump time (best of --repeat), the API
requests one dump sends, and interfaces dumped per second.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vppcfg.vpp import VppConnection  # noqa: E402

API_DIR = ROOT / "vppcfg" / "sim" / "api" / "26.10"  # the simulator's default release


@contextlib.contextmanager
def simulator(phys: int) -> Iterator[str]:
    """A simulator process with `phys` ports; yields its socket path."""
    with tempfile.TemporaryDirectory(prefix="vppbench-") as tmp:
        inventory = Path(tmp) / "phys.yaml"
        inventory.write_text("".join(
            f'- {{name: "GigabitEthernet{n // 256}/{n % 256}/0", '
            f'mac: "02:fe:00:{n >> 16 & 255:02x}:{n >> 8 & 255:02x}:{n & 255:02x}"}}\n'
            for n in range(phys)))
        sock, ready = f"{tmp}/api.sock", Path(tmp) / "ready"
        proc = subprocess.Popen(
            [sys.executable, "-m", "vppcfg.sim", "--socket", sock, "--inventory", str(inventory),
             "--ready-file", str(ready)], stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not ready.exists():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("bench: the simulator did not start")
                time.sleep(0.05)
            yield sock
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def populate(conn: VppConnection, phys: int) -> None:
    """One sub per port; an address on every interface."""
    details = conn.call("sw_interface_dump", sw_if_index=0xFFFFFFFF)
    ports = [d.sw_if_index for d in details if d.sw_if_index != 0]
    for n, port in enumerate(ports[:phys]):
        sub = conn.call("create_vlan_subif", sw_if_index=port, vlan_id=100).sw_if_index
        for index, net in ((port, 2 * n), (sub, 2 * n + 1)):
            prefix = f"10.{net >> 14 & 255}.{net >> 6 & 255}.{(net & 63) << 2 | 1}/30"
            conn.call("sw_interface_add_del_address", sw_if_index=index, is_add=True,
                      prefix=prefix)


def bench(size: int, repeat: int) -> None:
    phys = size // 2
    # every message: populate() sends create_vlan_subif, which vppcfg itself never does
    with simulator(phys) as sock, VppConnection.open(sock, API_DIR, timeout=60,
                                                     requests=None) as conn:
        started = time.perf_counter()
        populate(conn, phys)
        populated = time.perf_counter() - started
        best = float("inf")
        calls = 0
        for _ in range(repeat):
            before = conn.calls
            started = time.perf_counter()
            live = conn.dump()
            best = min(best, time.perf_counter() - started)
            calls = conn.calls - before
        count = len(live.interfaces)
        print(f"{size:>6} interfaces: dump {best * 1000:9.1f} ms  ({calls} API requests, "
              f"{count / best:8.0f} interfaces/s; populate {populated:.1f}s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        bench(size, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
