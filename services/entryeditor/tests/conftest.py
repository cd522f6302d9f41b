"""The entry editor against the machine's MariaDB and Redis.

Django is configured when this module is imported, from TEST_ENV (the process environment is left as
it was): the test database `ee_test_app_<pid>` (created and dropped here) holds the first
CORPUS_LIMIT sentences of the corpus; the cache is Redis DB 1 under `ee_test:<pid>:`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import django
import pytest
import redis

from servelab.testing import mariadb_url, redis_url

if TYPE_CHECKING:
    from django.test import Client

# Per process, so that two sessions running these tests at once do not meet.
TEST_DATABASE = f"ee_test_app_{os.getpid()}"
REDIS_URL = redis_url(1)
KEY_PREFIX = f"ee_test:{os.getpid()}"
CORPUS_LIMIT = 2000
API_TOKEN = "entryeditor-tests-token"  # noqa: S105  (a test token)
TEST_ENV = {
    "API_TOKEN": API_TOKEN,
    "DJANGO_SETTINGS_MODULE": "entryeditor_service.config.settings",
    "SECRET_KEY": "entryeditor-tests-only",
    "DATABASE_URL": mariadb_url(TEST_DATABASE),
    "REDIS_URL": REDIS_URL,
    "CACHE_KEY_PREFIX": KEY_PREFIX,
    # 100 threads of one process poll Redis in the stampede test on a busy 2-core machine.
    "REDIS_TIMEOUT": "1.0",
    "ALLOWED_HOSTS": "testserver",
    "CONN_MAX_AGE": "0",
    "WEB_CONCURRENCY": "2",
    "WEB_THREADS": "4",
}


def clear_redis() -> None:
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(f"{KEY_PREFIX}:*"))
    if keys:
        client.delete(*keys)


def setup_django() -> None:
    """Django set up with TEST_ENV (settings are read once, at import), before the test
    modules import models."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in TEST_ENV.items():
            patch.setenv(name, value)
        django.setup()


setup_django()


@pytest.fixture(scope="session")
def test_database() -> Iterator[None]:
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    connection.settings_dict["TEST"]["NAME"] = TEST_DATABASE
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    clear_redis()
    yield
    clear_redis()
    connection.creation.destroy_test_db(old_name, verbosity=0)
    teardown_test_environment()


@pytest.fixture(scope="session")
def corpus(test_database: None) -> None:
    """The first CORPUS_LIMIT sentences, loaded once."""
    from django.core.management import call_command

    call_command("load_corpus", limit=CORPUS_LIMIT, stdout=io.StringIO())


@pytest.fixture
def client(corpus: None) -> Client:
    """A test client sending the bearer token writes need; this process's copies of cached
    collocates are dropped first, so each test sees what Redis serves."""
    from django.test import Client

    from entryeditor_service.corpus.cached import forget_local

    forget_local()
    return Client(headers={"Authorization": f"Bearer {API_TOKEN}"})
