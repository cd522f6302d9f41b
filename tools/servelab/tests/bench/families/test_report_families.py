"""Reports of the wait and hello families: counted bursts with their total time, goals
bounded from above, ratios cell by cell, settings in the commands, the write-up's
socket errors, and the matrix's notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from servelab.bench.measure.summary import ERROR_KINDS
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.charts import write_charts
from servelab.bench.report.markdown import render
from servelab.bench.report.results import run_from_json
from servelab.bench.report.writeup import load_write_up
from servelab.project import Project
from servelab.testing.markdown import unpadded
from servelab.testing.records import run_record

HEY = {"vus": 1000, "shape": "hey", "iterations": 1, "max_duration_s": 90.0}
CLIENT = {"vus": 10, "shape": "client", "iterations": 1, "max_duration_s": 60.0}
WRK = {"vus": 400, "duration_s": 3.0, "warmup_s": 1.0}


def _cell(
    variant: str,
    endpoint: str,
    load: dict[str, Any],
    settings: dict[str, str],
    *,
    elapsed: float,
    avg: float,
    errors: dict[str, int] | None = None,
    requests: int = 1000,
) -> dict[str, Any]:
    return {
        "variant": variant,
        "workers": 1,
        "endpoint": endpoint,
        "script": "wait.js",
        "env": {"ENDPOINT": endpoint.split(" ")[-1]},
        "pinning": "not pinned (server and k6 share every CPU)",
        "commands": {f"wait-{variant}": [variant, "--workers", "1"]},
        "k6_cpu_s": 1.5,
        "k6_wall_s": 3.0,
        "k6_cpus": 2,
        "wall_s": 5.0,
        "measurement": {
            "requests": requests,
            "rps": requests / elapsed,
            "avg_ms": avg,
            "p50_ms": avg,
            "p75_ms": avg,
            "p90_ms": avg,
            "p99_ms": avg,
            "max_ms": avg + 10,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": {**dict.fromkeys(ERROR_KINDS, 0), **(errors or {})},
            "elapsed_s": elapsed,
        },
        "load": load,
        "settings": settings,
    }


def _run(family: str, load: dict[str, Any], cells: list[dict[str, Any]]) -> dict[str, Any]:
    return run_record(
        family,
        load,
        cells,
        wall_s=100.0,
        load_average=0.2,
        k6_command="k6 run -e BASE_URL=<service url> loadtests/<script>",
    )


ONE = {"WAITING_TIME": "1", "WORKERS": "1"}
POOL = {"WAITING_TIME": "1", "THREADPOOL_SIZE": "1000", "WORKERS": "1"}
WAIT_RUN = _run(
    "wait",
    HEY,
    [
        _cell("uvicorn", "hey /sync", HEY, ONE, elapsed=25.43, avg=25050.0),
        _cell("uvicorn-pool1000", "hey /sync", HEY, POOL, elapsed=1.86, avg=1449.0),
        _cell("uvicorn", "hey /async", HEY, ONE, elapsed=1.25, avg=1126.0),
        _cell("flask", "client /wait", CLIENT, ONE, elapsed=10.03, avg=5513.0, requests=10),
    ],
)


@pytest.fixture
def wait_markdown(project_root: Path) -> str:
    matrix = load_matrix(Project(project_root), "wait")
    write_up = load_write_up(project_root / matrix.write_up)
    return unpadded(render(run_from_json(WAIT_RUN), matrix, write_up, {}))


def test_goals_bounded_from_above_and_within_a_band(wait_markdown: str) -> None:
    assert (
        "| FastAPI /async: 1000 concurrent requests complete within 1.3× WAITING_TIME on one "
        "worker | 1.25× (uvicorn (hey /async), 1 worker; needs ≤ 1.3×) | 1 of 1 | met |"
        in wait_markdown
    )
    assert (
        "| 1.86× (uvicorn-pool1000 (hey /sync), 1 worker; needs ≤ 1.5×) | 0 of 1 | not met |"
        in (wait_markdown)
    )
    assert "| 25.43× (uvicorn (hey /sync), 1 worker; needs ≥ 20× and ≤ 30×) | 1 of 1 | met |" in (
        wait_markdown
    )


def test_rounds_are_given_cell_by_cell_beside_the_write_ups(wait_markdown: str) -> None:
    assert "| rounds | uvicorn (hey /sync) | 25.43× | 9.19× |" in wait_markdown
    assert "| rounds | flask (client /wait) | 10.03× | 10.08× |" in wait_markdown


def test_counted_cells_show_their_total_time(wait_markdown: str) -> None:
    assert "| req/s | total s | CPU µs/req | memory MiB | avg ms |" in wait_markdown
    ours = "| hey /async | ours, 1 worker | 1000 | 800.0 | 1.25 | — | — | 1126.00 |"
    theirs = "| hey /async | write-up, 1 worker | 1000 | 799.11 | 1.25 | — | — | 1125.60 |"
    assert ours in wait_markdown
    assert theirs in wait_markdown
    assert "| client /wait | write-up, 1 worker | 10 | — | 10.08 | — | — |" in wait_markdown


def test_the_machine_lists_every_shape_and_no_payload(wait_markdown: str) -> None:
    assert "hey: 1000 VUs at once, 1 request(s) each" in wait_markdown
    assert "client: 10 VUs at once, 1 request(s) each" in wait_markdown
    assert "| payload |" not in wait_markdown


def test_commands_carry_each_variants_settings(wait_markdown: str) -> None:
    assert (
        "WAITING_TIME=1 THREADPOOL_SIZE=1000 WORKERS=1 docker compose --profile uvicorn "
        "up wait-uvicorn" in wait_markdown
    )
    assert "| hey /sync | loadtests/wait.js | -e SHAPE=hey -e VUS=1000 -e ITERATIONS=1 " in (
        wait_markdown
    )


def test_the_matrix_notes_are_rendered(wait_markdown: str) -> None:
    assert "## Notes" in wait_markdown
    assert "**Why 25 rounds.**" in wait_markdown


def test_a_total_time_chart_is_drawn_for_counted_cells(tmp_path: Path) -> None:
    charts = write_charts(run_from_json(WAIT_RUN), tmp_path / "wait", tmp_path)
    assert charts["total"] == "wait/total.png"
    assert (tmp_path / "wait" / "total.png").read_bytes().startswith(b"\x89PNG")


def test_hello_sets_socket_errors_beside_the_write_ups(project_root: Path) -> None:
    hello = {"WORKERS": "1"}
    run = _run(
        "hello",
        WRK,
        [
            # 1000 requests each: server CPU of 0.5, 0.12 and 0.1 s is 500, 120, 100 µs.
            {
                **_cell("gunicorn-sync", "GET /hello", WRK, hello, elapsed=3.0, avg=218.5),
                "server_cpu_s": 0.5,
            },
            {
                **_cell(
                    "granian", "GET /hello", WRK, hello, elapsed=3.0, avg=90.0, errors={"read": 2}
                ),
                "server_cpu_s": 0.12,
            },
            {
                **_cell("empty-wsgi", "GET /hello", WRK, hello, elapsed=3.0, avg=70.0),
                "server_cpu_s": 0.1,
            },
            # The CPU ratios read the steady-rate cells.
            {
                **_cell("granian", "GET /hello @400/s", WRK, hello, elapsed=3.0, avg=2.0),
                "server_cpu_s": 0.3,
            },
            {
                **_cell("empty-wsgi", "GET /hello @400/s", WRK, hello, elapsed=3.0, avg=1.0),
                "server_cpu_s": 0.25,
            },
        ],
    )
    matrix = load_matrix(Project(project_root), "hello")
    write_up = load_write_up(project_root / matrix.write_up)
    markdown = unpadded(render(run_from_json(run), matrix, write_up, {}))
    assert "| total s |" not in markdown
    assert (
        "| GET /hello | write-up, 8 workers | 15808 | 525.96 | — | — | 77.05 | — | — | — | — "
        "| 242.36 | connect 155, read 1037, write 94 | — |" in markdown
    )
    # Two of three servers without errors; granian's 2 the worst case.
    assert "| 2 (granian, 1 worker; needs ≤ 0) | 2 of 3 | not met |" in markdown
    # The cheapest server's hello is judged: granian at 1.20x the empty app's CPU.
    assert (
        "| hello on the cheapest server costs ≤ 1.3× the empty app in CPU per request "
        "(at 400 requests/s) | 1.20× (granian, 1 worker; needs ≤ 1.3×) | 1 of 1 | met |" in markdown
    )
    assert "| GET /hello | ours, 1 worker | 1000 | 333.3 | 500 | — | 218.50 |" in markdown
    # One window per cell: no interval, so the summary draws no verdict from it.
    assert (
        "**Which server and worker type?** cannot answer here: each cell measured once" in markdown
    )


def test_rounds_and_cpu_steal_are_reported(project_root: Path) -> None:
    hello = {"WORKERS": "1"}
    cell = {
        **_cell("granian", "GET /hello", WRK, hello, elapsed=3.0, avg=90.0),
        "server_cpu_s": 0.12,
        "rounds_cpu_us": [150.0, 120.0],
        "rounds_rps": [300.0, 333.3],
        "steal_pct": 7.0,
    }
    run = {**_run("hello", WRK, [cell]), "rounds": 2}
    matrix = load_matrix(Project(project_root), "hello")
    write_up = load_write_up(project_root / matrix.write_up)
    markdown = unpadded(render(run_from_json(run), matrix, write_up, {}))
    assert "a shape with rounds measures each of its cells that many times" in markdown
    assert "the median server CPU per request (the lower of two" in markdown
    assert "| 120 (120-150) |" in markdown
    assert "| CPU steal | 7% of the CPUs' time went to other guests" in markdown
    assert "at most 7%, granian GET /hello" in markdown
