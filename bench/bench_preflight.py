"""What the preflight adds to an apply: checking every planned operation's
messages against what VPP offers, on the plan of bench_check.py's config.

    python bench/bench_preflight.py [--objects 10000] [--repeat 5]

Printed (best of --repeat): the check when VPP offers everything (every apply
pays this), and when linux_cp is missing (the refusal, which also reads the
config again for the line numbers of every lcp it names).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_check import generate  # noqa: E402

from vppcfg import config  # noqa: E402
from vppcfg.commands.plan import fresh_dataplane  # noqa: E402
from vppcfg.planner import plan  # noqa: E402
from vppcfg.vpp.definitions import api_messages  # noqa: E402
from vppcfg.vpp.preflight import Offer, check, locator  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as out:
        out.write(generate(args.objects))
    desired = config.load(out.name)
    ops = plan(desired, fresh_dataplane(desired))
    everything = frozenset(api_messages())
    cases = {"VPP offers every message": everything,
             "VPP without linux_cp": frozenset(m for m in everything if not m.startswith("lcp_"))}
    print(f"plan of {args.objects} objects: {len(ops)} operations")
    for label, usable in cases.items():
        offer = Offer(usable, {}, {})
        best, findings = float("inf"), []
        for _ in range(args.repeat):
            started = time.perf_counter()
            findings = check(ops, offer, locator(out.name, desired.interfaces))
            best = min(best, time.perf_counter() - started)
        named = sum(len(f.needed_by) for f in findings)
        print(f"  {label}: {best * 1000:.1f} ms ({len(findings)} finding(s), "
              f"{named} operation(s) located)")
    Path(out.name).unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
