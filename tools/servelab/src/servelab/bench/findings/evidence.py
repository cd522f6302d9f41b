"""What a verdict may rest on, from one run: a ratio's values, or a metric's per cell, each
with its interval over the run's rounds, from the cells that can resolve a difference.

A ratio that the report gives as a geometric mean over several endpoints is taken here
endpoint by endpoint, so that each endpoint is a cell of its own that a winner must carry.
A value measured in one round only is kept apart (`once`): shown, never judged.

Three kinds of cell are left out, and said so: one with fewer than MIN_REQUESTS requests
(where one slow request moves the cell by more than a verdict's margin), for requests/s one
where the client set the pace (report.ratios.client_bound), and for CPU per request one
where more than MAX_FAILED of the answers failed (its CPU went to cheap refusals, not the
job).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from servelab.bench.findings.spread import Spread
from servelab.bench.measure.summary import CPU_US
from servelab.bench.report.ratios import RATES, RatioValue, client_bound, ratio_values
from servelab.bench.report.results import BenchRun, CellResult
from servelab.spec.matrix import Key, Ratio, Side

MIN_REQUESTS = 40
MAX_FAILED = 0.05

# (ratio, variant, workers, endpoint)
_Key = tuple[str, str, int, str | None]
# (variant, workers)
Where = tuple[str, int]


def _key(v: RatioValue) -> _Key:
    return (v.ratio, v.variant, v.workers, v.endpoint)


def workers(count: int) -> str:
    return f"{count} worker" + ("" if count == 1 else "s")


def where(value: RatioValue) -> str:
    return f"{value.where}, {workers(value.workers)}"


@dataclass(frozen=True)
class Estimate:
    """One value of a ratio and its interval over the run's rounds."""

    value: RatioValue
    spread: Spread

    @property
    def where(self) -> str:
        return where(self.value)


@dataclass(frozen=True)
class LeftOut:
    variant: str
    workers: int
    endpoint: str
    why: str

    @property
    def cell(self) -> str:
        return f"{self.variant}, {workers(self.workers)}, {self.endpoint}"


@dataclass(frozen=True)
class Found:
    """A ratio's values in one run: those with an interval, those measured in one round
    only, and the cells left out that either side would have read."""

    estimates: tuple[Estimate, ...]
    once: tuple[RatioValue, ...]
    left: tuple[LeftOut, ...]


def _why_not(cell: CellResult, metric: str) -> str | None:
    assert cell.measurement is not None
    if cell.measurement.requests < MIN_REQUESTS:
        return f"{cell.measurement.requests} requests, too few"
    if metric == CPU_US and cell.measurement.failed_rate > MAX_FAILED:
        return f"{cell.measurement.failed_rate:.0%} of the answers failed: CPU spent on refusals"
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


def _per_endpoint(spec: Ratio, run: BenchRun) -> list[tuple[Ratio, str | None]]:
    """The ratio as the report has it, or, where it is a mean over shared endpoints, one
    ratio per endpoint it would combine (each named by its endpoint)."""
    top, bottom = spec.numerator, spec.denominator
    if bottom is None or top.endpoint or top.endpoints or bottom.endpoint or bottom.sum:
        return [(spec, None)]
    names = sorted({cell.endpoint for cell in run.cells if top.combines(cell.endpoint)})
    one = [top.model_copy(update={"endpoint": name, "only": (), "skip": ()}) for name in names]
    return [(spec.model_copy(update={"numerator": side}), side.endpoint) for side in one]


def _round_values(run: BenchRun, metric: str) -> list[dict[Key, float]]:
    """Each round's values of `metric`; a run of one round as its only round."""
    return run.round_values(metric) or [run.values(metric)]


def estimates(spec: Ratio, run: BenchRun, variants: Sequence[str]) -> Found:
    """The ratio's values in `run`, each with its interval over the rounds in which both of
    its sides were measured (the same pass over the matrix)."""
    kept, left = usable(run, spec.metric)
    settings = kept.settings()
    rounds = _round_values(kept, spec.metric)
    over = spec.denominator.metric if spec.denominator is not None else None
    divisors = kept.values(over) if over else None
    found: list[Estimate] = []
    once: list[RatioValue] = []
    for each, endpoint in _per_endpoint(spec, kept):
        by_key: dict[_Key, list[RatioValue]] = {}
        for round_ in rounds:
            for value in ratio_values(each, round_, variants, settings, divisors):
                value = replace(value, endpoint=endpoint or value.endpoint)
                by_key.setdefault(_key(value), []).append(value)
        for values in by_key.values():
            spread = Spread.of([value.value for value in values])
            if spread is None:
                once.append(values[0])
            else:
                found.append(Estimate(replace(values[0], value=spread.value), spread))
    relevant = [
        out
        for out in left
        if _touches(spec.numerator, variants, out) or _touches(spec.denominator, variants, out)
    ]
    return Found(tuple(found), tuple(once), tuple(relevant))


@dataclass(frozen=True)
class Cells:
    """One metric of the usable cells at one endpoint, each cell's values round by round
    (None where a round did not measure it), and the cells left out."""

    rounds: dict[Where, tuple[float | None, ...]]
    left: tuple[LeftOut, ...]

    def spread(self, cell: Where) -> Spread | None:
        return Spread.of([value for value in self.rounds[cell] if value])

    def against(self, cell: Where, other: Where) -> Spread | None:
        """`cell` over `other`, round by round."""
        return Spread.ratio(self.rounds[cell], self.rounds[other])


def cells(run: BenchRun, metric: str, endpoint: str, variants: Sequence[str] | None) -> Cells:
    """`metric` of each usable cell at `endpoint` (of `variants`, None: all)."""
    kept, left = usable(run, metric)
    rounds = _round_values(kept, metric)
    found: dict[Where, tuple[float | None, ...]] = {}
    for cell in kept.cells:
        if cell.endpoint != endpoint or (variants is not None and cell.variant not in variants):
            continue
        measured = tuple(values.get(cell.key) for values in rounds)
        if any(measured):
            found[(cell.variant, cell.workers)] = measured
    mine = tuple(
        out
        for out in left
        if out.endpoint == endpoint and (variants is None or out.variant in variants)
    )
    return Cells(found, mine)
