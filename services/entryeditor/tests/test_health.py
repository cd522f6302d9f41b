"""/healthz, /readyz and the connection budget check."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client, override_settings

from entryeditor_service.budget import Budget, check_budget, max_connections

from .conftest import CORPUS_LIMIT


def test_healthz_answers_without_the_database(client: Client) -> None:
    for path in ("/healthz", "/healthz/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {"status": "ok"}


def test_readyz_reports_database_budget_and_cache(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert body["database"]["ok"] is True
    assert body["database"]["max_connections"] == max_connections()
    assert body["database"]["connection_budget"] == 2 * 4 + 4 + 3
    assert body["cache"] == {"ok": True, "backend": "redis"}
    assert body["corpus"]["sentences"] == CORPUS_LIMIT


def test_readyz_is_503_when_the_budget_exceeds_max_connections(client: Client) -> None:
    limit = max_connections()
    assert limit is not None
    with override_settings(WEB_CONCURRENCY=limit, WEB_THREADS=2):
        response = client.get("/readyz/")
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "not_ready"
    assert "exceeds the database's max_connections" in error["message"]
    assert response.headers["Retry-After"] == "1"


def test_budget_arithmetic() -> None:
    budget = Budget(processes=12, threads=12, compute_pool=4, margin=3)
    assert budget.total == 151
    assert budget.problem(151) is None
    problem = budget.problem(150)
    assert problem is not None
    assert "12 x 12 + 4 + 3 = 151" in problem
    assert "max_connections 150" in problem


def test_check_passes_at_the_test_settings(client: Client) -> None:
    assert check_budget(databases=["default"]) == []
    call_command("check", databases=["default"])


def test_check_fails_when_the_write_ups_settings_meet_max_connections_151(
    client: Client,
) -> None:
    # The write-up ran uWSGI processes=12 threads=12 against max_connections=151; with the
    # compute pool and a margin that is over budget wherever max_connections <= 151.
    limit = max_connections()
    assert limit is not None
    threads = limit // 12 + 1
    with override_settings(WEB_CONCURRENCY=12, WEB_THREADS=threads):
        messages = check_budget(databases=["default"])
        assert [message.id for message in messages] == ["entryeditor.E001"]
        assert f"max_connections {limit}" in messages[0].msg
        with pytest.raises(SystemCheckError, match=r"entryeditor\.E001"):
            call_command("check", databases=["default"])


def test_check_without_databases_skips_the_query(client: Client) -> None:
    with override_settings(WEB_CONCURRENCY=10_000):
        assert check_budget(databases=None) == []
