"""PNG charts of a run (matplotlib, Agg): requests/s per endpoint and server, the total
time of counted bursts, and latency percentiles per server."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from servelab.bench.results import BenchRun, CellResult

_PERCENTILES = (("p50", "p50_ms"), ("p75", "p75_ms"), ("p90", "p90_ms"), ("p99", "p99_ms"))


def _grouped_barh(
    path: Path,
    title: str,
    xlabel: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
) -> Path:
    height = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.22 * len(labels) * max(len(series), 2)))
    for index, (name, values) in enumerate(series):
        positions = [row + index * height for row in range(len(labels))]
        ax.barh(positions, values, height=height, label=name)
    ax.set_yticks([row + height * (len(series) - 1) / 2 for row in range(len(labels))])
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _measured(run: BenchRun) -> list[CellResult]:
    return [cell for cell in run.cells if cell.measurement is not None]


def _metric_chart(
    cells: Sequence[CellResult], metric: str, path: Path, title: str, xlabel: str
) -> Path:
    endpoints = list(dict.fromkeys(cell.endpoint for cell in cells))
    servers = list(dict.fromkeys((cell.variant, cell.workers) for cell in cells))
    values = {
        (c.variant, c.workers, c.endpoint): c.measurement.metric(metric) or 0.0
        for c in cells
        if c.measurement is not None
    }
    series = [
        (f"{variant} w{workers}", [values.get((variant, workers, e), 0.0) for e in endpoints])
        for variant, workers in servers
    ]
    return _grouped_barh(path, title, xlabel, endpoints, series)


def rps_chart(run: BenchRun, path: Path) -> Path:
    return _metric_chart(
        _measured(run), "rps", path, f"{run.family}: requests/s ({run.form})", "requests/s"
    )


def total_chart(run: BenchRun, path: Path) -> Path:
    """The total time of every counted cell (hey's Total): how long the burst took."""
    cells = [cell for cell in _measured(run) if cell.load.counted]
    title = f"{run.family}: total time of each burst ({run.form})"
    return _metric_chart(cells, "elapsed_s", path, title, "seconds")


def latency_chart(run: BenchRun, variant: str, workers: int, path: Path) -> Path:
    cells = [c for c in _measured(run) if (c.variant, c.workers) == (variant, workers)]
    series = [
        (name, [getattr(c.measurement, field) for c in cells if c.measurement is not None])
        for name, field in _PERCENTILES
    ]
    return _grouped_barh(
        path,
        f"{run.family}: latency percentiles, {variant} w{workers}",
        "milliseconds",
        [c.endpoint for c in cells],
        series,
    )


def write_charts(run: BenchRun, directory: Path, base: Path) -> dict[str, str]:
    """Every chart of `run` under `directory`; keys: `rps`, `total` (where cells ran a
    counted shape), `latency:<variant>:<workers>`;
    values: paths relative to `base` (where the report lives)."""
    charts = {"rps": rps_chart(run, directory / "rps.png")}
    if any(cell.load.counted for cell in _measured(run)):
        charts["total"] = total_chart(run, directory / "total.png")
    for variant, workers in dict.fromkeys((c.variant, c.workers) for c in _measured(run)):
        charts[f"latency:{variant}:{workers}"] = latency_chart(
            run, variant, workers, directory / f"latency-{variant}-w{workers}.png"
        )
    return {key: path.relative_to(base).as_posix() for key, path in charts.items()}
