"""The one check of numeric options, for all four commands (vppcfg,
vppcfg-sim, trex-loadtest, trex-emu).

Every int or float option's `type=` is a `Number`: at argument parsing,
before anything connects or sends, the value must be a finite number within
its option's range (argparse then exits 2 naming the option). Python's float()
takes "inf", "nan" and "1e400", which further on never rolled back, rolled
back at once, or ended in an OverflowError; tests/test_numbers.py finds every
numeric option of the four parsers and fails on one that is not checked here.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

DAY = 86400.0
WEEK = 7 * DAY
MAX_PPS = 1e12  # far above any port's packet rate, far below an overflow


@dataclass(frozen=True)
class Number:
    """An argparse `type`: a finite number with `low <= value <= high` (with
    `low_open`: `low < value`), in `unit` ("seconds", "packets per second", "%")."""

    unit: str = ""
    low: float = 0.0
    high: float = math.inf
    low_open: bool = False  # the value must be more than `low`
    integer: bool = False

    @property
    def __name__(self) -> str:  # argparse names the type in some of its messages
        return "integer" if self.integer else "number"

    def __call__(self, text: str) -> float | int:
        value = self._parse(text)
        if (self.low_open and not value > self.low) or value < self.low or value > self.high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: {self.describe()}")
        return value

    def _parse(self, text: str) -> float | int:
        try:
            value = int(text) if self.integer else float(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if self.integer else 'a number'}"
                f"{self._of_unit()}: give {self.describe()}") from None
        if not math.isfinite(value):  # float("1e400") is inf, not an error
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number{self._of_unit()}"
                                             f": give {self.describe()}")
        return value

    def _of_unit(self) -> str:
        return f" of {self.unit}" if self.unit else ""

    def describe(self) -> str:
        """The accepted range, as the messages say it: 'more than 0 and at most 604800 seconds'."""
        low = f"more than {self.low:g}" if self.low_open else f"at least {self.low:g}"
        high = f" and at most {self.high:g}" if math.isfinite(self.high) else ""
        return f"{low}{high}{f' {self.unit}' if self.unit else ''}"


def seconds(high: float = DAY, zero_ok: bool = False) -> Number:
    """A duration: more than 0 (or at least 0) and at most `high` seconds."""
    return Number("seconds", 0.0, high, low_open=not zero_ok)


def count(low: int = 1, high: float = 2 ** 31 - 1, unit: str = "") -> Number:
    return Number(unit, low, high, integer=True)


def port(low: int = 0) -> Number:
    return Number("(a TCP port)", low, 65535, integer=True)


def rate_pps(zero_ok: bool = False) -> Number:
    return Number("packets per second", 0.0, MAX_PPS, low_open=not zero_ok)


def percent(zero_ok: bool = True) -> Number:
    return Number("%", 0.0, 100.0, low_open=not zero_ok)


def fraction() -> Number:
    return Number("(a fraction)", 0.0, 1.0)


RATE_UNITS = ("gpps", "mpps", "kpps", "pps", "%")  # longest first


def rate(text: str) -> str:
    """An argparse `type` for a rate with its unit: a percent of line rate
    ("50", "50%") or packets per second ("1.5mpps"), finite and more than 0.
    The text is returned as given: how it compares with the line rate (at most
    100 %) is checked next, before anything connects, or for an absolute rate
    once the port's speed is known (loadtest.cli, loadtest.linerate)."""
    raw = text.strip().lower()
    unit = next((u for u in RATE_UNITS if raw.endswith(u)), "")
    try:
        Number(unit or "%", 0.0, MAX_PPS, low_open=True)(raw[:len(raw) - len(unit)])
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"rate {text!r}: give a finite percentage of line rate, more than 0, or a "
            "finite rate with its unit, e.g. 1.5mpps") from None
    return text


rate.__name__ = "rate"
