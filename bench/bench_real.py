"""vppcfg against the REAL VPP (../shared/vpp-real): dump, plan and apply speed.

    sudo .venv/bin/python bench/bench_real.py [--sizes 100,1000,5000] [--runs 3]
        [--no-pipeline] [--skip-issue] [--src DIR]

Two parts, each on a fresh VPP in a network namespace of its own (tests/real.py):

1. The issue-12 config: 4 PHYs x 250 dot1q sub-interfaces, each with an IPv4
   and an IPv6 address, plus 200 loopbacks with an IPv4 address (1,204
   interfaces, 5,804 changes). Printed: `vppcfg apply` from empty (dump, plan,
   execute, verify), `vppcfg dump`, `vppcfg plan` with nothing to change,
   `vppcfg apply` back to an empty config; each run as the CLI (wall time of
   the whole process) and in process (with the number of API waves).
2. dump, plan and apply of configs of about 100 / 1,000 / 5,000 changes, with
   changes per second.

Every figure is the best of --runs (the machine is shared). `--no-pipeline`
runs the in-process applies one call at a time; `--src DIR` runs the CLI from
the vppcfg package in DIR (an export of an older commit) for a side-by-side
figure. The package's bytecode is compiled first, as bench_cli.py does.
Without root or ../shared/vpp-real it prints why and exits 0.
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

from bench_cli import compile_bytecode, run_cli  # noqa: E402

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


def apply_in_process(vpp, path: str, pipeline: bool) -> tuple[float, str]:
    """(wall seconds, a line of figures) of one apply_config of the file."""
    want = config.load(path)
    with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
        started = time.perf_counter()
        outcome = apply_config(conn, want, pipeline=pipeline)
        wall = time.perf_counter() - started
    if not outcome.ok:
        raise SystemExit(format_outcome(outcome))
    t, n = outcome.timings, len(outcome.executed)
    waves = f", {outcome.waves} waves" if outcome.waves else ""
    return wall, (f"{n} changes in {wall:.2f}s ({n / wall if wall else 0:,.0f}/s; dump "
                  f"{t['dump']:.2f} plan {t['plan']:.2f} execute {t.get('execute', 0):.2f} "
                  f"verify {t.get('verify', 0):.2f}{waves})")


def issue_config(pipeline: bool, tmp: str, src: str | None, runs: int) -> None:
    full = write(generate(250, 200), tmp, "full.yaml")
    empty = write(generate(0, 0), tmp, "empty.yaml")
    lock = ["--lock-file", os.path.join(tmp, "lock"), "--state-dir", os.path.join(tmp, "st")]
    print(f"issue-12 config: 4 PHYs x 250 subs (v4+v6) + 200 loopbacks, vppcfg from "
          f"{src or ROOT}, best of {runs}", flush=True)
    steps: dict[str, list[dict]] = {}
    with vpp_real(PHYS) as vpp:
        for _ in range(runs):  # each round: empty -> full -> (dump, plan) -> empty
            for name, args in (("vppcfg apply from empty", ["apply", "-c", full, *lock]),
                               ("vppcfg dump", ["dump", "-o", os.path.join(tmp, "d.yaml")]),
                               ("vppcfg plan, nothing to change", ["plan", "-c", full]),
                               ("vppcfg apply back to empty", ["apply", "-c", empty, *lock])):
                steps.setdefault(name, []).append(cli(vpp, *args, src=src))
        for name, results in steps.items():
            r = min(results, key=lambda r: r["wall"])
            show(name, r, _applied(r))
        if src:
            return
        print(f"  in process, {'pipelined' if pipeline else 'one call at a time'}, best of "
              f"{runs}:", flush=True)
        there, back, dumps = [], [], []
        for _ in range(runs):
            there.append(apply_in_process(vpp, full, pipeline))
            with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
                started = time.perf_counter()
                conn.dump()
                dumps.append((time.perf_counter() - started, conn.calls))
            back.append(apply_in_process(vpp, empty, pipeline))
        print(f"    apply from empty: {min(there)[1]}", flush=True)
        print(f"    dump: {min(dumps)[0]:.3f}s, {min(dumps)[1]} API requests", flush=True)
        print(f"    apply back to empty: {min(back)[1]}", flush=True)


def _applied(r: dict) -> int:
    found = re.search(r"applied (\d+) change", r["stdout"])
    return int(found[1]) if found else 0


def sizes(changes: list[int], pipeline: bool, tmp: str, runs: int) -> None:
    """Configs of about `n` changes (a sub-interface with two addresses is about
    five: create, MTU, two addresses, state; the exact count is printed)."""
    empty = write(generate(0, 0), tmp, "empty.yaml")
    with vpp_real(PHYS) as vpp:
        for n in changes:
            path = write(generate(max(1, n // (5 * len(PHYS))), 0), tmp, f"size{n}.yaml")
            applied, planned, dumped = [], [], []
            for _ in range(runs):
                with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
                    want, live = config.load(path), conn.dump()
                    started = time.perf_counter()
                    ops = plan(want, live)
                    planned.append(time.perf_counter() - started)
                applied.append(apply_in_process(vpp, path, pipeline))
                with VppConnection.open(vpp.socket, vpp.api_dir, timeout=60) as conn:
                    started = time.perf_counter()
                    conn.dump()
                    dumped.append(time.perf_counter() - started)
                apply_in_process(vpp, empty, pipeline)
            rate = len(ops) / min(applied)[0]
            print(f"{len(ops):>6} changes, best of {runs}: plan {min(planned):.3f}s; apply "
                  f"{min(applied)[1]}; dump of the result {min(dumped):.3f}s; "
                  f"{rate:,.0f} changes/s applied", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--no-pipeline", action="store_true")
    parser.add_argument("--skip-issue", action="store_true", help="only the sizes")
    parser.add_argument("--runs", type=int, default=3, help="best of RUNS (default 3)")
    parser.add_argument("--src", help="run the CLI from the vppcfg package in this directory "
                        "(e.g. an export of an older commit); the issue config only")
    args = parser.parse_args()
    why = unavailable(VPP_REAL)
    if why:
        print(f"bench_real: skipped: {why}")
        return 0
    pipeline = not args.no_pipeline
    compile_bytecode(args.src)  # as installed (see bench_cli)
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        if not args.skip_issue:
            issue_config(pipeline, tmp, args.src, args.runs)
        if args.sizes and not args.src:
            sizes([int(s) for s in args.sizes.split(",")], pipeline, tmp, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
