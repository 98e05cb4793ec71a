"""What graph.rb (trex-loadtest-viz, the trex-loadtest visualizer) reads from a ramp's JSON.

Its input contract, from its source: top-level `vars` and `stats`; `vars` holds
`warmup_mult`, `warmup_duration`, `rampup_target`, `rampup_duration` and
`hold_duration` (it aborts without them, and warns when the runs it is given
differ in them), `unidirectional` (when true it skips direction 1->0) and
`profile_file` (it draws one chart per value). Every `stats` entry (one per
sample) has ports "0" and "1" with `tx_pps`, `rx_pps`, `tx_util` and `rx_util`;
it takes loss as (tx_pps of the sending port - rx_pps of the receiving port) /
tx_pps, so a graphed direction must never show a zero tx rate.

The server's own `tx_pps`/`rx_pps` are smoothed and lag the truth by seconds,
so the ports' rates here are the harness's measured figures (offered and
forwarded per direction, loss from flow statistics); the server's values are
kept beside them with a `server_` prefix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from loadtest.profiles import TrafficSpec
    from loadtest.ramp import RampPlan
    from loadtest.stats import Direction, DirSample

RATE_KEYS = ("tx_pps", "rx_pps", "tx_util", "rx_util")


def multiplier_text(rate: str) -> str:
    """A rate option as T-Rex multiplier text: a bare number is a percentage ("10" -> "10%"),
    so runs of different frame sizes asked with the same options carry the same value."""
    text = str(rate).strip()
    try:
        float(text)
    except ValueError:
        return text
    return f"{text}%"


def graph_vars(plan: RampPlan, spec: TrafficSpec, warmup_rate: str, peak_rate: str) -> dict:
    """The `vars` graph.rb needs."""
    if spec.file:
        profile = spec.file.name
    else:
        profile = spec.profile + ("-ipv6" if spec.ip_version == 6 else "")
    return {
        "warmup_mult": multiplier_text(warmup_rate),
        "warmup_duration": plan.warmup,
        "rampup_target": multiplier_text(peak_rate),
        "rampup_duration": plan.duration,
        "hold_duration": plan.hold,
        "unidirectional": not spec.bidirectional,
        "profile_file": profile,
    }


def port_rates(stats_entry: dict, dirs: list[Direction], per_dir: dict[str, DirSample],
               line_pps: float) -> None:
    """Put the measured per-port rates into one `stats` entry (in place)."""
    for port in {p for d in dirs for p in (d.tx_port, d.rx_port)}:
        block = stats_entry.setdefault(str(port), {})
        for key in RATE_KEYS:
            if key in block:
                block[f"server_{key}"] = block[key]
        tx = sum(_sent(per_dir[d.label]) for d in dirs if d.tx_port == port)
        rx = sum(per_dir[d.label].forwarded_pps for d in dirs if d.rx_port == port)
        block.update({"tx_pps": tx, "rx_pps": rx, "tx_util": 100.0 * tx / line_pps,
                      "rx_util": 100.0 * rx / line_pps})


def _sent(sample: DirSample) -> float:
    """The offered rate; the asked one when the counters showed nothing yet (a zero
    would make graph.rb divide by zero)."""
    return sample.offered_pps or sample.intended_pps
