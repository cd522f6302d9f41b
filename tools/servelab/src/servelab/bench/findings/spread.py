"""A measured value with the range it moved over: the interval every verdict rests on.

Where a cell was measured in several rounds (bench.load.rounds), or a question in several
runs, the interval is the lowest and the highest value over them (min-max: with few rounds
it is wider than a bootstrap interval, and claims nothing about a distribution). A value
measured once has no range of its own; it is given the project's noise either side
(servelab.project.Noise: ±10% for one cell's value, ±21% for a ratio of two such values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import geometric_mean, median


@dataclass(frozen=True)
class Spread:
    value: float
    low: float
    high: float
    # How many measurements the range is over; 1: the noise band, not a measured range.
    count: int

    @classmethod
    def of(cls, values: Sequence[float], noise: float) -> Spread:
        """The median and the range of `values` (one value: `noise` either side)."""
        if len(values) == 1:
            return cls.once(values[0], noise)
        return cls(median(values), min(values), max(values), len(values))

    @classmethod
    def once(cls, value: float, noise: float) -> Spread:
        """A value measured once, `noise` either side."""
        return cls(value, value / (1 + noise), value * (1 + noise), 1)

    def merge(self, other: Spread) -> Spread:
        """Both ranges together: the same value measured in two runs."""
        total = self.count + other.count
        value = (self.value * self.count + other.value * other.count) / total
        return Spread(value, min(self.low, other.low), max(self.high, other.high), total)

    def side(self, of: float = 1.0) -> int:
        """+1 where the whole range lies above `of`, -1 below it, 0 where it holds it."""
        if self.low > of:
            return 1
        if self.high < of:
            return -1
        return 0

    def overlaps(self, other: Spread) -> bool:
        return self.low <= other.high and other.low <= self.high

    def shown(self, digits: int = 2, unit: str = "×") -> str:
        """`0.67× (0.61–0.74)`."""
        return f"{self.value:.{digits}f}{unit} ({self.low:.{digits}f}–{self.high:.{digits}f})"


def geometric(spreads: Sequence[Spread]) -> Spread:
    """The geometric mean of several ratios, its range the means of their bounds."""
    return Spread(
        geometric_mean([s.value for s in spreads]),
        geometric_mean([s.low for s in spreads]),
        geometric_mean([s.high for s in spreads]),
        min(s.count for s in spreads),
    )
