"""scripts/device/run.sh end to end on this machine's CPU: the CPU cells measured with every
answer right, the GPU cells and evaluations skipped with the reason, and the report saying
that its GPU figures wait for a machine with a GPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from servelab.bench.device.bundle import COMPOSE, SAMPLES, resolve_compose
from servelab.bench.device.report import Judged, render
from servelab.bench.device.results import load_device_run
from servelab.bench.device.run import import_failure
from servelab.project import Project
from servelab.spec.device import read_device


@pytest.mark.timeout(420)
def test_the_device_script_runs_its_smoke_form_here(
    project_root: Path, tmp_path: Path, starts_servers: None
) -> None:
    bundle = tmp_path / "bundle"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "health_code_service.evaluation.eval_cli",
            "--save",
            str(bundle / SAMPLES),
            "--count",
            "1",
            "--usage",
            "health-code",
        ],
        check=True,
        capture_output=True,
    )
    project = Project(project_root)
    resolve_compose(project, bundle / COMPOSE)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHON": sys.executable, "BUNDLE": str(bundle), "OUT": str(out)}
    done = subprocess.run(
        [project_root / "scripts" / "device" / "run.sh", "--form", "smoke", "--budget-s", "400"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "not run: no NVIDIA GPU on this machine" in done.stderr
    # The output folder holds the results alone: the GPU machine sends back few files.
    assert [path.name for path in out.iterdir()] == ["health-code.gpu.json"]
    run = load_device_run(out / "health-code.gpu.json")
    assert run.no_gpu and run.machine["cpus"] == len(os.sched_getaffinity(0))
    ran = [stack for stack in run.stacks if stack.ran]
    assert {stack.variant for stack in ran} == {"cpu-process", "cpu-threadpool"}
    for stack in ran:
        assert [load.name for load in stack.loads] == ["c20", "c64"]
        assert stack.server_memory_mib and stack.server_memory_mib > 0
        for load in stack.loads:
            assert (load.answered, load.failed) == (load.requests, 0), (stack.variant, load)
            # OCR costs the servers CPU on every request; no GPU here to be busy.
            assert load.server_cpu_s and load.server_cpu_s > 0, (stack.variant, load)
            assert load.gpu_busy_pct is None
    skipped = [stack for stack in run.stacks if stack.gpu]
    assert skipped and all(s.skipped.startswith("not run: no NVIDIA GPU") for s in skipped)
    reference, *on_gpu = run.evals
    assert reference.scores and reference.scores[0]["usage"] == "health-code"
    assert on_gpu and all(e.skipped.startswith("not run: no NVIDIA GPU") for e in on_gpu)
    # Where a request's CPU time goes: measured with onnxruntime here, on CUDA only there.
    cpu_profile, gpu_profile = run.profiles
    stages = {row["stage"]: row["cpu_ms"]["median"] for row in cpu_profile.stages}
    assert stages["QR code and colour"] > 0 and stages["request"] > stages["around the networks"]
    assert gpu_profile.skipped.startswith("not run: no NVIDIA GPU")
    text = render(Judged(run, read_device(project), project.noise))
    assert "The GPU figures wait for a machine with an NVIDIA GPU." in text
    assert "## Where a request's CPU time goes" in text


def test_servers_that_cannot_import_are_found_before_any_stack_starts() -> None:
    assert import_failure() == ""
    missing = import_failure(("json", "servelab_no_such_module"))
    assert missing == "ModuleNotFoundError: No module named 'servelab_no_such_module'"
