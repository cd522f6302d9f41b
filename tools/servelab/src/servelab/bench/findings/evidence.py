"""What a verdict may rest on: a ratio's values, or a metric's per cell, each with its
spread over rounds, from the cells that can resolve a difference.

Two kinds of cell are left out, and said so: one with fewer than MIN_REQUESTS requests
(where one request is more than a quarter of the noise a verdict must clear: a cell of 10
requests moves by a tenth with one slow request), and, for requests/s, one where the client
set the pace (report.ratios.client_bound).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from servelab.bench.findings.spread import Spread
from servelab.bench.report.ratios import RATES, RatioValue, client_bound, ratio_values
from servelab.bench.report.results import ROUND_METRICS, BenchRun, CellResult
from servelab.project import Noise
from servelab.spec.matrix import Ratio, Side

MIN_REQUESTS = 40

# (ratio, variant, workers, endpoint)
_Key = tuple[str, str, int, str | None]
# (variant, workers)
Where = tuple[str, int]
K = TypeVar("K")


def _key(v: RatioValue) -> _Key:
    return (v.ratio, v.variant, v.workers, v.endpoint)


def workers(count: int) -> str:
    return f"{count} worker" + ("" if count == 1 else "s")


@dataclass(frozen=True)
class Estimate:
    """One value of a ratio (its median over rounds) and its spread."""

    value: RatioValue
    spread: Spread

    @property
    def key(self) -> _Key:
        return _key(self.value)


@dataclass(frozen=True)
class LeftOut:
    variant: str
    workers: int
    endpoint: str
    why: str

    @property
    def cell(self) -> str:
        return f"{self.variant}, {workers(self.workers)}, {self.endpoint}"


def _why_not(cell: CellResult, metric: str) -> str | None:
    assert cell.measurement is not None
    if cell.measurement.requests < MIN_REQUESTS:
        return f"{cell.measurement.requests} requests, too few"
    return client_bound(cell) if metric in RATES else None


def usable(run: BenchRun, metric: str) -> tuple[BenchRun, list[LeftOut]]:
    """`run` with only the measured cells that can resolve `metric`, and those left out."""
    kept, left = [], []
    for cell in run.cells:
        if cell.measurement is None:
            continue
        why = _why_not(cell, metric)
        if why is None:
            kept.append(cell)
        else:
            left.append(LeftOut(cell.variant, cell.workers, cell.endpoint, why))
    return replace(run, cells=tuple(kept)), left


def _touches(side: Side | None, variants: Sequence[str], out: LeftOut) -> bool:
    """Whether a ratio's side reads the left-out cell: its variant and its endpoint."""
    if side is None or out.variant not in (side.variants or variants):
        return False
    if side.endpoint is not None:
        return out.endpoint == side.endpoint
    if side.endpoints:
        return out.endpoint in side.endpoints
    return side.combines(out.endpoint)


def _relevant(spec: Ratio, variants: Sequence[str], left: Iterable[LeftOut]) -> list[LeftOut]:
    """The left-out cells either side of the ratio would have read."""
    return [
        out
        for out in left
        if _touches(spec.numerator, variants, out) or _touches(spec.denominator, variants, out)
    ]


def estimates(
    spec: Ratio, run: BenchRun, variants: Sequence[str], noise: Noise
) -> tuple[list[Estimate], list[LeftOut]]:
    """The ratio's values in `run` with their spreads: over the rounds' ratios where the
    cells ran rounds (both sides of each round measured in the same pass), else the value
    measured once with its noise band (one cell's, or a ratio of two cells')."""
    kept, left = usable(run, spec.metric)
    settings = kept.settings()
    rounds = [] if spec.per_cell else kept.round_values(spec.metric)
    found: list[Estimate] = []
    if rounds:
        by_key: dict[_Key, list[RatioValue]] = {}
        for round_ in rounds:
            for value in ratio_values(spec, round_, variants, settings):
                by_key.setdefault(_key(value), []).append(value)
        for each in by_key.values():
            most = max(value.pairs for value in each)
            same = [value.value for value in each if value.pairs == most]
            spread = Spread.of(same, noise.once)
            found.append(Estimate(replace(each[0], value=spread.value, pairs=most), spread))
    else:
        over = spec.denominator.metric if spec.denominator is not None else None
        divisors = kept.values(over) if over else None
        once = ratio_values(spec, kept.values(spec.metric), variants, settings, divisors)
        band = noise.once if spec.per_cell else noise.ratio
        found = [Estimate(v, Spread.once(v.value, band)) for v in once]
    return found, _relevant(spec, variants, left)


def _over_runs(
    per_run: Sequence[tuple[Mapping[K, Spread], Sequence[LeftOut]]],
) -> tuple[dict[K, Spread], tuple[LeftOut, ...]]:
    """Each key's spread over every run that has it, and every cell left out of any run."""
    found: dict[K, Spread] = {}
    for spreads, _ in per_run:
        for key, spread in spreads.items():
            found[key] = found[key].merge(spread) if key in found else spread
    return found, tuple(dict.fromkeys(out for _, outs in per_run for out in outs))


def across_runs(
    spec: Ratio, runs: Sequence[BenchRun], variants: Sequence[str], noise: Noise
) -> tuple[list[Estimate], tuple[LeftOut, ...]]:
    """The ratio's estimates over every run, each value's spread over the runs that have
    it, and every cell left out of any run."""
    per_run = [estimates(spec, run, variants, noise) for run in runs]
    first = {e.key: e.value for found, _ in reversed(per_run) for e in found}
    spreads, left = _over_runs(
        [({e.key: e.spread for e in found}, outs) for found, outs in per_run]
    )
    return [Estimate(replace(first[k], value=s.value), s) for k, s in spreads.items()], left


def cell_spreads(
    run: BenchRun, metric: str, endpoint: str, variants: Sequence[str] | None, noise: Noise
) -> tuple[dict[Where, Spread], list[LeftOut]]:
    """`metric` of each usable cell at `endpoint` (of `variants`, None: all), with its
    spread over the cell's rounds (ROUND_METRICS), else its noise band."""
    kept, left = usable(run, metric)
    rounds = (
        kept.round_values(metric)
        if metric in ROUND_METRICS and kept.rounds > 1
        else [kept.values(metric)]
    )
    found: dict[Where, Spread] = {}
    for cell in kept.cells:
        if cell.endpoint != endpoint or (variants is not None and cell.variant not in variants):
            continue
        measured = [value for values in rounds if (value := values.get(cell.key))]
        if measured:
            found[(cell.variant, cell.workers)] = Spread.of(measured, noise.once)
    mine = [
        out
        for out in left
        if out.endpoint == endpoint and (variants is None or out.variant in variants)
    ]
    return found, mine


def cells_across_runs(
    runs: Sequence[BenchRun],
    metric: str,
    endpoint: str,
    variants: Sequence[str] | None,
    noise: Noise,
) -> tuple[dict[Where, Spread], tuple[LeftOut, ...]]:
    """`cell_spreads` over every run, each cell's spread over the runs that have it."""
    return _over_runs([cell_spreads(run, metric, endpoint, variants, noise) for run in runs])
