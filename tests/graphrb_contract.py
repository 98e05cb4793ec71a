"""graph.rb's input contract (trex-loadtest-viz, the trex-loadtest visualizer), checked in
Python: what its source reads from each run, and what makes it stop (see loadtest/graphrb.py)."""

from __future__ import annotations

import json
import math

GRAPH_VARS = ("warmup_mult", "warmup_duration", "rampup_target", "rampup_duration",
              "hold_duration")
PORT_RATES = ("tx_pps", "rx_pps", "tx_util", "rx_util")


def no_nan(text: str) -> dict:
    def refuse(name: str):
        raise AssertionError(f"{name} in the JSON")
    return json.loads(text, parse_constant=refuse)


def graph_rb_problems(runs: dict[str, dict]) -> list[str]:
    """What graph.rb would choke on, per its source: missing keys, non-numbers, a zero tx
    rate on a direction it graphs (it divides by it), NaN or infinite values."""
    problems = []
    configs = {tuple(run["vars"].get(k) for k in GRAPH_VARS) for run in runs.values()}
    if len(configs) != 1:
        problems.append(f"runs differ in {GRAPH_VARS}: {sorted(map(str, configs))}")
    if len({len(run["stats"]) for run in runs.values()}) != 1:
        problems.append("runs have different numbers of stats entries")
    for name, run in runs.items():
        missing = [k for k in GRAPH_VARS if run["vars"].get(k) is None]
        if missing:
            problems.append(f"{name}: vars lack {missing}")
        if not isinstance(run["vars"].get("profile_file"), str):
            problems.append(f"{name}: vars.profile_file is not a string")
        uni = run["vars"].get("unidirectional")
        if not isinstance(uni, bool):
            problems.append(f"{name}: vars.unidirectional is not true/false")
        if not run["stats"]:
            problems.append(f"{name}: no stats")
        channels = [("0", "1")] + ([] if uni else [("1", "0")])
        for second, entry in run["stats"].items():
            for port in ("0", "1"):
                for key in PORT_RATES:
                    value = entry.get(port, {}).get(key)
                    if isinstance(value, bool) or not isinstance(value, int | float) \
                            or not math.isfinite(value):
                        problems.append(f"{name} stats[{second}][{port}].{key} = {value!r}")
            for src, dst in channels:
                tx, rx = entry[src]["tx_pps"], entry[dst]["rx_pps"]
                if not tx > 0:
                    problems.append(f"{name} stats[{second}]: {src}->{dst} tx_pps {tx}")
                elif not math.isfinite((tx - rx) / tx):
                    problems.append(f"{name} stats[{second}]: {src}->{dst} loss not finite")
    return problems
