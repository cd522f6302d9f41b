"""A ratio of a run with rounds: the median of its round-by-round values, so that a drift
of the machine between rounds cancels instead of reaching the quotient of two medians."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from servelab.bench.plan.matrix import Matrix, parse_matrix
from servelab.bench.report.ratios import run_ratio_values
from servelab.bench.report.results import BenchRun, run_from_json
from servelab.testing.records import run_record

_MEASUREMENT = {
    "requests": 1000,
    "rps": 1000.0,
    "avg_ms": 10.0,
    "p50_ms": 9.0,
    "p75_ms": 11.0,
    "p90_ms": 13.0,
    "p99_ms": 20.0,
    "max_ms": 50.0,
    "failed_rate": 0.0,
    "checks_rate": 1.0,
    "errors": {"connect": 0, "timeout": 0, "non_2xx": 0, "other": 0},
    "elapsed_s": 1.0,
}


def _cell(
    variant: str, rounds_cpu_us: list[float | None], rps: float, k6_cpu_s: float = 0.5
) -> dict[str, Any]:
    """A cell whose kept round is its median by CPU, 1,000 requests in it; k6 used
    `k6_cpu_s` of its one CPU's second."""
    kept = sorted(value for value in rounds_cpu_us if value is not None)
    return {
        "variant": variant,
        "workers": 1,
        "endpoint": "GET /hello",
        "script": "hello.js",
        "env": {},
        "pinning": "server on CPU 1, k6 on CPU 0",
        "commands": {},
        "k6_cpu_s": k6_cpu_s,
        "k6_wall_s": 1.0,
        "k6_cpus": 1,
        "wall_s": 2.0,
        "server_cpu_s": kept[(len(kept) - 1) // 2] * 1000 / 1e6,
        "measurement": {**_MEASUREMENT, "rps": rps},
        "rounds_cpu_us": rounds_cpu_us,
        "rounds_rps": [rps] * len(rounds_cpu_us),
    }


# The app costs 2x the empty app in rounds 1 and 2 (the machine ran at half speed in round
# 2), and its third window alone was slow. Their median rounds are not the same round:
# the medians' quotient is 250 / 100 = 2.5 where the rounds say 2, 2 and 2.78.
APP = [200.0, 400.0, 250.0]
EMPTY = [100.0, 200.0, 90.0]


def _run(app: list[float | None], empty: list[float | None], rounds: int = 3) -> BenchRun:
    cells = [_cell("app", app, 500.0), _cell("empty", empty, 1000.0)]
    return run_from_json(
        run_record("hello", {"vus": 10, "duration_s": 1.0}, cells=cells, rounds=rounds)
    )


@pytest.fixture
def matrix() -> Matrix:
    ratio = {"numerator": {"variants": ["app"]}, "denominator": {"variants": ["empty"]}}
    return parse_matrix(
        {
            "family": "hello",
            "write_up": "loadtests/reference/hello.toml",
            "workers": {"quick": [1]},
            "load": {"quick": {"vus": 10, "duration_s": 1}},
            "variants": {
                name: {"profile": "reference", "service": f"hello-{name}", "endpoints": "hello"}
                for name in ("app", "empty")
            },
            "endpoints": {"hello": [{"key": "GET /hello", "script": "hello.js"}]},
            "ratios": [
                {**ratio, "name": "cpu", "metric": "cpu_us"},
                {**ratio, "name": "rps"},
            ],
        }
    )


def _value(matrix: Matrix, run: BenchRun, name: str) -> float:
    [spec] = [spec for spec in matrix.ratios if spec.name == name]
    [value] = run_ratio_values(spec, run, ["app", "empty"])
    return value.value


def test_a_cpu_ratio_is_the_median_of_its_rounds(matrix: Matrix) -> None:
    assert _value(matrix, _run(APP, EMPTY), "cpu") == pytest.approx(2.0)


def test_a_round_missing_on_either_side_is_left_out(matrix: Matrix) -> None:
    run = _run([200.0, None, 330.0], [100.0, 200.0, 300.0])
    assert _value(matrix, run, "cpu") == pytest.approx((2.0 + 1.1) / 2)


def test_runs_without_rounds_read_the_median_cells(matrix: Matrix) -> None:
    run = _run(APP, EMPTY)
    assert _value(matrix, run, "rps") == pytest.approx(0.5)
    one_round = replace(run, rounds=1)
    assert _value(matrix, one_round, "cpu") == pytest.approx(250.0 / 100.0)


def test_a_client_bound_cell_leaves_requests_per_second_ratios_not_cpu_ones(
    matrix: Matrix,
) -> None:
    # k6 used 95% of its CPU on the empty app's cell: its requests/s are k6's.
    cells = [_cell("app", APP, 500.0), _cell("empty", EMPTY, 1000.0, k6_cpu_s=0.95)]
    run = run_from_json(run_record("hello", {"vus": 10, "duration_s": 1.0}, cells, rounds=3))
    [spec] = [spec for spec in matrix.ratios if spec.name == "rps"]
    assert run_ratio_values(spec, run, ["app", "empty"]) == []
    assert _value(matrix, run, "cpu") == pytest.approx(2.0)


def test_a_mean_over_endpoints_keeps_the_rounds_that_measured_them_all(matrix: Matrix) -> None:
    """The steady cells run six rounds, the others three: the rounds where only the steady
    pair was measured would give the mean over endpoints another meaning, so the ratio is
    the median of the three rounds with both pairs."""
    steady = {"endpoint": "GET /hello @400/s"}
    cells = [
        _cell("app", APP, 500.0),
        _cell("empty", EMPTY, 1000.0),
        {**_cell("app", [300.0] * 6, 400.0), **steady},
        {**_cell("empty", [100.0] * 6, 400.0), **steady},
    ]
    run = run_from_json(run_record("hello", {"vus": 10, "duration_s": 1.0}, cells=cells, rounds=6))
    # Rounds 1-3: sqrt(2 x 3), sqrt(2 x 3) and sqrt(2.78 x 3); rounds 4-6 (3 alone) are left out.
    assert _value(matrix, run, "cpu") == pytest.approx(6**0.5)


def test_a_cell_measured_once_still_gives_its_ratio_in_a_run_with_rounds(matrix: Matrix) -> None:
    """The OCR runs once where the steady cells run six rounds: its ratio is its one round's,
    not lost for want of a round-by-round record."""
    once = {"endpoint": "POST /ocr", "rounds_cpu_us": []}
    cells = [
        {**_cell("app", [300.0], 1.0), **once, "server_cpu_s": 0.3},
        {**_cell("empty", [200.0], 1.0), **once, "server_cpu_s": 0.2},
        _cell("app", [200.0] * 6, 400.0),
        _cell("empty", [100.0] * 6, 400.0),
    ]
    run = run_from_json(run_record("hello", {"vus": 10, "duration_s": 1.0}, cells=cells, rounds=6))
    [spec] = [spec for spec in matrix.ratios if spec.name == "cpu"]
    # The app over the empty app, endpoint by endpoint (the spec's numerator lists none).
    numerator = spec.numerator.model_copy(update={"endpoints": ("GET /hello", "POST /ocr")})
    values = run_ratio_values(
        spec.model_copy(update={"numerator": numerator}),
        run,
        ["app"],
    )
    assert {value.endpoint: round(value.value, 2) for value in values} == {
        "GET /hello": 2.0,
        "POST /ocr": 1.5,
    }
