"""The database's circuit breaker (entryeditor_service.database): which errors open it,
503s at once while it is open, one probe after DB_BREAKER_RESET."""

from __future__ import annotations

import pytest
from django.db import InterfaceError, OperationalError
from django.test import override_settings

from entryeditor_service.database import Breaker, unavailable, unreachable


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_only_a_lost_or_refused_connection_counts() -> None:
    assert unreachable(OperationalError(2013, "Lost connection to server during query"))
    assert unreachable(OperationalError(2003, "Can't connect to server"))
    assert unreachable(InterfaceError(0, ""))
    # A query's own failure (a deadlock, a lock wait) says nothing about reaching the server.
    assert not unreachable(OperationalError(1213, "Deadlock found"))


@override_settings(DB_BREAKER_RESET=1.0)
def test_open_then_one_probe_then_closed() -> None:
    clock = Clock()
    breaker = Breaker(clock)
    assert breaker.admit() is None
    breaker.failure()
    assert breaker.admit() == 1.0
    clock.now += 0.4
    assert breaker.admit() == pytest.approx(0.6)
    clock.now += 0.6
    assert breaker.admit() is None  # the probe
    assert breaker.admit() == 1.0  # the others wait for its outcome
    breaker.success()
    assert breaker.admit() is None
    assert breaker.admit() is None


def test_the_answer_while_open_is_the_503_shape() -> None:
    response = unavailable(0.3)
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.content == (
        b'{"error": {"code": "database_unavailable", "message": "The database is unavailable"}}'
    )
