"""Smoke runs of loadtests/hello.js against real hello variants (Flask, FastAPI, nginx):
the write-up's exact bytes and headers, the wrk and hey shapes, errors by kind."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from servelab.bench.load.k6 import THRESHOLDS_FAILED
from servelab.stack import Stack
from servelab.testing.k6 import K6Smoke

HELLO = [
    ("gunicorn", "hello-gunicorn-sync"),
    ("uvicorn", "hello-uvicorn"),
    ("reference", "hello-reference-nginx"),
]


@pytest.fixture(scope="module", params=HELLO, ids=[service for _, service in HELLO])
def hello_url(request: pytest.FixtureRequest, starts_servers: None) -> Iterator[str]:
    profile, service = request.param
    with Stack(profile, only=[service], env={"WEB_CONCURRENCY": "1"}, log=None) as stack:
        yield stack.url(service)


def test_every_answer_is_the_write_ups_4045_bytes(k6_smoke: K6Smoke, hello_url: str) -> None:
    k6_smoke(
        "hello.js", {"BASE_URL": hello_url, "CHECK_BODY": "1", "DURATION": "1s"}
    ).assert_clean()


def test_the_wrk_shape_measures_after_its_warm_up(k6_smoke: K6Smoke, hello_url: str) -> None:
    env = {"BASE_URL": hello_url, "VUS": "20", "WARMUP": "1s", "DURATION": "1s"}
    outcome = k6_smoke("hello.js", env)
    outcome.assert_clean()
    assert (
        outcome.measured("http_reqs")["count"]
        < outcome.summary["metrics"]["http_reqs"]["values"]["count"]
    )


def test_the_hey_shape_sends_one_request_per_connection(k6_smoke: K6Smoke, hello_url: str) -> None:
    outcome = k6_smoke("hello.js", {"BASE_URL": hello_url, "SHAPE": "hey", "VUS": "50"})
    outcome.assert_clean()
    assert outcome.measured("http_reqs")["count"] == 50


def test_other_answers_are_counted_as_non_2xx(k6_smoke: K6Smoke, hello_url: str) -> None:
    outcome = k6_smoke("hello.js", {"BASE_URL": hello_url, "ENDPOINT": "/nope", "DURATION": "1s"})
    assert outcome.returncode == THRESHOLDS_FAILED
    requests = outcome.measured("http_reqs")["count"]
    assert outcome.measured("errors_non_2xx")["count"] == requests > 0
    for kind in ("connect", "read", "write", "timeout", "other"):
        assert outcome.measured(f"errors_{kind}")["count"] == 0


def test_a_client_short_of_file_descriptors_gets_connect_errors(k6_smoke: K6Smoke) -> None:
    """The write-up's 155 connect errors at 400 connections: a client limited to 256 file
    descriptors cannot open them all. k6 raises its soft limit to the hard one, so only a
    hard limit of 256 starves it."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1024:
        pytest.skip(f"the hard limit of open files here is {hard}")
    with Stack("reference", only=["hello-reference-nginx"], log=None) as stack:
        env = {"BASE_URL": stack.url("hello-reference-nginx"), "VUS": "400", "DURATION": "1s"}
        starved = k6_smoke("hello.js", env, open_files=(256, 256))
        raised = k6_smoke("hello.js", env, open_files=(256, hard))
    assert starved.returncode == THRESHOLDS_FAILED
    errors = starved.printed_errors()
    assert errors["connect"] > 0
    for kind in ("read", "write", "timeout", "non_2xx", "other"):
        assert errors[kind] == 0
    raised.assert_clean()
