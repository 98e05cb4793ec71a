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
        self,
        total: float | None,
        stream: TextIO | None = None,
        quiet: bool = False,
        every: float = 5.0,
    ) -> None:
        self.total = max(total, 1e-9) if total is not None else None  # None: no bar
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self._last_plain = -every
        self._drawn = False

    def update(self, done: float, text: str) -> None:
        if self.quiet:
            return
        if self.total is None:
            share, head = 0.0, f"{done:6.1f}s"
        else:
            share = min(1.0, max(0.0, done / self.total))
            filled = int(share * WIDTH)
            head = f"[{'#' * filled}{'-' * (WIDTH - filled)}] {share * 100:3.0f}%"
        if self.tty:
            self.stream.write(f"\r\x1b[K{head} {text}")
            self._drawn = True
        else:
            now = time.monotonic()
            if now - self._last_plain < self.every and share < 1.0:
                return
            self._last_plain = now
            plain = head if self.total is None else f"{share * 100:3.0f}%"
            self.stream.write(f"{plain} {text}\n")
        self.stream.flush()

    def close(self) -> None:
        if self._drawn and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
