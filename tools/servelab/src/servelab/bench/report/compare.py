"""`servelab compare A.json B.json`: two saved runs of one family side by side.

Cell by cell (successful requests/s, p99, server CPU per request) and ratio by ratio (the
matrix's ratio specs computed on each run), each figure as A, B and B/A, with the ones
that moved by more than the noise flagged. The default noise, 10%, is the spread seen
between two runs of the same quick command on the development machine, and the goal's
bar for a headline ratio that repeats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from servelab.bench.errors import BenchError
from servelab.bench.plan.matrix import Matrix
from servelab.bench.report.ratios import Key, RatioValue
from servelab.bench.report.results import BenchRun, CellResult
from servelab.bench.report.run_ratios import run_ratio_values

NOISE = 0.10
# What the cell table compares: a column name and how to read it off a cell.
CELL_METRICS = ("ok_rps", "p99_ms", "cpu_us")
MOVED = "moved"


@dataclass(frozen=True)
class Change:
    a: float | None
    b: float | None

    @property
    def factor(self) -> float | None:
        """B/A; None where either is missing or A is 0."""
        if self.a is None or self.b is None or self.a == 0:
            return None
        return self.b / self.a

    def moved(self, noise: float) -> bool:
        factor = self.factor
        return factor is not None and abs(factor - 1.0) > noise


@dataclass(frozen=True)
class Line:
    """One row: what it is (cell, or ratio and where), and each figure's change."""

    names: tuple[str, ...]
    changes: tuple[Change, ...]

    def moved(self, noise: float) -> bool:
        return any(change.moved(noise) for change in self.changes)


def _cell_metric(cell: CellResult, metric: str) -> float | None:
    if metric == "cpu_us":
        return cell.cpu_us_per_request
    if cell.measurement is None:
        return None
    return cell.measurement.metric(metric)


def cell_lines(a: BenchRun, b: BenchRun) -> list[Line]:
    """Every cell of either run, A's order first, with each CELL_METRICS change."""
    cells_a = {cell.key: cell for cell in a.cells}
    cells_b = {cell.key: cell for cell in b.cells}
    keys: list[Key] = list(dict.fromkeys([*cells_a, *cells_b]))
    lines = []
    for key in keys:
        variant, workers, endpoint = key
        changes = tuple(
            Change(
                _cell_metric(cells_a[key], metric) if key in cells_a else None,
                _cell_metric(cells_b[key], metric) if key in cells_b else None,
            )
            for metric in CELL_METRICS
        )
        lines.append(Line((variant, str(workers), endpoint), changes))
    return lines


def _ratios(matrix: Matrix, run: BenchRun) -> dict[tuple[str, str, int], float]:
    names = [variant.name for variant in matrix.variants]
    found: list[RatioValue] = []
    for spec in matrix.ratios:
        found += run_ratio_values(spec, run, names)
    return {(value.ratio, value.where, value.workers): value.value for value in found}


def ratio_lines(matrix: Matrix, a: BenchRun, b: BenchRun) -> list[Line]:
    """Each value of each of the matrix's ratios that either run has."""
    values_a, values_b = _ratios(matrix, a), _ratios(matrix, b)
    return [
        Line((ratio, where, str(workers)), (Change(values_a.get(key), values_b.get(key)),))
        for key in dict.fromkeys([*values_a, *values_b])
        for ratio, where, workers in [key]
    ]


def check_comparable(a: BenchRun, b: BenchRun) -> None:
    if a.family != b.family:
        raise BenchError(f"A is a {a.family!r} run and B a {b.family!r} run: nothing to pair")


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _factor(change: Change) -> str:
    factor = change.factor
    return "-" if factor is None else f"{factor:.2f}x"


def _rows(lines: Sequence[Line], noise: float) -> list[list[str]]:
    return [
        [
            *line.names,
            *(
                text
                for change in line.changes
                for text in (_number(change.a), _number(change.b), _factor(change))
            ),
            MOVED if line.moved(noise) else "",
        ]
        for line in lines
    ]


def _header(names: Sequence[str], figures: Sequence[str]) -> list[str]:
    return [
        *names,
        *(f"{figure} {side}" for figure in figures for side in ("A", "B", "B/A")),
        "flag",
    ]


def _text(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i < 3 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), line(["-" * width for width in widths]), *map(line, rows)])


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def render(
    matrix: Matrix, a: BenchRun, b: BenchRun, *, noise: float = NOISE, markdown: bool = False
) -> str:
    """Both tables, as aligned text for a terminal or as Markdown."""
    check_comparable(a, b)
    table = _markdown if markdown else _text
    cells = cell_lines(a, b)
    ratios = ratio_lines(matrix, a, b)
    moved = sum(line.moved(noise) for line in [*cells, *ratios])
    title = "## " if markdown else ""
    parts = [
        f"{title}{a.family}: A = {a.form} run of {a.started}, B = {b.form} run of {b.started}",
        f"`{MOVED}`: a figure changed by more than {noise:.0%} (B/A below "
        f"{1 - noise:.2f} or above {1 + noise:.2f}); {moved} row(s) moved.",
        f"{title}Cells (cpu_us: server CPU µs per request)",
        table(_header(("variant", "workers", "endpoint"), CELL_METRICS), _rows(cells, noise)),
        f"{title}Ratios",
        table(_header(("ratio", "where", "workers"), ("value",)), _rows(ratios, noise)),
    ]
    return "\n\n".join(parts) + "\n"
