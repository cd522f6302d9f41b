"""The compose recipes run as compose runs them (servelab's Stack): nginx in front of uWSGI or
gunicorn, the machine's MariaDB and Redis, the one-shot init (migrate, collectstatic, a
CORPUS_LIMIT corpus, the demo entries); answers through nginx, with the scheme the TLS edge
in front says (HSTS and https links for HTTPS), static files from nginx (all that the
browsable API's pages load), JSON errors, fast 503s rather than 502s when the app server is
full, a burst answered in full right after a start, and a clean stop."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest

from servelab.stack import Stack, StackError
from servelab.stack.databases import clear_redis_keys
from servelab.testing import scratch_database, serve_service
from servelab.testing.pages import page_problems

# Every test here runs the uwsgi stack.
pytestmark = pytest.mark.stack

CORPUS_LIMIT = 300
REDIS_DB = 2
STATIC = "rest_framework/css/default.css"
# (profile, the nginx service in front, the app server behind it)
VARIANTS = [
    ("uwsgi", "entryeditor-nginx", "entryeditor-uwsgi"),
    ("gunicorn", "entryeditor-gunicorn-nginx", "entryeditor-gunicorn"),
]
IDS = [variant[0] for variant in VARIANTS]


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    """One database for the module: the first stack loads the corpus, the others find it
    loaded (load_corpus is idempotent), as bench cells do."""
    with scratch_database("ee_stack_") as name:
        yield name
        clear_redis_keys(name, REDIS_DB)


def stack_env(database: str, **extra: str) -> dict[str, str]:
    return {
        "EE_DATABASE": database,
        "EE_REDIS_DB": str(REDIS_DB),
        "CORPUS_LIMIT": str(CORPUS_LIMIT),
        "WEB_CONCURRENCY": "2",
        "WEB_THREADS": "2",
        **extra,
    }


@pytest.mark.parametrize(("profile", "nginx", "server"), VARIANTS, ids=IDS)
def test_the_stack_answers_through_nginx(
    database: str, profile: str, nginx: str, server: str
) -> None:
    with serve_service(profile, nginx, stack_env(database)) as stack:
        assert list(stack.attached) == ["entryeditor-mariadb", "entryeditor-redis"]
        assert stack.running["entryeditor-init"].process.returncode == 0
        authorization = {"Authorization": f"Bearer {stack.api_token}"}
        with httpx2.Client(base_url=stack.url(nginx), timeout=30, headers=authorization) as client:
            ready = client.get("/readyz")
            assert ready.status_code == 200, ready.text
            assert ready.json()["cache"]["backend"] == "redis"

            entries = client.get("/entryeditor/entryeditor/")
            assert entries.status_code == 200
            assert entries.json()["count"] >= 51
            assert client.get("/entryeditor/entryeditor/47").json()["id"] == 47

            # The corpus is the first CORPUS_LIMIT sentences.
            assert client.get(f"/corpus/sentence/{CORPUS_LIMIT}").status_code == 200
            missing = client.get(f"/corpus/sentence/{CORPUS_LIMIT + 1}")
            assert missing.status_code == 404
            assert missing.headers["content-type"].startswith("application/json")

            executed = client.post(
                "/entryeditor/entryeditor/47/execute/", json={"command": "freq(pattern=水)"}
            )
            assert executed.status_code == 200, executed.text
        assert_the_scheme_is_the_edges(stack.url(nginx))


def assert_the_scheme_is_the_edges(url: str) -> None:
    """TLS ends at the edge in front of nginx, here this machine (REAL_IP_FROM's default):
    what it took over HTTPS gets HSTS and https links from the app through either upstream
    protocol; plain HTTP, the probes' even where the edge says so, is answered as it is; a
    peer that is not the edge cannot claim https."""
    page = "/entryeditor/entryeditor/?page_size=1"
    plain, secure = {"X-Forwarded-Proto": "http"}, {"X-Forwarded-Proto": "https"}
    with httpx2.Client(base_url=url, timeout=30) as edge:
        answer = edge.get(page, headers=secure)
        assert answer.headers["strict-transport-security"] == "max-age=31536000"
        assert answer.json()["next"].startswith("https://")
        answer = edge.get(page)
        assert "strict-transport-security" not in answer.headers
        assert answer.json()["next"].startswith("http://")
        for probe in ("/healthz", "/readyz"):
            for headers in ({}, plain):
                assert edge.get(probe, headers=headers).status_code == 200, (probe, headers)
        assert edge.get(page, headers=plain).status_code == 308
    elsewhere = httpx2.HTTPTransport(local_address="127.0.0.2")
    with httpx2.Client(base_url=url, timeout=30, transport=elsewhere) as other:
        answer = other.get(page, headers=secure)
        assert answer.status_code == 200
        assert "strict-transport-security" not in answer.headers
        assert answer.json()["next"].startswith("http://")


def test_nginx_serves_static_files_compresses_json_and_answers_errors_in_json(
    database: str,
) -> None:
    with (
        serve_service("uwsgi", "entryeditor-nginx", stack_env(database)) as stack,
        httpx2.Client(base_url=stack.url("entryeditor-nginx"), timeout=30) as client,
    ):
        static = client.get(f"/static/{STATIC}")
        assert static.status_code == 200
        assert static.headers["content-type"] == "text/css"
        assert static.content == (stack.volume("entryeditor-static") / STATIC).read_bytes()
        # Collected by the init service into the volume nginx reads, not served by Django.
        assert "expires" in static.headers
        # DRF's browsable API, the HTML a browser gets: every file it loads comes from
        # nginx's /static/, and it names no other host.
        for page in ("/entryeditor/entryeditor/", "/entryeditor/entryeditor/47"):
            assert page_problems(client, page) == []

        listed = client.get(
            "/entryeditor/entryeditor/?page_size=50", headers={"Accept-Encoding": "gzip"}
        )
        assert listed.headers["content-encoding"] == "gzip"
        assert listed.json()["count"] >= 51  # httpx2 decompressed it

        too_large = client.post(
            "/entryeditor/entryeditor/47/execute/",
            content=b'{"command": "' + b"x" * (2 * 1024 * 1024) + b'"}',
            headers={"Content-Type": "application/json"},
        )
        assert too_large.status_code == 413
        assert too_large.json()["error"]["code"] == "payload_too_large"

        unknown = client.get("/no/such/path")
        assert unknown.status_code == 404
        assert unknown.headers["content-type"].startswith("application/json")


def burst(url: str, requests: int, concurrency: int) -> list[httpx2.Response]:
    """`requests` GETs, `concurrency` at a time, each on a connection of its own."""

    def one(_: int) -> httpx2.Response:
        return httpx2.get(url, timeout=30)

    with ThreadPoolExecutor(concurrency) as pool:
        return list(pool.map(one, range(requests)))


@pytest.mark.parametrize(("profile", "nginx", "server"), VARIANTS, ids=IDS)
def test_a_full_app_server_sheds_load_as_503_json_never_502(
    database: str, profile: str, nginx: str, server: str
) -> None:
    # One thread and a listen queue of one: a burst of 40 at once overflows it.
    env = stack_env(database, WEB_CONCURRENCY="1", WEB_THREADS="1", UWSGI_LISTEN="1")
    with serve_service(profile, nginx, env) as stack:
        url = stack.url(nginx) + "/corpus/statistics/get_instance/?word=%E4%B8%AD"
        answers = burst(url, requests=160, concurrency=40)
        statuses = Counter(answer.status_code for answer in answers)
        assert set(statuses) == {200, 503}, statuses
        for answer in answers:
            if answer.status_code == 503:
                assert answer.headers["retry-after"] == "1"
                assert answer.json()["error"]["code"] == "overloaded"
        # The app server itself stayed up and answers again once the burst is over.
        assert httpx2.get(url, timeout=30).status_code == 200
        assert stack.running[server].process.poll() is None


# A second of the write-up's constant rate (200 requests/s), arriving at once.
COLD_BURST = 200


def statuses_at_once(port: int, paths: list[str]) -> Counter[int]:
    """GET each path on a connection of its own: every connection opened first, then every
    request written before any answer is read, so that they reach nginx together."""
    connections = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in paths]
    statuses: Counter[int] = Counter()
    try:
        for connection, path in zip(connections, paths, strict=True):
            request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            connection.sendall(request.encode())
        for connection in connections:
            with connection.makefile("rb") as answer:
                status_line = answer.readline()
                answer.read()
            statuses[int(status_line.split()[1]) if status_line else 0] += 1
    finally:
        for connection in connections:
            connection.close()
    return statuses


# Every answer a 200 depends on compute answering within its 0.7 s timeout: alone, with no
# other test's servers beside it.
@pytest.mark.alone
@pytest.mark.parametrize(("profile", "nginx", "server"), VARIANTS, ids=IDS)
def test_a_stack_started_cold_answers_a_burst_at_once_without_failures(
    database: str, profile: str, nginx: str, server: str
) -> None:
    # Sent the moment the stack reports healthy: what the app server's threads cannot take
    # yet waits in its listen queue instead of overflowing it into 503s.
    with serve_service(profile, nginx, stack_env(database)) as stack:
        paths = [f"/corpus/sentence/{n}/neighbors/" for n in (1, 100, CORPUS_LIMIT)]
        burst = [paths[n % len(paths)] for n in range(COLD_BURST)]
        statuses = statuses_at_once(stack.port(nginx), burst)
        assert statuses == {200: COLD_BURST}, statuses
        assert stack.running[server].process.poll() is None


def timed_get(url: str) -> tuple[int, float, httpx2.Response]:
    started = time.monotonic()
    answer = httpx2.get(url, timeout=30)
    return answer.status_code, time.monotonic() - started, answer


# A refusal, or an answer from a worker that has loaded the app: never a wait in the queue of a
# server still loading it. Judged alone, with no other test's servers beside it.
@pytest.mark.alone
def test_uwsgi_restarted_in_place_refuses_at_once_until_a_worker_accepts(database: str) -> None:
    with serve_service("uwsgi", "entryeditor-nginx", stack_env(database)) as stack:
        url = stack.url("entryeditor-nginx") + "/corpus/sentence/1/neighbors/"
        uwsgi = stack.running["entryeditor-uwsgi"]
        os.killpg(uwsgi.pgid, signal.SIGTERM)  # docker stop
        assert uwsgi.process.wait(timeout=40) == 0
        status, seconds, stopped = timed_get(url)
        assert (status, stopped.headers["retry-after"]) == (503, "1")
        assert seconds < 0.5

        restart = threading.Thread(target=stack.restart, args=("entryeditor-uwsgi",))
        restart.start()
        answers = []
        while restart.is_alive():
            answers.append(timed_get(url)[:2])
            time.sleep(0.02)
        restart.join()
        assert {status for status, _ in answers} <= {200, 503}, answers
        slowest = max(seconds for _, seconds in answers)
        assert slowest < 1.0, answers
        status, _, back = timed_get(url)
        assert status == 200, back.text


def test_the_init_service_fails_the_start_on_a_bad_setting(database: str) -> None:
    env = stack_env(database, CORPUS_LIMIT="many")
    stack = Stack("uwsgi", only=["entryeditor-nginx"], env=env, log=None)
    with pytest.raises(StackError, match="entryeditor-init exited with status"):
        stack.start()
    assert "entryeditor-uwsgi" not in stack.running
    assert not Path(stack.run_dir).exists()
