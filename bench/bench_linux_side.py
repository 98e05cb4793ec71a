"""The Linux side of lcp pairs against the REAL VPP: plan and apply cost (issue 30 section 5).

    sudo .venv/bin/python bench/bench_linux_side.py [--pairs 4000] [--addresses 1000,3000]
        [--runs 5] [--release 26.10|26.06]

One real VPP (tests/real.py, the runner sized as bench_real_scale.py sizes it)
started with linux-cp as production routers run it (`lcp-sync lcp-auto-subint
default netns NAME`; NAME is made here from the root netns, and deleted at the
end), holding --pairs lcp pairs (4,000 by default: the test VPP refuses `lcp
create` with -73 past about 4,090 taps, vif ~4,100; 5,000 could not be made):
2 PHYs with an lcp (more past 8,000 pairs),
the rest dot1q sub-interfaces with an lcp (`e0.100`, the name lcp-auto-subint
gives) and one IPv4 address each. Every pair's netdev is in NAME, so vppcfg
runs from this netns (the root one) and reaches VPP through its API socket.
Printed:

1. `vppcfg apply --linux-side manage` of that config (whole process), then
   `vppcfg plan` with `--linux-side off` and `--linux-side manage` after it, as
   whole processes alternating, --runs each: best and median wall and CPU,
   and the ratio (the target: manage within 20% of off). Then the Linux read
   alone, in process: `Netlink().links(NAME)`, one dump of links and one of
   addresses of the netns (with and without opening the netns).
2. apply's cost per address with lcp-sync on (VPP mirrors each address to
   Linux itself, so vppcfg's own netlink add finds it there) and off (`lcp
   lcp-sync off` on the same VPP): for each N of --addresses, the first N subs
   lose their address (an untimed apply), then an in-process
   `apply_config(--linux-side manage)` puts them back: the whole apply
   (dump, plan, execute, verify) and its execution, in ms per address.

Figures only, no assertions of speed. Without root or ../shared/vpp-real it
prints why and exits 0. Every VPP started and every netns made is removed,
also on failure (and on SIGTERM).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_cli import compile_bytecode  # noqa: E402
from bench_real import _applied, cli, show, write  # noqa: E402
from bench_real_scale import router_sized  # noqa: E402

from tests.real import VPP_RELEASES, Netns, VppReal, unavailable, vpp_real  # noqa: E402
from vppcfg import config  # noqa: E402
from vppcfg.apply import Outcome, apply_config, format_outcome  # noqa: E402
from vppcfg.linux import open_access  # noqa: E402
from vppcfg.linux.netlink import Netlink  # noqa: E402
from vppcfg.vpp import VppConnection  # noqa: E402

SUBS_PER_PHY = 4000  # dot1q ids stay below 4096
STANZA = "lcp-sync lcp-auto-subint default netns {ns}"
TIMEOUT = "120"  # VPP with 10,000 interfaces (subs and their taps) can be slow to answer


def layout(pairs: int) -> list[int]:
    """Sub-interfaces per PHY for `pairs` lcp pairs (one of them each PHY's own)."""
    phys = max(2, -(-pairs // (SUBS_PER_PHY + 1)))
    subs = pairs - phys
    if subs < 0 or phys > 12:  # the runner's buffers hold about 12 af_packet PHYs
        raise SystemExit(f"--pairs {pairs}: between 2 and {12 * (SUBS_PER_PHY + 1)}")
    return [subs // phys + (1 if p < subs % phys else 0) for p in range(phys)]


def generate(per_phy: list[int], bare: int = 0) -> str:
    """The config: PHY p is host-sp (lcp ep, MTU 9000) with dot1q subs 1..n, each
    with lcp ep.ID and 10.p.x.y/30; the first `bare` subs (in file order) carry
    no address."""
    lines = ["interfaces:"]
    n = 0
    for p, subs in enumerate(per_phy):
        lines += [f"  host-s{p}:", "    mtu: 9000", f"    lcp: e{p}", "    sub-interfaces:"]
        for vlan in range(1, subs + 1):
            lines += [f"      {vlan}:", f"        lcp: e{p}.{vlan}"]
            if n >= bare:
                lines.append(f"        addresses: [10.{p}.{vlan >> 6}.{(vlan & 63) << 2 | 1}/30]")
            n += 1
    return "\n".join(lines) + "\n"


@contextmanager
def production_vpp(per_phy: list[int], release: str, tmp: str) -> Iterator[tuple[VppReal, str]]:
    """A real VPP with linux-cp as production routers run it, and the netns of
    its pairs; both gone on exit."""
    ns = Netns(f"lcpb{os.getpid() % 100000}")  # made from here: vppcfg sees it
    before = os.environ.get("VPP_REAL_LINUX_CP")
    try:
        os.environ["VPP_REAL_LINUX_CP"] = STANZA.format(ns=ns.name)
        phys = [f"s{p}" for p in range(len(per_phy))]
        with vpp_real(phys, router_sized(VPP_RELEASES[release], tmp)) as vpp:
            yield vpp, ns.name
    finally:
        if before is None:
            os.environ.pop("VPP_REAL_LINUX_CP", None)
        else:
            os.environ["VPP_REAL_LINUX_CP"] = before
        ns.close()


def spread(values: list[float]) -> tuple[float, float]:
    return min(values), statistics.median(values)


def plans(vpp: VppReal, path: str, runs: int) -> None:
    """`vppcfg plan` with the Linux side off and managed, alternating."""
    walls: dict[str, list[float]] = {"off": [], "manage": []}
    cpus: dict[str, list[float]] = {"off": [], "manage": []}
    rss: dict[str, float] = {}
    for run in range(runs):
        for side in ("off", "manage") if run % 2 == 0 else ("manage", "off"):
            r = cli(vpp, "plan", "-c", path, "--linux-side", side, "--detailed-exitcode",
                    "--timeout", TIMEOUT)
            if r["code"] != 0:  # 2: changes pending after the apply
                lines = [ln for ln in r["stdout"].splitlines() if not ln.startswith("#")]
                raise SystemExit(f"plan --linux-side {side} after the apply is not empty: "
                                 f"{lines[:5]}")
            walls[side].append(r["wall"])
            cpus[side].append(r["cpu"])
            rss[side] = max(rss.get(side, 0.0), r["rss"])
    print(f"  vppcfg plan, nothing to change, {runs} runs each, alternating:")
    print("    | --linux-side | best wall s | median wall s | best CPU s | median CPU s | "
          "peak RSS MiB |")
    print("    | --- | ---: | ---: | ---: | ---: | ---: |")
    for side in ("off", "manage"):
        (bw, mw), (bc, mc) = spread(walls[side]), spread(cpus[side])
        print(f"    | {side} | {bw:.2f} | {mw:.2f} | {bc:.2f} | {mc:.2f} | {rss[side]:.0f} |")
    best = min(walls["manage"]) / min(walls["off"])
    median = statistics.median(walls["manage"]) / statistics.median(walls["off"])
    print(f"    manage / off: {best:.2f} (best), {median:.2f} (median) of the wall time "
          f"(target: at most 1.20)", flush=True)


def linux_read(netns: str, runs: int) -> None:
    """The Linux read alone, in process: one dump of links and one of addresses."""
    opened, dumped, count = [], [], 0
    for _ in range(runs):
        started = time.perf_counter()
        backend = Netlink()
        try:
            count = len(backend.links(netns))
            middle = time.perf_counter()
            backend.links(netns)
            dumped.append(time.perf_counter() - middle)
        finally:
            backend.close()
        opened.append(middle - started)
    (bo, mo), (bd, md) = spread(opened), spread(dumped)
    print(f"  Linux read alone, in process, Netlink().links({netns!r}), {count} netdevs, "
          f"{runs} runs: {bo:.3f}s best, {mo:.3f}s median with the netns opened (pyroute2 "
          f"import aside); {bd:.3f}s best, {md:.3f}s median on an open socket", flush=True)


def apply_managed(vpp: VppReal, path: str) -> tuple[float, Outcome]:
    """(wall seconds, outcome) of one in-process apply with `--linux-side manage`."""
    want = config.load(path)
    with VppConnection.open(vpp.socket, vpp.api_dir, timeout=float(TIMEOUT)) as conn:
        conn.linux = open_access(vpp.socket, None, True)
        try:
            started = time.perf_counter()
            outcome = apply_config(conn, want)
            wall = time.perf_counter() - started
        finally:
            conn.linux.close()
    if not outcome.ok:
        raise SystemExit(format_outcome(outcome))
    return wall, outcome


def per_address(vpp: VppReal, per_phy: list[int], sizes: list[int], tmp: str) -> None:
    """apply of N addresses on paired subs, lcp-sync on and off."""
    full = write(generate(per_phy), tmp, "full.yaml")
    print("  apply of N addresses on already-paired subs, in process, --linux-side manage "
          "(ms per address: of the execution):")
    print("    | lcp-sync | addresses | changes (VPP + Linux) | apply s | execute s | "
          "ms per address |")
    print("    | --- | ---: | ---: | ---: | ---: | ---: |")
    for sync in ("on", "off"):
        vpp.ctl("lcp", "lcp-sync", sync)
        if f"lcp-sync {sync}" not in vpp.ctl("show", "lcp"):
            raise SystemExit(f"lcp lcp-sync {sync}: VPP did not take it")
        for n in sizes:
            apply_managed(vpp, write(generate(per_phy, bare=n), tmp, f"bare{n}.yaml"))
            wall, outcome = apply_managed(vpp, full)
            linux = sum(1 for op in outcome.executed if op.obj == "linux-address")
            vpp_side = len(outcome.executed) - linux
            execute = outcome.timings.get("execute", 0.0)
            print(f"    | {sync} | {n:,} | {vpp_side:,} + {linux:,} | {wall:.2f} | "
                  f"{execute:.2f} | {execute / n * 1000:.2f} |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4000,
                        help="lcp pairs (default 4000: this VPP makes about 4,090 taps)")
    parser.add_argument("--addresses", default="1000,3000",
                        help="addresses applied per row of part 2 (default 1000,3000)")
    parser.add_argument("--runs", type=int, default=5, help="plans of each kind (default 5)")
    parser.add_argument("--release", default="26.10", choices=sorted(VPP_RELEASES))
    args = parser.parse_args()
    why = unavailable(VPP_RELEASES[args.release].script)
    if why:
        print(f"bench_linux_side: skipped: {why}")
        return 0
    per_phy = layout(args.pairs)
    sizes = [int(s) for s in args.addresses.split(",") if s]
    if any(not 0 < n <= sum(per_phy) for n in sizes):
        raise SystemExit(f"--addresses: each between 1 and {sum(per_phy)} (the subs)")
    # SIGTERM unwinds like an exception: VPP stopped, netns deleted (in this process
    # only: a child pyroute2 forks must never run our cleanup)
    main_pid = os.getpid()
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum)
                  if os.getpid() == main_pid else os._exit(128 + signum))
    compile_bytecode(None)
    with tempfile.TemporaryDirectory(prefix="bench-linux-side-") as tmp:
        full = write(generate(per_phy), tmp, "full.yaml")
        lock = ["--lock-file", os.path.join(tmp, "lock"), "--state-dir", os.path.join(tmp, "st"),
                "--timeout", TIMEOUT]
        with production_vpp(per_phy, args.release, tmp) as (vpp, ns):
            print(f"{args.pairs:,} lcp pairs ({len(per_phy)} PHYs, {sum(per_phy):,} dot1q subs "
                  f"with an IPv4 address), VPP {args.release}, linux-cp "
                  f"{{ {STANZA.format(ns=ns)} }}, vppcfg from {ROOT}:", flush=True)
            there = cli(vpp, "apply", "-c", full, "--linux-side", "manage", *lock)
            show("vppcfg apply --linux-side manage", there, _applied(there))
            plans(vpp, full, args.runs)
            linux_read(ns, args.runs)
            if sizes:
                per_address(vpp, per_phy, sizes, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
