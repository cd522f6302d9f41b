"""The device matrix: every stack a compose recipe of the health-code family, sized to the
machine, in both forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.device.plan import FORMS, PlanError, load_plan, parse_plan
from servelab.stack.compose import load_project


@pytest.mark.heavy  # loads compose.yaml once for each of the plan's stacks
@pytest.mark.parametrize("form", FORMS)
def test_every_stack_is_a_health_code_recipe(project_root: Path, form: str) -> None:
    plan = load_plan(project_root, form)
    assert {measured.load.vus for measured in plan.loads} == {20, 64}
    for stack in plan.stacks():
        project = load_project(project_root, [stack.variant.profile], stack.env)
        service = project.services[stack.variant.service]
        assert service.name.startswith("health-code-")
        assert stack.env["WEB_CONCURRENCY"] == str(stack.workers)
        assert stack.env["ACCESS_LOG"] == "0"


def test_the_device_form_measures_the_write_ups_shape_and_a_heavier_one(
    project_root: Path,
) -> None:
    plan = load_plan(project_root, "device")
    shapes = {(m.load.vus, m.load.iterations) for m in plan.loads}
    assert shapes == {(20, 200), (64, 1000)}
    gpu = {v.name for v in plan.variants if v.gpu}
    assert {"gpu-batched", "gpu-per-request"} <= gpu
    assert any(not v.gpu for v in plan.variants)
    assert any(e.gpu for e in plan.evals) and any(not e.gpu for e in plan.evals)


def test_worker_counts_above_the_machines_cpus_are_left_out(project_root: Path) -> None:
    plan = load_plan(project_root, "device")
    assert max(stack.workers for stack in plan.stacks()) > 2
    assert all(stack.workers <= 2 for stack in plan.stacks(cpus=2))
    assert plan.stacks(cpus=2)


RAW = {
    "warmup": {"device": 4, "smoke": 2},
    "loads": {"c2": {"clients": 2, "requests": {"device": 8}}},
    "variants": {"cpu": {"service": "s", "profile": "p", "workers": {"device": [1], "smoke": [1]}}},
}


def test_a_form_the_plan_does_not_size_is_refused() -> None:
    with pytest.raises(PlanError, match="c2: nothing for form 'smoke'"):
        parse_plan(RAW, "smoke")
    with pytest.raises(PlanError, match="none of device, smoke"):
        parse_plan(RAW, "full")


def test_a_variant_without_a_service_is_refused() -> None:
    raw = {**RAW, "variants": {"cpu": {"profile": "p", "workers": [1]}}}
    with pytest.raises(PlanError, match=r"variants\.cpu: missing 'service'"):
        parse_plan(raw, "device")
