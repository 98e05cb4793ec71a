"""`vppcfg apply` of up to ~100,000 objects into the REAL VPP, with verify.

    sudo .venv/bin/python bench/bench_real_scale.py [--sizes 10000[,30000,...]]
        [--phys 12] [--release 26.10] [--no-addresses] [--src DIR]

bench/scale_config.py's large-router shape on a fresh real VPP (tests/real.py) with
--phys veth PHYs (host-s0 ...; at most 12: the test VPP's buffers hold no more
af_packet rings; past the 4,000th sub-interface of a PHY they are QinQ) and without
lcp pairs: the test VPP's kernel would hold a tap for each of ~80,000 sub-interfaces.
`--no-addresses` leaves the interface addresses out too (VPP's cost of an address
grows with the interfaces it holds: bench_vpp_growth.py), to time the rest.
`--src DIR` runs the vppcfg package in DIR (e.g. `git archive` of an older commit).
Printed per size, as the CLI a user runs (whole process): `vppcfg apply` from
empty (dump, plan, preflight, execute, verify by dumping again), `vppcfg plan`
afterwards (must be empty), `vppcfg apply` back to empty; wall and CPU seconds,
peak RSS, changes per second.
VPP runs from ../shared's runner with a 1 GB stats segment and a 4 GB main heap
(see SIZES: the runner's test sizes hold about 2,800 interfaces). Without root or
../shared/vpp-real it prints why and exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_cli import compile_bytecode  # noqa: E402
from bench_real import _applied, cli, show, write  # noqa: E402
from scale_config import generate, shape  # noqa: E402

from tests.real import VPP_RELEASES, VppRelease, unavailable, vpp_real  # noqa: E402

# The runner in ../shared sizes VPP for tests: a 32 MB stats segment holds about 2,800
# interfaces (VPP aborts, out of memory in vlib_stats_create_counter, past that) and
# 16,384 buffers about 12 af_packet PHYs. A router of 100,000 objects is configured
# bigger; so is this VPP: the same runner, with only these sizes changed.
SIZES = {"statseg { socket-name $run/stats.sock size 32M":
         "statseg { socket-name $run/stats.sock size 1G",
         "main-heap-size 512M": "main-heap-size 4G"}


def router_sized(release: VppRelease, directory: str) -> VppRelease:
    """A copy of `release`'s runner, run from its own folder, with SIZES applied."""
    text = release.script.read_text()
    here = 'HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)'
    assert here in text and all(old in text for old in SIZES), "the runner changed"
    text = text.replace(here, f"HERE={release.script.parent}")
    for old, new in SIZES.items():
        text = text.replace(old, new)
    copy = Path(directory) / "vpp-real-router-sized"
    copy.write_text(text)
    copy.chmod(0o755)
    return VppRelease(release.name, copy)


def one_size(objects: int, phys: list[str], release: str, tmp: str,
             addresses: bool = True, src: str | None = None) -> None:
    full = write(generate(objects, [f"host-{p}" for p in phys], lcp=False, addresses=addresses),
                 tmp, "full.yaml")
    empty = write("interfaces: {}\n", tmp, "empty.yaml")
    # VPP holding tens of thousands of interfaces can be busy for more than the default
    # 5 s with a window of calls (seen at 30,000 objects): the send then times out
    lock = ["--lock-file", os.path.join(tmp, "lock"), "--state-dir", os.path.join(tmp, "st"),
            "--timeout", "120"]
    s = shape(objects, len(phys))
    print(f"{s.objects} objects ({s.phys} PHYs, {s.subs} sub-interfaces, {s.bridges} bridge "
          f"domains, vxlan tunnels and loopbacks{'' if addresses else '; no addresses'}), "
          f"VPP {release}:", flush=True)
    with vpp_real(phys, router_sized(VPP_RELEASES[release], tmp)) as vpp:
        there = cli(vpp, "apply", "-c", full, *lock, src=src)
        show("vppcfg apply from empty", there, _applied(there))
        again = cli(vpp, "plan", "-c", full, "--timeout", "120", src=src)
        show("vppcfg plan, nothing to change", again)
        if "0 to create, 0 to change, 0 to delete" not in again["stdout"] + again.get(
                "stderr", ""):
            lines = [ln for ln in again["stdout"].splitlines() if not ln.startswith("#")]
            if lines:
                raise SystemExit(f"plan after apply is not empty: {lines[:5]}")
        back = cli(vpp, "apply", "-c", empty, *lock, src=src)
        show("vppcfg apply back to empty", back, _applied(back))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--phys", type=int, default=12)
    parser.add_argument("--release", default="26.10", choices=sorted(VPP_RELEASES))
    parser.add_argument("--no-addresses", dest="addresses", action="store_false",
                        help="leave the interface addresses out")
    parser.add_argument("--src", help="run the vppcfg package in this directory instead")
    args = parser.parse_args()
    why = unavailable(VPP_RELEASES[args.release].script)
    if why:
        print(f"bench_real_scale: skipped: {why}")
        return 0
    compile_bytecode(args.src)
    phys = [f"s{i}" for i in range(args.phys)]
    with tempfile.TemporaryDirectory(prefix="bench-real-scale-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            one_size(size, phys, args.release, tmp, args.addresses, args.src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
