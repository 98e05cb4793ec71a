"""Does `--dut-stats` perturb the measurement? The forwarded rate on the real loop with and
without it.

    sudo .venv/bin/python bench/bench_dut_stats.py [--pairs 4] [--rate 200kpps] [--seconds 5]

The real T-Rex (../shared/trex-real) sends through the real VPP (../shared/vpp-real, an L2
cross-connect host-ge0 <-> host-ge1) both ways at a fixed rate each, above VPP's break point
(its one thread forwards about 250-300 kpps in all here), so that VPP, not the generator,
sets the forwarded rate, and any CPU taken from VPP would show as less forwarded. Runs
alternate without and with `--dut-stats` (one sample a second, as a default ramp reads),
`--pairs` of each. Printed per run: the mean forwarded rate of its samples (both directions
summed), its loss, and with the option the time one read of VPP's stats segment took; then
the mean and spread per mode and the difference. Without root or the real systems it prints
why and exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.real import TREX_REAL, VPP_REAL, trex_real, unavailable, vpp_real  # noqa: E402

TREX_LOADTEST = str(Path(sys.executable).parent / "trex-loadtest")
L2XC = """set interface state host-ge0 up
set interface state host-ge1 up
set interface l2 xconnect host-ge0 host-ge1
set interface l2 xconnect host-ge1 host-ge0"""


def one_run(trex, vpp, rate: str, seconds: float, dut: bool, out: Path) -> dict:
    args = [TREX_LOADTEST, "ramp", "-q", "-b", "--warmup", "0", "--duration", str(seconds),
            "--hold", "0", "--start-rate", rate, "--rate", rate, "-o", str(out)]
    if dut:
        args += ["--dut-stats", str(vpp.run_dir / "stats.sock")]
    proc = trex.run(args, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"trex-loadtest failed:\n{proc.stderr}")
    run = json.loads(out.read_text())
    samples = [s["directions"].values() for s in run["samples"]]
    totals = run["summary"]["totals"].values()
    read_ms = (run["summary"].get("dut") or {}).get("read_ms") or {}
    sent = sum(t["tx_packets"] for t in totals)
    return {"forwarded": statistics.mean(sum(r["forwarded_pps"] for r in s) for s in samples),
            "offered": statistics.mean(sum(r["offered_pps"] for r in s) for s in samples),
            "loss": 100.0 * sum(t["lost_packets"] for t in totals) / max(sent, 1),
            "read_ms": read_ms}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--rate", default="200kpps", help="per direction")
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    for script in (VPP_REAL, TREX_REAL):
        why = unavailable(script)
        if why:
            print(f"skipped: {why}")
            return 0
    results: dict[bool, list[dict]] = {False: [], True: []}
    with vpp_real(("ge0", "ge1")) as vpp, tempfile.TemporaryDirectory() as tmp:
        vpp.exec_text(L2XC)
        with trex_real(ports=("p-ge0", "p-ge1"), netns=vpp.netns) as trex:
            print(f"{'run':>3} {'--dut-stats':>11} {'offered kpps':>12} {'forwarded kpps':>14}"
                  f" {'loss %':>7} {'read ms mean/max':>17}")
            for i in range(2 * args.pairs):
                dut = i % 2 == 1
                r = one_run(trex, vpp, args.rate, args.seconds, dut, Path(tmp) / f"{i}.json")
                results[dut].append(r)
                reads = (f"{r['read_ms']['mean']:.2f}/{r['read_ms']['max']:.2f}"
                         if r["read_ms"] else "-")
                print(f"{i + 1:>3} {'with' if dut else 'without':>11} {r['offered'] / 1e3:>12.1f}"
                      f" {r['forwarded'] / 1e3:>14.1f} {r['loss']:>7.2f} {reads:>17}",
                      flush=True)
    means = {}
    for dut, runs in results.items():
        fwd = [r["forwarded"] / 1e3 for r in runs]
        means[dut] = statistics.mean(fwd)
        spread = statistics.stdev(fwd) if len(fwd) > 1 else 0.0
        print(f"{'with' if dut else 'without'} --dut-stats: forwarded {means[dut]:.1f} kpps "
              f"(stdev {spread:.1f}, min {min(fwd):.1f}, max {max(fwd):.1f}, n={len(fwd)})")
    diff = means[True] - means[False]
    print(f"difference: {diff:+.1f} kpps ({100.0 * diff / means[False]:+.2f} %)")
    # each run with the option against the run just before it, without: slow drifts of the
    # shared machine's load cancel out
    pairs = [(w["forwarded"] - wo["forwarded"]) / 1e3
             for wo, w in zip(results[False], results[True], strict=True)]
    spread = statistics.stdev(pairs) if len(pairs) > 1 else 0.0
    print(f"paired difference: {statistics.mean(pairs):+.1f} kpps (stdev {spread:.1f}, "
          f"pairs {', '.join(f'{p:+.1f}' for p in pairs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
