"""`vppcfg check` and `vppcfg plan --novpp` from 1,000 to 95,905 objects, as whole processes.

    .venv/bin/python bench/bench_scale.py [--sizes 1000,10000,30000,95905] [--runs 3]
        [--vppcfg-124 build/vppcfg-1.2.4/bin/vppcfg] [--timeout 300] [--src DIR]

The configs are bench/scale_config.py's (issue 20's large-router shape). Each
command runs as a new process (bench_cli.run_cli: CPU = user + system of the
process, peak RSS), best of --runs. The table shows per size: YAML MB, the
operations planned, CPU and peak RSS of both commands, and microseconds of CPU
per object (flat when the cost is linear).

With --vppcfg-124 (default: build/vppcfg-1.2.4/bin/vppcfg when present) the same
`check` runs under vppcfg 1.2.4 from PyPI, once per size while each finishes
within --timeout, and the ratio is printed. `--src DIR` runs the vppcfg package
found in DIR (an export of an older commit) instead of this tree's. Set the old
vppcfg up with:

    python3 -m venv build/vppcfg-1.2.4 && build/vppcfg-1.2.4/bin/pip install \\
        vppcfg==1.2.4 vpp_papi==2.4.2
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_cli import best, compile_bytecode  # noqa: E402
from scale_config import generate, shape  # noqa: E402

OLD = ROOT / "build" / "vppcfg-1.2.4" / "bin" / "vppcfg"


def old_check(vppcfg: str, path: str, timeout: float) -> float | None:
    """CPU seconds of `vppcfg check -c PATH` under another vppcfg; None past the timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run([vppcfg, "-q", "check", "-c", path], capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{vppcfg} check refused {path}:\n{done.stdout}{done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,30000,95905")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--vppcfg-124", default=str(OLD) if OLD.exists() else None)
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds vppcfg 1.2.4 may take per size (default 300)")
    parser.add_argument("--src", help="directory holding the vppcfg package to run")
    args = parser.parse_args()
    compile_bytecode(args.src)
    print(f"{'objects':>8} {'MB':>5} {'ops':>8} | {'check s':>7} {'MiB':>5} {'us/obj':>6} | "
          f"{'plan s':>6} {'MiB':>5} {'us/obj':>6} | {'1.2.4 check s':>13} {'ratio':>6}")
    old_gave_up = False
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            path = os.path.join(tmp, f"{size}.yaml")
            text = generate(size)
            Path(path).write_text(text)
            objects = shape(size).objects
            check = best(args.runs, ["check", path], args.src)
            plan = best(args.runs, ["plan", "--novpp", "-c", path, "-o", os.devnull], args.src)
            ops = int(plan_operations(path))
            old = "-"
            if args.vppcfg_124 and not old_gave_up:
                cpu = old_check(args.vppcfg_124, path, args.timeout)
                if cpu is None:
                    old_gave_up = True
                    old = f">{args.timeout:.0f} wall"
                else:
                    old = f"{cpu:>13.2f} {cpu / check['cpu']:>5.0f}x"
            print(f"{objects:>8} {len(text) / 1e6:>5.1f} {ops:>8} | {check['cpu']:>7.2f} "
                  f"{check['rss']:>5.0f} {1e6 * check['cpu'] / objects:>6.1f} | "
                  f"{plan['cpu']:>6.2f} {plan['rss']:>5.0f} {1e6 * plan['cpu'] / objects:>6.1f} |"
                  f" {old:>20}", flush=True)
    return 0


def plan_operations(path: str) -> int:
    """The number of operations `plan --novpp` makes of the file (its summary line)."""
    done = subprocess.run([sys.executable, "-m", "vppcfg", "plan", "--novpp", "-c", path,
                           "-o", os.devnull], capture_output=True, text=True, cwd=ROOT)
    # "vppcfg plan: N to create, M to change, K to delete"
    words = done.stderr.split()
    return sum(int(words[i - 1]) for i, w in enumerate(words) if w == "to" and i > 0
               and words[i - 1].isdigit())


if __name__ == "__main__":
    sys.exit(main())
