"""Answers follow the figures only as far as their ranges allow: a winner where every range
lies on one side, no measurable difference where a range holds 1, and the split where
cells disagree; cells that cannot resolve a difference are left out and named."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.findings.verdict import CANNOT, DEPENDS, NO_DIFFERENCE, Answer, answer
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.results import BenchRun, run_from_json
from servelab.project import Noise, Project
from servelab.spec.questions import Question, load_questions
from servelab.testing.records import device_run, device_stack, run_record

from .conftest import WRK, cell

STREAM = "upload/stream/async_read_and_disk_write @100/s"
BUFFER = "upload/single @100/s"


def _rule(project_root: Path, family: str, question: str) -> Question:
    asked = load_questions(Project(project_root), family)
    return next(q for q in asked if q.question == question)


def _ask(project_root: Path, runs: list[BenchRun], question: str) -> Answer:
    family = runs[0].family
    rule = _rule(project_root, family, question)
    return answer(rule, runs, load_matrix(Project(project_root), family), Noise())


def _run(family: str, cells: list[dict[str, object]], rounds: int = 1) -> BenchRun:
    return run_from_json(run_record(family, WRK, cells, rounds=rounds))


@pytest.mark.parametrize(
    ("stream_us", "buffer_us", "expected"),
    [
        (200.0, 400.0, "stream"),
        (400.0, 200.0, "buffer (UploadFile)"),
        # 5% apart, measured once each: inside the noise.
        (300.0, 315.0, NO_DIFFERENCE),
    ],
)
def test_a_choice_needs_a_difference_beyond_the_noise(
    project_root: Path, stream_us: float, buffer_us: float, expected: str
) -> None:
    run = _run(
        "files",
        [
            cell("uvicorn", STREAM, 100.0, cpu_us=stream_us),
            cell("uvicorn", BUFFER, 100.0, cpu_us=buffer_us),
        ],
    )
    found = _ask(project_root, [run], "Stream an upload or buffer it?")
    assert found.verdict == expected
    assert "the server CPU per request of buffer (UploadFile)" in found.figures


def test_rounds_that_stay_apart_settle_a_small_difference(project_root: Path) -> None:
    # 5% apart in every one of 6 rounds, measured in the same pass: a difference after all.
    stream = [300.0, 310.0, 290.0, 305.0, 295.0, 300.0]
    buffer = [value * 1.05 for value in stream]
    run = _run(
        "files",
        [
            cell("uvicorn", STREAM, 100.0, cpu_us=300.0, rounds_cpu_us=stream),
            cell("uvicorn", BUFFER, 100.0, cpu_us=315.0, rounds_cpu_us=buffer),
        ],
        rounds=6,
    )
    found = _ask(project_root, [run], "Stream an upload or buffer it?")
    assert found.verdict == "stream"
    assert "over up to 6 rounds" in found.sure


def test_cells_that_disagree_in_direction_give_the_split_not_a_mean(
    project_root: Path,
) -> None:
    run = _run(
        "files",
        [
            cell("uvicorn", STREAM, 100.0, cpu_us=200.0),
            cell("uvicorn", BUFFER, 100.0, cpu_us=400.0),
            cell("gunicorn", STREAM, 100.0, cpu_us=400.0),
            cell("gunicorn", BUFFER, 100.0, cpu_us=200.0),
        ],
    )
    found = _ask(project_root, [run], "Stream an upload or buffer it?")
    assert found.verdict.startswith(DEPENDS)
    assert "stream on uvicorn, 1 worker" in found.verdict
    assert "buffer (UploadFile) on gunicorn, 1 worker" in found.verdict


def test_a_client_bound_cell_never_enters_a_requests_per_second_comparison(
    project_root: Path,
) -> None:
    # k6 at 95% of its CPU on the gunicorn cell: its 150/s are the client's pace.
    run = _run(
        "files",
        [
            cell("uvicorn", "POST /files raw", 100.0),
            cell("gunicorn", "POST /files raw", 150.0, k6_busy=0.95),
        ],
    )
    found = _ask(project_root, [run], "uvicorn or gunicorn?")
    assert found.verdict.startswith(CANNOT)
    run = _run(
        "files",
        [
            cell("uvicorn", "POST /files raw", 100.0),
            cell("gunicorn", "POST /files raw", 150.0),
        ],
    )
    assert _ask(project_root, [run], "uvicorn or gunicorn?").verdict == "gunicorn + UvicornWorker"


def test_a_cell_of_too_few_requests_is_left_out_and_named(project_root: Path) -> None:
    run = _run(
        "wait",
        [
            cell("uvicorn", "client /sync", 1.0, cpu_us=100.0, requests=10),
            cell("gunicorn", "client /sync", 1.0, cpu_us=680.0, requests=10),
        ],
    )
    found = _ask(project_root, [run], "uvicorn or gunicorn?")
    assert found.verdict.startswith(CANNOT)
    run = _run(
        "wait",
        [
            cell("uvicorn", "hey /async", 500.0, cpu_us=100.0),
            cell("gunicorn", "hey /async", 500.0, cpu_us=105.0),
            cell("uvicorn", "client /sync", 1.0, cpu_us=100.0, requests=10),
            cell("gunicorn", "client /sync", 1.0, cpu_us=680.0, requests=10),
        ],
    )
    found = _ask(project_root, [run], "uvicorn or gunicorn?")
    assert found.verdict == NO_DIFFERENCE
    assert "6.80" not in found.figures
    assert [out.cell for out in found.left_out] == [
        "uvicorn, 1 worker, client /sync",
        "gunicorn, 1 worker, client /sync",
    ]


@pytest.mark.parametrize(
    ("granian_us", "expected"),
    [(60.0, "granian"), (105.0, f"{NO_DIFFERENCE} between uvicorn, granian")],
)
def test_the_cheapest_server_is_named_only_when_no_other_overlaps_it(
    project_root: Path, granian_us: float, expected: str
) -> None:
    run = _run(
        "hello",
        [
            cell("granian", "GET /hello @400/s", 400.0, cpu_us=granian_us),
            cell("uvicorn", "GET /hello @400/s", 400.0, cpu_us=100.0),
            cell("empty-asgi", "GET /hello @400/s", 400.0, cpu_us=40.0),
        ],
    )
    found = _ask(project_root, [run], "Which server and worker type?")
    assert found.verdict == expected
    # The empty app is the floor, not a server to pick.
    assert "empty-asgi" not in found.figures


@pytest.mark.parametrize(
    ("curve", "expected"),
    [
        ((10.0, 19.0, 20.0), "2 workers on 2 CPUs; uvicorn-process"),
        ((10.0, 10.5, 10.2), "1 worker on 2 CPUs; uvicorn-process"),
    ],
)
def test_workers_are_the_fewest_that_cannot_be_told_from_the_best(
    project_root: Path, curve: tuple[float, ...], expected: str
) -> None:
    endpoint = "ab POST /analysis/health-code"
    cells = [
        cell("uvicorn-process", endpoint, rps, workers=workers, requests=200)
        for workers, rps in zip((1, 2, 4), curve, strict=True)
    ]
    cells.append(cell("uvicorn-threadpool", endpoint, 5.0, workers=4, requests=200))
    found = _ask(project_root, [_run("health-code", cells)], "Which mode, and how many workers?")
    assert found.verdict == expected


def test_one_worker_count_cannot_answer_how_many_and_says_what_to_run(
    project_root: Path,
) -> None:
    run = _run("wait", [cell("uvicorn", "hey /async", 500.0)])
    found = _ask(project_root, [run], "How many workers?")
    assert found.verdict.startswith(f"{CANNOT}: only 1 worker measured")
    assert "--workers 1,2,4,8" in found.verdict


def test_two_runs_widen_the_range_until_the_answer_is_no_difference(
    project_root: Path,
) -> None:
    first = _run(
        "files",
        [
            cell("uvicorn", STREAM, 100.0, cpu_us=200.0),
            cell("uvicorn", BUFFER, 100.0, cpu_us=400.0),
        ],
    )
    second = _run(
        "files",
        [
            cell("uvicorn", STREAM, 100.0, cpu_us=400.0),
            cell("uvicorn", BUFFER, 100.0, cpu_us=390.0),
        ],
    )
    assert _ask(project_root, [first], "Stream an upload or buffer it?").verdict == "stream"
    both = _ask(project_root, [first, second], "Stream an upload or buffer it?")
    assert both.verdict == NO_DIFFERENCE
    assert both.sure.startswith("2 runs")


def test_the_gpu_question_says_what_to_run(project_root: Path) -> None:
    found = _ask(project_root, [_run("health-code", [])], "GPU or CPU?")
    assert found.verdict.startswith(CANNOT)
    assert "scripts/device/run.sh" in found.verdict


def test_the_gpu_question_is_answered_from_the_gpu_machines_run_per_load(
    project_root: Path,
) -> None:
    rule = _rule(project_root, "health-code", "GPU or CPU?")
    matrix = load_matrix(Project(project_root), "health-code")
    cpu_run = [_run("health-code", [])]
    left_out = device_stack(
        "gpu-per-request", 4, True, "threadpool", (0, 0), skipped="not run", loads=[]
    )
    split = device_run(
        [
            device_stack("gpu-batched", 4, True, "batched", (56.0, 100.3)),
            device_stack("cpu-process", 4, False, "process", (53.6, 54.7)),
            left_out,
        ]
    )
    found = answer(rule, cpu_run, matrix, Noise(), split)
    assert found.verdict.startswith(f"{DEPENDS}: no measurable difference at 20 clients (1.04x")
    assert found.verdict.endswith("; the GPU at 64 clients (1.83x)")
    assert "NVIDIA H100 80GB HBM3 (driver 580.159.04), 16 CPUs" in found.figures
    assert "2 of its 3 stacks measured" in found.sure
    both = device_run(
        [
            device_stack("gpu-batched", 4, True, "batched", (150.0, 300.0)),
            device_stack("cpu-process", 4, False, "process", (50.0, 55.0)),
        ]
    )
    assert answer(rule, cpu_run, matrix, Noise(), both).verdict == (
        "the GPU: 20 clients (3.00x); 64 clients (5.45x)"
    )
    no_cpu_cell = device_run([device_stack("gpu-batched", 4, True, "batched", (150.0, 300.0))])
    assert answer(rule, cpu_run, matrix, Noise(), no_cpu_cell).verdict.startswith(CANNOT)
