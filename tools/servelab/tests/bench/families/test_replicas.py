"""`servelab bench replicas`: N one-worker replicas behind nginx against one server with N
workers, for the files download, the hello body and the health-code OCR."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from servelab.bench.plan.matrix import load_matrix, parse_matrix
from servelab.project import Project
from servelab.spec.matrix import WORKERS_ENV
from servelab.stack.compose import load_project

WORKLOADS = {
    "files": "GET /files/{id}",
    "hello": "GET /hello",
    "health-code": "POST /analysis/health-code",
}
WAYS = ("replicas", "uvicorn", "gunicorn")


# The download and the hello body also at their families' steady rates, which the CPU
# ratios read; the OCR's CPU is its own whatever the rate.
STEADY = {"files": "GET /files/{id} @100/s", "hello": "GET /hello @400/s"}


def test_each_workload_runs_three_ways_at_every_n(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "replicas")
    for form in ("quick", "full"):
        cells = {(c.variant.name, c.workers, c.endpoint.key) for c in matrix.cells(form)}
        assert cells == {
            (f"{workload}-{way}", n, endpoint)
            for workload, endpoints in WORKLOADS.items()
            for endpoint in (endpoints, STEADY.get(workload))
            if endpoint is not None
            for way in WAYS
            for n in (1, 2)
        }


def test_replicas_cells_set_replicas_and_the_others_workers(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "replicas")
    profiles = {variant.profile for variant in matrix.variants}
    services = {
        profile: load_project(Project(project_root), [profile]).services for profile in profiles
    }
    for cell in matrix.cells("full"):
        scaled = "REPLICAS" if cell.variant.profile == "replicas" else WORKERS_ENV
        other = WORKERS_ENV if scaled == "REPLICAS" else "REPLICAS"
        assert cell.server_env[scaled] == str(cell.workers), cell.label
        assert other not in cell.server_env, cell.label
        assert cell.variant.service in services[cell.variant.profile], cell.label
        assert (project_root / "loadtests" / cell.endpoint.script).is_file()


def test_each_workload_runs_its_own_familys_load(project_root: Path) -> None:
    replicas = load_matrix(Project(project_root), "replicas")
    for workload, endpoint in WORKLOADS.items():
        family = load_matrix(Project(project_root), workload)
        for form in ("quick", "full"):
            # The same shape and durations; how many rounds is each matrix's own choice.
            ours = {
                replace(c.load, rounds=1)
                for c in replicas.cells(form)
                if c.endpoint.key == endpoint
            }
            theirs = {replace(c.load, rounds=1) for c in family.cells(form)}
            assert len(ours) == 1
            assert ours <= theirs, (workload, form)


def test_health_code_runs_the_services_default_mode_everywhere(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "replicas")
    modes = {
        c.server_env["ANALYZE_MODE"]
        for c in matrix.cells("full")
        if c.endpoint.key == WORKLOADS["health-code"]
    }
    assert modes == {"threadpool"}


def test_a_variant_scales_web_concurrency_unless_it_names_another_variable() -> None:
    matrix = parse_matrix(
        {
            "family": "scale-test",
            "write_up": "loadtests/reference/wait.toml",
            "workers": {"quick": [3]},
            "load": {"quick": {"vus": 1, "duration_s": 1}},
            "variants": {
                "workers": {"profile": "p", "service": "s", "endpoints": "e"},
                "replicas": {
                    "profile": "p",
                    "service": "s",
                    "endpoints": "e",
                    "scale_env": "REPLICAS",
                },
            },
            "endpoints": {"e": [{"key": "GET /", "script": "hello.js"}]},
        }
    )
    envs = {c.variant.name: c.server_env for c in matrix.cells("quick")}
    assert envs == {"workers": {WORKERS_ENV: "3"}, "replicas": {"REPLICAS": "3"}}
