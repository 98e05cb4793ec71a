"""`vppcfg check` and `vppcfg plan --novpp` of the 10,000-object config, as whole processes.

    .venv/bin/python bench/bench_cli.py [--objects 10000] [--runs 3] [--src DIR]

Generates the config of bench_check.py, then runs each command as a new
process (interpreter start, imports, work, exit) and prints the CPU time
(user + system) of the best and the median of --runs, the wall time of the
best, and the peak RSS. `--src DIR` runs the vppcfg package found in DIR (e.g.
an export of an older commit) for a side-by-side figure.

The package's bytecode is compiled first, as an installed package's is (pip
and the Debian package compile it at install): with PYTHONDONTWRITEBYTECODE
set, every run would otherwise compile vppcfg's sources again (about 0.05 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

# Runs the CLI in this process and reports its own CPU time and peak RSS on
# the file descriptor named by $BENCH_FD.
_WRAPPER = """
import os, resource, sys
from vppcfg.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
use = resource.getrusage(resource.RUSAGE_SELF)
os.write(int(os.environ["BENCH_FD"]), ('{"cpu": %f, "rss_kib": %d, "code": %d}'
             % (use.ru_utime + use.ru_stime, use.ru_maxrss, code or 0)).encode())
"""


def run_cli(args: list[str], src: str | None = None, check: bool = True) -> dict:
    """One `vppcfg ARGS` process: wall, cpu (s), rss (MiB), code, stdout."""
    read, write = os.pipe()
    cmd = [sys.executable, "-c", _WRAPPER, *args]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=src or ROOT,
                          pass_fds=(write,), env={**os.environ, "BENCH_FD": str(write)})
    wall = time.perf_counter() - started
    os.close(write)
    with os.fdopen(read) as report:
        text = report.read()
    if check and (not text or json.loads(text)["code"] not in (0, 2)):
        raise SystemExit(f"vppcfg {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}")
    figures = json.loads(text) if text else {"cpu": 0.0, "rss_kib": 0, "code": -1}
    return {"wall": wall, "cpu": figures["cpu"], "rss": figures["rss_kib"] / 1024,
            "code": figures["code"], "stdout": proc.stdout}


def best(runs: int, args: list[str], src: str | None = None) -> dict:
    """The run with the least CPU time, with the median CPU time of all runs."""
    results = sorted((run_cli(args, src) for _ in range(runs)), key=lambda r: r["cpu"])
    return {**results[0], "median": results[len(results) // 2]["cpu"]}


def compile_bytecode(src: str | None) -> None:
    package = Path(src or ROOT) / "vppcfg"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> int:
    from bench_check import generate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", help="directory holding the vppcfg package to run")
    args = parser.parse_args()
    compile_bytecode(args.src)
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        path = os.path.join(tmp, "config.yaml")
        Path(path).write_text(generate(args.objects))
        for name, cmd in (("check", ["check", path]),
                          ("plan --novpp", ["plan", "--novpp", "-c", path, "-o", os.devnull])):
            r = best(args.runs, cmd, args.src)
            print(f"vppcfg {name:<13} {args.objects} objects: {r['cpu']:.2f}s CPU "
                  f"(median of {args.runs}: {r['median']:.2f}s), {r['wall']:.2f}s wall, "
                  f"peak RSS {r['rss']:.0f} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
