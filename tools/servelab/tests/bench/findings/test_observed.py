"""Questions answered by what the cells saw: failures counted (the write-ups' own tools'
errors included), a percentile against a limit, one option sooner only where even its
slowest request beat half of the other's, and the highest rate an endpoint held with every
answer a 2xx, with what the rates above it answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from servelab.bench.findings.answer import (
    CANNOT,
    DEPENDS,
    NO,
    NO_DIFFERENCE,
    SEEN,
    WINNER,
    YES,
    Answer,
)
from servelab.bench.findings.verdict import answer
from servelab.bench.plan.matrix import Matrix, load_matrix
from servelab.bench.report.results import BenchRun
from servelab.project import Noise, Project
from servelab.spec.questions import Cell, Holds, Latency, Question, Under, Unfailed

from .conftest import cell, run

HELLO = "GET /hello"


@pytest.fixture(scope="module")
def matrix(project_root: Path) -> Matrix:
    # The rules read no ratio: any family's matrix does.
    return load_matrix(Project(project_root), "hello")


def _ask(matrix: Matrix, rule: Question, cells: list[dict[str, Any]]) -> Answer:
    found: BenchRun = run("hello", cells)
    return answer(rule, found, matrix, Noise())


def _unfailed(**fields: Any) -> Unfailed:
    return Unfailed(rule="unfailed", question="Did any request fail?", **fields)


def test_no_failure_in_any_cell_is_a_yes_with_the_count(matrix: Matrix) -> None:
    wrk = {"tool": "wrk", "requests": 900, "rps": 450.0}
    cells = [
        cell("granian", HELLO, 100.0, requests=200),
        cell("uvicorn", HELLO, 100.0, requests=300, tools=[wrk]),
    ]
    found = _ask(matrix, _unfailed(), cells)
    assert found.verdict == (
        "none failed: 500 requests in 2 cells, and wrk on the same cells, every one answered"
    )
    assert (found.kind, found.names) == (YES, frozenset())
    assert found.answered


@pytest.mark.parametrize(
    ("measured", "tool_errors", "listed"),
    [
        # 1% of 200 requests failed.
        ({"failed_rate": 0.01}, 0, "2 by k6"),
        # Every answer a 2xx, but 4 bodies were not the expected answer.
        ({"errors": {"wrong_answer": 4}}, 0, "4 by k6"),
        # k6 saw none fail; wrk, on the same cell, saw 3.
        ({}, 3, "0 by k6, 3 by the tool"),
    ],
)
def test_a_failure_of_any_kind_is_a_no_naming_the_cell(
    matrix: Matrix, measured: dict[str, Any], tool_errors: int, listed: str
) -> None:
    tools = [{"tool": "wrk", "requests": 500, "rps": 250.0, "errors": tool_errors}]
    cells = [
        cell("granian", HELLO, 100.0, requests=200),
        cell("uvicorn", HELLO, 100.0, requests=200, tools=tools, **measured),
    ]
    found = _ask(matrix, _unfailed(), cells)
    assert found.verdict == f"some failed: uvicorn, 1 worker, {HELLO}: {listed}"
    assert (found.kind, found.names) == (NO, frozenset({f"uvicorn, 1 worker, {HELLO}"}))


def test_a_cell_that_measured_nothing_counts_as_failed(matrix: Matrix) -> None:
    broken = {**cell("granian", HELLO, 100.0), "measurement": None, "error": "k6 exited 1"}
    found = _ask(matrix, _unfailed(), [cell("uvicorn", HELLO, 100.0), broken])
    assert found.kind == NO
    assert "no measurement (k6 exited 1)" in found.verdict


def test_failures_outside_the_cells_asked_about_do_not_count(matrix: Matrix) -> None:
    cells = [
        cell("granian", HELLO, 100.0, requests=200),
        cell("granian", "POST /echo", 100.0, requests=200, failed_rate=0.5),
        cell("uvicorn", HELLO, 100.0, requests=200, failed_rate=0.5),
    ]
    found = _ask(matrix, _unfailed(variants=("granian",), endpoints=("GET *",)), cells)
    assert found.kind == YES
    assert found.verdict.startswith("none failed: 200 requests in 1 cell,")
    assert _ask(matrix, _unfailed(variants=("granian",)), cells).kind == NO


def test_no_cell_asked_about_cannot_answer(matrix: Matrix) -> None:
    found = _ask(matrix, _unfailed(variants=("tornado",)), [cell("granian", HELLO, 100.0)])
    assert found.verdict.startswith(f"{CANNOT}: needs its cells measured")
    assert not found.answered


def _under(**fields: Any) -> Under:
    return Under(
        rule="under", question="Fast enough?", endpoints=("GET *",), **{"limit_ms": 100.0, **fields}
    )


def test_every_cell_within_the_limit_is_a_yes(matrix: Matrix) -> None:
    cells = [
        cell("granian", HELLO, 100.0, p95_ms=40.0),
        cell("uvicorn", HELLO, 100.0, p95_ms=99.0),
        # Not asked about: slow, but not a GET.
        cell("uvicorn", "POST /echo", 100.0, p95_ms=400.0),
    ]
    found = _ask(matrix, _under(), cells)
    assert found.verdict == (
        f"yes: every p95 under 100 ms (granian, 1 worker, {HELLO}: p95 40 ms; "
        f"uvicorn, 1 worker, {HELLO}: p95 99 ms)"
    )
    assert found.kind == YES


def test_one_cell_over_the_limit_is_a_no_naming_it(matrix: Matrix) -> None:
    cells = [
        cell("granian", HELLO, 100.0, p95_ms=40.0, max_ms=2500.0),
        cell("uvicorn", HELLO, 100.0, p95_ms=150.0, max_ms=300.0),
    ]
    found = _ask(matrix, _under(), cells)
    assert found.verdict == f"no: p95 over 100 ms on uvicorn, 1 worker, {HELLO}"
    assert (found.kind, found.names) == (NO, frozenset({f"uvicorn, 1 worker, {HELLO}"}))
    # By the slowest request instead, the other one is over.
    found = _ask(matrix, _under(percentile="max_ms", limit_ms=1000.0), cells)
    assert found.verdict == f"no: max over 1.0 s on granian, 1 worker, {HELLO}"
    assert f"granian, 1 worker, {HELLO}: max 2.5 s" in found.figures


def test_cells_without_the_percentile_cannot_answer(matrix: Matrix) -> None:
    # Saved before k6 reported p95: no value to hold against the limit.
    found = _ask(matrix, _under(), [cell("granian", HELLO, 100.0)])
    assert found.verdict.startswith(f"{CANNOT}: needs its cells measured")


def _latency() -> Latency:
    return Latency(
        rule="latency",
        question="Which answers sooner?",
        first="async",
        second="sync",
        first_cells=(Cell(variant="uvicorn", endpoint="hey /async"),),
        second_cells=(Cell(variant="uvicorn", endpoint="hey /sync"),),
    )


def _pair(
    workers: int, first: tuple[float, float], second: tuple[float, float]
) -> list[dict[str, Any]]:
    """The two cells at `workers`, each with its (p50, max) in ms."""
    return [
        cell("uvicorn", "hey /async", 500.0, workers=workers, p50_ms=first[0], max_ms=first[1]),
        cell("uvicorn", "hey /sync", 40.0, workers=workers, p50_ms=second[0], max_ms=second[1]),
    ]


def test_an_option_is_sooner_where_its_slowest_beats_half_of_the_others(
    matrix: Matrix,
) -> None:
    cells = _pair(1, (1010.0, 1100.0), (12000.0, 24000.0)) + _pair(
        2, (1005.0, 1050.0), (6000.0, 12000.0)
    )
    found = _ask(matrix, _latency(), cells)
    assert (found.verdict, found.kind, found.names) == ("async", WINNER, frozenset({"async"}))
    assert "uvicorn, 1 worker, hey /sync: p50 12.0 s, max 24.0 s (80 requests)" in found.figures
    assert "max is below the other's p50" in found.sure
    swapped = _pair(1, (12000.0, 24000.0), (1010.0, 1100.0))
    assert _ask(matrix, _latency(), swapped).verdict == "sync"


def test_overlapping_windows_are_no_difference_whatever_the_medians(matrix: Matrix) -> None:
    # async's median is a tenth of sync's, but its slowest request came after sync's median.
    found = _ask(matrix, _latency(), _pair(1, (100.0, 1500.0), (1000.0, 1200.0)))
    assert (found.verdict, found.kind) == (NO_DIFFERENCE, NO_DIFFERENCE)


def test_pairs_apart_in_opposite_directions_or_in_some_cells_only_depend_on_where(
    matrix: Matrix,
) -> None:
    opposite = _pair(1, (10.0, 50.0), (900.0, 1100.0)) + _pair(2, (900.0, 1100.0), (10.0, 50.0))
    found = _ask(matrix, _latency(), opposite)
    assert (found.verdict, found.kind) == (DEPENDS, DEPENDS)
    assert found.names == frozenset({"async", "sync"})
    some = _pair(1, (10.0, 50.0), (900.0, 1100.0)) + _pair(2, (100.0, 1500.0), (1000.0, 1200.0))
    found = _ask(matrix, _latency(), some)
    assert (found.verdict, found.kind) == (f"{DEPENDS}: apart in some cells only", DEPENDS)


def test_cells_are_compared_only_at_the_same_number_of_workers(matrix: Matrix) -> None:
    cells = [
        cell("uvicorn", "hey /async", 500.0, workers=1, p50_ms=10.0, max_ms=50.0),
        cell("uvicorn", "hey /sync", 40.0, workers=2, p50_ms=900.0, max_ms=1100.0),
    ]
    assert _ask(matrix, _latency(), cells).verdict.startswith(f"{CANNOT}: needs its cells measured")


HELD = "every request sent and answered with a 2xx up to:"


def _holds() -> Holds:
    return Holds(rule="holds", question="What rate does it hold?", variant="uwsgi-nginx")


def _step(
    rate: int, endpoint: str = HELLO, variant: str = "uwsgi-nginx", **measured: Any
) -> dict[str, Any]:
    return cell(variant, f"{endpoint} @{rate}/s", float(rate), requests=10 * rate, **measured)


def test_the_highest_rate_with_every_answer_a_2xx_and_503s_above_it(matrix: Matrix) -> None:
    shed = {"failed_rate": 0.3, "statuses": {"503": 1200}, "errors": {"non_2xx": 1200}}
    cells = [_step(100), _step(400, **shed), _step(200)]
    found = _ask(matrix, _holds(), cells)
    assert found.verdict == (
        f"{HELD} {HELLO} 200/s; beyond, 503s shed at once or answers queued: never a 502, a 500 "
        "or a timeout"
    )
    assert found.figures == (
        f"rates measured: 100/s, 200/s, 400/s; beyond: {HELLO} "
        "@400/s: 70.0% 2xx, 1200 503s, p99 20 ms"
    )
    assert (found.kind, found.names) == (SEEN, frozenset({f"{HELLO} 200/s"}))


@pytest.mark.parametrize(
    ("measured", "shown"),
    [
        ({"statuses": {"502": 12, "503": 0}, "errors": {"non_2xx": 12}}, "12 502s"),
        ({"errors": {"non_2xx": 7}}, "7 other non-2xx"),
        ({"errors": {"timeout": 5}}, "5 timeouts"),
    ],
)
def test_502s_500s_and_timeouts_above_the_held_rate_are_reported(
    matrix: Matrix, measured: dict[str, Any], shown: str
) -> None:
    cells = [_step(100), _step(200, failed_rate=0.01, **measured)]
    found = _ask(matrix, _holds(), cells)
    assert found.verdict == (f"{HELD} {HELLO} 100/s; 502s, 500s or timeouts at {HELLO} @200/s")
    assert shown in found.figures
    assert found.kind == NO
    assert found.names == frozenset({f"{HELLO} 100/s", f"{HELLO} @200/s"})


def test_each_endpoint_holds_its_own_rate_and_other_variants_do_not_count(
    matrix: Matrix,
) -> None:
    shed = {"failed_rate": 0.2, "statuses": {"503": 10}, "errors": {"non_2xx": 10}}
    cells = [
        _step(100, "GET /a"),
        _step(200, "GET /a"),
        _step(100, "GET /b", **shed),
        _step(200, "GET /b", **shed),
        # Another variant failing at every rate, and a cell at no rate.
        _step(100, "GET /a", variant="uvicorn", failed_rate=0.5),
        cell("uwsgi-nginx", "GET /a", 900.0, failed_rate=0.5),
    ]
    found = _ask(matrix, _holds(), cells)
    assert found.verdict.startswith(
        f"{HELD} GET /a 200/s, GET /b none of 100/s and up; beyond, 503s shed at once"
    )
    assert "GET /b @100/s: 80.0% 2xx" in found.figures
    assert "GET /a @" not in found.figures.split("; ", 1)[1]


def test_a_rate_is_held_only_if_every_rate_below_it_was(matrix: Matrix) -> None:
    shed = {"failed_rate": 0.2, "statuses": {"503": 200}, "errors": {"non_2xx": 200}}
    cells = [_step(100, **shed), _step(200)]
    found = _ask(matrix, _holds(), cells)
    assert found.verdict.startswith(f"{HELD} {HELLO} none")
    assert f"{HELLO} @100/s: 80.0% 2xx, 200 503s" in found.figures


def test_requests_not_sent_in_time_mean_the_rate_was_not_held(matrix: Matrix) -> None:
    cells = [_step(100), _step(1000, dropped=250)]
    found = _ask(matrix, _holds(), cells)
    assert found.verdict.startswith(f"{HELD} {HELLO} 100/s")
    assert "250 not sent in time" in found.figures


def test_a_variant_without_rate_cells_cannot_answer(matrix: Matrix) -> None:
    found = _ask(matrix, _holds(), [cell("uwsgi-nginx", HELLO, 100.0)])
    assert found.verdict.startswith(f"{CANNOT}: needs its cells measured")
