"""The wait and hello matrices: the write-ups' shapes, every variant that compose.yaml
has, and their goals."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.plan.matrix import load_matrix
from servelab.project import Project
from servelab.stack.compose import load_project


@pytest.mark.parametrize("family", ["wait", "hello", "files"])
def test_every_cell_names_a_compose_service_of_its_profile_and_a_script(
    project_root: Path, family: str
) -> None:
    matrix = load_matrix(Project(project_root), family)
    profiles = {variant.profile for variant in matrix.variants}
    services = {
        profile: load_project(Project(project_root), [profile]).services for profile in profiles
    }
    for form in ("quick", "full"):
        for cell in matrix.cells(form):
            assert cell.variant.service in services[cell.variant.profile], cell.label
            assert (project_root / "loadtests" / cell.endpoint.script).is_file()
            assert cell.server_env["WEB_CONCURRENCY"] == str(cell.workers)


def test_wait_sends_heys_burst_to_fastapi_and_the_client_to_flask(project_root: Path) -> None:
    cells = load_matrix(Project(project_root), "wait").cells("quick")
    shapes = {(c.variant.name, c.endpoint.key): (c.load.shape, c.load.vus) for c in cells}
    for variant in ("uvicorn", "gunicorn"):
        assert shapes[variant, "hey /sync"] == ("hey", 1000)
        assert shapes[variant, "hey /async"] == ("hey", 1000)
        assert shapes[variant, "client /sync"] == ("client", 10)
    assert shapes["flask", "client /wait"] == ("client", 10)
    assert all(c.load.iterations == 1 for c in cells)
    assert {c.workers for c in cells} == {1}
    assert all(not c.variant.pin for c in cells)


def test_wait_runs_the_write_ups_one_second_and_sizes_the_pool_where_asked(
    project_root: Path,
) -> None:
    for form in ("quick", "full"):
        for cell in load_matrix(Project(project_root), "wait").cells(form):
            env = cell.server_env
            expected = "0.2" if env.get("MODEL") == "cpu" else "1"
            assert env["WAITING_TIME"] == expected
            pooled = cell.variant.name.endswith("-pool1000")
            assert env.get("THREADPOOL_SIZE") == ("1000" if pooled else None)


def test_wait_goals_are_the_issues(project_root: Path) -> None:
    goals = {(g.variants, g.endpoint): g for g in load_matrix(Project(project_root), "wait").goals}
    fastapi = ("uvicorn", "gunicorn")
    pooled = ("uvicorn-pool1000", "gunicorn-pool1000")
    assert goals[fastapi, "hey /async"].maximum == 1.3
    assert goals[pooled, "hey /sync"].maximum == 1.5
    default_pool = goals[fastapi, "hey /sync"]
    assert (default_pool.minimum, default_pool.maximum) == (20, 30)
    assert all(goal.ratio == "rounds" and goal.workers == (1,) for goal in goals.values())


def test_hello_benchmarks_every_hello_service_with_a_port(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "hello")
    benched = {variant.service for variant in matrix.variants}
    profiles = {variant.profile for variant in matrix.variants}
    project = load_project(Project(project_root), profiles)
    served = {
        name
        for name, service in project.services.items()
        if name.startswith("hello-") and service.local.port_env
    }
    assert benched == served


def test_hello_uses_wrks_400_connections_and_a_steady_rate_for_the_cpu(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "hello")
    quick, full = matrix.load("quick"), matrix.load("full")
    assert (quick.shape, quick.vus, quick.duration_s) == ("wrk", 400, 2.0)
    assert (full.shape, full.vus, full.duration_s) == ("wrk", 400, 30.0)
    # The 400-connection cells in 3 rounds in the quick form (their requests/s answer
    # Tornado's question with an interval), once in the full form's 30 s; the steady cells,
    # which every CPU ratio reads, in many short rounds.
    assert {cell.load.rounds for cell in matrix.cells("quick") if cell.load.shape == "wrk"} == {3}
    assert {cell.load.rounds for cell in matrix.cells("full") if cell.load.shape == "wrk"} == {1}
    assert {cell.load.rounds for cell in matrix.cells("quick") if cell.load.arrival} == {8}
    assert (matrix.rounds_in("quick"), matrix.rounds_in("full")) == (8, 8)
    cells = matrix.cells("quick")
    assert len(cells) == 2 * len(matrix.variants)
    steady = [cell for cell in cells if cell.endpoint.key == "GET /hello @400/s"]
    assert {(c.load.shape, c.load.rate, c.tools) for c in steady} == {("vegeta", 400, ())}
    saturated = [cell for cell in cells if cell.endpoint.key == "GET /hello"]
    assert all(cell.tools == ("wrk",) for cell in saturated)
    for ratio in matrix.ratios:
        if ratio.metric == "cpu_us":
            assert ratio.numerator.endpoint == "GET /hello @400/s", ratio.name


def test_hello_goals_are_the_issues(project_root: Path) -> None:
    goals = {goal.ratio: goal for goal in load_matrix(Project(project_root), "hello").goals}
    assert goals["errors"].maximum == 0
    assert goals["errors"].variants is None
    limit = goals["hello CPU / empty app"]
    assert (limit.maximum, limit.best) == (1.3, True)


def test_hello_compares_tornados_processes_with_its_single_process(project_root: Path) -> None:
    ratios = {ratio.name: ratio for ratio in load_matrix(Project(project_root), "hello").ratios}
    single = ratios["tornado multi/single"].denominator
    assert single is not None
    assert (single.variants, single.workers) == (("tornado",), 1)
