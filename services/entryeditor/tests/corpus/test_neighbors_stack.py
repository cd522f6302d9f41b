"""The neighbours endpoint as compose runs it (servelab's Stack, profile uwsgi): nginx,
uWSGI, the compute service and the machine's MariaDB, under loadtests/entryeditor.js's
vegeta shape; then the compute process crashes (SIGKILL of its process group) and comes
back on its port."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import redis

from servelab.bench.load.k6 import k6_argv, k6_binary
from servelab.stack import Stack
from servelab.stack.groups import members
from servelab.testing import redis_url, scratch_database

# The test runs the uwsgi stack with the compute service.
pytestmark = pytest.mark.stack

REDIS_DB = 2
NEIGHBORS = "/corpus/sentence/100/neighbors/?k=5"


@pytest.fixture
def database() -> Iterator[str]:
    with scratch_database("compute_test_") as name:
        yield name
        cache = redis.Redis.from_url(redis_url(REDIS_DB))
        keys = list(cache.scan_iter(f"{name}:*"))
        if keys:
            cache.delete(*keys)


def test_neighbors_through_nginx_survive_a_compute_crash(project_root: Path, database: str) -> None:
    env = {
        "EE_DATABASE": database,
        "EE_REDIS_DB": str(REDIS_DB),
        "CORPUS_LIMIT": "300",
        "WEB_CONCURRENCY": "2",
        "WEB_THREADS": "2",
    }
    with (
        Stack("uwsgi", only=["entryeditor-nginx"], env=env, log=None) as stack,
        httpx2.Client(base_url=stack.url("entryeditor-nginx"), timeout=10) as client,
    ):
        answer = client.get(NEIGHBORS)
        assert answer.status_code == 200, answer.text
        assert len(answer.json()["neighbors"]) == 5

        # The benchmark's script and shape: not one failed request or check at 40/s.
        smoke = {
            "NAME": "neighbors",
            "ENDPOINT": NEIGHBORS,  # the preset's sentence 1000 is past CORPUS_LIMIT
            "RATE": "40",
            "VUS": "10",
            "DURATION": "2s",
        }
        thresholds = {"THRESHOLD_FAILED": "0", "THRESHOLD_CHECKS": "1"}
        url = {"BASE_URL": stack.url("entryeditor-nginx")}
        argv = k6_argv(k6_binary(), "loadtests/entryeditor.js", {**url, **smoke, **thresholds})
        run = subprocess.run(argv, cwd=project_root, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr[-2000:]

        stack.kill("entryeditor-compute")
        for _ in range(12):
            started = time.perf_counter()
            down = client.get(NEIGHBORS)
            assert time.perf_counter() - started < 1.0
            assert down.status_code == 503
            assert int(down.headers["Retry-After"]) >= 1
            assert down.json()["error"]["code"] == "compute_unavailable"
        # The rest of the API does not depend on compute.
        assert client.get("/corpus/sentence/100").status_code == 200

        stack.restart("entryeditor-compute")
        back = time.monotonic()
        while (status := client.get(NEIGHBORS).status_code) != 200:
            assert status == 503
            assert time.monotonic() - back < 5.0, "no recovery within 5 s of compute's return"
            time.sleep(0.05)
        pgids = [running.pgid for running in stack.running.values()]
    for pgid in pgids:
        assert members(pgid) == []
