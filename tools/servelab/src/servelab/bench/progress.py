"""Progress of a benchmark on stderr: cell i/N, what runs, and the time left.

Each cell has a plan: the seconds the same cell took in the committed reference run, else
its load time (its shape's warm-up and duration, the write-up's tools after it) plus
OVERHEAD_S. The time left is the remaining plans times how this machine compares so far (the
median over the cells done of time taken over plan: a stack's cold start or a slow model
load is one cell's, not every cell's). A cell of a counted shape (hey -n, ab -n) with no
reference time counts as the median of the done cells of its endpoint, else of every
counted cell done, and until one is done there is no estimate.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from statistics import median
from typing import TextIO

# What a cell costs beyond its load before any has run: starting and stopping its stack and
# k6's two starts (warm-up, measured run).
OVERHEAD_S = 4.5


# A cell's plan: the seconds it should take, or, for a counted shape with no reference time,
# the name of what it runs (its endpoint), as cells of one endpoint take alike.
Plan = float | str


def time_left(planned: Sequence[Plan], took: Sequence[float]) -> float | None:
    """Seconds left for the cells after the len(took) done ones (None: no estimate yet)."""
    done = list(zip(planned, took, strict=False))
    speeds = [t / p for p, t in done if isinstance(p, float) and p > 0]
    scale = median(speeds) if speeds else 1.0
    counted = [t for p, t in done if isinstance(p, str)]
    left = 0.0
    for plan in planned[len(took) :]:
        if isinstance(plan, float):
            left += plan * scale
            continue
        alike = [t for p, t in done if p == plan] or counted
        if not alike:
            return None
        left += median(alike)
    return left


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}"


class Progress:
    def __init__(self, planned: Sequence[Plan], stream: TextIO) -> None:
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
