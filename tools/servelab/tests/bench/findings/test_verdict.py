"""A question is answered from one run's rounds: an option wins only where every cell it
cites lies wholly on its side of 1, a mix of sides (or of a side and no difference) depends
on where, and a cell measured in one round gives no verdict at all but says what to run.
Cells that cannot resolve a difference are left out and named."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from servelab.bench.findings.answer import (
    CANNOT,
    DEPENDS,
    NO,
    NO_DIFFERENCE,
    WINNER,
    YES,
    Answer,
)
from servelab.bench.findings.verdict import answer
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.results import BenchRun
from servelab.project import Noise, Project
from servelab.spec.questions import Question, load_questions
from servelab.testing.records import device_run, device_stack

from .conftest import BUFFER, OCR, STREAM, cell, run, stream_buffer

STREAM_BUFFER = "Stream an upload or buffer it?"
SERVERS = "uvicorn or gunicorn?"
HELLO = "GET /hello @400/s"


def _rule(project_root: Path, family: str, question: str) -> Question:
    asked = load_questions(Project(project_root), family)
    return next(q for q in asked if q.question == question)


def _ask(project_root: Path, found: BenchRun | None, question: str, family: str = "") -> Answer:
    family = family or (found.family if found is not None else "")
    rule = _rule(project_root, family, question)
    return answer(rule, found, load_matrix(Project(project_root), family), Noise())


def _times(base: Sequence[float], factors: Sequence[float]) -> list[float]:
    return [value * factor for value, factor in zip(base, factors, strict=True)]


def _files(*cells: dict[str, object], rounds: int = 6) -> BenchRun:
    return run("files", list(cells), rounds=rounds)


def test_rounds_that_all_favour_one_option_name_it(project_root: Path) -> None:
    found = _ask(
        project_root,
        _files(*stream_buffer("uvicorn", (0.5, 0.52, 0.49, 0.5, 0.51, 0.5))),
        STREAM_BUFFER,
    )
    assert found.verdict == "stream"
    assert (found.kind, found.names) == (WINNER, frozenset({"stream"}))
    assert found.figures.startswith("stream 0.50× (0.4")
    assert "the server CPU per request of buffer (UploadFile)" in found.figures
    assert found.sure == "95% intervals over 6 rounds of the quick run"
    # The other way round, the other option.
    found = _ask(
        project_root,
        _files(*stream_buffer("uvicorn", (2.0, 1.9, 2.1, 2.0, 2.0, 1.95))),
        STREAM_BUFFER,
    )
    assert (found.verdict, found.names) == (
        "buffer (UploadFile)",
        frozenset({"buffer (UploadFile)"}),
    )


def test_a_small_difference_in_every_round_is_a_difference_a_scattered_one_is_not(
    project_root: Path,
) -> None:
    # 5% apart in each of six rounds, while the machine drifts by 40%.
    steady = (1.05, 1.04, 1.06, 1.05, 1.05, 1.05)
    found = _ask(project_root, _files(*stream_buffer("uvicorn", steady)), STREAM_BUFFER)
    assert found.verdict == "buffer (UploadFile)"
    # About the same mean, but the rounds fall either side of 1.
    scattered = (1.3, 0.8, 1.25, 0.85, 1.1, 0.95)
    found = _ask(project_root, _files(*stream_buffer("uvicorn", scattered)), STREAM_BUFFER)
    assert (found.verdict, found.kind, found.names) == (NO_DIFFERENCE, NO_DIFFERENCE, frozenset())


def test_one_cell_on_the_other_side_makes_it_depend_on_where(project_root: Path) -> None:
    cells = [
        *stream_buffer("uvicorn", (0.5, 0.52, 0.49, 0.5, 0.51, 0.5)),
        *stream_buffer("granian", (0.6, 0.62, 0.58, 0.6, 0.61, 0.6)),
        *stream_buffer("gunicorn", (2.0, 1.9, 2.1, 2.0, 2.0, 1.95)),
    ]
    found = _ask(project_root, _files(*cells), STREAM_BUFFER)
    assert found.verdict == (
        f"{DEPENDS}: stream on uvicorn, 1 worker, granian, 1 worker; "
        "buffer (UploadFile) on gunicorn, 1 worker"
    )
    assert found.kind == DEPENDS
    assert found.names == frozenset({"stream", "buffer (UploadFile)"})
    assert found.figures.startswith("over 3 cells, stream ")


def test_a_winner_in_some_cells_and_no_difference_in_others_depends_on_where(
    project_root: Path,
) -> None:
    cells = [
        *stream_buffer("uvicorn", (0.5, 0.52, 0.49, 0.5, 0.51, 0.5)),
        *stream_buffer("gunicorn", (1.3, 0.8, 1.25, 0.85, 1.1, 0.95)),
    ]
    found = _ask(project_root, _files(*cells), STREAM_BUFFER)
    assert found.verdict == (
        f"{DEPENDS}: stream on uvicorn, 1 worker; {NO_DIFFERENCE} on gunicorn, 1 worker"
    )
    assert (found.kind, found.names) == (DEPENDS, frozenset({"stream"}))


@pytest.mark.parametrize("rounds", [1, 6])
def test_cells_measured_in_one_round_give_no_verdict_and_say_what_to_run(
    project_root: Path, rounds: int
) -> None:
    # 200 against 400 µs: far apart, but each measured once (a run of one round, or a run
    # of rounds whose cells kept no value per round).
    found = _ask(
        project_root,
        _files(
            cell("uvicorn", STREAM, 100.0, cpu_us=200.0),
            cell("uvicorn", BUFFER, 100.0, cpu_us=400.0),
            rounds=rounds,
        ),
        STREAM_BUFFER,
    )
    assert found.verdict == (
        f"{CANNOT}: each cell measured once in the quick run, so no interval to judge by; "
        "run `servelab bench files --quick`, which measures in rounds"
    )
    assert not found.answered
    assert found.figures == "measured once: uvicorn, 1 worker: 0.50×"


def test_a_mean_over_shared_endpoints_is_judged_endpoint_by_endpoint(
    project_root: Path,
) -> None:
    # gunicorn half uvicorn's CPU on one endpoint, twice it on the other: a geometric mean
    # of 1, but no answer holds for both endpoints.
    cheap = [100.0 * f for f in (1.0, 1.1, 0.9, 1.0)]
    dear = [400.0 * f for f in (1.0, 1.1, 0.9, 1.0)]
    cells = [
        cell("uvicorn", STREAM, 100.0, cpu_us=200.0, rounds_cpu_us=[2 * v for v in cheap]),
        cell("gunicorn", STREAM, 100.0, cpu_us=100.0, rounds_cpu_us=cheap),
        cell("uvicorn", BUFFER, 100.0, cpu_us=200.0, rounds_cpu_us=[v / 2 for v in dear]),
        cell("gunicorn", BUFFER, 100.0, cpu_us=400.0, rounds_cpu_us=dear),
    ]
    found = _ask(project_root, _files(*cells, rounds=4), SERVERS)
    assert found.verdict == (
        f"{DEPENDS}: gunicorn + UvicornWorker on gunicorn ({STREAM}), 1 worker; "
        f"uvicorn --workers on gunicorn ({BUFFER}), 1 worker"
    )
    assert f"gunicorn ({STREAM}), 1 worker: 0.50×" in found.figures
    assert f"gunicorn ({BUFFER}), 1 worker: 2.00×" in found.figures


def test_cpu_per_request_leaves_out_a_cell_where_many_answers_failed(
    project_root: Path,
) -> None:
    def cells(failed: float) -> list[dict[str, object]]:
        cheap = [100.0, 110.0, 90.0, 100.0]
        return [
            cell("uvicorn", STREAM, 100.0, cpu_us=200.0, rounds_cpu_us=[2 * v for v in cheap]),
            cell("gunicorn", STREAM, 100.0, cpu_us=100.0, rounds_cpu_us=cheap),
            cell("uvicorn", BUFFER, 100.0, cpu_us=200.0, rounds_cpu_us=[2 * v for v in cheap]),
            # Dearer per request, but a fifth of its answers were refusals.
            cell("gunicorn", BUFFER, 100.0, cpu_us=400.0, rounds_cpu_us=[4 * v for v in cheap],
                 failed_rate=failed),
        ]  # fmt: skip

    found = _ask(project_root, _files(*cells(0.2), rounds=4), SERVERS)
    assert found.verdict == "gunicorn + UvicornWorker"
    assert [(out.cell, out.why) for out in found.left_out] == [
        (f"gunicorn, 1 worker, {BUFFER}", "20% of the answers failed: CPU spent on refusals")
    ]
    assert BUFFER not in found.figures
    # At 4% failed the cell counts, and the answer splits.
    found = _ask(project_root, _files(*cells(0.04), rounds=4), SERVERS)
    assert found.verdict.startswith(DEPENDS)
    assert not found.left_out


def test_a_client_bound_cell_never_enters_a_requests_per_second_comparison(
    project_root: Path,
) -> None:
    def cells(k6_busy: float) -> list[dict[str, object]]:
        return [
            cell("uvicorn", "POST /files raw", 100.0, rounds_rps=[100.0, 104.0, 97.0]),
            cell("gunicorn", "POST /files raw", 150.0, rounds_rps=[150.0, 155.0, 147.0],
                 k6_busy=k6_busy),
        ]  # fmt: skip

    # k6 at 95% of its CPU on the gunicorn cell: its 150/s are the client's pace.
    found = _ask(project_root, _files(*cells(0.95), rounds=3), SERVERS)
    assert found.verdict == (
        f"{CANNOT}: needs both sides of gunicorn/uvicorn CPU or gunicorn/uvicorn; "
        "the full form runs more cells: run `servelab bench files --full`"
    )
    found = _ask(project_root, _files(*cells(0.3), rounds=3), SERVERS)
    assert found.verdict == "gunicorn + UvicornWorker"
    assert found.sure == "95% intervals over 3 rounds of the quick run"


def test_a_cell_of_too_few_requests_is_left_out_and_named(project_root: Path) -> None:
    rounds = [100.0, 103.0, 98.0]
    few = [
        cell("uvicorn", "client /sync", 1.0, cpu_us=100.0, requests=10, rounds_cpu_us=rounds),
        cell("gunicorn", "client /sync", 1.0, cpu_us=680.0, requests=10,
             rounds_cpu_us=[6.8 * v for v in rounds]),
    ]  # fmt: skip
    assert _ask(project_root, run("wait", few, rounds=3), SERVERS).verdict.startswith(CANNOT)
    burst = [
        cell("uvicorn", "hey /async", 500.0, cpu_us=100.0, rounds_cpu_us=rounds),
        cell("gunicorn", "hey /async", 500.0, cpu_us=105.0,
             rounds_cpu_us=[rounds[1], rounds[0], rounds[2]]),
    ]  # fmt: skip
    found = _ask(project_root, run("wait", [*burst, *few], rounds=3), SERVERS)
    assert found.verdict == NO_DIFFERENCE
    assert "6.80" not in found.figures
    assert [(out.cell, out.why) for out in found.left_out] == [
        ("uvicorn, 1 worker, client /sync", "10 requests, too few"),
        ("gunicorn, 1 worker, client /sync", "10 requests, too few"),
    ]


def _hello(granian: Sequence[float], uvicorn: Sequence[float]) -> BenchRun:
    return run(
        "hello",
        [
            cell("granian", HELLO, 400.0, cpu_us=granian[0], rounds_cpu_us=granian),
            cell("uvicorn", HELLO, 400.0, cpu_us=uvicorn[0], rounds_cpu_us=uvicorn),
            cell("gunicorn-sync", HELLO, 400.0, cpu_us=300.0, rounds_cpu_us=[300.0, 310.0, 290.0]),
            # The floor, cheaper than any: not a server to pick.
            cell("empty-asgi", HELLO, 400.0, cpu_us=40.0, rounds_cpu_us=[40.0, 41.0, 39.0]),
        ],
        rounds=3,
    )


def test_the_cheapest_server_is_named_only_where_no_other_can_match_it(
    project_root: Path,
) -> None:
    question = "Which server and worker type?"
    found = _ask(project_root, _hello([60.0, 62.0, 58.0], [100.0, 104.0, 96.0]), question)
    assert (found.verdict, found.kind, found.names) == ("granian", WINNER, frozenset({"granian"}))
    assert found.figures.startswith(
        f"server CPU per request at {HELLO}, least first: granian, 1 worker: 60 µs"
    )
    assert "empty-asgi" not in found.figures
    # Rounds either side of uvicorn's: the two cannot be told apart; gunicorn-sync can.
    found = _ask(project_root, _hello([105.0, 95.0, 110.0], [100.0, 104.0, 96.0]), question)
    assert found.verdict == f"{NO_DIFFERENCE} between granian, uvicorn"
    assert (found.kind, found.names) == (NO_DIFFERENCE, frozenset({"granian", "uvicorn"}))


def test_the_cheapest_compares_servers_round_by_round(project_root: Path) -> None:
    # The machine's speed halves and recovers; uvicorn costs 10% more in every round. Each
    # cell's own interval is wide, their ratio's is not.
    granian = [60.0, 120.0, 90.0]
    found = _ask(
        project_root, _hello(granian, [1.1 * v for v in granian]), "Which server and worker type?"
    )
    assert found.verdict == "granian"


def test_cheapest_cells_measured_once_give_no_verdict(project_root: Path) -> None:
    cells = [
        cell("granian", HELLO, 400.0, cpu_us=60.0),
        cell("uvicorn", HELLO, 400.0, cpu_us=100.0),
    ]
    found = _ask(project_root, run("hello", cells), "Which server and worker type?")
    assert found.verdict.startswith(f"{CANNOT}: each cell measured once in the quick run")
    assert "`servelab bench hello --quick`" in found.verdict


def _ocr(variant: str, workers: int, rounds: Sequence[float]) -> dict[str, object]:
    return cell(variant, OCR, rounds[0], workers=workers, requests=200, rounds_rps=rounds)


@pytest.mark.parametrize(
    ("two_workers", "expected"),
    [
        # Within the rounds' scatter of four workers' 20/s: two are enough.
        ((19.0, 21.0, 18.5), "2 workers on 2 CPUs"),
        # 5% short in every round: two are not.
        ((19.0, 19.4, 18.6), "4 workers on 2 CPUs"),
    ],
)
def test_workers_are_the_fewest_that_cannot_be_told_from_the_best(
    project_root: Path, two_workers: tuple[float, ...], expected: str
) -> None:
    cells = [
        _ocr("uvicorn-process", 1, (10.0, 10.2, 9.8)),
        _ocr("uvicorn-process", 2, two_workers),
        _ocr("uvicorn-process", 4, (20.0, 20.4, 19.6)),
        _ocr("uvicorn-threadpool", 4, (5.0, 5.1, 4.9)),
    ]
    found = _ask(
        project_root, run("health-code", cells, rounds=3), "Which mode, and how many workers?"
    )
    assert found.verdict == f"{expected}; uvicorn-process"
    assert (found.kind, found.names) == (expected, frozenset({"uvicorn-process"}))


def test_a_variant_as_fast_at_its_best_is_named_beside_the_fastest(project_root: Path) -> None:
    cells = [
        _ocr("uvicorn-process", 1, (10.0, 10.2, 9.8)),
        _ocr("uvicorn-process", 2, (20.0, 20.4, 19.6)),
        _ocr("uvicorn-threadpool", 2, (19.0, 21.0, 19.5)),
    ]
    found = _ask(
        project_root, run("health-code", cells, rounds=3), "Which mode, and how many workers?"
    )
    assert found.verdict == "2 workers on 2 CPUs; uvicorn-process, or alike uvicorn-threadpool"
    assert found.names == frozenset({"uvicorn-process", "uvicorn-threadpool"})


def test_one_worker_count_cannot_answer_how_many_and_says_what_to_run(
    project_root: Path,
) -> None:
    cells = [cell("uvicorn", "hey /async", 500.0, rounds_rps=[500.0, 510.0, 490.0])]
    found = _ask(project_root, run("wait", cells, rounds=3), "How many workers?")
    assert found.verdict.startswith(f"{CANNOT}: only 1 worker measured")
    assert "`servelab bench wait --workers 1,2,4,8`" in found.verdict
    assert not found.answered
    # Measured once, it says the same: more rounds would not help.
    once = _ask(
        project_root, run("wait", [cell("uvicorn", "hey /async", 500.0)]), "How many workers?"
    )
    assert once.verdict == found.verdict


def test_worker_counts_measured_once_give_no_verdict(project_root: Path) -> None:
    cells = [
        cell("uvicorn", "hey /async", 500.0, workers=1),
        cell("uvicorn", "hey /async", 900.0, workers=2),
    ]
    found = _ask(project_root, run("wait", cells), "How many workers?")
    assert found.verdict.startswith(f"{CANNOT}: each cell measured once in the quick run")
    assert "`servelab bench wait --quick`" in found.verdict


def _observed(factors: Sequence[float]) -> BenchRun:
    bare = [100.0, 130.0, 90.0, 110.0]
    return run(
        "observability",
        [
            cell("hello-uvicorn-bare", HELLO, 400.0, cpu_us=100.0, rounds_cpu_us=bare),
            cell("hello-uvicorn", HELLO, 400.0, cpu_us=100.0, rounds_cpu_us=_times(bare, factors)),
        ],
        rounds=4,
    )


@pytest.mark.parametrize(
    ("factors", "verdict", "kind"),
    [
        ((1.03, 1.02, 1.04, 1.03), "yes: +3% at most", YES),
        ((1.25, 1.24, 1.26, 1.25), "no: +25% on hello-uvicorn, 1 worker", NO),
        # 8% in all, but one round at 15%: the limit of 10% lies inside the interval.
        (
            (1.05, 1.15, 1.06, 1.06),
            f"{NO_DIFFERENCE} from the limit: +8% on hello-uvicorn, 1 worker",
            NO_DIFFERENCE,
        ),
    ],
)
def test_a_cost_is_within_its_limit_only_where_its_whole_interval_is(
    project_root: Path, factors: tuple[float, ...], verdict: str, kind: str
) -> None:
    question = "Do metrics and access logs cost at most 10% of the CPU of GET /hello?"
    found = _ask(project_root, _observed(factors), question)
    assert (found.verdict, found.kind) == (verdict, kind)
    assert found.figures.startswith("hello observed/bare CPU, the limit 1.10×: hello-uvicorn")


def test_a_question_without_its_cells_says_what_it_needs(project_root: Path) -> None:
    found = _ask(
        project_root, run("files", [cell("uvicorn", "POST /files raw", 100.0)]), STREAM_BUFFER
    )
    assert found.verdict.startswith(
        f"{CANNOT}: needs both sides of stream/buffer upload CPU or stream/buffer upload"
    )
    assert found.figures == "not in the quick run"
    found = _ask(project_root, None, STREAM_BUFFER, family="files")
    assert (found.verdict, found.figures) == (
        f"{CANNOT}: needs both sides of stream/buffer upload CPU or stream/buffer upload",
        "no run",
    )


def test_the_gpu_question_without_the_gpu_machines_run_says_what_to_run(
    project_root: Path,
) -> None:
    found = _ask(project_root, run("health-code", []), "GPU or CPU?")
    assert found.verdict.startswith(f"{CANNOT}: no GPU on the machine measured")
    assert "`scripts/device/run.sh`" in found.verdict


def test_the_gpu_machines_run_gives_figures_but_no_verdict_from_one_measurement(
    project_root: Path,
) -> None:
    rule = _rule(project_root, "health-code", "GPU or CPU?")
    matrix = load_matrix(Project(project_root), "health-code")
    measured = device_run(
        [
            device_stack("gpu-batched", 4, True, "batched", (150.0, 300.0)),
            device_stack("cpu-process", 4, False, "process", (50.0, 60.0)),
        ]
    )
    found = answer(rule, None, matrix, Noise(), measured)
    assert found.verdict.startswith(
        f"{CANNOT}: the GPU machine's run measured each stack once, so no interval to judge by "
        "(the GPU 3.00× the CPU's requests/s at 20 clients; the GPU 5.00× the CPU's "
        "requests/s at 64 clients)"
    )
    assert not found.answered
    assert "NVIDIA H100 80GB HBM3 (driver 580.159.04), 16 CPUs" in found.figures
    assert found.sure == "1 run on the GPU machine (2026-11-27)"
