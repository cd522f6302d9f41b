"""The device matrix: every stack a compose recipe of the health-code family, sized to the
machine, in both forms; its spec validated, a bench variant named rather than restated."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.device.plan import load_plan
from servelab.project import Project
from servelab.spec.device import FORMS
from servelab.spec.family import SpecError
from servelab.stack.compose import load_project


@pytest.mark.heavy  # loads compose.yaml once for each of the plan's stacks
@pytest.mark.parametrize("form", FORMS)
def test_every_stack_is_a_health_code_recipe(project_root: Path, form: str) -> None:
    plan = load_plan(Project(project_root), form)
    assert {load.vus for load in plan.loads.values()} == {20, 64}
    for stack in plan.stacks():
        project = load_project(Project(project_root), [stack.variant.profile], stack.env)
        service = project.services[stack.variant.service]
        assert service.name.startswith("health-code-")
        assert stack.env["WEB_CONCURRENCY"] == str(stack.workers)
        assert stack.env["ACCESS_LOG"] == "0"


def test_the_device_form_measures_the_write_ups_shape_and_a_heavier_one(
    project_root: Path,
) -> None:
    plan = load_plan(Project(project_root), "device")
    shapes = {(load.vus, load.iterations) for load in plan.loads.values()}
    assert shapes == {(20, 200), (64, 640)}
    gpu = {stack.variant.name for stack in plan.stacks() if stack.gpu}
    assert {"gpu-batched", "gpu-per-request"} <= gpu
    assert any(not stack.gpu for stack in plan.stacks())
    assert any(e.gpu for e in plan.spec.eval) and any(not e.gpu for e in plan.spec.eval)
    # Where a request's CPU time goes, on the CPU's engine and on the GPU's.
    assert {p.gpu for p in plan.spec.profile} == {True, False}


def test_worker_counts_above_the_machines_cpus_are_left_out(project_root: Path) -> None:
    plan = load_plan(Project(project_root), "device")
    assert max(stack.workers for stack in plan.stacks()) > 2
    assert all(stack.workers <= 2 for stack in plan.stacks(cpus=2))
    assert plan.stacks(cpus=2)


BENCH = """
family = "health-code"
write_up = "w"
load = { shape = "ab", vus = 2, iterations = 2 }
workers = { full = [1] }
[settings]
ACCESS_LOG = "0"
[variants.gpu-batched]
profile = "gpu"
service = "health-code-gpu"
env = { ANALYZE_MODE = "batched" }
endpoints = "ab-json"
[[endpoints.ab-json]]
key = "k"
script = "health-code.js"
env = { USAGE = "health-code", BODY = "json" }
"""
DEVICE = """
[device]
title = "t"
warmup = { device = 4, smoke = 2 }
max_duration_s = 300
endpoint = "ab-json"
machine = { python = "3.12", has = [] }
[device.answers]
gpu_full_pct = 90
cpus_full = 0.8
batched = "gpu"
batch_setting = "B"
batch_default = "8"
[device.loads.c2]
clients = 2
requests = { device = 8, smoke = 2 }
"""


def _project(tmp_path: Path, variants: str) -> Project:
    family = tmp_path / "loadtests" / "families"
    family.mkdir(parents=True)
    (family / "health-code.toml").write_text(BENCH + DEVICE + variants)
    return Project(tmp_path)


def test_a_variant_naming_a_bench_variant_starts_from_it(tmp_path: Path) -> None:
    variants = """
[device.variants.big]
bench = "gpu-batched"
env = { BATCH_MAX_SIZE = "16" }
workers = { device = [1, 2], smoke = [1] }
"""
    plan = load_plan(_project(tmp_path, variants), "smoke")
    (stack,) = plan.stacks()
    assert (stack.label, stack.variant.service, stack.gpu) == ("big w1", "health-code-gpu", True)
    assert stack.variant.env == {"ANALYZE_MODE": "batched", "BATCH_MAX_SIZE": "16"}
    assert stack.env == {**stack.variant.env, "ACCESS_LOG": "0", "WEB_CONCURRENCY": "1"}
    cell = stack.cell("c2", plan.loads["c2"])
    assert (cell.endpoint.key, cell.endpoint.script) == ("c2", "health-code.js")
    assert cell.endpoint.env == {"USAGE": "health-code", "BODY": "json"}
    assert plan.warmup.iterations == 2 and plan.loads["c2"].iterations == 2


@pytest.mark.parametrize(
    ("variant", "error"),
    [
        ('bench = "nope"\nworkers = { device = [1], smoke = [1] }', "no bench variant 'nope'"),
        ('profile = "p"\nworkers = { device = [1], smoke = [1] }', "bench: Field required"),
        ('bench = "gpu-batched"\nworkers = { device = [1] }', r"workers\.smoke: Field required"),
        ('bench = "gpu-batched"\nworkers = { device = [0], smoke = [1] }', "greater than 0"),
    ],
)
def test_a_variant_the_spec_cannot_run_is_refused(tmp_path: Path, variant: str, error: str) -> None:
    project = _project(tmp_path, f"[device.variants.v]\n{variant}\n")
    with pytest.raises(SpecError, match=error):
        load_plan(project, "device").stacks()
