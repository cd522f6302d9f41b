"""The stack of the web front end's stack tests, as `servelab up --profile entryeditor-web`
runs it: nginx serving the built app on its own server and passing /api/ to gunicorn, the
machine's MariaDB and Redis, the compute service. One per session: the browser tests and
the k6 smoke share it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from servelab.stack import Stack
from servelab.testing import redis_url, scratch_database

SERVICE = "entryeditor-web"
CORPUS_LIMIT = 300
REDIS_DB = 2


@pytest.fixture(scope="session")
def stack(starts_servers: None) -> Iterator[Stack]:
    if not (Path(__file__).parents[1] / "dist" / "index.html").exists():
        pytest.fail("services/entryeditor-web/dist is missing: run scripts/bootstrap.sh")
    with scratch_database("ee_web_") as database:
        env = {
            "EE_DATABASE": database,
            "EE_REDIS_DB": str(REDIS_DB),
            "CORPUS_LIMIT": str(CORPUS_LIMIT),
            "WEB_CONCURRENCY": "1",
            "WEB_THREADS": "4",
        }
        # Stack itself rather than serve_service: the outage test kills the compute service,
        # which serve_service would report as a process that needed SIGKILL.
        with Stack(SERVICE, only=[SERVICE], env=env, log=None) as running:
            yield running
        # The cache's keys carry the database's name (CACHE_KEY_PREFIX): only this run's.
        client = redis.Redis.from_url(redis_url(REDIS_DB))
        keys = list(client.scan_iter(f"{database}:*"))
        if keys:
            client.delete(*keys)


@pytest.fixture(scope="session")
def base(stack: Stack) -> str:
    return stack.url(SERVICE)


@pytest.fixture(scope="session")
def token(stack: Stack) -> str:
    """The bearer token the stack's entry editor requires for writes."""
    return stack.api_token
