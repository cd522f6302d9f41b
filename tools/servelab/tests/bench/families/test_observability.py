"""`servelab bench observability`: each hello and files cell observed (METRICS=1
ACCESS_LOG=1) and bare (both 0) on the same server, and the goal, observed over
bare CPU per request at most 1.10, on each pair."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from servelab.bench.findings.verdict import CANNOT, answer_run
from servelab.bench.load.shape import parse_load
from servelab.bench.measure.summary import CPU_US
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.ratios import goal_results, ratio_values
from servelab.bench.runner import run_matrix
from servelab.project import Project
from servelab.stack.compose import load_project

OBSERVED = {"METRICS": "1", "ACCESS_LOG": "1"}
BARE = {"METRICS": "0", "ACCESS_LOG": "0"}
COST_RATIOS = ("hello observed/bare CPU", "download observed/bare CPU", "upload observed/bare CPU")


def test_every_cell_runs_observed_and_bare_on_the_same_server(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "observability")
    variants = {variant.name: variant for variant in matrix.variants}
    observed = [name for name in variants if not name.endswith("-bare")]
    assert sorted(observed) == ["files-uvicorn", "hello-gunicorn", "hello-uvicorn"]
    assert set(variants) == {*observed, *(f"{name}-bare" for name in observed)}
    profiles = {variant.profile for variant in matrix.variants}
    services = {
        profile: load_project(Project(project_root), [profile]).services for profile in profiles
    }
    for form in ("quick", "full"):
        cells = matrix.cells(form)
        for cell in cells:
            assert cell.variant.service in services[cell.variant.profile], cell.label
            assert (project_root / "loadtests" / cell.endpoint.script).is_file()
            bare = cell.variant.name.endswith("-bare")
            switches = {key: cell.server_env[key] for key in OBSERVED}
            assert switches == (BARE if bare else OBSERVED), cell.label
        pairs = {(c.variant.name.removesuffix("-bare"), c.workers, c.endpoint.key) for c in cells}
        assert len(cells) == 2 * len(pairs)
    keys = {(v.name, e.key) for v in matrix.variants for e in matrix.endpoints(v, "quick")}
    # Each under its family's connections, and at its family's steady rate.
    assert {key for name, key in keys if name.startswith("files")} == {
        "GET /files/{id}",
        "POST /files raw",
        "GET /files/{id} @100/s",
        "POST /files raw @100/s",
    }
    assert {key for name, key in keys if name.startswith("hello")} == {
        "GET /hello",
        "GET /hello @400/s",
    }


def test_the_goal_is_observed_over_its_own_bare_twin_at_most_1_10(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "observability")
    specs = {ratio.name: ratio for ratio in matrix.ratios}
    cpu_us = {
        ("hello-uvicorn", 1, "GET /hello @400/s"): 108.0,
        ("hello-uvicorn-bare", 1, "GET /hello @400/s"): 100.0,
        ("hello-gunicorn", 1, "GET /hello @400/s"): 240.0,
        ("hello-gunicorn-bare", 1, "GET /hello @400/s"): 200.0,
        # Under 400 connections, where k6 sets the pace: not what the goal reads.
        ("hello-gunicorn", 1, "GET /hello"): 400.0,
        ("hello-gunicorn-bare", 1, "GET /hello"): 200.0,
    }
    values = ratio_values(specs["hello observed/bare CPU"], cpu_us, [])
    assert {(v.variant, round(v.value, 2)) for v in values} == {
        ("hello-uvicorn", 1.08),
        ("hello-gunicorn", 1.2),
    }
    goals = [goal for goal in matrix.goals if goal.ratio in COST_RATIOS]
    assert {goal.ratio for goal in goals} == set(COST_RATIOS)
    assert all(goal.maximum == 1.10 and not goal.best for goal in goals)
    met = {r.value.variant: r.met for r in goal_results(goals, values, specs) if r.value}
    assert met == {"hello-uvicorn": True, "hello-gunicorn": False}


@pytest.mark.stack
def test_a_pair_of_cells_runs_end_to_end_and_answers_the_question(project_root: Path) -> None:
    """hello on uvicorn observed and bare, 4 connections for 1 s each and then 50 requests/s
    in two rounds of 1 s on the same two stacks (50 requests each, enough for a verdict): all
    measured, each with its switches, and the report's question answered from the steady
    cells' CPU per request."""
    matrix = load_matrix(Project(project_root), "observability")
    tiny = parse_load({"vus": 4, "duration_s": 1, "warmup_s": 1}, "test")
    steady = parse_load(
        {"shape": "vegeta", "rate": 50, "vus": 4, "duration_s": 1, "rounds": 2}, "test"
    )
    pair = tuple(
        variant.model_copy(update={"pin": False})
        for variant in matrix.variants
        if variant.name in ("hello-uvicorn", "hello-uvicorn-bare")
    )
    small = replace(
        matrix,
        family="observability-test",
        variants=pair,
        loads={"quick": tiny},
        shapes={"hello": {"quick": tiny}, "steady-rate-400": {"quick": steady}},
    )
    run = run_matrix(Project(project_root), small, "quick", stream=io.StringIO())
    assert [(cell.variant, cell.endpoint) for cell in run.cells] == [
        ("hello-uvicorn", "GET /hello"),
        ("hello-uvicorn-bare", "GET /hello"),
        ("hello-uvicorn", "GET /hello @400/s"),
        ("hello-uvicorn-bare", "GET /hello @400/s"),
    ]
    assert [len(cell.rounds_cpu_us) for cell in run.cells[2:]] == [2, 2]
    for cell, switches in zip(run.cells, (OBSERVED, BARE) * 2, strict=True):
        assert cell.measurement is not None, cell.error
        assert cell.measurement.error_count == 0
        assert cell.cpu_us_per_request is not None
        assert {key: cell.settings[key] for key in switches} == switches
    specs = {ratio.name: ratio for ratio in matrix.ratios}
    [value] = ratio_values(specs["hello observed/bare CPU"], run.values(CPU_US), [])
    assert value.variant == "hello-uvicorn" and value.value > 0
    found = answer_run(Project.find(), replace(run, family="observability"), matrix)[0]
    assert not found.verdict.startswith(CANNOT), found
