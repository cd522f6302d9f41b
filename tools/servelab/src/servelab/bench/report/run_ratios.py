"""A run's values of a ratio: with rounds (bench.load.rounds), the median of its round-by-round
values. A ratio of requests/s leaves out the cells where the client set the pace
(report.client_bound).

Each cell keeps its median round, but the two sides of a ratio may keep different rounds,
measured minutes apart: on a virtual machine whose speed drifts by a fifth over minutes,
the quotient of two medians then carries that drift. Both sides of a round-by-round ratio
were measured in the same pass over the matrix, so a drift between rounds cancels, and the
median of the rounds' ratios is what a ratio of CPU per request or of successful
requests/s reports (the metrics the cells record round by round). Cells of a shape with
more rounds (the steady ones) give the ratios that read only such cells more values. Any
other metric, and a ratio over the cell's own setting or metric, is read from the cells'
median rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from servelab.bench.report import client_bound
from servelab.bench.report.ratios import RatioSpec, RatioValue, ratio_values
from servelab.bench.report.results import BenchRun

# What names one value of a ratio across rounds.
_Where = tuple[str, int, str | None]


def run_ratio_values(spec: RatioSpec, run: BenchRun, variants: Sequence[str]) -> list[RatioValue]:
    """The ratio's values in `run`, for the numerator `variants` (ratios.ratio_values)."""
    run = client_bound.for_metric(run, spec.metric)
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
    found: dict[_Where, list[RatioValue]] = {}
    for values in per_round:
        for value in values:
            found.setdefault((value.variant, value.workers, value.endpoint), []).append(value)
    kept = [
        [value for value in each if value.pairs == most]
        for each in found.values()
        for most in [max(value.pairs for value in each)]
    ]
    return [
        RatioValue(
            first.ratio,
            first.variant,
            first.workers,
            median(value.value for value in each),
            first.pairs,
            first.endpoint,
        )
        for each in kept
        for first in [each[0]]
    ]
