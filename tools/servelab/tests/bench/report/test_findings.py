"""The answers a report opens with follow the run's figures: two synthetic runs that
disagree get opposite answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from servelab.bench.plan.matrix import Matrix, load_matrix
from servelab.bench.report.findings import UNANSWERED, Answer, answers
from servelab.bench.report.ratios import RatioValue, ratio_values
from servelab.bench.report.results import BenchRun, run_from_json
from servelab.testing.records import run_record

WRK = {"vus": 100, "duration_s": 2.0, "warmup_s": 1.0}


def _cell(
    variant: str, endpoint: str, rps: float, *, workers: int = 1, cpu_us: float | None = None
) -> dict[str, Any]:
    """A cell of 2 s at `rps`; `cpu_us` sets the server's CPU time to that per request."""
    requests = int(rps * 2)
    return {
        "variant": variant,
        "workers": workers,
        "endpoint": endpoint,
        "script": "upload.js",
        "env": {},
        "pinning": "server on CPU 1, k6 on CPU 0",
        "commands": {},
        "k6_cpu_s": 1.0,
        "k6_wall_s": 3.0,
        "k6_cpus": 1,
        "wall_s": 4.0,
        "measurement": {
            "requests": requests,
            "rps": rps,
            "avg_ms": 10.0,
            "p50_ms": 9.0,
            "p75_ms": 11.0,
            "p90_ms": 12.0,
            "p99_ms": 20.0,
            "max_ms": 30.0,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": {},
            "elapsed_s": 2.0,
        },
        "server_cpu_s": None if cpu_us is None else cpu_us * requests / 1e6,
    }


def _answers(matrix: Matrix, run: BenchRun) -> dict[str, Answer]:
    names = [variant.name for variant in matrix.variants]
    values: list[RatioValue] = []
    for spec in matrix.ratios:
        if not spec.per_cell:
            values += ratio_values(spec, run.values(spec.metric), names, run.settings())
    specs = {spec.name: spec for spec in matrix.ratios}
    return {answer.question: answer for answer in answers(run, specs, values)}


STREAM = "upload/stream/async_read_and_disk_write @100/s"


@pytest.mark.parametrize(
    ("stream_us", "buffer_us", "expected", "figure"),
    [
        (200.0, 400.0, "stream", "stream 0.50× the server CPU per request"),
        (400.0, 200.0, "buffer (UploadFile)", "stream 2.00× the server CPU per request"),
        (300.0, 305.0, "either: within 5%", "stream 0.98× the server CPU per request"),
    ],
)
def test_stream_or_buffer_follows_cpu_per_request(
    project_root: Path, stream_us: float, buffer_us: float, expected: str, figure: str
) -> None:
    # Requests/s say the opposite of CPU here: the answer rests on CPU where measured.
    run = run_from_json(
        run_record(
            "files",
            WRK,
            [
                _cell("uvicorn", STREAM, 100.0, cpu_us=stream_us),
                _cell("uvicorn", "upload/single @100/s", 1000.0, cpu_us=buffer_us),
            ],
        )
    )
    answer = _answers(load_matrix(project_root, "files"), run)["Stream an upload or buffer it?"]
    assert answer.answer == expected
    assert answer.figures.startswith(figure)
    assert "uvicorn, 1 worker:" in answer.figures


def test_without_cpu_the_requests_per_second_answer_and_disagreements_are_named(
    project_root: Path,
) -> None:
    run = run_from_json(
        run_record(
            "files",
            WRK,
            [
                _cell("uvicorn", "POST /files raw", 100.0),
                _cell("gunicorn", "POST /files raw", 150.0),
                _cell("uvicorn", "GET /files/{id}", 100.0),
                _cell("gunicorn", "GET /files/{id}", 90.0),
                _cell("uvicorn", "POST /files raw", 100.0, workers=2),
                _cell("gunicorn", "POST /files raw", 95.0, workers=2),
            ],
        )
    )
    answer = _answers(load_matrix(project_root, "files"), run)["uvicorn or gunicorn?"]
    assert answer.answer == "gunicorn + UvicornWorker"
    assert "the successful requests/s of uvicorn --workers" in answer.figures
    assert "not everywhere: gunicorn, 2 workers: 0.95×" in answer.figures


@pytest.mark.parametrize(
    ("curve", "expected"),
    [
        # Requests/s of uvicorn-process at 1, 2 and 4 workers.
        ((10.0, 19.0, 20.0), "uvicorn-process, 2 workers"),
        ((10.0, 10.5, 10.2), "uvicorn-process, 1 worker"),
    ],
)
def test_health_code_workers_are_the_fewest_within_a_tenth_of_the_best(
    project_root: Path, curve: tuple[float, ...], expected: str
) -> None:
    endpoint = "ab POST /analysis/health-code"
    cells = [
        _cell("uvicorn-process", endpoint, rps, workers=workers)
        for workers, rps in zip((1, 2, 4), curve, strict=True)
    ]
    cells.append(_cell("uvicorn-threadpool", endpoint, 5.0, workers=4))
    run = run_from_json(run_record("health-code", WRK, cells))
    answer = _answers(load_matrix(project_root, "health-code"), run)
    assert answer["Which mode, and how many workers?"].answer == expected


@pytest.mark.parametrize(
    ("granian_us", "expected", "first"),
    [
        (60.0, "granian", "granian, 1 worker: 60 µs (1.50×); uvicorn, 1 worker: 100 µs (2.50×)"),
        (200.0, "uvicorn", "uvicorn, 1 worker: 100 µs (2.50×); granian, 1 worker: 200 µs"),
    ],
)
def test_hello_names_the_cheapest_server_with_its_cost_over_the_empty_app(
    project_root: Path, granian_us: float, expected: str, first: str
) -> None:
    run = run_from_json(
        run_record(
            "hello",
            WRK,
            [
                _cell("granian", "GET /hello @400/s", 400.0, cpu_us=granian_us),
                _cell("uvicorn", "GET /hello @400/s", 400.0, cpu_us=100.0),
                _cell("empty-asgi", "GET /hello @400/s", 400.0, cpu_us=40.0),
            ],
        )
    )
    answer = _answers(load_matrix(project_root, "hello"), run)["Which server and worker type?"]
    assert answer.answer == expected
    assert first in answer.figures
    # The empty app is the floor, not a server to pick.
    assert "empty-asgi" not in answer.figures


def test_a_question_the_run_cannot_answer_says_what_it_needs(project_root: Path) -> None:
    run = run_from_json(run_record("files", WRK, [_cell("uvicorn", STREAM, 100.0)]))
    found = _answers(load_matrix(project_root, "files"), run)
    assert {answer.answer for answer in found.values()} == {UNANSWERED}
    assert found["uvicorn or gunicorn?"].figures == (
        "needs both sides of gunicorn/uvicorn CPU or gunicorn/uvicorn"
    )


@pytest.mark.parametrize(
    ("replicas_mib", "workers_mib", "expected"),
    [(80.0, 120.0, "N replicas behind nginx"), (160.0, 120.0, "uvicorn --workers N")],
)
def test_the_replicas_memory_answer_follows_the_measured_memory(
    project_root: Path, replicas_mib: float, workers_mib: float, expected: str
) -> None:
    replicas = _cell("hello-replicas", "GET /hello", 1000.0, workers=2)
    workers = _cell("hello-uvicorn", "GET /hello", 1000.0, workers=2)
    cells = [
        {**replicas, "server_memory_mib": replicas_mib},
        {**workers, "server_memory_mib": workers_mib},
    ]
    run = run_from_json(run_record("replicas", WRK, cells))
    question = "Which takes less memory: replicas or uvicorn --workers?"
    answer = _answers(load_matrix(project_root, "replicas"), run)[question]
    assert answer.answer == expected
    ratio = replicas_mib / workers_mib
    assert answer.figures.startswith(f"N replicas behind nginx {ratio:.2f}× the server memory")


@pytest.mark.parametrize(
    ("gunicorn_us", "expected"),
    [
        (105.0, "yes: +8% at most"),
        (120.0, "no: +20% on hello-gunicorn"),
        (110.4, "no: +10.4% on hello-gunicorn"),
    ],
)
def test_the_cost_of_metrics_and_logs_is_judged_on_the_worst_server(
    project_root: Path, gunicorn_us: float, expected: str
) -> None:
    cells = [
        _cell("hello-uvicorn", "GET /hello @400/s", 400.0, cpu_us=108.0),
        _cell("hello-uvicorn-bare", "GET /hello @400/s", 400.0, cpu_us=100.0),
        _cell("hello-gunicorn", "GET /hello @400/s", 400.0, cpu_us=gunicorn_us),
        _cell("hello-gunicorn-bare", "GET /hello @400/s", 400.0, cpu_us=100.0),
    ]
    run = run_from_json(run_record("observability", WRK, cells))
    found = _answers(load_matrix(project_root, "observability"), run)
    hello = found["Do metrics and access logs cost at most 10% of the CPU of GET /hello?"]
    assert hello.answer == expected
    assert "hello-uvicorn, 1 worker: 1.08×" in hello.figures
    unmeasured = [answer for question, answer in found.items() if "256 KiB" in question]
    assert [answer.answer for answer in unmeasured] == [UNANSWERED, UNANSWERED]
