"""Charts: the write-up's tables beside ours as ratios labelled with what each side ran,
health-code's curves against workers, no colour used twice in one chart, and none taller
than 1,600 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.image
import pytest

from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.charts import _colours, _tables, write_charts
from servelab.bench.report.results import load_run, run_from_json
from servelab.bench.report.writeup import load_write_up
from servelab.project import Project
from servelab.testing.records import run_record


def _cell(variant: str, endpoint: str, server_cpu_s: float | None) -> dict[str, Any]:
    measured = {
        "requests": 3000,
        "rps": 1000.0,
        "avg_ms": 10.0,
        "p50_ms": 9.0,
        "p75_ms": 11.0,
        "p90_ms": 12.0,
        "p99_ms": 20.0,
        "max_ms": 30.0,
        "failed_rate": 0.0,
        "checks_rate": 1.0,
        "errors": {},
    }
    return {
        "variant": variant,
        "workers": 1,
        "endpoint": endpoint,
        "script": "upload.js",
        "env": {},
        "pinning": "server on CPU 1, k6 on CPU 0",
        "commands": {},
        "k6_cpu_s": 1.0,
        "k6_wall_s": 4.0,
        "k6_cpus": 1,
        "wall_s": 5.0,
        "measurement": measured,
        "server_cpu_s": server_cpu_s,
    }


def _run(cpu: float | None) -> dict[str, Any]:
    load = {"vus": 100, "duration_s": 3.0, "warmup_s": 1.0}
    cells = [_cell("uvicorn", "POST /files raw", cpu), _cell("gunicorn", "POST /files raw", cpu)]
    return run_record("files", load, cells)


def test_no_colour_is_used_twice_in_a_chart() -> None:
    for count in (1, 10, 14, 20, 33):
        colours = [tuple(colour) for colour in _colours(count)]
        assert len(colours) == count
        assert len(set(colours)) == count


@pytest.mark.heavy  # draws every write-up table's chart
def test_each_write_up_table_gets_a_chart_beside_ours(project_root: Path, tmp_path: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    write_up = load_write_up(project_root / matrix.write_up)
    run = load_run(project_root / "docs" / "results" / "files.json")
    charts = write_charts(run, tmp_path / "files", tmp_path, matrix, write_up)
    # The write-up printed one table per server and number of workers.
    assert sorted(key for key in charts if key.startswith("write-up:")) == [
        "write-up:gunicorn, 1 worker",
        "write-up:gunicorn, 40 workers",
        "write-up:uvicorn, 1 worker",
        "write-up:uvicorn, 40 workers",
    ]
    for key, path in charts.items():
        assert (tmp_path / path).read_bytes().startswith(b"\x89PNG"), key


@pytest.mark.heavy  # draws every chart of a health-code run
def test_health_code_is_drawn_against_workers(project_root: Path, tmp_path: Path) -> None:
    matrix = load_matrix(Project(project_root), "health-code")
    write_up = load_write_up(project_root / matrix.write_up)
    run = load_run(project_root / "docs" / "results" / "health-code.json")
    charts = write_charts(run, tmp_path / "hc", tmp_path, matrix, write_up)
    assert charts["workers"] == "hc/workers.png"
    assert not any(key.startswith("write-up:") for key in charts)


def test_cpu_per_request_is_drawn_where_it_was_measured(tmp_path: Path) -> None:
    charts = write_charts(run_from_json(_run(0.3)), tmp_path / "files", tmp_path)
    assert charts["cpu"] == "files/cpu.png"
    assert (tmp_path / "files" / "cpu.png").read_bytes().startswith(b"\x89PNG")
    assert "cpu" not in write_charts(run_from_json(_run(None)), tmp_path / "old", tmp_path)


@pytest.mark.heavy  # draws charts of hundreds of rows
def test_many_rows_are_split_so_that_no_chart_is_taller_than_1600_px(tmp_path: Path) -> None:
    load = {"vus": 100, "duration_s": 3.0, "warmup_s": 1.0}
    cells = [
        _cell(server, f"GET /e{index}", 1.5)
        for index in range(40)
        for server in ("uvicorn", "gunicorn")
    ]
    charts = write_charts(run_from_json(run_record("files", load, cells)), tmp_path / "f", tmp_path)
    parts = sorted(key for key in charts if key.startswith("rps"))
    assert parts == ["rps:1", "rps:2", "rps:3"]
    for path in charts.values():
        assert matplotlib.image.imread(tmp_path / path).shape[0] <= 1600, path


def test_a_write_up_row_names_our_workers_where_they_differ(
    project_root: Path, tmp_path: Path
) -> None:
    matrix = load_matrix(Project(project_root), "hello")
    write_up = load_write_up(project_root / matrix.write_up)
    load = {"vus": 400, "duration_s": 3.0, "warmup_s": 1.0}
    run = run_from_json(run_record("hello", load, [_cell("gunicorn-sync", "GET /hello", 1.0)]))
    rows = [label for _, table in _tables(run, matrix, write_up) for label, _, _ in table]
    assert "gunicorn-sync, 8 workers (ours: gunicorn-sync, 1 worker)" in rows
