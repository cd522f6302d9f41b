"""Metrics are exact under every multi-process hello server: requests spread over two
workers, every one counted, whichever worker answers GET /metrics."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager

import httpx2
import pytest

from servelab.stack import Stack
from servelab.testing.metrics import get_uwsgi, requests_counted, sample

Serve = Callable[..., AbstractContextManager[Stack]]

N = 20
ROUNDS = 10  # a worker may accept a whole round (gevent does): send rounds until both count
# (profile, service): every hello variant that runs several worker processes.
VARIANTS = [
    ("gunicorn", "hello-gunicorn-sync"),
    ("gunicorn", "hello-gunicorn-gthread"),
    ("gunicorn", "hello-gunicorn-gevent"),
    ("gunicorn", "hello-gunicorn-uvicorn"),
    ("uvicorn", "hello-uvicorn"),
    ("granian", "hello-granian"),
    ("granian", "hello-granian-wsgi"),
    ("uwsgi", "hello-uwsgi-http"),
    ("tornado", "hello-tornado-multi"),
]


def _spread(url: str) -> None:
    """N requests, each on its own connection and 4 at a time."""

    def one(_: int) -> int:
        return httpx2.get(url + "/hello", headers={"Connection": "close"}).status_code

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(one, range(N))) == [200] * N


def _processes_counting(stack: Stack, service: str) -> set[str]:
    """The worker pids that wrote request counters (prometheus_client's counter_<pid>.db)."""
    files = stack.tmp(service, "metrics").glob("counter_*.db")
    return {path.stem.removeprefix("counter_") for path in files if path.stat().st_size}


def _spread_over_two(stack: Stack, service: str) -> int:
    """Rounds of N requests until two workers have counted some; the number sent."""
    url = stack.url(service)
    for rounds in range(1, ROUNDS + 1):
        _spread(url)
        if len(_processes_counting(stack, service)) >= 2:
            return rounds * N
    raise AssertionError(f"{ROUNDS * N} requests all landed on one worker")


@pytest.mark.parametrize(("profile", "service"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_two_workers_count_every_request(serve: Serve, profile: str, service: str) -> None:
    with serve(profile, service, {"WEB_CONCURRENCY": "2"}) as stack:
        sent = _spread_over_two(stack, service)
        url = stack.url(service)
        for _ in range(4):  # each read may land on either worker: every one sees them all
            metrics = httpx2.get(url + "/metrics", headers={"Connection": "close"})
            assert metrics.status_code == 200
            assert metrics.headers["content-type"].startswith("text/plain")
            assert requests_counted(metrics.text, "/hello") == sent
            assert sample(metrics.text, "http_requests_in_flight") == 0
            hist = {"route": "/hello", "method": "GET", "le": "+Inf"}
            assert sample(metrics.text, "http_request_duration_seconds_bucket", hist) == sent


def test_uwsgi_behind_nginx_counts_on_its_socket(serve: Serve) -> None:
    """The socket variant, asked over the uwsgi protocol as nginx would, not through nginx."""
    with serve("uwsgi", "hello-uwsgi", {"WEB_CONCURRENCY": "2"}) as stack:
        sock = stack.volume("hello-uwsgi-socket") / "hello.sock"

        def one(_: int) -> int:
            return get_uwsgi(sock, "/hello")[0]

        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(one, range(N))) == [200] * N
        for _ in range(4):
            status, body = get_uwsgi(sock, "/metrics")
            assert status == 200
            assert requests_counted(body.decode(), "/hello") == N
