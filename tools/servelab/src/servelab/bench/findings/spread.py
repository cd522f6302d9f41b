"""A measured value with its 95% confidence interval, from one run's rounds: the interval
every verdict rests on.

A cell of a shape with `rounds` is measured that many times in one run, each round passing
over every cell seconds apart (bench.load.rounds). A ratio of two cells is taken round by
round (both sides of a round measured in the same pass, so a drift of the machine touches
both), and its interval is Student's t over the logarithms of those per-round ratios: the
paired t-test of pyperf's `compare_to` and hyperfine's Welch script, on the ratio's scale.
Not a bootstrap (criterion's way): with 3 to 8 rounds a resampled interval cannot reach
beyond the values drawn and comes out narrower than the data allow; t widens with fewer
rounds instead. A value measured once has no interval: no verdict rests on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import exp, log, sqrt
from statistics import fmean, stdev

# Student's t at 97.5% (a two-sided 95% interval) by degrees of freedom; beyond 30, 1.96.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
LEVEL = 0.95


def t975(freedom: int) -> float:
    return _T975[freedom - 1] if freedom <= len(_T975) else 1.96


@dataclass(frozen=True)
class Spread:
    # The geometric mean of the rounds' values, and its 95% interval.
    value: float
    low: float
    high: float
    # How many rounds it is over.
    count: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread | None:
        """The geometric mean of `values` (one per round, each above 0) and its t interval;
        None where fewer than two rounds measured it."""
        if len(values) < 2 or min(values) <= 0:
            return None
        logs = [log(value) for value in values]
        mean = fmean(logs)
        half = t975(len(logs) - 1) * stdev(logs) / sqrt(len(logs))
        return cls(exp(mean), exp(mean - half), exp(mean + half), len(logs))

    @classmethod
    def ratio(cls, top: Sequence[float | None], bottom: Sequence[float | None]) -> Spread | None:
        """`top` over `bottom` round by round (the rounds both measured), with its interval."""
        return cls.of([a / b for a, b in zip(top, bottom, strict=False) if a and b])

    def side(self, of: float = 1.0) -> int:
        """+1 where the whole interval lies above `of`, -1 below it, 0 where it holds it."""
        if self.low > of:
            return 1
        if self.high < of:
            return -1
        return 0

    def shown(self, digits: int = 2, unit: str = "×") -> str:
        """`0.67× (0.61–0.74)`."""
        return f"{self.value:.{digits}f}{unit} ({self.low:.{digits}f}–{self.high:.{digits}f})"


def summary(spreads: Sequence[Spread]) -> Spread:
    """Several cells' values in one line: their geometric mean, and an interval from the
    lowest of their lows to the highest of their highs, so that it holds every cell's."""
    return Spread(
        exp(fmean([log(s.value) for s in spreads])),
        min(s.low for s in spreads),
        max(s.high for s in spreads),
        min(s.count for s in spreads),
    )
