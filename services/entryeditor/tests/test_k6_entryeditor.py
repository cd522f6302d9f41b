"""loadtests/entryeditor.js against the uWSGI + nginx stack: every request of the write-up in
the shape it was measured with (vegeta's constant rate, boom's constant concurrency), under
the script's default thresholds, which fail on a single failed request or check; and the
summary the benchmark reads (success, p95, 503s by status, dropped iterations)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from servelab.bench.load.k6 import THRESHOLDS_FAILED
from servelab.bench.load.shape import Load
from servelab.bench.measure.summary import measurement
from servelab.stack import Stack
from servelab.testing import redis_url, scratch_database, serve_service
from servelab.testing.k6 import K6Outcome, run_k6

# Every test here drives the uwsgi stack with k6.
pytestmark = pytest.mark.stack

SMOKE = {"DURATION": "2s"}
VEGETA = ["static_css", "list", "detail", "execute", "sentence", "get_instance", "get_count"]
BOOM = ["init", "diff", "get_pmi"]
REDIS_DB = 2


@pytest.fixture(scope="module")
def stack(starts_servers: None) -> Iterator[Stack]:
    with scratch_database("ee_stack_k6_") as database:
        env = {
            "EE_DATABASE": database,
            "EE_REDIS_DB": str(REDIS_DB),
            "CORPUS_LIMIT": "1500",
            "WEB_CONCURRENCY": "2",
            "WEB_THREADS": "4",
            # As loadtests/families/entryeditor.toml: execute and init are writes, which
            # nginx would otherwise limit to 10 a second (docs/security.md).
            "WRITE_RATE_LIMIT": "1000000r/s",
            "WRITE_BURST": "1000000",
        }
        with serve_service("uwsgi", "entryeditor-nginx", env) as running:
            yield running
        client = redis.Redis.from_url(redis_url(REDIS_DB))
        keys = list(client.scan_iter(f"{database}:*"))
        if keys:
            client.delete(*keys)


def k6(stack: Stack, tmp_path: Path, **env: str) -> K6Outcome:
    env = {"BASE_URL": stack.url("entryeditor-nginx"), "API_TOKEN": stack.api_token, **env}
    return run_k6(stack.project, "entryeditor.js", env, tmp_path)


@pytest.mark.parametrize("name", VEGETA)
def test_vegeta_shape_smoke(stack: Stack, tmp_path: Path, name: str) -> None:
    outcome = k6(stack, tmp_path, NAME=name, RATE="20", VUS="5", MAX_VUS="40", **SMOKE)
    assert outcome.returncode == 0, outcome.output
    m = measurement(outcome.summary, Load(vus=5, duration_s=2, shape="vegeta", rate=20, max_vus=40))
    assert m.requests + m.dropped >= 40
    assert m.success_ratio == 1
    assert m.p95_ms is not None
    assert "vegeta: 20 requests/s" in outcome.output


@pytest.mark.parametrize("name", BOOM)
def test_boom_shape_smoke(stack: Stack, tmp_path: Path, name: str) -> None:
    outcome = k6(stack, tmp_path, NAME=name, VUS="2", **SMOKE)
    assert outcome.returncode == 0, outcome.output
    m = measurement(outcome.summary, Load(vus=2, duration_s=2, shape="boom"))
    assert m.requests > 0
    assert m.success_ratio == 1
    assert "boom: 2 VUs" in outcome.output


def test_an_answer_that_is_not_2xx_fails_the_thresholds_and_is_counted(
    stack: Stack, tmp_path: Path
) -> None:
    outcome = k6(
        stack,
        tmp_path,
        NAME="detail",
        ENDPOINT="/entryeditor/entryeditor/999999",
        RATE="10",
        **SMOKE,
    )
    assert outcome.returncode == THRESHOLDS_FAILED
    load = Load(vus=50, duration_s=2, shape="vegeta", rate=10, max_vus=50)
    m = measurement(outcome.summary, load)
    assert m.success_ratio == 0
    assert m.errors["non_2xx"] == m.requests
    assert m.unexpected_non_2xx == m.requests  # 404s: neither 502, 503 nor 504
