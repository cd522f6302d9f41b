"""Charts: the write-up's tables beside ours as ratios, health-code's curves against
workers, and no colour used twice in one chart."""

from __future__ import annotations

from pathlib import Path

from servelab.bench.charts import _colours, write_charts
from servelab.bench.matrix import load_matrix
from servelab.bench.results import load_run
from servelab.bench.writeup import load_write_up


def test_no_colour_is_used_twice_in_a_chart() -> None:
    for count in (1, 10, 14, 20, 33):
        colours = [tuple(colour) for colour in _colours(count)]
        assert len(colours) == count
        assert len(set(colours)) == count


def test_each_write_up_table_gets_a_chart_beside_ours(project_root: Path, tmp_path: Path) -> None:
    matrix = load_matrix(project_root, "files")
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


def test_health_code_is_drawn_against_workers(project_root: Path, tmp_path: Path) -> None:
    matrix = load_matrix(project_root, "health-code")
    write_up = load_write_up(project_root / matrix.write_up)
    run = load_run(project_root / "docs" / "results" / "health-code.json")
    charts = write_charts(run, tmp_path / "hc", tmp_path, matrix, write_up)
    assert charts["workers"] == "hc/workers.png"
    assert not any(key.startswith("write-up:") for key in charts)
