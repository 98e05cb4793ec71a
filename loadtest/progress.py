"""Progress bar and live rate line on stderr (plain lines when not a TTY)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 24


def fmt_pps(pps: float) -> str:
    if pps >= 1e6:
        return f"{pps / 1e6:.3f} Mpps"
    if pps >= 1e3:
        return f"{pps / 1e3:.1f} kpps"
    return f"{pps:.0f} pps"


class Progress:
    """Redraws one line on a terminal; elsewhere prints at most one line per `every` s."""

    def __init__(
        self, total: float, stream: TextIO | None = None, quiet: bool = False, every: float = 5.0
    ) -> None:
        self.total = max(total, 1e-9)
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self._last_plain = -every
        self._drawn = False

    def update(self, done: float, text: str) -> None:
        if self.quiet:
            return
        share = min(1.0, max(0.0, done / self.total))
        if self.tty:
            bar = "#" * int(share * WIDTH) + "-" * (WIDTH - int(share * WIDTH))
            self.stream.write(f"\r\x1b[K[{bar}] {share * 100:3.0f}% {text}")
            self._drawn = True
        else:
            now = time.monotonic()
            if now - self._last_plain < self.every and share < 1.0:
                return
            self._last_plain = now
            self.stream.write(f"{share * 100:3.0f}% {text}\n")
        self.stream.flush()

    def close(self) -> None:
        if self._drawn and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
