"""`servelab compare`: two small runs of one family, cell by cell and ratio by ratio."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from servelab.bench.errors import BenchError
from servelab.bench.load.tools import ToolResult
from servelab.bench.plan.matrix import Matrix, parse_matrix
from servelab.bench.report.compare import Change, cell_lines, ratio_lines, render
from servelab.bench.report.results import BenchRun, load_run, run_from_json, save_run
from servelab.cli import main as servelab
from servelab.testing.records import run_record

ERRORS = {"connect": 0, "timeout": 0, "non_2xx": 0, "other": 0}


def _cell(variant: str, rps: float, p99: float, cpu_s: float | None) -> dict[str, Any]:
    return {
        "variant": variant,
        "workers": 1,
        "endpoint": "GET /hello",
        "script": "hello.js",
        "env": {"ENDPOINT": "/hello"},
        "pinning": "server on CPU 1, k6 on CPU 0",
        "commands": {},
        "k6_cpu_s": 1.0,
        "k6_wall_s": 3.0,
        "k6_cpus": 1,
        "wall_s": 5.0,
        "server_cpu_s": cpu_s,
        "measurement": {
            "requests": int(rps * 3),
            "rps": rps,
            "avg_ms": 10.0,
            "p50_ms": 9.0,
            "p75_ms": 11.0,
            "p90_ms": 13.0,
            "p99_ms": p99,
            "max_ms": 50.0,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": dict(ERRORS),
            "elapsed_s": 3.0,
        },
    }


def _run(app_rps: float, app_p99: float, **fields: Any) -> BenchRun:
    """The app (1 ms of CPU per request in A) and the empty app at 1,000 requests/s."""
    return run_from_json(
        run_record(
            "hello",
            {"vus": 10, "duration_s": 3.0},
            cells=[
                _cell("app", app_rps, app_p99, 0.003 * app_rps),
                _cell("empty", 1000.0, 20.0, None),
            ],
            **fields,
        )
    )


A = _run(800.0, 30.0)
# Requests/s 5% up (noise), p99 50% up (moved); the same CPU per request.
B = _run(840.0, 45.0, started="2026-01-02T00:00:00+00:00")


@pytest.fixture
def matrix() -> Matrix:
    return parse_matrix(
        {
            "family": "hello",
            "write_up": "loadtests/reference/hello.toml",
            "workers": {"quick": [1]},
            "load": {"quick": {"vus": 10, "duration_s": 3}},
            "variants": {
                name: {"profile": "reference", "service": f"hello-{name}", "endpoints": "hello"}
                for name in ("app", "empty")
            },
            "endpoints": {"hello": [{"key": "GET /hello", "script": "hello.js"}]},
            "ratios": [
                {
                    "name": "app / empty",
                    "numerator": {"variants": ["app"]},
                    "denominator": {"variants": ["empty"]},
                }
            ],
        }
    )


def test_each_cell_figure_is_given_as_a_b_and_b_over_a() -> None:
    app, empty = cell_lines(A, B)
    assert app.names == ("app", "1", "GET /hello")
    rps, p99, cpu = app.changes
    assert (rps.a, rps.b, rps.factor) == (800.0, 840.0, pytest.approx(1.05))
    assert p99.factor == pytest.approx(1.5)
    assert cpu.a == pytest.approx(1000.0) and cpu.factor == pytest.approx(1.0)
    assert app.moved(0.10) and not app.moved(0.60)
    assert empty.changes[2] == Change(None, None) and not empty.moved(0.10)


def test_ratios_are_computed_on_each_run_from_the_matrix(matrix: Matrix) -> None:
    [line] = ratio_lines(matrix, A, B)
    assert line.names == ("app / empty", "app", "1")
    [change] = line.changes
    assert (change.a, change.b) == (pytest.approx(0.8), pytest.approx(0.84))
    assert not change.moved(0.10) and change.moved(0.04)


def test_the_tables_flag_what_moved_more_than_the_noise(matrix: Matrix) -> None:
    text = render(matrix, A, B)
    app_row = next(line for line in text.splitlines() if line.startswith("app "))
    assert app_row.endswith("moved") and "1.50x" in app_row
    assert "1 row(s) moved" in text
    markdown = render(matrix, A, B, markdown=True, noise=0.6)
    assert "| app / empty | app | 1 | 0.8 | 0.84 | 1.05x |  |" in markdown
    assert "0 row(s) moved" in markdown


def test_runs_of_two_families_are_refused(matrix: Matrix) -> None:
    other = run_from_json(run_record("files", {"vus": 10, "duration_s": 3.0}, cells=[]))
    with pytest.raises(BenchError, match="nothing to pair"):
        render(matrix, A, other)


def test_the_cli_prints_the_comparison_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Against the real hello matrix, whose ratios name other variants: the cells still pair."""
    a, b = save_run(A, tmp_path / "a.json"), save_run(B, tmp_path / "b.json")
    assert servelab(["compare", str(a), str(b), "--noise", "0.6"]) == 0
    out = capsys.readouterr().out
    assert "hello: A = quick run of 2026-01-01" in out and "0 row(s) moved" in out
    assert servelab(["compare", str(a), str(tmp_path / "missing.json")]) == 2


def test_server_cpu_tools_and_options_survive_the_saved_json(tmp_path: Path) -> None:
    wrk = ToolResult("wrk", ["wrk", "-t1"], 3000, 1000.0, 1.0, 5.0, 2, 1.5)
    cell = replace(A.cells[0], tools=(wrk,), server_processes=3, target="http://h:1")
    run = replace(A, cells=(cell,), options={"workers": "auto"})
    again = load_run(save_run(run, tmp_path / "run.json"))
    assert again == run
    assert again.cells[0].cpu_us_per_request == pytest.approx(1000.0)
    assert again.cells[0].tools[0].cpu_us_per_request == pytest.approx(500.0)
