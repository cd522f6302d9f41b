from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.report.writeup import load_write_up


def test_files_write_up_holds_every_published_run(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "files.toml")
    runs = [(run.server, run.workers) for run in write_up.runs]
    assert runs == [("uvicorn", 40), ("gunicorn", 40), ("uvicorn", 1), ("gunicorn", 1)]
    assert len(write_up.figures) == 13 + 4 + 5 + 4
    assert write_up.machine["cpu_cores"] == 40
    assert write_up.workers("gunicorn") == [1, 40]


def test_figures_are_the_printed_numbers(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "files.toml")
    figure = write_up.figure("uvicorn", 40, "download/file")
    assert figure is not None
    assert (figure.requests, figure.rps, figure.avg_ms, figure.p99_ms) == (
        15716,
        1556.09,
        51.29,
        115.47,
    )
    single = write_up.figure("gunicorn", 1, "upload/single")
    assert single is not None
    assert (single.rps, single.p50_ms, single.max_ms) == (249.20, 310.75, 536.05)
    assert write_up.figure("gunicorn", 1, "download/file") is None


def test_rates_are_keyed_by_our_variant_names(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "files.toml")
    rates = write_up.values({"uv": "uvicorn"})
    assert rates[("uv", 1, "upload/single/sync")] == 246.24
    assert all(variant == "uv" for variant, _, _ in rates)
    assert len(rates) == 13 + 5


def test_wait_write_up_holds_heys_summaries_and_the_clients_times(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "wait.toml")
    assert [(run.server, run.workers) for run in write_up.runs] == [
        ("uvicorn", 1),
        ("gunicorn", 1),
        ("flask", 1),
        ("ocr-service", 1),
    ]
    assert write_up.settings == {"MODEL": "wait", "WAITING_TIME": "1", "WORKERS": "1"}
    sync = write_up.figure("uvicorn", 1, "hey /sync")
    assert sync is not None
    assert (sync.elapsed_s, sync.rps, sync.max_ms, sync.min_ms, sync.p99_ms) == (
        9.1911,
        108.8007,
        9180.5,
        1008.4,
        9149.9,
    )
    assert sum(count for _, count in sync.printed["histogram"]) == 1000
    assert sync.printed["details"]["resp_wait"] == [3.4776, 1.0031, 9.1080]
    flask = write_up.figure("flask", 1, "client /wait")
    assert flask is not None
    assert flask.elapsed_s == 10.079250574111938
    assert len(flask.printed["latencies_s"]) == flask.requests == 10
    assert flask.max_ms == pytest.approx(max(flask.printed["latencies_s"]) * 1000)


def test_hello_write_up_holds_every_wrk_run_and_its_socket_errors(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "hello.toml")
    published = {(f.server, f.workers): f for f in write_up.figures}
    assert set(published) == {
        ("gunicorn-sync", 8),
        ("gunicorn-threads", 8),
        ("gunicorn-gevent", 8),
        ("tornado", 1),
        ("tornado-multi", 8),
    }
    assert write_up.workers("uwsgi") == [8]
    assert all(f.errors is not None and f.errors["connect"] == 155 for f in published.values())
    gevent = published["gunicorn-gevent", 8]
    assert (gevent.requests, gevent.rps, gevent.avg_ms, gevent.max_ms) == (
        53758,
        1785.80,
        5.18,
        1970.0,
    )
    assert gevent.error_count == 155 + 129 + 5 + 119
    assert gevent.printed["thread_rps"]["max"] == 2490.0
    assert gevent.p50_ms is None


def test_values_of_any_metric_skip_what_the_write_up_did_not_print(project_root: Path) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / "wait.toml")
    elapsed = write_up.values({"uv": "uvicorn"}, "elapsed_s")
    assert elapsed[("uv", 1, "client /sync")] == 1.0637059211730957
    rates = write_up.values({"uv": "uvicorn"})
    assert ("uv", 1, "client /sync") not in rates
    assert write_up.settings["WAITING_TIME"] == "1"


@pytest.mark.parametrize(
    ("family", "citation"),
    [
        (
            "health-code",
            "*Benchmarking FastAPI sync and async functions on health-code recognition* "
            "(2022, in Chinese, 基于健康码识别的 FastAPI 同步和异步函数的基准测试)",
        ),
        (
            "wait",
            "*FastAPI: uvicorn vs gunicorn, workers vs container replication* (2024, in Japanese)",
        ),
        ("hello", "*Load-testing WSGI servers* (n.d., in Chinese, WSGI 服务器压测)"),
    ],
)
def test_a_write_up_is_cited_by_title_and_year(
    project_root: Path, family: str, citation: str
) -> None:
    write_up = load_write_up(project_root / "loadtests" / "reference" / f"{family}.toml")
    assert write_up.citation == citation
    assert write_up.seed not in write_up.citation


def test_every_write_up_has_a_year_or_says_it_has_none(project_root: Path) -> None:
    for path in sorted((project_root / "loadtests" / "reference").glob("*.toml")):
        year = load_write_up(path).year
        assert year == "n.d." or (year.isdigit() and len(year) == 4), path.name
