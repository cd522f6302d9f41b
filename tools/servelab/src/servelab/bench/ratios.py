"""Ratios of requests/s within one run, and the goals stated as ratios.

Absolute requests/s depend on the machine (and on k6 sharing it); the ratio of two
cells measured in the same run carries across machines, so the reports compare
those with the write-up's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import geometric_mean

# (variant, workers, endpoint) -> successful requests/s
Rates = Mapping[tuple[str, int, str], float]


@dataclass(frozen=True)
class Side:
    """One side of a ratio: which variants (None: the other side's) and which endpoint
    (None: every endpoint the two sides share, combined as a geometric mean)."""

    variants: tuple[str, ...] | None = None
    endpoint: str | None = None


@dataclass(frozen=True)
class RatioSpec:
    name: str
    about: str
    numerator: Side
    denominator: Side


@dataclass(frozen=True)
class GoalSpec:
    goal: str
    ratio: str
    minimum: float


@dataclass(frozen=True)
class RatioValue:
    ratio: str
    variant: str
    workers: int
    value: float
    pairs: int


@dataclass(frozen=True)
class GoalResult:
    goal: GoalSpec
    value: RatioValue | None

    @property
    def met(self) -> bool:
        return self.value is not None and self.value.value >= self.goal.minimum


def _endpoint_pairs(
    spec: RatioSpec, rates: Rates, variant: str, other: str, workers: int
) -> list[tuple[str, str]]:
    top, bottom = spec.numerator.endpoint, spec.denominator.endpoint
    if top or bottom:
        return [(top or bottom or "", bottom or top or "")]
    mine = {e for (v, w, e) in rates if v == variant and w == workers}
    theirs = {e for (v, w, e) in rates if v == other and w == workers}
    return [(endpoint, endpoint) for endpoint in sorted(mine & theirs)]


def _value(
    spec: RatioSpec, rates: Rates, variant: str, other: str, workers: int
) -> RatioValue | None:
    quotients = []
    for top, bottom in _endpoint_pairs(spec, rates, variant, other, workers):
        numerator = rates.get((variant, workers, top))
        denominator = rates.get((other, workers, bottom))
        if numerator and denominator:
            quotients.append(numerator / denominator)
    if not quotients:
        return None
    return RatioValue(spec.name, variant, workers, geometric_mean(quotients), len(quotients))


def ratio_values(spec: RatioSpec, rates: Rates, variants: Sequence[str]) -> list[RatioValue]:
    """The ratio for each numerator variant and worker count that has both sides measured."""
    values = []
    for workers in sorted({w for (_, w, _) in rates}):
        for variant in spec.numerator.variants or variants:
            for other in spec.denominator.variants or (variant,):
                value = _value(spec, rates, variant, other, workers)
                if value is not None:
                    values.append(value)
                    break
    return values


def goal_results(goals: Iterable[GoalSpec], values: Sequence[RatioValue]) -> list[GoalResult]:
    """One result per measured value of each goal's ratio; a goal never measured gets one
    result without a value."""
    results = []
    for goal in goals:
        matching = [value for value in values if value.ratio == goal.ratio]
        results.extend(GoalResult(goal, value) for value in matching)
        if not matching:
            results.append(GoalResult(goal, None))
    return results
