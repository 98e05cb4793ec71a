"""vppcfg against the REAL VPP (../shared/vpp-real): dump, plan and apply speed.

    sudo .venv/bin/python bench/bench_real.py [--sizes 100,1000,5000] [--no-pipeline]

Two parts, each on a fresh VPP in a network namespace of its own (tests/real.py):

1. The issue-12 config: 4 PHYs x 250 dot1q sub-interfaces, each with an IPv4
   and an IPv6 address, plus 200 loopbacks with an IPv4 address (1,204
   interfaces, 5,804 changes). Printed: `vppcfg apply` from empty (dump, plan,
   execute, verify), `vppcfg dump`, `vppcfg plan` with nothing to change,
   `vppcfg apply` back to an empty config; each run as the CLI (wall time of
   the whole process) and in process (with the number of API waves).
2. dump, plan and apply of configs of about 100 / 1,000 / 5,000 changes, with
   changes per second.

`--no-pipeline` runs the apply one call at a time (the way before pipelining)
for a side-by-side figure. Without root or ../shared/vpp-real it prints why and
exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_cli import run_cli  # noqa: E402

from tests.real import VPP_REAL, unavailable, vpp_real  # noqa: E402
from vppcfg import config  # noqa: E402
from vppcfg.apply import apply_config, format_outcome  # noqa: E402
from vppcfg.planner import plan  # noqa: E402
from vppcfg.vpp import VppConnection  # noqa: E402

PHYS = ("ge0", "ge1", "hu0", "hu1")


def generate(subs_per_phy: int, loopbacks: int, phys: tuple[str, ...] = PHYS) -> str:
    """The config text: dot1q subs with a v4 and a v6 address, loopbacks with a v4 one."""
    lines = ["interfaces:"]
    for p, phy in enumerate(phys):
        lines += [f"  host-{phy}:", "    mtu: 9000", "    sub-interfaces:"] if subs_per_phy \
            else [f"  host-{phy}:", "    mtu: 9000"]
        for vlan in range(1, subs_per_phy + 1):
            n = p * 4096 + vlan
            lines += [f"      {vlan}:",
                      f"        addresses: [10.{p}.{vlan >> 6}.{(vlan & 63) << 2 | 1}/30, "
                      f"2001:db8:{p}:{n:x}::1/64]"]
    if loopbacks:
        lines.append("loopbacks:")
    for n in range(loopbacks):
        lines += [f"  loop{n}:", f"    addresses: [192.168.{n >> 8}.{n & 255}/32]"]
    return "\n".join(lines) + "\n"


def write(text: str, directory: str, name: str) -> str:
    path = os.path.join(directory, name)
    Path(path).write_text(text)
    return path


def cli(vpp, *args: str, src: str | None = None) -> dict:
    """One `vppcfg ARGS` process against `vpp`: wall, cpu, rss, stdout."""
    return run_cli([*args, "--vpp-api-socket", vpp.socket, "--vpp-json-dir", vpp.api_dir],
                   src)


def show(what: str, r: dict, changes: int = 0) -> None:
    rate = f", {changes / r['wall']:,.0f} changes/s" if changes else ""
    out = r["stdout"].strip().splitlines()
    tail = f"  [{out[-1]}]" if out and "vppcfg" not in what.split()[-1] else ""
    print(f"  {what:<34} {r['wall']:6.2f}s wall {r['cpu']:5.2f}s CPU {r['rss']:4.0f} MiB"
          f"{rate}{tail}", flush=True)


def apply_in_process(vpp, path: str, pipeline: bool) -> str:
    want = config.load(path)
    with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
        started = time.perf_counter()
        outcome = apply_config(conn, want, pipeline=pipeline)
        wall = time.perf_counter() - started
    if not outcome.ok:
        raise SystemExit(format_outcome(outcome))
    t, n = outcome.timings, len(outcome.executed)
    waves = f", {outcome.waves} waves" if outcome.waves else ""
    return (f"{n} changes in {wall:.2f}s ({n / wall if wall else 0:,.0f}/s; dump "
            f"{t['dump']:.2f} plan {t['plan']:.2f} execute {t.get('execute', 0):.2f} "
            f"verify {t.get('verify', 0):.2f}{waves})")


def issue_config(pipeline: bool, tmp: str, src: str | None) -> None:
    full = write(generate(250, 200), tmp, "full.yaml")
    empty = write(generate(0, 0), tmp, "empty.yaml")
    lock = ["--lock-file", os.path.join(tmp, "lock"), "--state-dir", os.path.join(tmp, "st")]
    print(f"issue-12 config: 4 PHYs x 250 subs (v4+v6) + 200 loopbacks, vppcfg from "
          f"{src or ROOT}", flush=True)
    with vpp_real(PHYS) as vpp:
        r = cli(vpp, "apply", "-c", full, *lock, src=src)
        show("vppcfg apply from empty", r, _applied(r))
        show("vppcfg dump", cli(vpp, "dump", "-o", os.path.join(tmp, "dump.yaml"), src=src))
        show("vppcfg plan, nothing to change", cli(vpp, "plan", "-c", full, src=src))
        r = cli(vpp, "apply", "-c", empty, *lock, src=src)
        show("vppcfg apply back to empty", r, _applied(r))
        if src:
            return
        print(f"  in process, {'pipelined' if pipeline else 'one call at a time'}:",
              flush=True)
        print(f"    apply from empty: {apply_in_process(vpp, full, pipeline)}", flush=True)
        with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
            started = time.perf_counter()
            conn.dump()
            dumped = time.perf_counter() - started
        print(f"    dump: {dumped:.3f}s, {conn.calls} API requests", flush=True)
        print(f"    apply back to empty: {apply_in_process(vpp, empty, pipeline)}", flush=True)


def _applied(r: dict) -> int:
    found = re.search(r"applied (\d+) change", r["stdout"])
    return int(found[1]) if found else 0


def sizes(changes: list[int], pipeline: bool, tmp: str) -> None:
    """Configs of about `n` changes (a sub-interface with two addresses is about
    five: create, MTU, two addresses, state; the exact count is printed)."""
    empty = write(generate(0, 0), tmp, "empty.yaml")
    with vpp_real(PHYS) as vpp:
        for n in changes:
            path = write(generate(max(1, n // (5 * len(PHYS))), 0), tmp, f"size{n}.yaml")
            with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
                want = config.load(path)
                started = time.perf_counter()
                ops = plan(want, conn.dump())
                planned = time.perf_counter() - started
            applied = apply_in_process(vpp, path, pipeline)
            with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
                started = time.perf_counter()
                conn.dump()
                dumped = time.perf_counter() - started
            print(f"{len(ops):>6} changes: dump+plan {planned:.3f}s; apply {applied}; "
                  f"dump of the result {dumped:.3f}s", flush=True)
            apply_in_process(vpp, empty, pipeline)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--no-pipeline", action="store_true")
    parser.add_argument("--skip-issue", action="store_true", help="only the sizes")
    parser.add_argument("--src", help="run the CLI from the vppcfg package in this directory "
                        "(e.g. an export of an older commit); the issue config only")
    args = parser.parse_args()
    why = unavailable(VPP_REAL)
    if why:
        print(f"bench_real: skipped: {why}")
        return 0
    pipeline = not args.no_pipeline
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        if not args.skip_issue:
            issue_config(pipeline, tmp, args.src)
        if args.sizes and not args.src:
            sizes([int(s) for s in args.sizes.split(",")], pipeline, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
