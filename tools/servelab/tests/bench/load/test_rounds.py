"""A cell's median round: its figures, and each tool's own median."""

from __future__ import annotations

from dataclasses import replace

import pytest

from servelab.bench.load.rounds import median_round
from servelab.bench.load.shape import Load
from servelab.bench.load.tools import ToolResult
from servelab.bench.measure.summary import Measurement
from servelab.bench.plan.matrix import MatrixError, parse_matrix
from servelab.bench.report.results import CellResult

_LOAD = Load(vus=1, duration_s=1.0)


def _measurement(requests: int) -> Measurement:
    return Measurement(
        requests=requests,
        rps=float(requests),
        avg_ms=1.0,
        p50_ms=1.0,
        p75_ms=1.0,
        p90_ms=1.0,
        p99_ms=1.0,
        max_ms=1.0,
        failed_rate=0.0,
        checks_rate=1.0,
        errors={},
        elapsed_s=1.0,
    )


def _cell(requests: int, cpu_s: float | None, wrk_cpu_s: float = 1.0) -> CellResult:
    wrk = ToolResult("wrk", ["wrk"], 1000, 1000.0, None, None, 0, wrk_cpu_s)
    return CellResult(
        variant="v",
        workers=1,
        endpoint="e",
        script="hello.js",
        env={},
        pinning="",
        commands={},
        k6_cpu_s=0.0,
        k6_wall_s=1.0,
        k6_cpus=1,
        wall_s=1.0,
        measurement=_measurement(requests),
        load=_LOAD,
        settings={},
        server_cpu_s=cpu_s,
        tools=(wrk,),
    )


def test_the_round_with_the_median_cpu_per_request_is_kept_whole() -> None:
    rounds = [_cell(1000, 0.3, 0.2), _cell(2000, 0.2, 0.1), _cell(1000, 0.1, 0.3)]
    kept = median_round(rounds)
    assert kept.measurement is not None and kept.measurement.requests == 1000
    assert kept.cpu_us_per_request == pytest.approx(100.0)
    assert kept.rounds_cpu_us == pytest.approx((300.0, 100.0, 100.0))
    assert kept.rounds_rps == (1000.0, 2000.0, 1000.0)
    [wrk] = kept.tools
    assert wrk.cpu_us_per_request == pytest.approx(200.0)


def test_tools_run_in_the_first_round_only_keep_their_figures() -> None:
    # The runner runs wrk in a cell's first round alone; the kept round is a later one.
    first = _cell(1000, 0.3, 0.25)
    later = [replace(_cell(1000, cpu), tools=()) for cpu in (0.2, 0.1)]
    kept = median_round([first, *later])
    assert kept.cpu_us_per_request == pytest.approx(200.0)
    [wrk] = kept.tools
    assert wrk.cpu_us_per_request == pytest.approx(250.0)


def test_a_failed_round_is_left_out_unless_every_round_failed() -> None:
    failed = replace(_cell(1000, None), measurement=None, error="k6 exited with status 107")
    kept = median_round([failed, _cell(1000, 0.5), _cell(1000, 0.4)])
    assert kept.cpu_us_per_request == pytest.approx(400.0)
    assert kept.rounds_cpu_us[0] is None
    assert median_round([failed, failed]).error == failed.error


def test_without_cpu_figures_the_median_is_by_requests_per_second() -> None:
    kept = median_round([_cell(3000, None), _cell(1000, None), _cell(2000, None)])
    assert kept.measurement is not None and kept.measurement.rps == 2000.0


def _rounds_matrix(**tables: object) -> dict[str, object]:
    return {
        "family": "rounds-test",
        "write_up": "loadtests/reference/hello.toml",
        "load": {"quick": {"vus": 1, "duration_s": 1}, "full": {"vus": 1, "duration_s": 1}},
        "variants": {
            "v": {"profile": "p", "service": "s", "endpoints": "e", "workers": {"quick": [1]}}
        },
        "endpoints": {"e": [{"key": "e", "script": "hello.js"}]},
        **tables,
    }


def test_rounds_belong_to_a_load_table_per_form() -> None:
    load = {"quick": {"vus": 1, "duration_s": 1, "rounds": 3}, "full": {"vus": 1, "duration_s": 1}}
    matrix = parse_matrix(_rounds_matrix(load=load))
    assert matrix.rounds_in("quick") == 3
    assert matrix.rounds_in("full") == 1
    assert [cell.load.rounds for cell in matrix.cells("quick")] == [3]
    with pytest.raises(
        MatrixError, match=r"load\.quick\.rounds: Input should be greater than or equal to 1"
    ):
        parse_matrix(_rounds_matrix(load={**load, "quick": {**load["quick"], "rounds": 0}}))
    with pytest.raises(MatrixError, match=r"rounds: Extra inputs are not permitted"):
        parse_matrix(_rounds_matrix(rounds={"quick": 3}))


def test_a_shape_runs_its_own_rounds() -> None:
    """The steady cells run more rounds than the rest: the form's passes are the most any
    shape asks for, and the report says how many a shape's cells ran."""
    matrix = parse_matrix(
        _rounds_matrix(
            load={"quick": {"vus": 1, "duration_s": 2, "rounds": 2}},
            shapes={
                "steady": {
                    "quick": {
                        "shape": "vegeta",
                        "rate": 100,
                        "vus": 5,
                        "duration_s": 1,
                        "rounds": 6,
                    }
                }
            },
            endpoints={"e": [{"key": "e", "script": "hello.js", "steady": True}]},
        )
    )
    cells = matrix.cells("quick")
    assert [(cell.endpoint.key, cell.load.rounds) for cell in cells] == [("e", 2), ("e @100/s", 6)]
    assert matrix.rounds_in("quick") == 6
    assert cells[1].load.describe().endswith(", 6 rounds")
    assert cells[0].load.describe().endswith(", 2 rounds")
    assert "rounds" not in replace(cells[0].load, rounds=1).describe()


def test_rounds_pass_over_one_worker_count_at_a_time() -> None:
    """Each worker count's rounds run before the next count's stacks start; a later round
    passes over the cells whose shape runs that many rounds alone."""
    from servelab.bench.runner import _in_rounds

    matrix = parse_matrix(
        _rounds_matrix(
            load={"quick": {"vus": 1, "duration_s": 2, "rounds": 2}},
            shapes={
                "steady": {
                    "quick": {"shape": "vegeta", "rate": 9, "vus": 1, "duration_s": 1, "rounds": 3}
                }
            },
            endpoints={"e": [{"key": "e", "script": "hello.js", "steady": True}]},
            variants={
                "v": {
                    "profile": "p",
                    "service": "s",
                    "endpoints": "e",
                    "workers": {"quick": [1, 2]},
                }
            },
        )
    )
    order = [
        (round_, cell.workers, cell.endpoint.key)
        for round_, _, cell in _in_rounds(matrix.cells("quick"))
    ]
    assert order == [
        (0, 1, "e"), (0, 1, "e @9/s"), (1, 1, "e"), (1, 1, "e @9/s"), (2, 1, "e @9/s"),
        (0, 2, "e"), (0, 2, "e @9/s"), (1, 2, "e"), (1, 2, "e @9/s"), (2, 2, "e @9/s"),
    ]  # fmt: skip
