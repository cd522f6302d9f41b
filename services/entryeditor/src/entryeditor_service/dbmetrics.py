"""The database connections' use, as metrics (entryeditor_service.metrics).

Django has no pool to ask: each thread of a worker keeps its own connection, open for
CONN_MAX_AGE seconds after its last request, so a worker holds at most WEB_THREADS and
the whole server WEB_CONCURRENCY x WEB_THREADS (the budget checked against
max_connections). What is measured, per worker process and summed over the live ones:

- open connections: each connection Django opens is remembered (weakly); the count of
  those still open is set when one opens and after every request, once Django has closed
  the ones past CONN_MAX_AGE or broken (its own request_finished receiver runs first);
- connections in use: running a query now (an execute wrapper on every connection);
- each query's time, whose rate of sum is the average number of connections busy.

`install()` connects the signals; the WSGI entry point calls it, once per process.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from django.core.signals import request_finished
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

from entryeditor_service import metrics
from servicekit.metrics import switch

_lock = threading.Lock()
_opened: weakref.WeakSet[BaseDatabaseWrapper] = weakref.WeakSet()


def install() -> None:
    if not switch.enabled():
        return
    connection_created.connect(_created, dispatch_uid="entryeditor_db_created")
    request_finished.connect(_count_open, dispatch_uid="entryeditor_db_open")


def _created(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    if _timed not in connection.execute_wrappers:  # a reconnect keeps the wrapper's list
        connection.execute_wrappers.append(_timed)
    with _lock:
        _opened.add(connection)
    _count_open()


def _count_open(**kwargs: object) -> None:
    with _lock:
        count = sum(1 for connection in _opened if connection.connection is not None)
    metrics.DB_OPEN.set(count)


def _timed(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    metrics.DB_IN_USE.inc()
    started = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        metrics.DB_QUERY.observe(time.perf_counter() - started)
        metrics.DB_IN_USE.dec()
