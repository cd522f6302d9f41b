"""Metrics, request ids and access logs of the entry editor's recipes: N requests through
nginx, N counted by the app server with two worker processes (asked on its own port,
never through nginx, which refuses /metrics), and the id nginx set in the app's log line;
the database queries and the Thrift calls to compute counted as exactly, whichever worker
made them, and the connections in use back to none."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest

from servelab.stack import Stack
from servelab.testing import LogLines, scratch_database
from servelab.testing.metrics import requests_counted, sample

pytestmark = pytest.mark.stack

N = 20
# Threads in all (WEB_CONCURRENCY x WEB_THREADS): the most database connections open.
THREADS = 4
NEIGHBORS = "/corpus/sentence/100/neighbors/?k=5"
CALLS = 6
ROUTE = "/entryeditor/entryeditor/(?P<entry_id>[1-9][0-9]{0,8})/?"
# (profile, nginx in front, the app server: nginx's socket, and SCRAPE_PORT for Prometheus)
VARIANTS = [
    ("uwsgi", "entryeditor-nginx", "entryeditor-uwsgi"),
    ("gunicorn", "entryeditor-gunicorn-nginx", "entryeditor-gunicorn"),
]


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with scratch_database("ee_observe_") as name:
        yield name


@pytest.mark.parametrize(("profile", "nginx", "server"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_n_requests_through_nginx_n_counted_and_logged_with_nginx_s_id(
    starts_servers: None, database: str, profile: str, nginx: str, server: str
) -> None:
    env = {
        "EE_DATABASE": database,
        "EE_REDIS_DB": "2",
        "CORPUS_LIMIT": "300",
        "WEB_CONCURRENCY": "2",
        "WEB_THREADS": "2",
    }
    log = LogLines()
    with Stack(profile, only=[nginx], env=env, log=log) as stack:
        url = stack.url(nginx)

        def one(pk: int) -> str:
            response = httpx2.get(f"{url}/entryeditor/entryeditor/{pk}", timeout=30)
            assert response.status_code == 200
            return response.headers["x-request-id"]

        def scrape() -> str:  # on the app server's own port, whichever worker answers
            metrics = httpx2.get(stack.url(server) + "/metrics", headers={"Connection": "close"})
            assert metrics.status_code == 200
            return metrics.text

        queries = sample(scrape(), "entryeditor_db_query_seconds_count") or 0.0
        ids = [one(1)]
        per_request = (sample(scrape(), "entryeditor_db_query_seconds_count") or 0.0) - queries
        assert per_request >= 1
        with ThreadPoolExecutor(4) as pool:
            ids += list(pool.map(one, range(2, N + 1)))
        assert httpx2.get(url + "/metrics").status_code == 404

        for _ in range(4):
            text = scrape()
            assert requests_counted(text, ROUTE) == N
            counted = sample(text, "entryeditor_db_query_seconds_count")
            assert counted == queries + N * per_request
            assert sample(text, "entryeditor_db_connections_in_use") == 0
            assert 1 <= (sample(text, "entryeditor_db_connections_open") or 0) <= THREADS

        for _ in range(CALLS):
            assert httpx2.get(url + NEIGHBORS, timeout=30).status_code == 200
        calls = {"method": "neighbors", "outcome": "ok"}
        for _ in range(4):
            text = scrape()
            assert sample(text, "entryeditor_compute_call_seconds_count", calls) == CALLS
            assert (
                sample(text, "entryeditor_compute_call_seconds_bucket", {**calls, "le": "+Inf"})
                == CALLS
            )

    app_lines = [line for line in log.json_of(server) if line.get("route") == ROUTE]
    assert sorted(str(line["request_id"]) for line in app_lines) == sorted(ids)
    nginx_ids = {line["request_id"] for line in log.json_of(nginx)}
    assert set(ids) <= nginx_ids
    assert len(set(ids)) == N
    assert {line["status"] for line in app_lines} == {200}
