"""The health-code family: the write-up's ab shape over every mode and server, its 14 ab
runs as data, ab's percentiles and wrong answers carried from k6 to the report, and a
ratio of two metrics of one cell (p99 / p50)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from servelab.bench.load.shape import Load
from servelab.bench.measure.summary import ERROR_KINDS, measurement
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.markdown import render
from servelab.bench.report.ratios import ratio_values
from servelab.bench.report.results import run_from_json
from servelab.bench.report.writeup import load_write_up
from servelab.project import Project
from servelab.spec.matrix import Ratio, Side
from servelab.stack.compose import load_project
from servelab.testing.markdown import unpadded
from servelab.testing.records import run_record

AB = Load(vus=20, shape="ab", iterations=200, max_duration_s=600)
MODES = {"async-blocking", "threadpool", "process", "batched"}
ENDPOINT = "ab POST /analysis/health-code"


def test_every_full_cell_is_the_write_ups_ab_run_on_a_compose_service(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "health-code")
    profiles = {variant.profile for variant in matrix.variants}
    services = {
        profile: load_project(Project(project_root), [profile]).services for profile in profiles
    }
    quick = matrix.cells("quick")
    for cell in quick:
        # The quick form's 40 requests in 3 rounds, so that a ratio has an interval.
        assert cell.load == replace(AB, iterations=40, rounds=3), cell.label
    for cell in [*quick, *matrix.cells("full")]:
        assert cell.variant.service in services[cell.variant.profile], cell.label
        assert (project_root / "loadtests" / cell.endpoint.script).is_file()
        assert cell.server_env["WEB_CONCURRENCY"] == str(cell.workers)
        assert cell.server_env["ANALYZE_MODE"] in MODES
    modes = {(c.variant.profile, c.server_env["ANALYZE_MODE"], c.workers) for c in quick}
    assert modes == {(s, m, w) for s in ("uvicorn", "gunicorn") for m in MODES for w in (1, 2)}
    full = {cell.workers for cell in matrix.cells("full")}
    assert full == {1, 2, 4, 6, 8}
    assert all(cell.load == AB for cell in matrix.cells("full"))


def test_the_gpu_variants_are_named_but_never_run_here(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "health-code")
    gpu = [variant for variant in matrix.variants if variant.profile == "gpu"]
    assert {variant.service for variant in gpu} == {"health-code-gpu"}
    assert not [c for form in ("quick", "full") for c in matrix.cells(form) if c.variant in gpu]
    assert "GPU path is not measured here" in matrix.notes
    assert "scripts/device/run.sh" in matrix.notes


def test_the_reference_holds_all_14_ab_runs_with_every_percentile(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests/reference/health-code.toml")
    runs = {(run.server, run.workers) for run in write_up.runs}
    assert runs == {
        *(("uvicorn-async", w) for w in (2, 4)),
        *(("gunicorn-async", w) for w in (2, 4)),
        *(("uvicorn-sync", w) for w in (1, 2, 4, 6, 8)),
        *(("gunicorn-sync", w) for w in (1, 2, 4, 6, 8)),
    }
    for figure in write_up.figures:
        assert figure.endpoint == ENDPOINT
        assert figure.requests == 200
        table = dict(figure.printed["percentiles_ms"])
        for percent in (50, 66, 75, 80, 90, 95, 98, 99):
            assert figure.metric(f"p{percent}_ms") == table[percent]
        assert figure.max_ms == table[100]
        assert figure.error_count == figure.printed["failed_requests"]
        assert figure.errors is not None
        assert figure.errors["non_2xx"] == figure.printed["non_2xx_responses"]
    one = write_up.figure("uvicorn-sync", 1, ENDPOINT)
    assert one is not None
    assert (one.rps, one.elapsed_s, one.errors) == (
        4.83,
        41.372,
        {"non_2xx": 21, "wrong_answer": 59},
    )


def _summary(trend: dict[str, float], extra: dict[str, Any]) -> dict[str, Any]:
    metrics: dict[str, Any] = {
        "http_reqs{phase:measure}": {"values": {"count": 200}},
        "http_req_duration{phase:measure}": {"values": trend},
        "http_req_failed{phase:measure}": {"values": {"rate": 0.01}},
        "checks{phase:measure}": {"values": {"rate": 0.97}},
        **{f"errors_{kind}{{phase:measure}}": {"values": {"count": 0}} for kind in ERROR_KINDS},
        **extra,
    }
    metrics["errors_non_2xx{phase:measure}"] = {"values": {"count": 2}}
    return {"metrics": metrics, "state": {"testRunDurationMs": 10_000}}


TREND = {
    "avg": 500.0,
    "p(50)": 400.0,
    "p(66)": 450.0,
    "p(75)": 480.0,
    "p(80)": 500.0,
    "p(90)": 600.0,
    "p(95)": 700.0,
    "p(98)": 800.0,
    "p(99)": 900.0,
    "max": 1000.0,
}


def test_abs_percentiles_and_wrong_answers_come_from_the_summary() -> None:
    wrong = {"errors_wrong_answer{phase:measure}": {"values": {"count": 4}}}
    m = measurement(_summary(TREND, wrong), AB)
    assert (m.p66_ms, m.p80_ms, m.p95_ms, m.p98_ms) == (450.0, 500.0, 700.0, 800.0)
    assert m.errors["wrong_answer"] == 4
    assert m.error_count == 6
    assert m.rps == 20.0


def test_a_summary_without_them_reads_as_before() -> None:
    old = {key: value for key, value in TREND.items() if key not in {"p(66)", "p(80)", "p(98)"}}
    m = measurement(_summary(old, {}), AB)
    assert (m.p66_ms, m.p80_ms, m.p98_ms) == (None, None, None)
    assert "wrong_answer" not in m.errors
    assert m.error_count == 2


def test_a_ratio_of_two_metrics_of_each_cell() -> None:
    spec = Ratio(
        name="p99/p50",
        about="",
        numerator=Side(endpoint=ENDPOINT),
        denominator=Side(metric="p50_ms"),
        metric="p99_ms",
    )
    p99 = {("a", 1, ENDPOINT): 900.0, ("b", 2, ENDPOINT): 300.0, ("b", 2, "other"): 1.0}
    p50 = {("a", 1, ENDPOINT): 400.0, ("b", 2, ENDPOINT): 300.0, ("b", 2, "other"): 1.0}
    values = ratio_values(spec, p99, ["a", "b"], {}, p50)
    assert [(v.variant, v.workers, v.value) for v in values] == [("a", 1, 2.25), ("b", 2, 1.0)]


def _cell(variant: str, workers: int, rps: float, errors: dict[str, int]) -> dict[str, Any]:
    return {
        "variant": variant,
        "workers": workers,
        "endpoint": ENDPOINT,
        "script": "health-code.js",
        "env": {"USAGE": "health-code", "BODY": "json"},
        "pinning": "not pinned (server and k6 share every CPU)",
        "commands": {},
        "k6_cpu_s": 1.0,
        "k6_wall_s": 10.0,
        "k6_cpus": 2,
        "wall_s": 12.0,
        "measurement": {
            "requests": 200,
            "rps": rps,
            "avg_ms": 500.0,
            "p50_ms": 400.0,
            "p75_ms": 480.0,
            "p90_ms": 600.0,
            "p99_ms": 1200.0 if variant.endswith("async-blocking") else 900.0,
            "max_ms": 1300.0,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": {**dict.fromkeys(ERROR_KINDS, 0), "wrong_answer": 0, **errors},
            "elapsed_s": 200 / rps,
            "p95_ms": 700.0,
            "p66_ms": 450.0,
            "p80_ms": 500.0,
            "p98_ms": 800.0,
        },
        "load": {"vus": 20, "shape": "ab", "iterations": 200, "max_duration_s": 600.0},
        "settings": {"ANALYZE_MODE": variant.split("-", 1)[1], "WORKERS": str(workers)},
    }


def test_the_report_shows_abs_table_the_goals_and_that_the_gpu_was_not_measured(
    project_root: Path,
) -> None:
    cells = [
        _cell("uvicorn-async-blocking", 1, 2.0, {"wrong_answer": 1}),
        _cell("uvicorn-threadpool", 1, 9.0, {}),
        _cell("uvicorn-batched", 1, 7.0, {"non_2xx": 1}),
    ]
    run = run_from_json(run_record("health-code", cells[0]["load"], cells, k6_command="k6 run ..."))
    matrix = load_matrix(Project(project_root), "health-code")
    text = unpadded(render(run, matrix, load_write_up(project_root / matrix.write_up), {}))
    assert (
        "| p50 ms | p66 ms | p75 ms | p80 ms | p90 ms | p95 ms | p98 ms | p99 ms | max ms |" in text
    )
    # Ours, then the write-up's own sync runs with their Length failures.
    assert "| 200 | 22.22 | 9.0 | — | 500.00 | 400.00 | 450.00 |" in text
    assert "| write-up, 1 worker | 200 | 41.37 | 4.83 | — | 4022.00 | 4133.00 | 4231.00 |" in text
    assert "non_2xx 21, wrong_answer 59" in text
    goals = text.split("## Goals")[1].split("\n## ")[0]
    failed = "| zero failed requests in every mode but async-blocking | 1 (uvicorn-batched ("
    assert f"{failed}{ENDPOINT}), 1 worker; needs ≤ 0) | 1 of 2 | not met |" in goals
    assert "| 4.50× (uvicorn-threadpool, 1 worker; needs ≥ 4×) | 1 of 1 | met |" in goals
    gpu = "| on a GPU, batched ≥ 3× the requests/s of one request per engine call |"
    assert f"{gpu} — | — | not measured |" in goals
    assert "| p99/p50 | uvicorn-threadpool | 2.25× | 1.17× | 1.58× |" in text
