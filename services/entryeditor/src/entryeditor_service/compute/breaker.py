"""A circuit breaker: after `failures` failed calls in a row, refuse calls for `reset_s`
(callers answer 503 at once instead of waiting on a dead dependency); then let one probe
through (half-open): its success closes the breaker, its failure opens it again.
Thread-safe; one per process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from enum import Enum


class State(Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half-open"


class BreakerOpen(Exception):
    """The breaker refuses calls for now; try again after `retry_after` seconds."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"circuit open, retry after {retry_after:.2f} s")
        self.retry_after = retry_after


class CircuitBreaker:
    def __init__(
        self,
        failures: int = 5,
        reset_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.reset_s = reset_s
        self._clock = clock
        self._lock = threading.Lock()
        self._state = State.CLOSED
        self._failed = 0
        self._opened_at = 0.0
        self._probing = False

    @property
    def state(self) -> State:
        with self._lock:
            return self._current()

    def before_call(self) -> None:
        """Raise BreakerOpen unless a call may go through now (closed, or the probe)."""
        with self._lock:
            state = self._current()
            if state is State.CLOSED:
                return
            if state is State.HALF_OPEN and not self._probing:
                self._probing = True
                return
            raise BreakerOpen(self._retry_after())

    def success(self) -> None:
        with self._lock:
            self._state = State.CLOSED
            self._failed = 0
            self._probing = False

    def failure(self) -> None:
        with self._lock:
            self._failed += 1
            if self._probing or self._failed >= self.failures:
                self._state = State.OPEN
                self._opened_at = self._clock()
                self._probing = False

    def _current(self) -> State:
        if self._state is State.OPEN and self._clock() - self._opened_at >= self.reset_s:
            self._state = State.HALF_OPEN
        return self._state

    def _retry_after(self) -> float:
        if self._state is State.HALF_OPEN:
            return self.reset_s
        return max(0.0, self.reset_s - (self._clock() - self._opened_at))
