"""The database's circuit breaker: one request that cannot reach MariaDB spares the others
the wait.

A request that finds the database unreachable (refused, reset, or silent past
DB_CONNECT_TIMEOUT / DB_READ_TIMEOUT: MariaDB client errors 2002, 2003, 2006, 2013, 2055)
opens the breaker; for DB_BREAKER_RESET seconds every request that needs the database is
answered 503 database_unavailable with Retry-After at once, then one request probes it
(half-open): its success closes the breaker, its failure opens it again. A probe that ends
neither way (another dependency failed it) gives the turn to the next request after
DB_BREAKER_RESET more seconds. One per process; thread-safe.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

from servicekit.errors.django import error_response

# MariaDB/MySQL client errors: cannot connect (2002, 2003), connection gone or lost
# (2006, 2013, 2055).
UNREACHABLE = frozenset({2002, 2003, 2006, 2013, 2055})
# Routes that do not need the database, or report on it themselves.
EXEMPT = ("/healthz", "/readyz", "/api/schema")


def unreachable(exc: Exception) -> bool:
    """Whether `exc` says the database could not be reached (not a query's own error)."""
    if isinstance(exc, InterfaceError):
        return True
    return isinstance(exc, OperationalError) and bool(exc.args) and exc.args[0] in UNREACHABLE


class Breaker:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tripped = False
        self._refuse_until = 0.0

    def admit(self) -> float | None:
        """None if a request may use the database now; else the seconds until it may."""
        if not self._tripped:
            return None
        with self._lock:
            now = self._clock()
            if now < self._refuse_until:
                return self._refuse_until - now
            # Half-open: this request probes; the others wait for its outcome.
            self._refuse_until = now + settings.DB_BREAKER_RESET
            return None

    def failure(self) -> None:
        with self._lock:
            self._tripped = True
            self._refuse_until = self._clock() + settings.DB_BREAKER_RESET

    def success(self) -> None:
        if self._tripped:
            with self._lock:
                self._tripped = False
                self._refuse_until = 0.0


breaker = Breaker()


def record(exc: Exception) -> None:
    """Open the breaker if `exc` says the database is unreachable."""
    if unreachable(exc):
        breaker.failure()


def unavailable(retry_after: float) -> JsonResponse:
    seconds = max(1, math.ceil(retry_after))
    return error_response(
        503,
        "database_unavailable",
        "The database is unavailable",
        headers={"Retry-After": str(seconds)},
    )


class BreakerMiddleware:
    """Answer 503 at once while the breaker is open; close it on an answer below 500."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(EXEMPT):
            response: HttpResponse = self.get_response(request)
            return response
        wait = breaker.admit()
        if wait is not None:
            return unavailable(wait)
        response = self.get_response(request)
        if response.status_code < 500:
            breaker.success()
        return response
