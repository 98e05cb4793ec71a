"""Exact Ethernet line-rate arithmetic.

A frame size here always includes the 4-byte FCS (64 is the smallest Ethernet
frame). On the wire every frame also costs 8 bytes of preamble/SFD and a
12-byte inter-frame gap, so a 64-byte frame occupies 84 bytes at layer 1 and
10 Gbit/s carries 10e9 / (84 * 8) = 14 880 952.38 frames per second.
Fractions keep the results exact until the caller asks for a float.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

FCS_BYTES = 4
PREAMBLE_IFG_BYTES = 20
MIN_FRAME = 64
MAX_FRAME = 9216

SizeMix = tuple[tuple[int, int], ...]  # (frame size incl. FCS, weight)


def check_frame_size(size: int) -> int:
    if not MIN_FRAME <= size <= MAX_FRAME:
        raise ValueError(f"frame size {size} is outside {MIN_FRAME}..{MAX_FRAME} bytes")
    return size


def average_frame_size(mix: Iterable[tuple[int, int]]) -> Fraction:
    """The weighted mean frame size (incl. FCS) of a size mix."""
    mix = tuple(mix)
    total_weight = sum(weight for _, weight in mix)
    if total_weight <= 0:
        raise ValueError("a size mix needs a positive total weight")
    return Fraction(sum(size * weight for size, weight in mix), total_weight)


def l1_bits(mix: Iterable[tuple[int, int]]) -> Fraction:
    """Average bits one frame of the mix occupies on the wire."""
    return (average_frame_size(mix) + PREAMBLE_IFG_BYTES) * 8


def line_rate_pps(mix: Iterable[tuple[int, int]], speed_bps: float | int) -> Fraction:
    """Frames per second that fill a link of `speed_bps` with this mix."""
    return Fraction(speed_bps) / l1_bits(mix)


_RATE_UNITS = {"pps": 1.0, "kpps": 1e3, "mpps": 1e6, "gpps": 1e9}


def parse_rate(text: str | float, line_pps: float) -> float:
    """A rate given as percent of line rate ("50", "50%") or absolute ("1.23mpps").

    Raises ValueError for a rate that is not positive or exceeds line rate.
    """
    raw = str(text).strip().lower()
    unit = next((u for u in sorted(_RATE_UNITS, key=len, reverse=True) if raw.endswith(u)), None)
    try:
        if unit:
            pps = float(raw[: -len(unit)]) * _RATE_UNITS[unit]
        else:
            pps = float(raw.rstrip("%")) / 100.0 * line_pps
    except ValueError:
        raise ValueError(f"rate {text!r}: use a percentage of line rate or e.g. 1.5mpps") from None
    if not pps > 0:
        raise ValueError(f"rate {text!r} must be positive")
    if pps > line_pps * (1 + 1e-9):
        raise ValueError(
            f"rate {text!r} is {pps / line_pps * 100:.1f}% of line rate "
            f"({line_pps / 1e6:.6f} Mpps); at most 100% is possible"
        )
    return pps
