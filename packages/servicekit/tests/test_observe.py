"""servicekit.observe and servicekit.metrics in one process: request ids, route templates,
status labels, the JSON access line, /metrics, and the multiprocess bookkeeping."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from flask import Flask
from prometheus_client import CollectorRegistry
from prometheus_client import multiprocess as prometheus_multiprocess
from prometheus_client.mmap_dict import MmapedDict, mmap_key

from servicekit import tracing
from servicekit.metrics import http, multiprocess, switch
from servicekit.observe import accesslog
from servicekit.observe import flask as observe_flask
from servicekit.observe.accesslog import AccessLog
from servicekit.observe.asgi import ObserveMiddleware
from servicekit.observe.requestid import request_id


def counted(method: str, route: str, status: int) -> float:
    value = http.REQUESTS.labels(method, route, str(status))._value.get()
    return float(value)


@pytest.fixture
def access_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The process's access log, each line written at once to a string."""
    stream = io.StringIO()
    monkeypatch.setattr(accesslog, "_shared", AccessLog(0, stream))
    yield stream


def lines_of(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


@pytest.fixture
def fastapi_client() -> TestClient:
    app = FastAPI()
    app.add_middleware(ObserveMiddleware)

    @app.get("/items/{item_id}")
    async def item(item_id: str) -> dict[str, str]:
        return {"id": item_id}

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("boom")

    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("header", "kept"),
    [("abc-123_x.y:z", True), ("a" * 128, True), ("a" * 129, False), ("a b", False), ("", False)],
)
def test_a_request_id_is_the_callers_when_safe(header: str, kept: bool) -> None:
    chosen = request_id(header)
    assert (chosen == header) is kept
    if not kept:
        assert len(chosen) == 32 and int(chosen, 16) >= 0


def test_asgi_counts_by_route_template_and_logs_one_json_line(
    fastapi_client: TestClient, access_lines: io.StringIO
) -> None:
    before = counted("GET", "/items/{item_id}", 200)
    response = fastapi_client.get("/items/42", headers={"X-Request-ID": "req-1"})
    assert response.headers["x-request-id"] == "req-1"
    assert counted("GET", "/items/{item_id}", 200) == before + 1
    (line,) = lines_of(access_lines)
    assert line["logger"] == "access"
    assert {k: line[k] for k in ("method", "route", "path", "status", "request_id")} == {
        "method": "GET",
        "route": "/items/{item_id}",
        "path": "/items/42",
        "status": 200,
        "request_id": "req-1",
    }
    assert line["bytes"] == len(response.content)
    assert isinstance(line["duration_ms"], float)


def test_asgi_unmatched_paths_share_one_label_and_failures_count_as_500(
    fastapi_client: TestClient,
) -> None:
    unmatched = counted("GET", http.UNMATCHED, 404)
    failed = counted("GET", "/boom", 500)
    assert fastapi_client.get("/nowhere/1").status_code == 404
    assert fastapi_client.get("/boom").status_code == 500
    assert counted("GET", http.UNMATCHED, 404) == unmatched + 1
    assert counted("GET", "/boom", 500) == failed + 1
    assert http.IN_FLIGHT._value.get() == 0


def test_asgi_repeated_requests_count_under_their_own_route_and_status(
    fastapi_client: TestClient,
) -> None:
    found = counted("GET", "/items/{item_id}", 200)
    missing = counted("GET", http.UNMATCHED, 404)
    for _ in range(3):
        assert fastapi_client.get("/items/7").status_code == 200
        assert fastapi_client.get("/nowhere/7").status_code == 404
    assert counted("GET", "/items/{item_id}", 200) == found + 3
    assert counted("GET", http.UNMATCHED, 404) == missing + 3


def test_asgi_metrics_endpoint_answers_the_exposition_uncounted(
    fastapi_client: TestClient,
) -> None:
    fastapi_client.get("/items/1")
    metrics = fastapi_client.get("/metrics")
    assert metrics.status_code == 200
    assert 'http_requests_total{method="GET",route="/items/{item_id}",status="200"}' in metrics.text
    assert 'route="/metrics"' not in metrics.text


def test_flask_counts_by_url_rule_and_sets_the_response_header(
    access_lines: io.StringIO,
) -> None:
    app = Flask(__name__)
    observe_flask.install(app)

    @app.get("/objects/<object_id>")
    def get_object(object_id: str) -> dict[str, str]:
        return {"id": object_id}

    before = counted("GET", "/objects/<object_id>", 200)
    with app.test_client() as client, client.get("/objects/7") as response:
        assert response.status_code == 200
        generated = response.headers["X-Request-ID"]
    assert counted("GET", "/objects/<object_id>", 200) == before + 1
    (line,) = lines_of(access_lines)
    assert line["route"] == "/objects/<object_id>"
    assert line["request_id"] == generated


def test_access_log_off_writes_nothing_but_still_counts(
    monkeypatch: pytest.MonkeyPatch, access_lines: io.StringIO
) -> None:
    monkeypatch.setenv("ACCESS_LOG", "0")
    app = FastAPI()
    app.add_middleware(ObserveMiddleware)

    @app.get("/quiet")
    async def quiet() -> dict[str, str]:
        return {}

    before = counted("GET", "/quiet", 200)
    assert TestClient(app).get("/quiet").status_code == 200
    assert counted("GET", "/quiet", 200) == before + 1
    assert access_lines.getvalue() == ""


def test_metrics_off_counts_nothing_and_leaves_the_metrics_path_to_the_app(
    monkeypatch: pytest.MonkeyPatch, access_lines: io.StringIO
) -> None:
    monkeypatch.setenv("METRICS", "0")
    switch.enabled.cache_clear()
    try:
        assert switch.enabled() is False
    finally:
        switch.enabled.cache_clear()
    app = FastAPI()
    app.add_middleware(ObserveMiddleware)

    @app.get("/bare")
    async def bare() -> dict[str, str]:
        return {}

    client = TestClient(app)
    before = counted("GET", "/bare", 200)
    answer = client.get("/bare")
    assert answer.status_code == 200
    assert answer.headers["x-request-id"]
    assert counted("GET", "/bare", 200) == before
    assert client.get("/metrics").status_code == 404
    # The access log has its own switch; /metrics is now a request like another.
    assert [line["path"] for line in lines_of(access_lines)] == ["/bare", "/metrics"]


def test_prepare_directory_empties_what_a_previous_run_left(tmp_path: Path) -> None:
    (tmp_path / "counter_123.db").write_bytes(b"x")
    (tmp_path / "keep.txt").write_text("not ours")
    multiprocess.prepare_directory(tmp_path / "metrics")
    multiprocess.prepare_directory(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "metrics"]


def test_reaping_drops_the_live_gauges_of_dead_processes_only(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(dead.stdout)
    names = [
        f"gauge_livesum_{dead_pid}.db",
        f"counter_{dead_pid}.db",
        f"gauge_livesum_{os.getpid()}.db",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    multiprocess.reap_dead_processes(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(names[1:])


def exited_pid() -> int:
    """The pid of a process that has exited."""
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(dead.stdout)


def requests_total(path: Path) -> dict[str, float]:
    """requests_total by label as /metrics gives it from the files in `path`."""
    registry = CollectorRegistry()
    prometheus_multiprocess.MultiProcessCollector(registry, str(path))
    return {
        sample.labels["route"]: sample.value
        for metric in registry.collect()
        for sample in metric.samples
        if sample.name == "requests_total"
    }


def test_workers_replaced_leave_one_file_per_kind_and_the_same_totals(tmp_path: Path) -> None:
    def count(pid: int | str, route: str, value: float) -> None:
        values = MmapedDict(str(tmp_path / f"counter_{pid}.db"))
        key = mmap_key("requests_total", "requests_total", ["route"], [route], "Requests.")
        values.write_value(key, value, 0.0)
        values.close()

    count(exited_pid(), "/a", 3.0)
    count(exited_pid(), "/a", 4.0)
    count(exited_pid(), "/b", 1.0)
    count(os.getpid(), "/a", 5.0)
    before = requests_total(tmp_path)
    assert before == {"/a": 12.0, "/b": 1.0}
    for _ in range(2):
        with multiprocess.locked(tmp_path):
            multiprocess.fold_exited_processes(tmp_path)
        left = {p.name for p in tmp_path.iterdir()}
        assert left == {"counter_exited.db", f"counter_{os.getpid()}.db"}
        assert requests_total(tmp_path) == before
    # The next worker replaced adds to the same file.
    count(exited_pid(), "/b", 2.0)
    with multiprocess.locked(tmp_path):
        multiprocess.fold_exited_processes(tmp_path)
    assert len(list(tmp_path.iterdir())) == 2
    assert requests_total(tmp_path) == {"/a": 12.0, "/b": 3.0}


@pytest.mark.parametrize(
    ("env", "on"),
    [
        ({}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ""}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_tracing_is_on_only_when_the_otel_variables_ask(env: dict[str, str], on: bool) -> None:
    assert tracing.enabled(env) is on
