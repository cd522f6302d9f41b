"""Engine processes and threads divided among the server workers, and a start-up line for a
configuration that cannot use the machine."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from health_code_service.serving.sizing import report, server_workers, size, sized
from health_code_service.settings import Settings


def settings(**values: Any) -> Settings:
    return Settings(**values)


@pytest.mark.parametrize(
    ("cpus", "workers", "processes"), [(16, 1, 16), (16, 4, 4), (16, 3, 5), (2, 4, 1), (2, 1, 2)]
)
def test_process_mode_divides_the_cpus_among_the_workers(
    cpus: int, workers: int, processes: int
) -> None:
    sizing = size(settings(analyze_mode="process"), cpus, workers)
    assert (sizing.engine_processes, sizing.engine_threads) == (processes, 1)
    applied = sizing.apply(settings(analyze_mode="process"))
    assert (applied.process_workers, applied.ocr_threads) == (processes, 1)


@pytest.mark.parametrize("mode", ["batched", "async-blocking"])
@pytest.mark.parametrize(("cpus", "workers", "threads"), [(16, 1, 16), (16, 4, 4), (2, 8, 1)])
def test_one_call_at_a_time_modes_get_the_workers_share_of_threads(
    mode: str, cpus: int, workers: int, threads: int
) -> None:
    sizing = size(settings(analyze_mode=mode), cpus, workers)
    assert (sizing.engine_processes, sizing.engine_threads) == (0, threads)


@pytest.mark.parametrize("mode", ["process", "batched"])
def test_replicas_on_one_machine_share_its_cpus_as_workers_would(mode: str) -> None:
    """Two one-worker replicas on 16 CPUs get 8 each, as two workers of one server do."""
    replicas = size(settings(analyze_mode=mode, replicas=2), 16, 1)
    workers = size(settings(analyze_mode=mode), 16, 2)
    share = (replicas.engine_processes, replicas.engine_threads)
    assert share == (workers.engine_processes, workers.engine_threads)
    assert max(share) == 8


def test_threadpool_gives_each_request_one_thread() -> None:
    sizing = size(settings(analyze_mode="threadpool"), 16, 1)
    assert (sizing.engine_threads, sizing.warnings) == (1, ())


def test_explicit_counts_are_kept() -> None:
    sizing = size(settings(analyze_mode="process", process_workers=3, ocr_threads=2), 16, 2)
    assert (sizing.engine_processes, sizing.engine_threads) == (3, 2)


@pytest.mark.parametrize(
    "values", [{"analyze_mode": m} for m in ("threadpool", "process", "batched")]
)
def test_sized_to_the_machine_says_nothing(values: dict[str, str]) -> None:
    assert size(settings(**values), 16, 4).warnings == ()


def test_batched_on_the_cpu_with_one_thread_on_16_cpus_says_so() -> None:
    (warning,) = size(settings(analyze_mode="batched", ocr_threads=1), 16, 1).warnings
    assert "batched on the CPU uses 1 of 16 CPUs" in warning
    assert "OCR_THREADS=0" in warning


def test_batched_on_a_gpu_has_no_cpu_threads_to_size() -> None:
    sized_gpu = settings(analyze_mode="batched", ocr_threads=1, ocr_device="cuda")
    assert size(sized_gpu, 16, 1).warnings == ()


def test_an_engine_process_per_cpu_in_every_worker_says_so() -> None:
    (warning,) = size(settings(analyze_mode="process", process_workers=16), 16, 4).warnings
    assert "runs 64 engine threads on 16 CPUs" in warning


def test_threadpool_with_several_threads_per_request_says_so() -> None:
    (warning,) = size(settings(analyze_mode="threadpool", ocr_threads=4), 16, 1).warnings
    assert "OCR_THREADS=4" in warning


def test_async_blocking_says_it_serves_one_request_per_worker() -> None:
    warnings = size(settings(analyze_mode="async-blocking"), 16, 2).warnings
    assert warnings == (
        "async-blocking serves one request at a time per worker: decoding and finding the "
        "code use 2 of 16 CPUs; use threadpool or more workers",
    )


def test_report_logs_one_line_per_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="health_code_service.serving.sizing"):
        report(size(settings(analyze_mode="batched", ocr_threads=1), 16, 1))
    assert [record.getMessage() for record in caplog.records] == [
        "health-code: batched on the CPU uses 1 of 16 CPUs for inference (1 worker(s) x 1 "
        "engine call at a time x 1 thread(s)); set OCR_THREADS=0 and PROCESS_WORKERS=0 to "
        "divide the CPUs among the workers"
    ]


def test_the_worker_count_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    assert server_workers() == 1
    monkeypatch.setenv("WEB_CONCURRENCY", "4")
    assert server_workers() == 4
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)))
    assert sized(settings(analyze_mode="process")).process_workers == 4
