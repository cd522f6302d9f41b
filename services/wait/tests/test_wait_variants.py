"""Every wait variant in compose.yaml, run as compose runs it: the contract and the timing
that the write-up measured (FastAPI overlaps waits, Flask on a sync worker queues them)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import httpx2
import pytest

from servelab.stack import Stack

Serve = Callable[..., AbstractContextManager[Stack]]
Burst = Callable[[str, int], tuple[float, list[float]]]

WAIT = 0.3
CONCURRENT = 5


def waited(seconds: float) -> bool:
    """One WAIT, give or take: event loops may wake a timer a little early."""
    return 0.95 * WAIT <= seconds < WAIT + 0.2


@pytest.mark.parametrize(
    ("profile", "service"), [("uvicorn", "wait-uvicorn"), ("gunicorn", "wait-gunicorn")]
)
def test_fastapi_overlaps_concurrent_waits_on_one_worker(
    serve: Serve, burst: Burst, profile: str, service: str
) -> None:
    env = {"WEB_CONCURRENCY": "1", "WAITING_TIME": str(WAIT)}
    with serve(profile, service, env) as stack:
        for path in ("/sync", "/async"):
            url = stack.url(service) + path
            response = httpx2.get(url)
            assert response.status_code == 200
            assert response.headers["content-type"] == "application/json"
            assert list(response.json()) == ["wait"]
            assert waited(response.json()["wait"])

            elapsed, waits = burst(url, CONCURRENT)
            assert elapsed < 2 * WAIT, f"{CONCURRENT} x {path} took {elapsed:.2f}s"
            assert all(waited(wait) for wait in waits)


def test_fastapi_health_settings_and_json_errors(serve: Serve) -> None:
    env = {"WAITING_TIME": "0.05", "THREADPOOL_SIZE": "7", "MODEL": "cpu"}
    with serve("uvicorn", "wait-uvicorn", env) as stack:
        url = stack.url("wait-uvicorn")
        health = httpx2.get(url + "/healthz").json()
        assert health == {
            "status": "ok",
            "model": "cpu",
            "waiting_time": 0.05,
            "threadpool_size": 7,
        }

        assert httpx2.get(url + "/readyz").json() == {**health, "status": "ready"}

        missing = httpx2.get(url + "/nope")
        assert missing.status_code == 404
        assert missing.json() == {"error": {"code": "not_found", "message": "Not Found"}}
        wrong_method = httpx2.post(url + "/sync")
        assert wrong_method.status_code == 405
        assert wrong_method.json() == {
            "error": {"code": "method_not_allowed", "message": "Method Not Allowed"}
        }


def test_gunicorn_uvicorn_workers_apply_the_thread_pool_size(serve: Serve) -> None:
    with serve(
        "gunicorn", "wait-gunicorn", {"WEB_CONCURRENCY": "2", "THREADPOOL_SIZE": "7"}
    ) as stack:
        for _ in range(4):
            assert (
                httpx2.get(stack.url("wait-gunicorn") + "/healthz").json()["threadpool_size"] == 7
            )


def test_flask_on_one_sync_worker_serves_one_request_at_a_time(serve: Serve, burst: Burst) -> None:
    env = {"WEB_CONCURRENCY": "1", "WAITING_TIME": str(WAIT)}
    with serve("gunicorn", "wait-flask", env) as stack:
        url = stack.url("wait-flask")
        response = httpx2.get(url + "/wait")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert waited(response.json()["wait"])
        assert httpx2.get(url + "/healthz").json()["status"] == "ok"
        assert httpx2.get(url + "/readyz").json()["status"] == "ready"
        missing = httpx2.get(url + "/nope")
        assert missing.status_code == 404
        assert missing.json() == {"error": {"code": "not_found", "message": "Not Found"}}

        elapsed, waits = burst(url + "/wait", CONCURRENT)
        # Queued behind each other: the write-up's 1 s, 2 s, ... 10 s for ten requests.
        assert elapsed >= (CONCURRENT - 0.5) * WAIT, f"{CONCURRENT} requests took {elapsed:.2f}s"
        assert all(waited(wait) for wait in waits)


def test_more_workers_serve_flask_requests_in_parallel(serve: Serve, burst: Burst) -> None:
    # A 1 s wait: two rounds (any worker serving two of the four) take 2 s or more, far
    # enough from one round plus the overhead of a loaded machine.
    wait = 1.0
    env = {"WEB_CONCURRENCY": "4", "WAITING_TIME": str(wait)}
    with serve("gunicorn", "wait-flask", env) as stack:
        elapsed, _ = burst(stack.url("wait-flask") + "/wait", 4)
        assert elapsed < 1.8 * wait, f"4 requests on 4 workers took {elapsed:.2f}s"
