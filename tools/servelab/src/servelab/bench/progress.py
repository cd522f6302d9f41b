"""Progress of a benchmark on stderr: cell i/N, what runs, and the time left.

Each cell has a plan: the seconds the same cell took in the committed reference run, else
its load time (its shape's warm-up and duration, the write-up's tools after it) plus
OVERHEAD_S. The time left is the remaining plans times the machine's scale: how much
slower or faster than the reference run this machine is going, measured on the cells done.

The scale is a ratio of sums, sum(took) / sum(planned), over the cells done, with three
guards against the few cells early on deciding it alone:

- The first cell of each part (a family) is a cold start: the first stack of the family
  compiles its code, loads its database, fills the disk cache. Its own ratio says little
  about the cells after it (on a fresh clone it can be ten times its plan while the rest go
  at 1.3 times), so it counts as at most COLD_CAP.
- Every other cell's ratio is kept within a factor SPREAD of the median ratio of the cells
  done: one hung cell, or one whose reference time is stale, counts as a slow cell, not as
  many.
- PRIOR_S seconds of plan at a ratio of 1 (the reference's own pace) join the sums: a
  pseudo-observation that the first cells outweigh quickly.

Replayed on the committed runs (the plan from one run of a matrix, the cells' times from
another), it is as close as a median of the ratios (half the estimates within 2%); with a
cold start added to the first cell, a median of the ratios takes the cold cell's ratio for
the machine's and says several times the time left, where this one stays close.

A cell of a counted shape (hey -n, ab -n) with no reference time counts as the median of
the done cells of its endpoint, else of every counted cell done, and until one is done there
is no estimate.

A run of several families (`servelab bench` with none named) is one Progress with a part
per family: its line names the family and the time left in it and in the whole run.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Collection, Sequence
from itertools import accumulate
from statistics import median
from typing import TextIO

# What a cell costs beyond its load before any has run: starting and stopping its stack and
# k6's two starts (warm-up, measured run).
OVERHEAD_S = 4.5
# Planned seconds at the reference's pace that join the done cells in the scale.
PRIOR_S = 10.0
# The most a part's first cell (its cold start) says the machine is slower than the reference.
COLD_CAP = 1.5
# How far from the median ratio of the done cells another cell's ratio may count.
SPREAD = 2.0


# A cell's plan: the seconds it should take, or, for a counted shape with no reference time,
# the name of what it runs (its endpoint), as cells of one endpoint take alike.
Plan = float | str


def scale(planned: Sequence[Plan], took: Sequence[float], cold: Collection[int] = (0,)) -> float:
    """How many times its plan a cell takes on this machine, from the len(took) done cells;
    `cold` holds the indices of the cold starts (each part's first cell)."""
    ratios: list[tuple[float, float]] = []  # (ratio, weight)
    for index, (plan, seconds) in enumerate(zip(planned, took, strict=False)):
        if isinstance(plan, str) or plan <= 0:
            continue
        if index in cold:
            ratios.append((min(seconds / plan, COLD_CAP), plan))
        else:
            ratios.append((seconds / plan, plan))
    if ratios:
        middle = median(ratio for ratio, _ in ratios)
        ratios = [(min(max(ratio, middle / SPREAD), middle * SPREAD), w) for ratio, w in ratios]
    taken = PRIOR_S + sum(ratio * weight for ratio, weight in ratios)
    return taken / (PRIOR_S + sum(weight for _, weight in ratios))


def time_left(
    planned: Sequence[Plan],
    took: Sequence[float],
    cold: Collection[int] = (0,),
    until: int | None = None,
) -> float | None:
    """Seconds left for the cells after the len(took) done ones, up to cell `until` (not
    included; default: every cell); None: no estimate yet."""
    done = list(zip(planned, took, strict=False))
    pace = scale(planned, took, cold)
    counted = [t for p, t in done if isinstance(p, str)]
    left = 0.0
    for plan in planned[len(took) : until]:
        if not isinstance(plan, str):
            left += plan * pace
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
    """`begin(i, what)` before cell i of the current part, `end(outcome)` after it.

    `parts` names the run's parts (families) and their number of cells, in the order they
    run; without it the run is one part, and its line says only the time left."""

    def __init__(
        self,
        planned: Sequence[Plan],
        stream: TextIO,
        parts: Sequence[tuple[str, int]] = (),
    ) -> None:
        self.planned = list(planned)
        self.stream = stream
        self.parts = list(parts) or [("", len(self.planned))]
        self.took: list[float] = []
        self._started = time.monotonic()
        # Each part's first cell, then the end of the run.
        self._starts = [0, *accumulate(cells for _, cells in self.parts)]

    @property
    def total(self) -> int:
        """The cells of the current part."""
        return self.parts[self._part()][1]

    def _part(self) -> int:
        """The part of the next cell (the last part once every cell is done)."""
        return min(bisect_right(self._starts, len(self.took)) - 1, len(self.parts) - 1)

    def begin(self, index: int, what: str) -> None:
        part = self._part()
        name = self.parts[part][0]
        cold = self._starts[:-1]
        left = time_left(self.planned, self.took, cold, self._starts[part + 1])
        where = f"{name} " if len(self.parts) > 1 else ""
        eta = "" if left is None else f"  (about {clock(left)} left{self._rest(name)})"
        self._write(f"[{where}{index + 1}/{self.total}] {what}{eta}")
        self._started = time.monotonic()

    def _rest(self, name: str) -> str:
        """With several parts: ' in <part>, M:SS in all N families' (the whole run's time
        left)."""
        if len(self.parts) == 1:
            return ""
        everything = time_left(self.planned, self.took, self._starts[:-1])
        whole = (
            "" if everything is None else f", {clock(everything)} in all {len(self.parts)} families"
        )
        return f" in {name}{whole}"

    def end(self, outcome: str) -> None:
        self.took.append(time.monotonic() - self._started)
        self._write(f"    {outcome}")

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()
