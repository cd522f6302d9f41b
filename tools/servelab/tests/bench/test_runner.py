"""The runner: what k6 and the server get for a cell, and one real counted cell end to end."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from servelab.bench.plan.matrix import Matrix, load_matrix, parse_matrix
from servelab.bench.runner import k6_env, run_matrix
from servelab.project import Project
from servelab.stack import Stack

SUMMARY = Path("run/summary.json")


def test_k6_gets_the_servers_settings_the_endpoint_env_and_the_shape(project: Project) -> None:
    cell = next(
        c
        for c in load_matrix(project, "wait").cells("quick")
        if (c.variant.name, c.endpoint.key) == ("uvicorn-cpu", "client /async")
    )
    assert k6_env(cell, "http://127.0.0.1:9", SUMMARY, None) == {
        "BASE_URL": "http://127.0.0.1:9",
        "THRESHOLD_FAILED": "1",
        "THRESHOLD_CHECKS": "0",
        "ACCESS_LOG": "0",
        "WAITING_TIME": "0.2",
        "MODEL": "cpu",
        "WEB_CONCURRENCY": "1",
        "ENDPOINT": "/async",
        "SHAPE": "client",
        "VUS": "10",
        "ITERATIONS": "1",
        "MAX_DURATION": "60s",
        "SUMMARY_JSON": str(SUMMARY),
    }


def test_a_payload_goes_to_k6_where_the_family_has_one(project: Project) -> None:
    cell = load_matrix(project, "files").cells("quick")[0]
    env = k6_env(cell, "http://127.0.0.1:9", SUMMARY, Path("run/health.jpg"))
    assert env["PAYLOAD_FILE"] == "run/health.jpg"
    assert env["WEB_CONCURRENCY"] == "1"
    assert (env["SHAPE"], env["VUS"], env["DURATION"]) == ("wrk", "100", "1s")


@pytest.mark.stack
def test_a_counted_cell_runs_the_variants_settings_and_measures_the_whole_burst(
    project: Project,
) -> None:
    """4 requests of 0.2 s at once on a pool of 2 threads: 2 rounds."""
    matrix = parse_matrix(
        {
            "family": "runner-test",
            "write_up": "loadtests/reference/wait.toml",
            "pin": False,
            "settings": {"quick": {"WAITING_TIME": "0.2"}},
            "load": {"quick": {"shape": "client", "vus": 4, "iterations": 1, "max_duration_s": 30}},
            "variants": {
                "uvicorn": {
                    "profile": "uvicorn",
                    "service": "wait-uvicorn",
                    "env": {"THREADPOOL_SIZE": "2"},
                    "endpoints": "sync",
                    "workers": {"quick": [1]},
                }
            },
            "endpoints": {
                "sync": [{"key": "/sync", "script": "wait.js", "env": {"ENDPOINT": "/sync"}}]
            },
        }
    )
    progress = io.StringIO()
    run = run_matrix(project, matrix, "quick", stream=progress)
    [cell] = run.cells
    assert cell.measurement is not None, cell.error
    assert cell.settings == {"WAITING_TIME": "0.2", "THREADPOOL_SIZE": "2", "WEB_CONCURRENCY": "1"}
    assert cell.measurement.requests == 4
    assert cell.measurement.checks_rate == 1.0
    assert 0.4 <= cell.measurement.elapsed_s < 0.8
    assert "total" in progress.getvalue()


_HELLO = {"ENDPOINT": "/hello"}


def _hello_empty_app(family: str, tools: list[str] | None = None) -> Matrix:
    """hello's empty ASGI app on granian, 4 connections for 1 s of warm-up and 1 s measured;
    `family` names the run's work folder, which a run empties first: one per test, so two
    tests on two xdist workers never share it."""
    variant: dict[str, object] = {
        "profile": "reference",
        "service": "hello-empty-asgi",
        "endpoints": "hello",
        "workers": {"quick": [1]},
    }
    if tools:
        variant["tools"] = tools
    return parse_matrix(
        {
            "family": family,
            "write_up": "loadtests/reference/hello.toml",
            "pin": False,
            "load": {"quick": {"vus": 4, "duration_s": 1, "warmup_s": 1}},
            "variants": {"empty-asgi": variant},
            "endpoints": {"hello": [{"key": "GET /hello", "script": "hello.js", "env": _HELLO}]},
        }
    )


@pytest.mark.stack
def test_a_cell_records_the_cpu_its_server_spent_per_request(project: Project) -> None:
    """k6 and then wrk, each with the server's CPU time read around it."""
    progress = io.StringIO()
    run = run_matrix(
        project, _hello_empty_app("runner-cpu-test", ["wrk"]), "quick", stream=progress
    )
    [cell] = run.cells
    assert cell.measurement is not None, cell.error
    assert cell.server_cpu_s is not None and cell.server_cpu_s > 0
    assert cell.server_processes is not None and cell.server_processes >= 1
    assert cell.cpu_us_per_request is not None and 0 < cell.cpu_us_per_request < 1e6
    assert cell.target is None
    [wrk] = cell.tools
    assert wrk.argv[:5] == ["wrk", "-t2", "-c4", "-d1s", "--latency"]
    assert wrk.requests > 0 and wrk.errors == 0
    assert wrk.cpu_us_per_request is not None and 0 < wrk.cpu_us_per_request < 1e6
    assert "µs/request" in progress.getvalue() and "wrk: " in progress.getvalue()


@pytest.mark.stack
def test_a_target_run_loads_a_stack_that_is_already_up(project: Project, tmp_path: Path) -> None:
    with Stack("reference", only=["hello-empty-asgi"], run_parent=tmp_path, log=None) as stack:
        url = stack.url("hello-empty-asgi")
        matrix = _hello_empty_app("runner-target-test")
        run = run_matrix(project, matrix, "quick", stream=io.StringIO(), target=url)
    [cell] = run.cells
    assert cell.measurement is not None, cell.error
    assert cell.measurement.requests > 0 and cell.measurement.failed_rate == 0
    assert cell.target == url
    assert cell.server_cpu_s is None and cell.cpu_us_per_request is None
    assert cell.commands == {}
    assert url in cell.pinning
