"""get_pmi's cache: single-flight on a cold stampede, and Redis outages cost no errors."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections
from django.test import Client, override_settings

from entryeditor_service.corpus import queries
from entryeditor_service.corpus.cached import forget_local

from .conftest import KEY_PREFIX

PMI = "/corpus/statistics/get_pmi/"
STAMPEDE = 100


def redis_cache(location: str) -> dict[str, Any]:
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": KEY_PREFIX,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
        }
    }


@pytest.fixture
def counted_collocates(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record each real collocates computation; each takes at least 1 s, so the
    stampede's requests arrive while the first is computing."""
    calls: list[float] = []
    real = queries.collocates

    def counting(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(time.monotonic())
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(queries, "collocates", counting)
    return calls


def get_in_thread(barrier: threading.Barrier, params: dict[str, Any]) -> tuple[int, str, bytes]:
    try:
        barrier.wait()
        response = Client().get(PMI, params)
        return response.status_code, response.headers["X-Cache"], response.content
    finally:
        connections.close_all()


def test_cold_stampede_computes_once(client: Client, counted_collocates: list[float]) -> None:
    queries.info()  # the load record, as a warm process has it
    params = {"word": "发展", "window": 4, "min_count": 1, "limit": 37}
    barrier = threading.Barrier(STAMPEDE)
    with ThreadPoolExecutor(STAMPEDE) as pool:
        results = list(pool.map(lambda _: get_in_thread(barrier, params), range(STAMPEDE)))
    assert len(counted_collocates) == 1
    assert {status for status, _, _ in results} == {200}
    outcomes = [outcome for _, outcome, _ in results]
    assert outcomes.count("miss") == 1
    assert outcomes.count("wait") >= 10  # requests overlapped the computation
    assert set(outcomes) <= {"miss", "wait", "hit", "local"}
    assert len({content for _, _, content in results}) == 1
    warm = client.get(PMI, params)
    assert warm.headers["X-Cache"] == "local"
    assert warm.content == results[0][2]
    forget_local()
    assert client.get(PMI, params).headers["X-Cache"] == "hit"
    assert len(counted_collocates) == 1


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections and never answers (a hung Redis)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    yield server.getsockname()[1]
    server.close()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("outage", ["refused", "hung"])
def test_redis_down_still_answers(client: Client, silent_server: int, outage: str) -> None:
    port = closed_port() if outage == "refused" else silent_server
    params = {"word": "经济", "window": 2}
    with override_settings(CACHES=redis_cache(f"redis://127.0.0.1:{port}/1"), REDIS_RETRY_AFTER=0):
        started = time.monotonic()
        response = client.get(PMI, params)
        elapsed = time.monotonic() - started
        ready = client.get("/readyz")
    assert response.status_code == 200
    assert response.headers["X-Cache"] == "bypass"
    assert response.json()["collocates"]
    assert elapsed < 2.0
    assert ready.status_code == 200
    assert ready.json()["cache"] == {
        "ok": False,
        "backend": "redis",
        "error": "The cache does not answer",
    }
    assert client.get(PMI, params).headers["X-Cache"] in {"miss", "hit"}


def test_an_outage_is_skipped_for_redis_retry_after(client: Client, silent_server: int) -> None:
    params = {"word": "经济", "window": 3}
    cache = redis_cache(f"redis://127.0.0.1:{silent_server}/1")
    with override_settings(CACHES=cache, REDIS_RETRY_AFTER=30):
        first = client.get(PMI, params)
        started = time.monotonic()
        second = client.get(PMI, params)
        elapsed = time.monotonic() - started
    with override_settings(REDIS_RETRY_AFTER=0):
        client.get(PMI, params)  # closes the breaker for the tests after this one
    assert first.headers["X-Cache"] == second.headers["X-Cache"] == "bypass"
    assert elapsed < 0.2  # no second timeout: the cache is skipped
