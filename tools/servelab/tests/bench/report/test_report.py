from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from servelab.bench.errors import BenchError
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.charts import write_charts
from servelab.bench.report.markdown import render as render_padded
from servelab.bench.report.results import load_run, run_from_json, save_run
from servelab.bench.report.writeup import load_write_up
from servelab.bench.run import render_report, results_path
from servelab.project import Project
from servelab.testing.markdown import unpadded
from servelab.testing.records import run_record

NO_ERRORS = {"connect": 0, "timeout": 0, "non_2xx": 0, "other": 0}


def render(*args: Any) -> str:
    return unpadded(render_padded(*args))


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


# The steady-rate cells (300 requests each): server CPU seconds per variant and endpoint.
STEADY = [
    ("uvicorn", "upload/stream/async_read_and_disk_write", 0.075),
    ("uvicorn", "upload/single", 0.15),
    ("uvicorn", "POST /files raw", 0.09),
    ("uvicorn", "POST /files multipart", 0.12),
    ("uvicorn", "GET /files/{id}", 0.045),
    ("nginx", "GET /files/{id}", 0.039),
    ("reference", "reference/ingest", 0.03),
    ("reference", "reference/sendfile", 0.015),
    ("empty-uvicorn", "empty/get", 0.015),
    ("empty-uvicorn", "empty/upload", 0.03),
]

# A small run as docs/results/files.json holds it.
RUN: dict[str, Any] = run_record(
    "files",
    {"vus": 100, "duration_s": 3.0, "warmup_s": 1.0},
    load_average=0.25,
    payload_size=262144,
    k6_command="k6 run -e VUS=100 loadtests/<script>",
    cells=[
        # Server CPU per request (µs) = server_cpu_s * 1e6 / (3 * requests/s).
        _cell("uvicorn", "upload/stream/async_read_and_disk_write", 800.0, server_cpu_s=0.6),
        _cell("uvicorn", "upload/single", 400.0, server_cpu_s=0.6),
        _cell("uvicorn", "upload/raw/json/base64decode", 500.0),
        _cell("uvicorn", "POST /files raw", 600.0, server_cpu_s=0.54),
        _cell("uvicorn", "POST /files multipart", 540.0, server_cpu_s=0.648),
        _cell("uvicorn", "GET /files/{id}", 700.0, server_cpu_s=0.315),
        _cell("gunicorn", "upload/stream/async_read_and_disk_write", 880.0),
        _cell("gunicorn", "upload/single", None, error="files-gunicorn did not become healthy"),
        _cell("nginx", "GET /files/{id}", 1000.0, server_cpu_s=0.39),
        _cell("reference", "reference/ingest", 1200.0, server_cpu_s=0.36),
        _cell("reference", "reference/sendfile", 4000.0, server_cpu_s=0.6),
        _cell("empty-uvicorn", "empty/get", 2000.0, server_cpu_s=0.3),
        _cell("empty-uvicorn", "empty/upload", 1000.0, server_cpu_s=0.3),
        # The same at 100 requests/s, which the API's and X-Accel's CPU ratios read.
        *(
            _cell(variant, f"{endpoint} @100/s", 100.0, server_cpu_s=cpu_s)
            for variant, endpoint, cpu_s in STEADY
        ),
    ],
)


@pytest.fixture
def markdown(project_root: Path) -> str:
    matrix = load_matrix(Project(project_root), "files")
    write_up = load_write_up(project_root / matrix.write_up)
    return render(run_from_json(RUN), matrix, write_up, {"rps": "files/rps.png"})


def test_goals_are_one_row_each_with_the_worst_case_and_how_many_met(markdown: str) -> None:
    # The upload floor: 100 µs (empty app on uvicorn) + 100 µs (nginx keeping the body):
    # raw meets 1.5×, multipart at 2.00× does not.
    assert (
        "| POST /files (raw and multipart) costs ≤ 1.5× its floor in CPU per request (at 100 "
        "requests/s), on every server | 2.00× (uvicorn (POST /files multipart @100/s), 1 "
        "worker; needs ≤ 1.5×) | 1 of 2 | not met |" in markdown
    )
    # The download floor: 50 µs (empty app) + 50 µs (nginx sendfile).
    assert "1.50× (uvicorn, 1 worker; needs ≤ 1.5×) | 1 of 1 | met |" in markdown
    assert "1.30× (nginx, 1 worker; needs ≤ 1.2×) | 0 of 1 | not met |" in markdown
    # Only the cheapest strategy of a kind is judged.
    assert (
        "| the cheapest raw-body strategy costs ≤ 1.5× its floor | 1.25× (uvicorn "
        "(upload/stream/async_read_and_disk_write @100/s), 1 worker; needs ≤ 1.5×) | 1 of 1 "
        "| met |" in markdown
    )
    assert "| the cheapest base64 upload costs ≤ 1.5× its floor | — | — | not measured |" in (
        markdown
    )
    # Apart from the write-up's questions: after the comparison with it.
    assert markdown.index("## Goals") > markdown.index("## Ratios")


def test_a_goal_missed_by_a_hair_shows_the_decimals_that_miss_it(project_root: Path) -> None:
    # X-Accel at 120.3 µs over its 100 µs floor: 1.20× would read as its own bound.
    cells = [
        {**cell, "server_cpu_s": 0.03609}
        if (cell["variant"], cell["endpoint"]) == ("nginx", "GET /files/{id} @100/s")
        else cell
        for cell in RUN["cells"]
    ]
    matrix = load_matrix(Project(project_root), "files")
    write_up = load_write_up(project_root / matrix.write_up)
    markdown = render(run_from_json({**RUN, "cells": cells}), matrix, write_up, {})
    assert "1.203× (nginx, 1 worker; needs ≤ 1.2×) | 0 of 1 | not met |" in markdown


def test_the_summary_gives_no_verdict_from_cells_measured_once(markdown: str) -> None:
    summary = markdown[markdown.index("## Summary") : markdown.index("## Machine")]
    # Every cell of this run was measured in one round: no interval, so no answer, and the
    # summary says what measures in rounds instead.
    assert (
        "- **Stream an upload or buffer it?** cannot answer here: each cell measured once in "
        "the quick run, so no interval to judge by; run `servelab bench files --quick`"
    ) in summary
    assert "**uvicorn or gunicorn?** cannot answer here: each cell measured once" in summary
    # A question this run has no cells for says what it needs.
    assert "**`async def` or `def`?** cannot answer here: needs both sides of" in summary
    assert "[The findings](../findings.md)" in summary


def test_the_summary_answers_from_cells_measured_in_rounds(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    write_up = load_write_up(project_root / matrix.write_up)
    spread = (0.9, 1.0, 1.1)
    cells = [
        {**cell, "rounds_cpu_us": [cpu * f for f in spread], "rounds_rps": [100.0] * 3}
        if cell["endpoint"].endswith("@100/s") and (cpu := _cpu_us(cell)) is not None
        else cell
        for cell in RUN["cells"]
    ]
    text = render(run_from_json({**RUN, "rounds": 3, "cells": cells}), matrix, write_up, {})
    summary = text[text.index("## Summary") : text.index("## Machine")]
    # 250 µs streamed against 500 µs buffered, each round the same 10% apart on both sides.
    assert (
        "- **Stream an upload or buffer it?** stream — stream 0.50× (0.50–0.50) the server CPU "
        "per request of buffer (UploadFile)"
    ) in summary


def _cpu_us(cell: dict[str, Any]) -> float | None:
    measured = cell["measurement"]
    if measured is None or cell.get("server_cpu_s") is None:
        return None
    return float(cell["server_cpu_s"]) * 1e6 / measured["requests"]


def test_ratios_sit_beside_the_write_up_ones(markdown: str) -> None:
    header = "| ratio | variant | ours, 1 worker | write-up, 1 worker | write-up, 40 workers |"
    assert header in markdown
    # 885.13 / 239.01 and 4548.93 / 2718.32 in the write-up.
    assert "| stream/buffer upload | uvicorn | 2.00× | 3.70× | 1.67× |" in markdown
    assert "| gunicorn/uvicorn | gunicorn | 1.10× | 1.10× (geomean of 4) |" in markdown


def test_server_tables_carry_the_published_figures(markdown: str) -> None:
    assert "### uvicorn" in markdown
    assert (
        "| upload/single | write-up, 40 workers | 27450 | 2718.32 | — | — | 29.36 | 19.74 | 51.66 "
        "| 58.80 | 68.87 | 86.17 | — | — |" in markdown
    )
    assert (
        "| upload/single | ours, 1 worker | 1200 | 400.0 | 500 | — | 100.00 | 90.00 | 110.00 "
        "| 130.00 | 200.00 | 250.00 | 0 | 2.0 (50%) |" in markdown
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
    assert "![successful requests/s per endpoint and server](files/rps.png)" in markdown


def test_results_json_round_trips(tmp_path: Path) -> None:
    run = run_from_json(RUN)
    assert load_run(save_run(run, tmp_path / "files.json")) == run
    assert run.k6_cpu_s == pytest.approx(2.0 * len(RUN["cells"]))
    assert run.values()[("reference", 1, "reference/sendfile")] == 4000.0
    assert ("gunicorn", 1, "upload/single") not in run.values()
    # CPU per request: only where the server's CPU time was measured.
    cpu = run.values("cpu_us")
    assert cpu[("reference", 1, "reference/sendfile")] == pytest.approx(50.0)
    assert ("uvicorn", 1, "upload/raw/json/base64decode") not in cpu


@pytest.mark.heavy  # draws every chart of a report
def test_charts_are_png_files_beside_the_report(tmp_path: Path) -> None:
    charts = write_charts(run_from_json(RUN), tmp_path / "files", tmp_path)
    assert charts["rps"] == "files/rps.png"
    assert "latency:uvicorn:1" in charts
    assert "latency:gunicorn:1" in charts
    for relative in charts.values():
        assert (tmp_path / relative).read_bytes().startswith(b"\x89PNG")


@pytest.mark.heavy  # copies loadtests/ and draws a report's charts
def test_render_report_rewrites_markdown_from_saved_results(
    project_root: Path, tmp_path: Path
) -> None:
    shutil.copytree(project_root / "loadtests", tmp_path / "loadtests")
    results = results_path(Project(tmp_path), "files")
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps(RUN))
    report = render_report(Project(tmp_path), "files")
    assert report == tmp_path / "docs" / "results" / "files.md"
    text = unpadded(report.read_text())
    assert "| stream/buffer upload | uvicorn | 2.00× |" in text
    assert (tmp_path / "docs" / "results" / "files" / "rps.png").is_file()
    # The write-up's uvicorn table at one worker, beside ours, as ratios.
    assert "## Beside the write-up" in text
    assert "![uvicorn, 1 worker: each row over the reference row](files/write-up-" in text


@pytest.mark.heavy  # copies loadtests/ and draws every chart of a report
def test_a_labelled_run_is_rendered_beside_its_results(project_root: Path, tmp_path: Path) -> None:
    shutil.copytree(project_root / "loadtests", tmp_path / "loadtests")
    saved = tmp_path / "elsewhere" / "files.big-box.json"
    saved.parent.mkdir()
    saved.write_text(json.dumps(RUN))
    report = render_report(Project(tmp_path), str(saved))
    assert report == saved.with_suffix(".md")
    assert "| stream/buffer upload | uvicorn | 2.00× |" in unpadded(report.read_text())
    assert (saved.parent / "files.big-box" / "rps.png").is_file()
    assert not (tmp_path / "docs" / "results" / "files.md").exists()
    # Its header names its own results and the commands that wrote and render them.
    text = unpadded(report.read_text())
    assert "Written by `servelab bench files --quick --label big-box`" in text
    assert (
        "`servelab report elsewhere/files.big-box.json` renders it again from "
        "[files.big-box.json](files.big-box.json)." in text
    )


def test_render_report_without_results_says_what_to_run(project_root: Path, tmp_path: Path) -> None:
    shutil.copytree(project_root / "loadtests", tmp_path / "loadtests")
    with pytest.raises(BenchError, match="run `servelab bench files` first"):
        render_report(Project(tmp_path), "files")


def test_the_header_records_options_shared_cpus_access_logs_and_the_write_ups_tool(
    project_root: Path,
) -> None:
    wrk = {
        "tool": "wrk",
        "argv": ["wrk", "-t2", "-c100", "-d3s", "http://127.0.0.1:8000/files/1"],
        "requests": 6000,
        "rps": 2000.0,
        "p50_ms": 40.0,
        "p99_ms": 90.0,
        "errors": 0,
        "server_cpu_s": 0.6,
    }
    cells = [
        _cell(
            "uvicorn",
            "GET /files/{id}",
            700.0,
            server_cpu_s=0.315,
            tools=[wrk],
            commands={"files-uvicorn": ["uvicorn", "app", "--no-access-log"]},
        ),
        _cell(
            "gunicorn",
            "GET /files/{id}",
            650.0,
            pinning="not pinned (server and k6 share every CPU)",
            commands={"files-gunicorn": ["gunicorn", "--access-logfile", "-", "app"]},
        ),
    ]
    record = {**RUN, "cells": cells, "options": {"workers": "1,2", "cpus_server": "1"}}
    matrix = load_matrix(Project(project_root), "files")
    markdown = render(
        run_from_json(record), matrix, load_write_up(project_root / matrix.write_up), {}
    )
    assert "| options | --workers 1,2 | — |" in markdown
    assert (
        "| k6 and server CPUs | server on CPU 1; apart in 1 of 2 cells, shared in 1 "
        "(marked *shared* in the k6 column) | — |" in markdown
    )
    assert (
        "| access logs | on in every cell (ACCESS_LOG=1); the server's own log on in "
        "files-gunicorn; off in files-uvicorn (its command line)" in markdown
    )
    assert "| 2.0 (50%, *shared*) |" in markdown
    # wrk's row beside k6's: its requests/s and CPU per request (0.6 s / 6000 = 100 µs).
    assert (
        "| GET /files/{id} | wrk, 1 worker | 6000 | 2000.0 | 100 | — | — | 40.00 | — | — | 90.00 "
        in (markdown)
    )
    assert "001_690c" not in markdown
    assert "write-up 001" not in markdown
    assert (
        "The write-up: *FastAPI file upload and download strategies under uvicorn and gunicorn "
        "+ uvicorn workers* (n.d., in Chinese)." in markdown
    )


def test_a_run_against_a_target_says_no_server_cpu_was_measured(project_root: Path) -> None:
    record = {**RUN, "options": {"target": "http://10.0.0.5:8000"}}
    matrix = load_matrix(Project(project_root), "files")
    markdown = render(
        run_from_json(record), matrix, load_write_up(project_root / matrix.write_up), {}
    )
    assert "| options | --target http://10.0.0.5:8000 | — |" in markdown
    assert "load sent to http://10.0.0.5:8000, a stack already up elsewhere: no server CPU" in (
        markdown
    )


def test_the_header_says_which_variants_ran_with_logs_and_metrics_off(
    project_root: Path,
) -> None:
    cells = [
        _cell("hello-uvicorn", "GET /hello", 900.0, settings={"ACCESS_LOG": "1", "METRICS": "1"}),
        _cell(
            "hello-uvicorn-bare", "GET /hello", 1000.0, settings={"ACCESS_LOG": "0", "METRICS": "0"}
        ),
    ]
    record = run_record("observability", {"vus": 400, "duration_s": 5.0}, cells=cells)
    matrix = load_matrix(Project(project_root), "observability")
    markdown = render(
        run_from_json(record), matrix, load_write_up(project_root / matrix.write_up), {}
    )
    assert (
        "| access logs | off in hello-uvicorn-bare (ACCESS_LOG=0); on in hello-uvicorn "
        "(ACCESS_LOG=1) |" in markdown
    )
    assert (
        "| metrics | off in hello-uvicorn-bare (METRICS=0); on in hello-uvicorn (METRICS=1) |"
        in markdown
    )
