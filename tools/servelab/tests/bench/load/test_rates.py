"""vegeta's constant rate and boom's constant concurrency: the load tables, what k6 gets,
the summary's success ratio, p95, 502/503/504 counts and dropped iterations, older results
without them, and the entry editor report's own columns beside the write-up's tables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from servelab.bench.errors import BenchError
from servelab.bench.load.shape import Load, parse_load
from servelab.bench.measure.summary import ERROR_KINDS, Measurement, measurement
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.markdown import render
from servelab.bench.report.results import BenchRun, run_from_json
from servelab.bench.report.writeup import load_write_up
from servelab.project import Project
from servelab.spec.family import SpecError
from servelab.spec.matrix import Report
from servelab.stack.compose import load_project
from servelab.testing.markdown import unpadded
from servelab.testing.records import run_record

VEGETA = {"shape": "vegeta", "rate": 1000, "vus": 500, "max_vus": 1000, "duration_s": 5}
MEASURED = "{phase:measure}"


def test_a_vegeta_load_is_a_rate_with_its_vus() -> None:
    load = parse_load({**VEGETA, "warmup_s": 1}, "shapes.rate-1000.quick")
    assert load == Load(
        vus=500, duration_s=5.0, warmup_s=1.0, shape="vegeta", rate=1000, max_vus=1000
    )
    assert load.arrival
    assert not load.counted
    assert load.seconds == 6.0
    assert load.k6_env() == {
        "SHAPE": "vegeta",
        "VUS": "500",
        "DURATION": "5s",
        "WARMUP": "1s",
        "RATE": "1000",
        "MAX_VUS": "1000",
    }
    assert "1000 requests/s started whatever the answers take" in load.describe()


def test_a_vegeta_load_needs_its_rate_and_never_has_fewer_vus_than_preallocated() -> None:
    with pytest.raises(SpecError, match="missing `rate`"):
        parse_load({"shape": "vegeta", "vus": 10, "duration_s": 5}, "load.quick")
    load = parse_load({"shape": "vegeta", "rate": 10, "vus": 20, "duration_s": 5}, "load.quick")
    assert load.max_vus == 20


def test_a_boom_load_is_constant_vus() -> None:
    load = parse_load({"shape": "boom", "vus": 10, "duration_s": 5}, "shapes.boom-10.quick")
    assert not load.arrival
    assert not load.counted
    assert load.k6_env() == {"SHAPE": "boom", "VUS": "10", "DURATION": "5s", "WARMUP": "0s"}


def summary(**extra: Any) -> dict[str, Any]:
    metrics = {
        f"http_reqs{MEASURED}": {"values": {"count": 5000}},
        f"http_req_duration{MEASURED}": {
            "values": {
                "avg": 40.0,
                "p(50)": 10.0,
                "p(75)": 20.0,
                "p(90)": 60.0,
                "p(95)": 80.0,
                "p(99)": 300.0,
                "max": 900.0,
            }
        },
        f"http_req_failed{MEASURED}": {"values": {"rate": 0.4}},
        f"checks{MEASURED}": {"values": {"rate": 0.6}},
        **{f"errors_{kind}{MEASURED}": {"values": {"count": 0}} for kind in ERROR_KINDS},
        f"errors_non_2xx{MEASURED}": {"values": {"count": 2000}},
    }
    metrics.update(extra)
    return {"metrics": metrics}


def test_the_summary_gives_success_p95_statuses_and_dropped_iterations() -> None:
    load = parse_load(VEGETA, "load.quick")
    m = measurement(
        summary(
            **{
                f"status_503{MEASURED}": {"values": {"count": 1990}},
                f"status_502{MEASURED}": {"values": {"count": 4}},
                "dropped_iterations": {"values": {"count": 37}},
            }
        ),
        load,
    )
    assert m.rps == 1000.0
    assert m.success_ratio == pytest.approx(0.6)
    assert m.p95_ms == 80.0
    assert m.statuses == {"502": 4, "503": 1990, "504": 0}
    assert (m.bad_gateway, m.shed, m.timeouts) == (4, 1990, 0)
    assert m.unexpected_non_2xx == 6
    assert m.dropped == 37


def test_a_summary_without_the_new_counters_still_reads() -> None:
    m = measurement(summary(), parse_load(VEGETA, "load.quick"))
    assert m.statuses == {"502": 0, "503": 0, "504": 0}
    assert m.dropped == 0


def test_a_measurement_saved_before_p95_and_statuses_loads_without_them() -> None:
    saved = {
        "requests": 10,
        "rps": 5.0,
        "avg_ms": 1.0,
        "p50_ms": 1.0,
        "p75_ms": 1.0,
        "p90_ms": 1.0,
        "p99_ms": 1.0,
        "max_ms": 1.0,
        "failed_rate": 0.0,
        "checks_rate": 1.0,
        "errors": dict.fromkeys(ERROR_KINDS, 0),
        "elapsed_s": 2.0,
    }
    m = Measurement(**saved)
    assert (m.p95_ms, m.statuses, m.dropped, m.success_ratio) == (None, {}, 0, 1.0)
    assert m.metric("p95_ms") is None


@pytest.mark.parametrize("form", ["quick", "full"])
def test_every_entryeditor_cell_names_a_compose_service_and_a_preset(
    project_root: Path, form: str
) -> None:
    matrix = load_matrix(Project(project_root), "entryeditor")
    script = (project_root / "loadtests" / "entryeditor.js").read_text()
    services = {
        profile: load_project(Project(project_root), [profile]).services
        for profile in {v.profile for v in matrix.variants}
    }
    for cell in matrix.cells(form):
        assert cell.variant.service in services[cell.variant.profile], cell.label
        assert f"  {cell.endpoint.env['NAME']}: {{" in script, cell.label
        name, level = cell.endpoint.key.split(" ")
        assert name == cell.endpoint.env["NAME"]
        expected = f"@{cell.load.rate}/s" if cell.load.arrival else f"c{cell.load.vus}"
        assert level == expected, cell.label
    # The stacks are up at once (kept), each on a database of its own: a cell's connection
    # count is its own stack's.
    assert matrix.stacks.keep
    databases = {c.variant.name: c.server_env["EE_DATABASE"] for c in matrix.cells(form)}
    assert len(set(databases.values())) == len(databases)


def test_the_quick_form_is_the_uwsgi_stack_at_100_200_1000_and_boom_10(project_root: Path) -> None:
    cells = load_matrix(Project(project_root), "entryeditor").cells("quick")
    assert {c.variant.name for c in cells} == {"uwsgi", "web"}
    # The static rows are the web front end's files from its own nginx (the write-up's :7070).
    assert {c.endpoint.env["NAME"] for c in cells if c.variant.name == "web"} == {
        "static",
        "static_bundle",
    }
    assert {c.load.rate for c in cells if c.load.arrival} == {100, 200, 1000}
    assert {c.endpoint.key for c in cells if not c.load.arrival} == {
        "init c10",
        "diff c10",
        "get_pmi c10",
    }
    assert sum(c.load.seconds for c in cells) <= 180


def test_every_write_up_table_is_in_the_reference(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "entryeditor.toml")
    keys = {(f.server, f.endpoint) for f in write_up.figures}
    # 12 tables, rows each: vegeta static 4, list 4, detail 4, execute 5, init 5, sentence 4,
    # neighbors 5 before and 5 after, get_instance 5; boom init 4, diff 3, get_pmi 3.
    assert len(write_up.figures) == 4 + 4 + 4 + 5 + 5 + 4 + 5 + 5 + 5 + 4 + 3 + 3
    assert ("uwsgi-nginx", "static @1000/s") in keys
    assert ("uwsgi-nginx-before", "neighbors @10/s") in keys
    assert ("uwsgi-nginx", "neighbors @500/s") in keys
    detail = write_up.figure("uwsgi-nginx", 12, "detail @500/s")
    assert detail is not None
    assert (detail.success_ratio, detail.p99_ms) == (0.7816, 118930.136354)
    diff = write_up.figure("uwsgi-nginx", 12, "diff c10")
    assert diff is not None
    assert (diff.requests, diff.elapsed_s, diff.p95_ms) == (10, 109.35407, 109233.0)


def cell(endpoint: str, load: dict[str, Any], m: dict[str, Any]) -> dict[str, Any]:
    return {
        "variant": "uwsgi",
        "workers": 4,
        "endpoint": endpoint,
        "script": "entryeditor.js",
        "env": {"NAME": endpoint.split(" ")[0]},
        "pinning": "not pinned (server and k6 share every CPU)",
        "commands": {},
        "k6_cpu_s": 3.0,
        "k6_wall_s": 7.0,
        "k6_cpus": 2,
        "wall_s": 15.0,
        "measurement": {
            "requests": 500,
            "rps": 100.0,
            "avg_ms": 5.0,
            "p50_ms": 4.0,
            "p75_ms": 5.0,
            "p90_ms": 7.0,
            "p99_ms": 20.0,
            "max_ms": 30.0,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": dict.fromkeys(ERROR_KINDS, 0),
            "elapsed_s": 5.0,
            "p95_ms": 9.0,
            "statuses": {"502": 0, "503": 0, "504": 0},
            "dropped": 0,
            **m,
        },
        "load": load,
        "settings": {"EE_DATABASE": "ee_bench", "WEB_PROCESSES": "4"},
    }


def entryeditor_run(cells: list[dict[str, Any]]) -> BenchRun:
    return run_from_json(run_record("entryeditor", VEGETA, cells))


def test_the_report_puts_our_rows_beside_the_write_ups_in_its_own_columns(
    project_root: Path,
) -> None:
    rate = {**VEGETA, "rate": 1000, "warmup_s": 1.0}
    boom = {"shape": "boom", "vus": 10, "duration_s": 5.0, "warmup_s": 1.0}
    overloaded = {
        "requests": 5000,
        "rps": 1000.0,
        "failed_rate": 0.4,
        "errors": {**dict.fromkeys(ERROR_KINDS, 0), "non_2xx": 2000},
        "statuses": {"502": 0, "503": 2000, "504": 0},
        "dropped": 12,
    }
    run = entryeditor_run(
        [
            {**cell("list @1000/s", rate, overloaded), "db_connections": 19},
            cell("init c10", boom, {"requests": 150, "rps": 30.0}),
        ]
    )
    matrix = load_matrix(Project(project_root), "entryeditor")
    markdown = unpadded(render(run, matrix, load_write_up(project_root / matrix.write_up), {}))
    assert (
        "| endpoint | run | load | requests | duration s | req/s | CPU µs/req | success | mean ms "
        "| p95 ms | p99 ms | max ms | errors (by status) | dropped | DB conns (peak) "
        "| k6 CPU s (load) |" in markdown
    )
    assert (
        "| list @1000/s | ours, 4 workers | 1000/s | 5000 | 5.00 | 1000.0 | — | 0.6000 | 5.00 "
        "| 9.00 | 20.00 | 30.00 | non_2xx 2000 (503 2000) | 12 | 19 | 3.0 (21%, *shared*) |"
        in markdown
    )
    assert (
        "| list @1000/s | write-up, 12 workers | 1000/s | 5000 | 5.00 | 1000.20 | — | 0.3192 "
        "| 257.43 | 929.85 | 1024.66 | — | — | — | — |" in markdown
    )
    assert (
        "| init c10 | write-up, 12 workers | 10 VUs | 21 | 6.79 | 3.09 | — | 1.0000 |" in markdown
    )
    assert (
        "| init: at least 20 successful requests/s at 10 connections | 30.0 requests/s "
        "(uwsgi (init c10), 4 workers; needs ≥ 20 requests/s) | 1 of 1 | met |" in markdown
    )
    assert "| no 502 in any cell, 1000 requests/s included (the worst cell shown) |" in markdown


def test_a_report_column_that_does_not_exist_is_a_clear_error(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "entryeditor")
    broken = replace(matrix, report=Report(columns=("rps", "p42")))
    run = entryeditor_run([cell("list @100/s", VEGETA, {})])
    with pytest.raises(BenchError, match=r"unknown \['p42'\]"):
        render(run, broken, load_write_up(project_root / matrix.write_up), {})


def test_goals_give_times_and_rates_with_their_units(project_root: Path) -> None:
    rate = {**VEGETA, "rate": 100, "warmup_s": 1.0}
    boom = {"shape": "boom", "vus": 10, "duration_s": 5.0, "warmup_s": 1.0}
    run = entryeditor_run(
        [
            cell("list @100/s", rate, {"p99_ms": 4.61098}),
            cell("diff c10", boom, {"p95_ms": 234.5678}),
            cell("init c10", boom, {"requests": 1074, "rps": 214.8}),
        ]
    )
    matrix = load_matrix(Project(project_root), "entryeditor")
    markdown = unpadded(render(run, matrix, load_write_up(project_root / matrix.write_up), {}))
    assert "| 4.61 ms (uwsgi (list @100/s), 4 workers; needs ≤ 100 ms) | 1 of 1 | met |" in (
        markdown
    )
    assert "| 235 ms (uwsgi (diff c10), 4 workers; needs ≤ 200 ms) | 0 of 1 | not met |" in (
        markdown
    )
    assert (
        "| 215 requests/s (uwsgi (init c10), 4 workers; needs ≥ 20 requests/s) | 1 of 1 | met |"
        in markdown
    )
