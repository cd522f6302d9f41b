"""The MariaDB backend's health check (entryeditor_service.mariadb): a kept connection whose
server fell silent ends the request after the read timeout, without opening another that
would wait out the connect timeout too; one whose connection was reset reconnects and
serves the request; a query past the deadline fails as a database out of reach."""

from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from django.db import OperationalError, connection

from entryeditor_service.database import unreachable
from entryeditor_service.mariadb import deadline
from entryeditor_service.mariadb.base import DatabaseWrapper
from servelab.reliability.faults.proxy import Proxy
from servelab.stack import databases


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    with Proxy(databases.mariadb()) as running:
        yield running


def _wrapper(proxy: Proxy, alias: str, **extra: object) -> DatabaseWrapper:
    """A connection to the MariaDB the tests use, through `proxy`, kept and health-checked
    as a worker's is, with the recipes' 1 s timeouts (and `extra` settings)."""
    settings = copy.deepcopy(connection.settings_dict)
    settings.update(
        HOST="127.0.0.1",
        PORT=str(proxy.port),
        NAME="",
        CONN_MAX_AGE=60,
        CONN_HEALTH_CHECKS=True,
        **extra,
    )
    settings["OPTIONS"].update(connect_timeout=1, read_timeout=1, write_timeout=1)
    return DatabaseWrapper(settings, alias=alias)


@pytest.fixture
def through_proxy(proxy: Proxy) -> Iterator[DatabaseWrapper]:
    """`_wrapper`'s connection, already made."""
    wrapper = _wrapper(proxy, "through_proxy")
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT 1")
    yield wrapper
    wrapper.close()


def _next_request(wrapper: DatabaseWrapper) -> None:
    """What Django does between two requests of a worker, then the next request's query."""
    wrapper.close_if_unusable_or_obsolete()
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT 1")


def test_a_silent_server_fails_the_request_without_a_second_wait(
    proxy: Proxy, through_proxy: DatabaseWrapper
) -> None:
    proxy.stall()
    with pytest.raises(OperationalError) as failed:
        _next_request(through_proxy)
    # The client's "lost connection" after the read timeout: the breaker opens on it, and
    # the request answers 503 (errors.py) without a new connection's handshake wait.
    assert unreachable(failed.value)
    assert proxy.accepted == 1
    assert through_proxy.connection is None


def test_a_reset_connection_is_replaced_and_the_request_served(
    proxy: Proxy, through_proxy: DatabaseWrapper
) -> None:
    proxy.cut()
    proxy.restore()
    _next_request(through_proxy)
    assert proxy.accepted == 2


@pytest.fixture
def with_deadline(proxy: Proxy) -> Iterator[DatabaseWrapper]:
    """`_wrapper`'s, with a DEADLINE of 0.3 s below the client's 1 s timeouts, not yet made."""
    wrapper = _wrapper(proxy, "with_deadline", DEADLINE=0.3)
    yield wrapper
    wrapper.close()


def _fails_within(limit_s: float, wrapper: DatabaseWrapper, request: Callable[[], None]) -> None:
    started = time.monotonic()
    with pytest.raises(OperationalError) as failed:
        request()
    assert time.monotonic() - started < limit_s
    assert unreachable(failed.value)
    assert wrapper.connection is None or not wrapper.connection.open


def test_the_deadline_ends_a_kept_connections_check_before_the_read_timeout(
    proxy: Proxy, with_deadline: DatabaseWrapper
) -> None:
    _next_request(with_deadline)
    proxy.stall()
    _fails_within(0.9, with_deadline, lambda: _next_request(with_deadline))
    assert proxy.accepted == 1


def test_the_deadline_ends_a_query_the_server_stopped_answering(
    proxy: Proxy, with_deadline: DatabaseWrapper
) -> None:
    def query() -> None:
        with with_deadline.cursor() as cursor:
            cursor.execute("SELECT 1")
            proxy.stall()
            cursor.execute("SELECT 2")

    _fails_within(0.9, with_deadline, query)


def test_a_query_past_the_deadline_fails_as_unreachable_when_its_cursor_is_closed(
    proxy: Proxy, with_deadline: DatabaseWrapper
) -> None:
    """The ORM closes the cursor of a query that failed before it raises the failure
    (django.db.models.sql.compiler): the connection the deadline closed must let it, or the
    client's own error escapes Django's and the request answers 500, not 503."""

    def query_as_the_orm_does() -> None:
        cursor = with_deadline.cursor()
        cursor.execute("SELECT 1")
        proxy.stall()
        try:
            cursor.execute("SELECT 2")
        except Exception:
            cursor.close()
            raise

    _fails_within(0.9, with_deadline, query_as_the_orm_does)


def test_the_deadline_ends_a_handshake_that_does_not_come(
    proxy: Proxy, with_deadline: DatabaseWrapper
) -> None:
    proxy.stall()
    _fails_within(0.9, with_deadline, lambda: _next_request(with_deadline))


def test_a_query_within_the_deadline_is_answered_and_the_connection_kept(
    with_deadline: DatabaseWrapper,
) -> None:
    with with_deadline.cursor() as cursor:
        cursor.execute("SELECT SLEEP(0.1), 7")
        assert cursor.fetchone() == (0, 7)
    _next_request(with_deadline)
    assert with_deadline.connection.open


def test_a_process_forked_after_a_connection_connects_within_the_deadline() -> None:
    """A preloaded app's workers are forked from a process that may have connected already:
    each connects through helper threads of its own."""
    params = {
        key: value
        for key, value in connection.get_connection_params().items()
        if key not in ("db", "database")
    }
    deadline.connect(params, 5.0).close()
    child = os.fork()
    if child == 0:
        try:
            deadline.connect(params, 5.0).close()
        finally:
            os._exit(0 if sys.exc_info()[0] is None else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
