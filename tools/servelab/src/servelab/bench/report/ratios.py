"""Ratios of cells measured in one run, and the goals stated as ratios.

Absolute requests/s depend on the machine (and on k6 sharing it); the ratio of two
cells measured in the same run carries across machines, so the reports compare
those with the write-up's. A ratio divides one metric (successful requests/s unless
it names another) of a cell by that of another cell, or by the sum of several cells'
(a floor: what the cheapest servers doing each part of the job spend together); or,
cell by cell, by one of the cell's own settings (total seconds / WAITING_TIME) or by
another of its own metrics (p99 / p50), or by nothing (the metric itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from statistics import geometric_mean

from servelab.bench.measure.summary import CPU_US, MEMORY_MIB

# (variant, workers, endpoint)
Key = tuple[str, int, str]
# One metric of every cell measured.
Values = Mapping[Key, float]
# The settings each cell's server ran with.
Settings = Mapping[Key, Mapping[str, str]]

# Costs: less is better. The limit among several denominator variants is then the
# cheapest one, and a goal's `best` value the lowest.
LOWER_IS_BETTER = frozenset({CPU_US, MEMORY_MIB})
# Metrics that add up over the cells that share one job (CPU time per request does; a
# rate does not): only these can have a sum as denominator.
ADDITIVE = frozenset({CPU_US})
# In a sum's part, the numerator's variant: "empty-{variant}" is the empty app on the
# same server as the numerator.
THE_VARIANT = "{variant}"


@dataclass(frozen=True)
class Part:
    """One term of a sum denominator: a cell of `variant` (which may name the
    numerator's, THE_VARIANT) at `endpoint`, with `workers` (None: the numerator's)."""

    variant: str
    endpoint: str
    workers: int | None = None

    def key(self, variant: str, workers: int) -> Key:
        return (self.variant.replace(THE_VARIANT, variant), self.workers or workers, self.endpoint)


@dataclass(frozen=True)
class Side:
    """One side of a ratio: which variants (None: the other side's; several in a
    denominator: the best of them, the limit) and which endpoint (None: every endpoint
    the two sides share, combined as a geometric mean, but those it `skip`s). A numerator
    may name several `endpoints` instead, each getting a value of its own. A denominator
    may fix its number of `workers` (None: the numerator's), or name a `setting` or another
    `metric` of the numerator's cell instead of a cell, or be the `sum` of several cells'
    metric."""

    variants: tuple[str, ...] | None = None
    endpoint: str | None = None
    setting: str | None = None
    workers: int | None = None
    metric: str | None = None
    endpoints: tuple[str, ...] = ()
    sum: tuple[Part, ...] = ()
    # Which shared endpoints the mean combines, as glob patterns (fnmatch, case-sensitive;
    # a key without `*`, `?` or `[` matches itself alone): those matching one of `only`
    # (every one where it is empty) but none of `skip`. "* @100/s" picks the cells at a
    # steady 100 requests/s, whose CPU ratios read; an rps ratio skips them, as their
    # requests/s are the load's.
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()

    def combines(self, endpoint: str) -> bool:
        """Whether a mean over shared endpoints takes `endpoint` (`only` and `skip`)."""
        wanted = not self.only or any(fnmatchcase(endpoint, glob) for glob in self.only)
        return wanted and not any(fnmatchcase(endpoint, glob) for glob in self.skip)

    @property
    def tops(self) -> tuple[str | None, ...]:
        """The numerator's endpoints, each its own value (None: every shared endpoint)."""
        return self.endpoints or (self.endpoint,)


@dataclass(frozen=True)
class RatioSpec:
    name: str
    about: str
    numerator: Side
    denominator: Side | None
    metric: str = "ok_rps"
    # False: only goals use it (its values are in the per-server tables already), the
    # report's ratio table leaves it out.
    shown: bool = True

    @property
    def plain(self) -> bool:
        """No denominator: the metric itself, one value per cell."""
        return self.denominator is None

    @property
    def lower_is_better(self) -> bool:
        return self.metric in LOWER_IS_BETTER

    @property
    def per_cell(self) -> bool:
        """The metric itself or over the cell's own setting or metric: a value for every
        cell."""
        if self.denominator is None:
            return True
        return self.denominator.setting is not None or self.denominator.metric is not None


@dataclass(frozen=True)
class GoalSpec:
    """A ratio's values must lie within `minimum` and `maximum`: each value (of the
    `variants`, `endpoint` and `workers` named, by default all), or only the best one
    (`best`, per number of workers: the highest; the lowest of a cost such as cpu_us)."""

    goal: str
    ratio: str
    minimum: float | None = None
    maximum: float | None = None
    variants: tuple[str, ...] | None = None
    endpoint: str | None = None
    workers: tuple[int, ...] | None = None
    best: bool = False

    def met_by(self, value: float) -> bool:
        low = self.minimum is None or value >= self.minimum
        high = self.maximum is None or value <= self.maximum
        return low and high

    def judges(self, value: RatioValue) -> bool:
        variant = self.variants is None or value.variant in self.variants
        workers = self.workers is None or value.workers in self.workers
        return variant and workers and self.endpoint in (None, value.endpoint)


@dataclass(frozen=True)
class RatioValue:
    ratio: str
    variant: str
    workers: int
    value: float
    pairs: int
    endpoint: str | None = None

    @property
    def where(self) -> str:
        """The variant, and the endpoint where the value is one endpoint's of several."""
        return self.variant if self.endpoint is None else f"{self.variant} ({self.endpoint})"


@dataclass(frozen=True)
class GoalResult:
    goal: GoalSpec
    value: RatioValue | None

    @property
    def met(self) -> bool:
        return self.value is not None and self.goal.met_by(self.value.value)


def _endpoint_pairs(
    spec: RatioSpec,
    values: Values,
    variant: str,
    other: str,
    workers: int,
    theirs_w: int,
    top: str | None,
) -> list[tuple[str, str]]:
    assert spec.denominator is not None
    bottom = spec.denominator.endpoint
    if top or bottom:
        return [(top or bottom or "", bottom or top or "")]
    mine = {e for (v, w, e) in values if v == variant and w == workers}
    theirs = {e for (v, w, e) in values if v == other and w == theirs_w}
    shared = {endpoint for endpoint in mine & theirs if spec.numerator.combines(endpoint)}
    return [(endpoint, endpoint) for endpoint in sorted(shared)]


def _shown(spec: RatioSpec, top: str | None) -> str | None:
    """The endpoint a value names: its own where the numerator lists several."""
    return top if len(spec.numerator.tops) > 1 else None


def _value(
    spec: RatioSpec, values: Values, variant: str, other: str, workers: int, top: str | None
) -> RatioValue | None:
    assert spec.denominator is not None
    theirs_w = spec.denominator.workers or workers
    quotients = []
    for mine, bottom in _endpoint_pairs(spec, values, variant, other, workers, theirs_w, top):
        numerator = values.get((variant, workers, mine))
        denominator = values.get((other, theirs_w, bottom))
        if numerator and denominator:
            quotients.append(numerator / denominator)
    if not quotients:
        return None
    return RatioValue(
        spec.name,
        variant,
        workers,
        geometric_mean(quotients),
        len(quotients),
        _shown(spec, top),
    )


def _sum_value(
    spec: RatioSpec, values: Values, variant: str, workers: int, top: str | None
) -> RatioValue | None:
    """The numerator's cell over the sum of the parts' cells; None unless every part
    ran and measured something."""
    assert spec.denominator is not None
    numerator = values.get((variant, workers, top or ""))
    parts = [values.get(part.key(variant, workers)) or 0.0 for part in spec.denominator.sum]
    if not numerator or not all(parts):
        return None
    return RatioValue(spec.name, variant, workers, numerator / sum(parts), 1, _shown(spec, top))


def _divisor(
    spec: RatioSpec, settings: Settings, key: Key, divisors: Values | None
) -> float | None:
    if spec.denominator is not None and spec.denominator.metric is not None:
        return (divisors or {}).get(key)
    if spec.denominator is None or spec.denominator.setting is None:
        return 1.0
    setting = settings.get(key, {}).get(spec.denominator.setting)
    return float(setting) if setting else None


def _cell_values(
    spec: RatioSpec,
    values: Values,
    variants: Sequence[str],
    settings: Settings,
    divisors: Values | None,
) -> list[RatioValue]:
    one_endpoint = spec.numerator.endpoint
    result = []
    for variant in spec.numerator.variants or variants:
        for key, value in values.items():
            name, workers, endpoint = key
            divisor = _divisor(spec, settings, key, divisors)
            if name != variant or one_endpoint not in (None, endpoint) or not divisor:
                continue
            shown = None if one_endpoint else endpoint
            result.append(RatioValue(spec.name, variant, workers, value / divisor, 1, shown))
    return result


def ratio_values(
    spec: RatioSpec,
    values: Values,
    variants: Sequence[str],
    settings: Settings | None = None,
    divisors: Values | None = None,
) -> list[RatioValue]:
    """The ratio for each numerator variant and worker count that has both sides measured
    (against the best denominator variant: the fastest, or the cheapest of a cost; or
    against the sum of its parts); for a plain metric or one over a setting or over
    another metric of the cell (`divisors`: that metric of every cell), its value in
    every cell of the numerator's variants (and endpoint)."""
    if spec.per_cell:
        return _cell_values(spec, values, variants, settings or {}, divisors)
    assert spec.denominator is not None
    # The limit: the denominator that leaves the numerator looking worst.
    limit = max if spec.lower_is_better else min
    result = []
    for workers in sorted({w for (_, w, _) in values}):
        for variant in spec.numerator.variants or variants:
            for top in spec.numerator.tops:
                if spec.denominator.sum:
                    value = _sum_value(spec, values, variant, workers, top)
                    result += [value] if value is not None else []
                    continue
                against = [
                    value
                    for other in spec.denominator.variants or (variant,)
                    if (value := _value(spec, values, variant, other, workers, top)) is not None
                ]
                if against:
                    result.append(limit(against, key=lambda value: value.value))
    return result


def _best(values: Sequence[RatioValue], lowest: bool) -> list[RatioValue]:
    best: dict[int, RatioValue] = {}
    for value in values:
        held = best.get(value.workers)
        if held is None or (value.value < held.value if lowest else value.value > held.value):
            best[value.workers] = value
    return [best[workers] for workers in sorted(best)]


def goal_results(
    goals: Iterable[GoalSpec],
    values: Sequence[RatioValue],
    specs: Mapping[str, RatioSpec] | None = None,
) -> list[GoalResult]:
    """One result per judged value of each goal's ratio (or per best value: the lowest
    where `specs` says the ratio is a cost); a goal never measured gets one result
    without a value."""
    results: list[GoalResult] = []
    for goal in goals:
        matching = [v for v in values if v.ratio == goal.ratio and goal.judges(v)]
        if goal.best:
            spec = (specs or {}).get(goal.ratio)
            matching = _best(matching, spec is not None and spec.lower_is_better)
        results.extend(GoalResult(goal, value) for value in matching)
        if not matching:
            results.append(GoalResult(goal, None))
    return results
