"""PNG charts of a run (matplotlib, Agg): requests/s per endpoint and server, the total
time of counted bursts, latency percentiles per server, and one chart per table of the
write-up with its figures beside ours, each as a ratio to its own run's reference row
(absolute figures from two machines never share an axis). Every series of a chart has a
colour of its own, the legend sits outside the axes, and each bar carries its value. A
chart holds at most MAX_BARS bars (about 1,500 px tall): more rows are split over several
charts, keyed `<kind>:<part>` (rps:1, rps:2...), each a run of whole rows."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator
from PIL import Image

from servelab.bench.plan.matrix import Matrix
from servelab.bench.report.markdown import workers as _workers
from servelab.bench.report.ratios import client_bound
from servelab.bench.report.results import BenchRun, CellResult
from servelab.bench.report.writeup import WriteUp

_PERCENTILES = (("p50", "p50_ms"), ("p75", "p75_ms"), ("p90", "p90_ms"), ("p99", "p99_ms"))


def _colours(count: int) -> list[Any]:
    """`count` colours, none repeated: the qualitative tables while they last, then evenly
    spaced hues."""
    if count <= 10:
        return list(plt.get_cmap("tab10").colors)[:count]  # type: ignore[attr-defined]
    if count <= 20:
        return list(plt.get_cmap("tab20").colors)[:count]  # type: ignore[attr-defined]
    hues = plt.get_cmap("hsv")
    return [hues(index / count) for index in range(count)]


def _save(fig: Any, ax: Any, path: Path) -> Path:
    """The figure with its legend (where its series have names) to the right of the axes,
    never over the data."""
    if any(name for name in ax.get_legend_handles_labels()[1]):
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    drawn = io.BytesIO()
    fig.savefig(drawn, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    # A palette of 256 colours: a third of the bytes, the same chart to the eye.
    with Image.open(drawn) as image:
        image.convert("RGB").quantize(256).save(path, optimize=True)
    return path


# The most bars one chart holds (a row of a grouped chart counts as many bars as it has
# series, at least 2): 60 keep a chart under 1,600 px.
MAX_BARS = 60


def _grouped_barh(
    path: Path,
    title: str,
    xlabel: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    digits: int = 0,
) -> Path:
    height = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.22 * len(labels) * max(len(series), 2)))
    colours = _colours(len(series))
    for index, (name, values) in enumerate(series):
        positions = [row + index * height for row in range(len(labels))]
        bars = ax.barh(positions, values, height=height, label=name, color=colours[index])
        shown = [f"{value:,.{digits}f}" if value else "" for value in values]
        ax.bar_label(bars, labels=shown, fontsize=7, padding=2)
    ax.set_yticks([row + height * (len(series) - 1) / 2 for row in range(len(labels))])
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.margins(x=0.12)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, ax, path)


def _split_barh(
    kind: str,
    path: Path,
    title: str,
    xlabel: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    digits: int = 0,
) -> dict[str, Path]:
    """`_grouped_barh` over as many charts as keep each within MAX_BARS: `path` itself, keyed
    `kind`, where one does, else <stem>-1.png, <stem>-2.png..., keyed `kind:1`, `kind:2`...,
    each titled with its rows."""
    per_chart = max(1, MAX_BARS // max(len(series), 2))
    if len(labels) <= per_chart:
        return {kind: _grouped_barh(path, title, xlabel, labels, series, digits)} if labels else {}
    paths = {}
    for part, start in enumerate(range(0, len(labels), per_chart), 1):
        rows = slice(start, start + per_chart)
        chunk = [(name, list(values)[rows]) for name, values in series]
        shown = f"{title} — rows {start + 1}–{start + len(labels[rows])} of {len(labels)}"
        part_path = path.with_name(f"{path.stem}-{part}{path.suffix}")
        paths[f"{kind}:{part}"] = _grouped_barh(
            part_path, shown, xlabel, labels[rows], chunk, digits
        )
    return paths


def _measured(run: BenchRun) -> list[CellResult]:
    return [cell for cell in run.cells if cell.measurement is not None]


def _server(cell: CellResult, rate: bool) -> str:
    """A cell's row label: variant and workers as the run measured them; on a chart of
    requests/s (`rate`), a cell whose requests/s are the client's says so
    (report.ratios.client_bound)."""
    bound = " (client-bound)" if rate and client_bound(cell) else ""
    return f"{cell.variant}, {_workers(cell.workers)}{bound}"


# The charts of every cell: what each shows, whether more is better, its axis, its decimals.
_CELL_CHARTS = {
    "rps": ("successful requests/s", "more", "successful requests/s", 0),
    "cpu": ("server CPU per request", "less", "CPU µs per request", 0),
    "total": ("total time of each burst", "less", "seconds", 2),
}


def _cell_value(cell: CellResult, kind: str) -> float | None:
    """The cell's figure on a chart of `kind`: its successful requests/s where they say
    something (a constant-rate cell's are its offered rate), its server CPU per request,
    or the total time of a counted cell (hey's Total: how long the burst took)."""
    assert cell.measurement is not None
    if kind == "rps":
        return None if cell.load.arrival else cell.measurement.ok_rps
    if kind == "cpu":
        return cell.cpu_us_per_request
    return cell.measurement.elapsed_s if cell.load.counted else None


def cell_chart(run: BenchRun, kind: str, path: Path) -> dict[str, Path]:
    """One row per endpoint and server (variant and workers) with a figure of `kind`
    (_CELL_CHARTS), a single series: the rows of one endpoint together, the chart split
    between endpoints where it must be."""
    what, better, xlabel, digits = _CELL_CHARTS[kind]
    rows = [
        (cell, value) for cell in _measured(run) if (value := _cell_value(cell, kind)) is not None
    ]
    labels = [f"{cell.endpoint} | {_server(cell, kind == 'rps')}" for cell, _ in rows]
    title = f"{run.family}: {what} ({run.form}), {better} is better"
    return _split_barh(kind, path, title, xlabel, labels, [("", [v for _, v in rows])], digits)


def latency_chart(run: BenchRun, variant: str, workers: int, path: Path) -> dict[str, Path]:
    cells = [c for c in _measured(run) if (c.variant, c.workers) == (variant, workers)]
    series = [
        (name, [getattr(c.measurement, field) for c in cells if c.measurement is not None])
        for name, field in _PERCENTILES
    ]
    return _split_barh(
        f"latency:{variant}:{workers}",
        path,
        f"{run.family}: latency percentiles, {variant}, {_workers(workers)}",
        "milliseconds",
        [c.endpoint for c in cells],
        series,
        digits=1,
    )


# One table of the write-up: its rows (endpoint or server), its figure for each, ours.
_Row = tuple[str, float | None, float | None]


def _ours(run: BenchRun, variant: str, workers: int, endpoint: str) -> CellResult | None:
    """Our cell of `variant` at `endpoint`: with the write-up's number of workers where
    this run had it, else with the most this run had."""
    cells = [c for c in _measured(run) if (c.variant, c.endpoint) == (variant, endpoint)]
    if not cells:
        return None
    return next((c for c in cells if c.workers == workers), max(cells, key=lambda c: c.workers))


def _both(server: str, workers: int, ours: CellResult | None) -> str:
    """A row's label: the write-up's server and workers, and ours where they differ."""
    label = f"{server}, {_workers(workers)}"
    if ours is None or ours.workers == workers:
        return label
    return f"{label} (ours: {ours.variant}, {_workers(ours.workers)})"


def _tables(run: BenchRun, matrix: Matrix, write_up: WriteUp) -> list[tuple[str, list[_Row]]]:
    """The write-up's tables as it printed them: one per run (server and workers) where a
    run measured several endpoints, else one across its runs, row by row with ours."""
    variants: dict[str, str] = {}
    for variant in matrix.variants:
        if variant.write_up is not None:
            variants.setdefault(variant.write_up, variant.name)
    tables: list[tuple[str, list[_Row]]] = []
    single: list[_Row] = []
    for run_ in write_up.runs:
        figures = [
            f for f in write_up.figures if (f.server, f.workers) == (run_.server, run_.workers)
        ]
        mine = variants.get(run_.server)
        rows = [
            (
                f.endpoint if len(figures) > 1 else _both(run_.server, run_.workers, ours),
                f.ok_rps,
                ours.measurement.ok_rps if ours and ours.measurement else None,
            )
            for f in figures
            for ours in [_ours(run, mine, run_.workers, f.endpoint) if mine else None]
        ]
        if len(figures) > 1:
            tables.append((f"{run_.server}, {_workers(run_.workers)}", rows))
        else:
            single += rows
    if single:
        tables.append(("every server", single))
    return tables


def write_up_charts(
    run: BenchRun, matrix: Matrix, write_up: WriteUp, directory: Path
) -> dict[str, Path]:
    """One chart per table of the write-up, keyed `write-up:<table>`: requests/s of each
    row over the reference row's (the write-up's fastest row that this run measured too),
    each side over its own, the write-up's beside ours."""
    charts: dict[str, Path] = {}
    for index, (name, rows) in enumerate(_tables(run, matrix, write_up)):
        both = [row for row in rows if row[1] and row[2]]
        if not both:
            continue
        reference, their_base, our_base = max(both, key=lambda row: row[1] or 0.0)
        assert their_base and our_base
        theirs = [(t or 0.0) / their_base for _, t, _ in rows]
        ours = [(o or 0.0) / our_base for _, _, o in rows]
        charts |= _split_barh(
            f"write-up:{name}",
            directory / f"write-up-{index + 1}.png",
            f"{run.family}: {name}, requests/s over {reference}'s (1.0), each in its own run",
            f"successful requests/s ÷ {reference}'s in the same run",
            [label for label, _, _ in rows],
            [(f"write-up ({write_up.year})", theirs), (f"this run ({run.form})", ours)],
            digits=2,
        )
    return charts


def workers_chart(run: BenchRun, write_up: WriteUp, endpoint: str, path: Path) -> Path:
    """Requests/s against workers, one line per mode and server, as the write-up drew
    it: its lines and ours on two axes side by side (different machines)."""
    ours: dict[str, dict[int, float]] = {}
    for cell in _measured(run):
        if cell.endpoint == endpoint and cell.measurement is not None:
            ours.setdefault(cell.variant, {})[cell.workers] = cell.measurement.ok_rps
    theirs: dict[str, dict[int, float]] = {}
    for figure in write_up.figures:
        if figure.rps is not None:
            theirs.setdefault(figure.server, {})[figure.workers] = figure.rps
    colours = iter(_colours(len(ours) + len(theirs)))
    fig, (mine, published) = plt.subplots(1, 2, figsize=(13, 4.5))
    for axes, lines, title in (
        (mine, ours, f"this run ({run.machine.cpus} CPUs)"),
        (published, theirs, f"the write-up ({write_up.year})"),
    ):
        for name, points in lines.items():
            workers = sorted(points)
            rates = [points[count] for count in workers]
            axes.plot(workers, rates, marker="o", label=name, color=next(colours))
        axes.set_title(title)
        axes.set_xlabel("workers")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_ylabel("successful requests/s")
        axes.grid(alpha=0.3)
        axes.set_ylim(bottom=0)
    fig.suptitle(f"{run.family}: requests/s against workers, one line per mode and server")
    mine.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.0, -0.15), ncol=2)
    return _save(fig, published, path)


def write_charts(
    run: BenchRun,
    directory: Path,
    base: Path,
    matrix: Matrix | None = None,
    write_up: WriteUp | None = None,
) -> dict[str, str]:
    """Every chart of `run` under `directory`; keys: `rps`, `cpu` (where cells measured
    the server's CPU), `total` (where cells ran a counted shape),
    `latency:<variant>:<workers>`, and given the matrix and the write-up
    `write-up:<table>`, or `workers` where the matrix names a `[report] worker_curve`;
    values: paths relative to `base` (where the report lives)."""
    charts: dict[str, Path] = {}
    for kind in _CELL_CHARTS:
        charts.update(cell_chart(run, kind, directory / f"{kind}.png"))
    if matrix is not None and write_up is not None:
        if (curve := matrix.report.worker_curve) is not None:
            charts["workers"] = workers_chart(run, write_up, curve, directory / "workers.png")
        else:
            charts.update(write_up_charts(run, matrix, write_up, directory))
    for variant, count in dict.fromkeys((c.variant, c.workers) for c in _measured(run)):
        path = directory / f"latency-{variant}-w{count}.png"
        charts.update(latency_chart(run, variant, count, path))
    return {key: path.relative_to(base).as_posix() for key, path in charts.items()}
