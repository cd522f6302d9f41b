from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from servelab.bench import BenchError, render_report, results_path
from servelab.bench.charts import write_charts
from servelab.bench.matrix import load_matrix
from servelab.bench.report import render
from servelab.bench.results import load_run, run_from_json, save_run
from servelab.bench.writeup import load_write_up
from servelab.testing.records import run_record

NO_ERRORS = {"connect": 0, "timeout": 0, "non_2xx": 0, "other": 0}


def _cell(variant: str, endpoint: str, rps: float | None, **extra: Any) -> dict[str, Any]:
    measured = None
    if rps is not None:
        measured = {
            "requests": int(rps * 3),
            "rps": rps,
            "avg_ms": 100.0,
            "p50_ms": 90.0,
            "p75_ms": 110.0,
            "p90_ms": 130.0,
            "p99_ms": 200.0,
            "max_ms": 250.0,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": dict(NO_ERRORS),
        }
    return {
        "variant": variant,
        "workers": 1,
        "endpoint": endpoint,
        "script": "download.js" if endpoint.startswith(("GET", "download")) else "upload.js",
        "env": {"ENDPOINT": "/" + endpoint.split(" ")[-1]},
        "pinning": "server on CPU 1, k6 on CPU 0",
        "commands": {} if rps is None else {f"files-{variant}": [variant, "--workers", "1"]},
        "k6_cpu_s": 2.0,
        "k6_wall_s": 4.0,
        "k6_cpus": 1,
        "wall_s": 6.0,
        "measurement": measured,
        **extra,
    }


# A small run as docs/results/files.json holds it.
RUN: dict[str, Any] = run_record(
    "files",
    {"vus": 100, "duration_s": 3.0, "warmup_s": 1.0},
    load_average=0.25,
    payload_size=262144,
    k6_command="k6 run -e VUS=100 loadtests/<script>",
    cells=[
        _cell("uvicorn", "upload/stream/async_read_and_disk_write", 800.0),
        _cell("uvicorn", "upload/single", 400.0),
        _cell("uvicorn", "upload/raw/json/base64decode", 500.0),
        _cell("uvicorn", "POST /files raw", 600.0),
        _cell("uvicorn", "POST /files multipart", 540.0),
        _cell("uvicorn", "GET /files/{id}", 700.0),
        _cell("gunicorn", "upload/stream/async_read_and_disk_write", 880.0),
        _cell("gunicorn", "upload/single", None, error="files-gunicorn did not become healthy"),
        _cell("nginx", "GET /files/{id}", 1000.0),
        _cell("reference", "reference/ingest", 1200.0),
        _cell("reference", "reference/sendfile", 4000.0),
    ],
)


@pytest.fixture
def markdown(project_root: Path) -> str:
    matrix = load_matrix(project_root, "files")
    write_up = load_write_up(project_root / matrix.write_up)
    return render(run_from_json(RUN), matrix, write_up, {"rps": "files/rps.png"})


def test_goals_table_gives_each_measured_value_and_verdict(markdown: str) -> None:
    assert (
        "| raw streaming upload (POST /files, kept) ≥ 0.5× nginx ingest "
        "| uvicorn | 1 worker | 0.50× (needs ≥ 0.5×) | met |" in markdown
    )
    assert (
        "| raw streaming upload (scratch file) ≥ 0.5× nginx ingest "
        "| uvicorn | 1 worker | 0.67× (needs ≥ 0.5×) | met |" in markdown
    )
    assert "| Python-served download ≥ 0.5× nginx sendfile | uvicorn | 1 worker " in markdown
    assert "| 0.17× (needs ≥ 0.5×) | not met |" in markdown
    assert "| nginx | 1 worker | 0.25× (needs ≥ 0.9×) | not met |" in markdown
    assert "| multipart upload (POST /files) ≥ 0.8× raw upload | uvicorn | 1 worker " in markdown
    assert "| 0.90× (needs ≥ 0.8×) | met |" in markdown
    assert "| base64-in-JSON upload ≥ 0.5× raw | uvicorn | 1 worker | 0.62× " in markdown


def test_ratios_sit_beside_the_write_up_ones(markdown: str) -> None:
    header = "| ratio | variant | ours, 1 worker | write-up, 1 worker | write-up, 40 workers |"
    assert header in markdown
    # 885.13 / 239.01 and 4548.93 / 2718.32 in the write-up.
    assert "| stream/buffer upload | uvicorn | 2.00× | 3.70× | 1.67× |" in markdown
    assert "| gunicorn/uvicorn | gunicorn | 1.10× | 1.10× (geomean of 4) |" in markdown


def test_server_tables_carry_the_published_figures(markdown: str) -> None:
    assert "### uvicorn" in markdown
    assert (
        "| upload/single | write-up, 40 workers | 27450 | 2718.32 | 29.36 | 19.74 | 51.66 "
        "| 58.80 | 68.87 | 86.17 | — | — |" in markdown
    )
    assert (
        "| upload/single | ours, 1 worker | 1200 | 400.0 | 100.00 | 90.00 | 110.00 | 130.00 "
        "| 200.00 | 250.00 | 0 | 2.0 (50%) |" in markdown
    )
    assert "| upload/single | write-up, 1 worker | 2414 | 239.01 |" in markdown


def test_failed_cells_are_reported_not_dropped(markdown: str) -> None:
    assert "**1 cell(s) failed**" in markdown
    assert "failed: files-gunicorn did not become healthy" in markdown


def test_machine_and_commands(markdown: str) -> None:
    assert "| CPU | AMD EPYC, 2 CPUs | 40 cores |" in markdown
    assert "| Python | 3.11.7 | 3.9 |" in markdown
    assert "| other work | 1-minute load average 0.25 when the run started" in markdown
    assert "WEB_CONCURRENCY=1 docker compose --profile uvicorn up files-uvicorn" in markdown
    assert "# files-uvicorn: uvicorn --workers 1" in markdown
    assert "k6 run -e VUS=100 loadtests/<script>" in markdown
    assert "![requests/s per endpoint and server](files/rps.png)" in markdown


def test_results_json_round_trips(tmp_path: Path) -> None:
    run = run_from_json(RUN)
    assert load_run(save_run(run, tmp_path / "files.json")) == run
    assert run.k6_cpu_s == pytest.approx(2.0 * len(RUN["cells"]))
    assert run.values()[("reference", 1, "reference/sendfile")] == 4000.0
    assert ("gunicorn", 1, "upload/single") not in run.values()


def test_charts_are_png_files_beside_the_report(tmp_path: Path) -> None:
    charts = write_charts(run_from_json(RUN), tmp_path / "files", tmp_path)
    assert charts["rps"] == "files/rps.png"
    assert "latency:uvicorn:1" in charts
    assert "latency:gunicorn:1" in charts
    for relative in charts.values():
        assert (tmp_path / relative).read_bytes().startswith(b"\x89PNG")


def test_render_report_rewrites_markdown_from_saved_results(
    project_root: Path, tmp_path: Path
) -> None:
    shutil.copytree(project_root / "loadtests", tmp_path / "loadtests")
    results = results_path(tmp_path, "files")
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps(RUN))
    report = render_report("files", project_dir=tmp_path)
    assert report == tmp_path / "docs" / "results" / "files.md"
    assert "| stream/buffer upload | uvicorn | 2.00× |" in report.read_text()
    assert (tmp_path / "docs" / "results" / "files" / "rps.png").is_file()


def test_render_report_without_results_says_what_to_run(project_root: Path, tmp_path: Path) -> None:
    shutil.copytree(project_root / "loadtests", tmp_path / "loadtests")
    with pytest.raises(BenchError, match="run `servelab bench files` first"):
        render_report("files", project_dir=tmp_path)
