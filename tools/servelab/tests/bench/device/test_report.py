"""docs/results/health-code.gpu.md from a device run: answers and goals judged from the
figures, the noise respected, and every cell that did not run saying why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from servelab.bench.device.report import answers, goals, render, write_device_report
from servelab.bench.device.results import EvalResult, StackResult
from servelab.testing.records import device_run, device_stack


def _scores(accuracy: float) -> list[dict[str, object]]:
    return [
        {
            "usage": "health-code",
            "split": "tune",
            "images": 8,
            "errors": 0,
            "accuracy": {"colour": 1.0, "name": accuracy},
        }
    ]


GPU_RUN = device_run(
    [
        device_stack("gpu-batched", 1, True, "batched", (150.0, 180.0)),
        device_stack("gpu-batched", 4, True, "batched", (240.0, 300.0)),
        device_stack("gpu-batched", 8, True, "batched", (250.0, 310.0)),
        device_stack("cpu-process", 1, False, "process", (60.0, 62.0)),
        device_stack("gpu-per-request", 1, True, "threadpool", (40.0, 45.0)),
        device_stack(
            "gpu-batched-16", 8, True, "batched", (255.0, 400.0), env={"BATCH_MAX_SIZE": "16"}
        ),
    ],
    [
        EvalResult("onnxruntime, CPU", [], False, scores=_scores(0.9)),
        EvalResult("torch, CUDA, float32", [], True, scores=_scores(0.9)),
        EvalResult("torch, CUDA, float16 recogniser", [], True, scores=_scores(0.875)),
    ],
)


def test_goals_are_judged_from_the_best_cells() -> None:
    judged = {goal.goal: goal for goal in goals(GPU_RUN)}
    assert judged["zero failed requests in every mode"].status == "met"
    batched = judged["GPU batched ≥ 3x GPU per request"]
    assert batched.status == "met" and "20 clients: 6.38x" in batched.measured
    assert judged["best GPU ≥ 2x best CPU"].status == "met"
    assert judged["best GPU ≥ 200 requests/s"].measured == "400.0 requests/s"
    memory = judged["≤ 4 GiB GPU memory per worker, no OOM at 8 workers"]
    assert memory.status == "met" and "2500 MiB per worker" in memory.measured
    accuracy = judged["accuracy on the GPU equal to the CPU's"]
    assert accuracy.status == "not met"
    assert "float16 recogniser: largest field difference 2.5%" in accuracy.measured


def test_an_oom_at_eight_workers_fails_the_memory_goal() -> None:
    run = device_run(
        [device_stack("gpu-batched", 8, True, "batched", (250.0, 310.0), out_of_memory=2)], []
    )
    memory = next(g for g in goals(run) if g.goal.startswith("≤ 4 GiB"))
    assert memory.status == "not met"


def test_a_stack_the_budget_left_out_is_named_not_counted_against_the_memory_goal() -> None:
    left_out = device_stack("gpu-batched-16", 8, True, "batched", (0.0, 0.0), loads=[])
    left_out = replace(left_out, skipped="not run: 47 s of the run's 190 s budget left")
    run = device_run(
        [device_stack("gpu-batched", 8, True, "batched", (250.0, 310.0)), left_out], []
    )
    memory = next(g for g in goals(run) if g.goal.startswith("≤ 4 GiB"))
    assert memory.status == "met"
    assert "ran clean at 8+ workers: gpu-batched w8" in memory.measured
    assert "not run: gpu-batched-16 w8" in memory.measured
    only_left_out = next(
        g for g in goals(device_run([left_out], [])) if g.goal.startswith("≤ 4 GiB")
    )
    assert only_left_out.status != "met"


@pytest.mark.parametrize(
    ("server_cpu_s", "gpu_busy_pct", "expected"),
    [
        # 20 s of load: 14 of the 15 CPUs k6's one leaves, the GPU half busy.
        (280.0, 50.0, "the CPUs (servers 14.0 of 16 CPUs, k6 1.0, GPU busy 50% of the time)"),
        (100.0, 95.0, "the GPU (servers 5.0 of 16 CPUs, k6 1.0, GPU busy 95% of the time)"),
        (100.0, 40.0, "neither is full (servers 5.0 of 16 CPUs, k6 1.0, GPU busy 40% of the time)"),
    ],
)
def test_the_report_says_what_set_the_pace_of_the_best_gpu_cell(
    server_cpu_s: float, gpu_busy_pct: float, expected: str
) -> None:
    stack = device_stack("gpu-batched", 8, True, "batched", (250.0, 310.0))
    measured = [
        replace(
            load,
            elapsed_s=20.0,
            k6_cpu_s=20.0,
            server_cpu_s=server_cpu_s,
            gpu_busy_pct=gpu_busy_pct,
        )
        for load in stack.loads
    ]
    run = device_run(
        [
            replace(stack, loads=measured),
            device_stack("cpu-process", 1, False, "process", (60.0, 62.0)),
        ],
        [],
    )
    said = "\n".join(answers(run))
    assert f"**What sets the pace of the best GPU cell, 64 clients?** {expected}" in said
    older = "\n".join(answers(device_run([stack], [])))
    assert "clients?** not recorded in this run (the servers' CPU use)" in older


def test_answers_name_the_fewest_workers_within_the_noise_and_the_batch_size() -> None:
    said = "\n".join(answers(GPU_RUN))
    assert "**GPU or CPU, 20 clients?** the GPU (4.25x)" in said
    # 4 workers reach 240 of the best 255 requests/s: within the noise, so 4, not 8.
    assert "**How many workers on the GPU, 20 clients?** 4 (gpu-batched, 4 worker(s)" in said
    assert "**Batch size, 20 clients?** no measurable difference (1.02x" in said
    assert "**Batch size, 64 clients?** 16 (1.29x)" in said


def test_without_a_gpu_the_report_says_the_figures_wait_for_one() -> None:
    run = device_run(
        [
            StackResult("gpu-batched", 1, "health-code-gpu", True, {}, skipped="not run: no GPU"),
            device_stack("cpu-process", 1, False, "process", (7.0, 4.0)),
        ],
        [EvalResult("onnxruntime, CPU", [], False, scores=_scores(1.0))],
        gpu=False,
    )
    text = render(run)
    assert "**The GPU figures wait for a machine with an NVIDIA GPU.**" in text
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in text.splitlines()]
    assert ["gpu-batched", "1", "", "not run: no GPU", *[""] * 10] in rows
    assert ["cpu-process", "1", "ANALYZE_MODE=process", "20 x 200", "7.0"] in [r[:5] for r in rows]
    assert all(g.status.startswith(("not measured", "CPU modes only")) for g in goals(run)), goals(
        run
    )


def test_the_report_names_the_gpu_its_driver_and_the_cpus(tmp_path: Path) -> None:
    (tmp_path / "docs" / "results").mkdir(parents=True)
    elsewhere = GPU_RUN.save(tmp_path / "out" / "health-code.gpu.json")
    report = write_device_report(elsewhere, tmp_path)
    assert report == tmp_path / "docs" / "results" / "health-code.gpu.md"
    assert (tmp_path / "docs" / "results" / "health-code.gpu.json").is_file()
    text = report.read_text()
    assert "- GPU: NVIDIA H100 80GB HBM3, driver 580.159.04, 81,559 MiB" in text
    assert "- CPU: Intel Xeon, 16 CPUs" in text
    assert "commit abc123" in text
