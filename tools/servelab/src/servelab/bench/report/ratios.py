"""Ratios of cells measured in one run, and the goals stated as ratios.

Absolute requests/s depend on the machine (and on k6 sharing it); the ratio of two cells
measured in the same run carries across machines, so the reports compare those with the
write-up's. What a ratio divides, and by what, is servelab.spec.matrix.Ratio's to say.

A cell whose load generator set the pace is client-bound (k6 costs several times wrk's CPU
per request and can use up its CPUs before the server does): its requests/s enter no
ratio; its server CPU per request, counted per request served, still does.

With rounds (bench.load.rounds) each cell keeps its median round, but the two sides of a
ratio may keep rounds measured minutes apart, and a virtual machine's speed drifts by a
fifth over minutes. Both sides of one round were measured in the same pass over the matrix,
so a ratio of CPU per request or of successful requests/s (the metrics a cell records round
by round) is the median of its rounds' values, in which that drift cancels; any other
metric, and a ratio over the cell's own setting or metric, reads the median rounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import geometric_mean, median

from servelab.bench.report.results import BenchRun, CellResult
from servelab.spec.matrix import Goal, Key, Ratio

# One metric of every cell measured.
Values = Mapping[Key, float]
# The settings each cell's server ran with.
Settings = Mapping[Key, Mapping[str, str]]

# k6 used at least this share of the CPUs it was given.
BUSY = 0.8
# Or a write-up's own tool (wrk, ab, hey) on the same cell got at least this many times
# k6's requests/s: more than two repeat runs' noise apart.
OUTPACED = 1.25
# The metrics that are rates, which a saturated client caps.
RATES = frozenset({"ok_rps", "rps"})


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
    goal: Goal
    value: RatioValue | None

    @property
    def met(self) -> bool:
        low, high = self.goal.minimum, self.goal.maximum
        value = None if self.value is None else self.value.value
        return (
            value is not None and (low is None or value >= low) and (high is None or value <= high)
        )


def _shown(spec: Ratio, top: str | None) -> str | None:
    """The endpoint a value names: its own where the numerator lists several."""
    return top if len(spec.numerator.tops) > 1 else None


def _value(
    spec: Ratio, values: Values, variant: str, other: str, workers: int, top: str | None
) -> RatioValue | None:
    """`variant`'s cells over `other`'s: at the endpoints the sides name, else the geometric
    mean over every endpoint both ran that the numerator combines."""
    assert spec.denominator is not None
    theirs_w, bottom = spec.denominator.workers or workers, spec.denominator.endpoint
    if top or bottom:
        pairs = [(top or bottom or "", bottom or top or "")]
    else:
        mine = {e for (v, w, e) in values if (v, w) == (variant, workers)}
        theirs = {e for (v, w, e) in values if (v, w) == (other, theirs_w)}
        pairs = [(e, e) for e in sorted(mine & theirs) if spec.numerator.combines(e)]
    quotients = [
        numerator / denominator
        for mine_e, theirs_e in pairs
        if (numerator := values.get((variant, workers, mine_e)))
        and (denominator := values.get((other, theirs_w, theirs_e)))
    ]
    if not quotients:
        return None
    mean = geometric_mean(quotients)
    return RatioValue(spec.name, variant, workers, mean, len(quotients), _shown(spec, top))


def _sum_value(
    spec: Ratio, values: Values, variant: str, workers: int, top: str | None
) -> RatioValue | None:
    """The numerator's cell over the sum of the parts' cells; None unless every part
    ran and measured something."""
    assert spec.denominator is not None
    numerator = values.get((variant, workers, top or ""))
    parts = [values.get(part.key(variant, workers)) or 0.0 for part in spec.denominator.sum]
    if not numerator or not all(parts):
        return None
    return RatioValue(spec.name, variant, workers, numerator / sum(parts), 1, _shown(spec, top))


def _divisor(spec: Ratio, settings: Settings, key: Key, divisors: Values | None) -> float | None:
    """What a per-cell ratio divides the cell's value by: 1, its other metric, its setting."""
    bottom = spec.denominator
    if bottom is None:
        return 1.0
    if bottom.metric is not None:
        return (divisors or {}).get(key)
    setting = settings.get(key, {}).get(bottom.setting or "")
    return float(setting) if setting else None


def _cell_values(
    spec: Ratio,
    values: Values,
    variants: Sequence[str],
    settings: Settings,
    divisors: Values | None,
) -> list[RatioValue]:
    one_endpoint = spec.numerator.endpoint
    return [
        RatioValue(spec.name, variant, workers, value / divisor, 1, None if one_endpoint else e)
        for variant in spec.numerator.variants or variants
        for key, value in values.items()
        for name, workers, e in [key]
        if name == variant
        and one_endpoint in (None, e)
        and (divisor := _divisor(spec, settings, key, divisors))
    ]


def ratio_values(
    spec: Ratio,
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


def _judges(goal: Goal, value: RatioValue) -> bool:
    variant = goal.variants is None or value.variant in goal.variants
    workers = goal.workers is None or value.workers in goal.workers
    return variant and workers and goal.endpoint in (None, value.endpoint)


def goal_results(
    goals: Iterable[Goal],
    values: Sequence[RatioValue],
    specs: Mapping[str, Ratio] | None = None,
) -> list[GoalResult]:
    """One result per judged value of each goal's ratio (or per best value, per number of
    workers: the highest, the lowest where `specs` says the ratio is a cost); a goal never
    measured gets one result without a value."""
    results: list[GoalResult] = []
    for goal in goals:
        matching = [v for v in values if v.ratio == goal.ratio and _judges(goal, v)]
        if goal.best:
            spec = (specs or {}).get(goal.ratio)
            best = min if spec is not None and spec.lower_is_better else max
            counts = sorted({value.workers for value in matching})
            groups = ([v for v in matching if v.workers == count] for count in counts)
            matching = [best(group, key=lambda value: value.value) for group in groups]
        results.extend(GoalResult(goal, value) for value in matching)
        if not matching:
            results.append(GoalResult(goal, None))
    return results


def client_bound(cell: CellResult) -> str | None:
    """Why the cell's requests/s are the client's, or None where they are the server's."""
    if cell.measurement is None:
        return None
    if cell.k6_load >= BUSY:
        return f"k6 at {cell.k6_load:.0%} of its CPUs"
    rps = cell.measurement.rps
    faster = [tool for tool in cell.tools if rps and tool.rps >= OUTPACED * rps]
    if faster:
        best = max(faster, key=lambda tool: tool.rps)
        return f"{best.tool} {best.rps:,.0f}/s against k6's {rps:,.0f}/s"
    return None


def run_ratio_values(spec: Ratio, run: BenchRun, variants: Sequence[str]) -> list[RatioValue]:
    """The ratio's values in `run`, for the numerator `variants` (ratio_values), without
    the client-bound cells where its metric is a rate."""
    if spec.metric in RATES:
        run = replace(run, cells=tuple(c for c in run.cells if client_bound(c) is None))
    settings = run.settings()
    rounds = [] if spec.per_cell else run.round_values(spec.metric)
    if rounds:
        return _medians([ratio_values(spec, values, variants, settings) for values in rounds])
    over = spec.denominator.metric if spec.denominator is not None else None
    divisors = run.values(over) if over else None
    return ratio_values(spec, run.values(spec.metric), variants, settings, divisors)


def _medians(per_round: Sequence[Sequence[RatioValue]]) -> list[RatioValue]:
    """One value per variant, workers and endpoint: the median of the rounds that measured
    every pair it combines. A geometric mean over endpoints of which some run more rounds
    (the steady cells) thus keeps the rounds that ran them all, rather than mixing in
    rounds where only the steady ones ran."""
    found: dict[tuple[str, int, str | None], list[RatioValue]] = {}
    for values in per_round:
        for value in values:
            found.setdefault((value.variant, value.workers, value.endpoint), []).append(value)
    kept = [
        [value for value in each if value.pairs == max(v.pairs for v in each)]
        for each in found.values()
    ]
    return [replace(each[0], value=median(value.value for value in each)) for each in kept]
