"""Progress of a benchmark on stderr: cell i/N, what runs, and the time left.

The time left is each remaining cell's planned load time (its shape's warm-up and duration,
and the write-up's tools after it) plus what a cell has cost beyond its plan so far (the
median over the cells done: a stack's first start or a slow model load is one cell's, not
every cell's). A cell of a counted shape (hey -n, ab -n) has no plan: it counts as the
median of those done, and until one is, there is no estimate.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from statistics import median
from typing import TextIO

# What a cell costs beyond its load before any has run: starting and stopping its stack and
# k6's two starts (warm-up, measured run).
OVERHEAD_S = 4.5


def time_left(
    planned: Sequence[float | None], took: Sequence[float], overhead_s: float = OVERHEAD_S
) -> float | None:
    """Seconds left for the cells after the len(took) done ones (None: no estimate yet)."""
    done = len(took)
    over = [t - p for p, t in zip(planned, took, strict=False) if p is not None]
    extra = median(over) if over else overhead_s
    counted = [t for p, t in zip(planned, took, strict=False) if p is None]
    left = 0.0
    for plan in planned[done:]:
        if plan is None:
            if not counted:
                return None
            left += median(counted)
        else:
            left += plan + max(extra, 0.0)
    return left


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}"


class Progress:
    def __init__(self, planned: Sequence[float | None], stream: TextIO) -> None:
        self.planned = list(planned)
        self.stream = stream
        self.took: list[float] = []
        self._started = time.monotonic()

    @property
    def total(self) -> int:
        return len(self.planned)

    def begin(self, index: int, what: str) -> None:
        left = time_left(self.planned, self.took)
        eta = "" if left is None else f"  (about {clock(left)} left)"
        self._write(f"[{index + 1}/{self.total}] {what}{eta}")
        self._started = time.monotonic()

    def end(self, outcome: str) -> None:
        self.took.append(time.monotonic() - self._started)
        self._write(f"    {outcome}")

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()
