"""docs/results/health-code.gpu.md from a device run: answers and goals judged from the
figures, the noise respected, and every cell that did not run saying why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from servelab.bench.device.report import answers, goals, render, write_device_report
from servelab.bench.device.results import DeviceRun, EvalResult, LoadResult, StackResult

MACHINE = {
    "cpu_model": "Intel Xeon",
    "cpus": 16,
    "memory_gib": 128.0,
    "os": "Ubuntu",
    "kernel": "6.18",
    "python": "3.12.3",
    "k6": "k6 v1.1.0",
}
GPU = {"name": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "memory_mib": 81559}


def _stack(
    variant: str, workers: int, gpu: bool, mode: str, rps: tuple[float, float], **more: object
) -> StackResult:
    loads = [
        LoadResult(name, clients, requests, requests, 0, 0, r, 100.0, 90.0, 300.0, 1.0, 0.5)
        for (name, clients, requests), r in zip(
            (("c20", 20, 200), ("c64", 64, 1000)), rps, strict=True
        )
    ]
    env = {"ANALYZE_MODE": mode, **more.pop("env", {})}  # type: ignore[dict-item]
    fields: dict[str, object] = {"loads": loads, "start_s": 12.0, "wall_s": 40.0, **more}
    if gpu:
        fields.setdefault("gpu_peak_process_mib", 2500)
        fields.setdefault("gpu_peak_total_mib", 2500 * workers)
    return StackResult(variant, workers, "health-code-gpu", gpu, env, **fields)  # type: ignore[arg-type]


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


def _run(stacks: list[StackResult], evals: list[EvalResult], gpu: bool = True) -> DeviceRun:
    return DeviceRun(
        title="Health-code on one GPU",
        form="device",
        started="2026-11-27T10:00:00+00:00",
        budget_s=480.0,
        commit="abc123",
        machine=MACHINE,
        gpus=[GPU] if gpu else [],
        no_gpu="" if gpu else "no NVIDIA GPU on this machine (nvidia-smi not found)",
        k6="k6 v1.1.0",
        wall_s=420.0,
        stacks=stacks,
        evals=evals,
    )


GPU_RUN = _run(
    [
        _stack("gpu-batched", 1, True, "batched", (150.0, 180.0)),
        _stack("gpu-batched", 4, True, "batched", (240.0, 300.0)),
        _stack("gpu-batched", 8, True, "batched", (250.0, 310.0)),
        _stack("cpu-process", 1, False, "process", (60.0, 62.0)),
        _stack("gpu-per-request", 1, True, "threadpool", (40.0, 45.0)),
        _stack("gpu-batched-16", 8, True, "batched", (255.0, 400.0), env={"BATCH_MAX_SIZE": "16"}),
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
    run = _run([_stack("gpu-batched", 8, True, "batched", (250.0, 310.0), out_of_memory=2)], [])
    memory = next(g for g in goals(run) if g.goal.startswith("≤ 4 GiB"))
    assert memory.status == "not met"


def test_a_stack_the_budget_left_out_is_named_not_counted_against_the_memory_goal() -> None:
    left_out = _stack("gpu-batched-16", 8, True, "batched", (0.0, 0.0), loads=[])
    left_out = replace(left_out, skipped="not run: 47 s of the run's 190 s budget left")
    run = _run([_stack("gpu-batched", 8, True, "batched", (250.0, 310.0)), left_out], [])
    memory = next(g for g in goals(run) if g.goal.startswith("≤ 4 GiB"))
    assert memory.status == "met"
    assert "ran clean at 8+ workers: gpu-batched w8" in memory.measured
    assert "not run: gpu-batched-16 w8" in memory.measured
    only_left_out = next(g for g in goals(_run([left_out], [])) if g.goal.startswith("≤ 4 GiB"))
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
    stack = _stack("gpu-batched", 8, True, "batched", (250.0, 310.0))
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
    run = _run(
        [replace(stack, loads=measured), _stack("cpu-process", 1, False, "process", (60.0, 62.0))],
        [],
    )
    said = "\n".join(answers(run))
    assert f"**What sets the pace of the best GPU cell, 64 clients?** {expected}" in said
    older = "\n".join(answers(_run([stack], [])))
    assert "clients?** not recorded in this run (the servers' CPU use)" in older


def test_answers_name_the_fewest_workers_within_the_noise_and_the_batch_size() -> None:
    said = "\n".join(answers(GPU_RUN))
    assert "**GPU or CPU, 20 clients?** the GPU (4.25x)" in said
    # 4 workers reach 240 of the best 255 requests/s: within the noise, so 4, not 8.
    assert "**How many workers on the GPU, 20 clients?** 4 (gpu-batched, 4 worker(s)" in said
    assert "**Batch size, 20 clients?** no measurable difference (1.02x" in said
    assert "**Batch size, 64 clients?** 16 (1.29x)" in said


def test_without_a_gpu_the_report_says_the_figures_wait_for_one() -> None:
    run = _run(
        [
            StackResult("gpu-batched", 1, "health-code-gpu", True, {}, skipped="not run: no GPU"),
            _stack("cpu-process", 1, False, "process", (7.0, 4.0)),
        ],
        [EvalResult("onnxruntime, CPU", [], False, scores=_scores(1.0))],
        gpu=False,
    )
    text = render(run)
    assert "**The GPU figures wait for a machine with an NVIDIA GPU.**" in text
    assert "| gpu-batched | 1 |  | not run: no GPU |" in text
    assert "| cpu-process | 1 | ANALYZE_MODE=process | 20 x 200 | 7.0 |" in text
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
