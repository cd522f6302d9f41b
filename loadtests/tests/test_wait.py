"""Smoke runs of loadtests/wait.js against the real wait services: the hey burst and the
write-up's client, the {"wait": seconds} contract, and the burst's total time."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servelab.bench.load.k6 import THRESHOLDS_FAILED, k6_argv, k6_binary
from servelab.stack import Stack
from servelab.testing.k6 import K6Smoke

WAITING_TIME = 0.2
SERVER = {"WEB_CONCURRENCY": "1", "WAITING_TIME": str(WAITING_TIME)}


def _total_s(outcome: Any) -> float:
    return float(outcome.summary["state"]["testRunDurationMs"]) / 1000


@pytest.fixture(scope="module")
def fastapi_url(starts_servers: None) -> Iterator[str]:
    with Stack("uvicorn", only=["wait-uvicorn"], env=SERVER, log=None) as stack:
        yield stack.url("wait-uvicorn")


@pytest.mark.parametrize("endpoint", ["/sync", "/async"])
def test_a_hey_burst_is_answered_in_about_one_wait(
    k6_smoke: K6Smoke, fastapi_url: str, endpoint: str
) -> None:
    env = {"BASE_URL": fastapi_url, "ENDPOINT": endpoint, "VUS": "30"}
    outcome = k6_smoke("wait.js", {**env, "WAITING_TIME": str(WAITING_TIME)})
    outcome.assert_clean()
    assert outcome.measured("http_reqs")["count"] == 30
    assert WAITING_TIME <= _total_s(outcome) < 2.5 * WAITING_TIME + 1


def test_the_clients_requests_at_once(k6_smoke: K6Smoke, fastapi_url: str) -> None:
    env = {"BASE_URL": fastapi_url, "SHAPE": "client", "VUS": "10"}
    outcome = k6_smoke("wait.js", {**env, "WAITING_TIME": str(WAITING_TIME)})
    outcome.assert_clean()
    assert outcome.measured("http_reqs")["count"] == 10
    assert _total_s(outcome) < 2.5 * WAITING_TIME + 1


def test_flask_serves_the_client_one_request_at_a_time(k6_smoke: K6Smoke) -> None:
    with Stack("gunicorn", only=["wait-flask"], env=SERVER, log=None) as stack:
        env = {
            "BASE_URL": stack.url("wait-flask"),
            "ENDPOINT": "/wait",
            "SHAPE": "client",
            "VUS": "4",
            "WAITING_TIME": str(WAITING_TIME),
        }
        outcome = k6_smoke("wait.js", env)
    outcome.assert_clean()
    assert _total_s(outcome) >= 4 * WAITING_TIME


def test_an_answer_without_the_contract_fails_the_checks(
    k6_smoke: K6Smoke, fastapi_url: str
) -> None:
    outcome = k6_smoke("wait.js", {"BASE_URL": fastapi_url, "ENDPOINT": "/healthz", "VUS": "3"})
    assert outcome.returncode == THRESHOLDS_FAILED
    assert outcome.measured("http_req_failed")["rate"] == 0
    assert outcome.measured("checks")["rate"] < 1


def test_a_shorter_wait_than_waiting_time_fails_the_checks(
    k6_smoke: K6Smoke, fastapi_url: str
) -> None:
    env = {"BASE_URL": fastapi_url, "ENDPOINT": "/async", "VUS": "3", "WAITING_TIME": "5"}
    outcome = k6_smoke("wait.js", env)
    assert outcome.returncode == THRESHOLDS_FAILED
    assert outcome.measured("checks")["rate"] < 1


def test_a_warm_up_does_not_apply_to_a_burst(project_root: Path) -> None:
    script = project_root / "loadtests" / "wait.js"
    argv = k6_argv(k6_binary(), script, {"WARMUP": "1s"})
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "WARMUP applies to the wrk shape only, not to hey" in result.stdout + result.stderr
