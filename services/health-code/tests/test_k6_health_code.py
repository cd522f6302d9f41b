"""Smoke runs of loadtests/health-code.js against the real service: the write-up's ab shape
with each kind of body, and answers that are not the expected one counted as failures."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from servelab.bench.load.k6 import THRESHOLDS_FAILED
from servelab.project import Project
from servelab.testing import serve_service
from servelab.testing.k6 import K6Outcome, run_k6

# Every test here drives the service with k6.
pytestmark = pytest.mark.stack

SERVICE = "health-code-uvicorn"
# A few requests; the script's default thresholds fail the run unless all succeed with the
# expected answer.
SMOKE = {"VUS": "3", "ITERATIONS": "6"}


@pytest.fixture(scope="module")
def url(starts_servers: None) -> Iterator[str]:
    env = {"ANALYZE_MODE": "batched", "OCR_THREADS": "2"}
    with serve_service("uvicorn", SERVICE, env) as stack:
        yield stack.url(SERVICE)


def k6(project_root: Path, tmp_path: Path, env: Mapping[str, str]) -> K6Outcome:
    return run_k6(
        Project(project_root), "health-code.js", {**SMOKE, **env}, tmp_path, timeout_s=180
    )


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"BODY": "raw", "USAGE": "trip-code"},
        {"BODY": "multipart", "USAGE": "nucleic-acid", "ANSWER": "first"},
    ],
    ids=["json", "raw", "multipart"],
)
def test_the_ab_run_gets_the_expected_answer_every_time(
    project_root: Path, tmp_path: Path, url: str, env: dict[str, str]
) -> None:
    outcome = k6(project_root, tmp_path, {"BASE_URL": url, **env})
    assert outcome.returncode == 0, outcome.output
    assert outcome.measured("http_reqs")["count"] == 6
    assert outcome.measured("http_req_failed")["rate"] == 0
    assert outcome.measured("checks")["rate"] == 1
    assert outcome.measured("errors_wrong_answer")["count"] == 0
    assert "ab: 3 VUs sharing 6 requests" in outcome.output
    assert "served in   50% " in outcome.output
    # No keep-alive, as ab without -k: every request paid for a new connection.
    assert outcome.summary["metrics"]["http_req_connecting"]["values"]["min"] > 0


def test_answers_other_than_the_expected_one_are_failures(
    project_root: Path, tmp_path: Path, url: str
) -> None:
    expected = json.loads((project_root / "loadtests/data/health-code.answer.json").read_text())
    other = tmp_path / "other.answer.json"
    other.write_text(json.dumps({**expected, "colour": "red"}))
    outcome = k6(project_root, tmp_path, {"BASE_URL": url, "ANSWER": str(other)})
    assert outcome.returncode == THRESHOLDS_FAILED
    assert outcome.measured("http_req_failed")["rate"] == 0
    assert outcome.measured("errors_wrong_answer")["count"] == 6
    assert outcome.measured("checks")["rate"] == 0.5
    assert "wrong       6 answer(s) not the expected one" in outcome.output


def test_error_answers_are_non_2xx_not_wrong_answers(
    project_root: Path, tmp_path: Path, url: str
) -> None:
    env = {"USAGE": "passport", "IMAGE": "data/trip-code.jpg", "ANSWER": "first"}
    outcome = k6(project_root, tmp_path, {"BASE_URL": url, **env})
    assert outcome.returncode == THRESHOLDS_FAILED
    assert outcome.measured("errors_non_2xx")["count"] == 6
    assert outcome.measured("errors_wrong_answer")["count"] == 0
