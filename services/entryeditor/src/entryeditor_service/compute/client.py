"""A thread-safe, pooled Thrift client of the compute service.

- Connections (framed transport, accelerated binary protocol) are opened on demand, kept
  for reuse and bounded by `pool_size` (give it the process's thread count and no caller
  waits); a caller waits at most the read timeout for one, then fails as on a timeout.
- Every socket has a connect timeout and a read timeout, so no call waits longer than
  about connect + read timeout, whatever compute does.
- Every call of compute.thrift is a read, so a call that fails with a *connection* error
  (refused, reset, closed: e.g. a pooled connection to a compute process that restarted) is
  retried once on a fresh connection. A read timeout is not retried: compute is busy or
  stuck, and a second try would only double the wait and its load.
- A circuit breaker counts calls that got no answer (connection errors, timeouts, compute's
  own internal errors); while it is open calls fail at once with ComputeUnavailable.
  Typed errors (UnknownSentence, BadRequest) are answers: compute is healthy.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from compute_contract import (
    Connection,
    TApplicationException,
    TException,
    TTransportException,
    connect,
)
from compute_contract.computeidl import Compute
from compute_contract.computeidl.ttypes import Neighbor
from entryeditor_service import metrics
from entryeditor_service.compute.breaker import BreakerOpen, CircuitBreaker, State

T = TypeVar("T")
# Errors after which the call got no answer (and the connection is unusable).
_NO_ANSWER = (TTransportException, OSError)


class ComputeUnavailable(Exception):
    """Compute gave no answer (down, too slow, or the breaker is open)."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int

    @classmethod
    def parse(cls, address: str) -> Endpoint:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"COMPUTE_ADDR must be host:port, not {address!r}")
        return cls(host, int(port))


def _is_timeout(error: BaseException) -> bool:
    if isinstance(error, TTransportException):
        return error.type == TTransportException.TIMED_OUT or isinstance(
            error.inner, socket.timeout
        )
    return isinstance(error, socket.timeout)


class ComputeClient:
    def __init__(
        self,
        endpoint: Endpoint,
        *,
        pool_size: int = 8,
        connect_timeout_s: float = 0.2,
        timeout_s: float = 0.8,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.connect_timeout_s = connect_timeout_s
        self.timeout_s = timeout_s
        self.breaker = breaker or CircuitBreaker()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._idle: list[Connection] = []
        self._lock = threading.Lock()

    def neighbors(self, sentence_id: int, k: int) -> list[Neighbor]:
        return self._timed("neighbors", lambda client: client.neighbors(sentence_id, k))

    def ping(self) -> str:
        answer: str = self._timed("ping", lambda client: client.ping())
        return answer

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def _timed(self, method: str, call: Callable[[Compute.Client], T]) -> T:
        """The call, timed by method and outcome, with the breaker's state after it."""
        started = time.perf_counter()
        outcome = "unavailable"
        try:
            result = self._call(call)
            outcome = "ok"
            return result
        except TException:
            outcome = "error"
            raise
        finally:
            metrics.compute_call(
                method,
                outcome,
                time.perf_counter() - started,
                breaker_open=self.breaker.state is not State.CLOSED,
            )

    def _call(self, call: Callable[[Compute.Client], T]) -> T:
        try:
            self.breaker.before_call()
        except BreakerOpen as error:
            raise ComputeUnavailable("compute is unavailable", error.retry_after) from error
        try:
            result = self._attempt(call)
        except (*_NO_ANSWER, TApplicationException) as error:
            self.breaker.failure()
            raise ComputeUnavailable(
                f"compute at {self.endpoint.host}:{self.endpoint.port}: {error}",
                self.breaker.reset_s,
            ) from error
        except TException:
            self.breaker.success()  # a typed error (UnknownSentence...) is an answer
            raise
        except BaseException:
            self.breaker.failure()  # whatever it was, a probe must not stay pending
            raise
        self.breaker.success()
        return result

    def _attempt(self, call: Callable[[Compute.Client], T]) -> T:
        if not self._slots.acquire(timeout=self.timeout_s):
            raise TTransportException(
                TTransportException.TIMED_OUT, "every compute connection is busy"
            )
        try:
            connection, pooled = self._take()
            try:
                return self._use(connection, call)
            except _NO_ANSWER as error:
                if not pooled or _is_timeout(error):
                    raise
            # A pooled connection failed: once more on a new one (every call is a read).
            return self._use(self._open(), call)
        finally:
            self._slots.release()

    def _use(self, connection: Connection, call: Callable[[Compute.Client], T]) -> T:
        """The call on this connection, kept for reuse unless the call broke it."""
        try:
            result = call(connection.client)
        except _NO_ANSWER:
            connection.close()
            raise
        except TException:  # an answer (a typed error): the connection is in step
            self._keep(connection)
            raise
        except BaseException:  # interrupted mid-call: what is left on the wire is unknown
            connection.close()
            raise
        self._keep(connection)
        return result

    def _keep(self, connection: Connection) -> None:
        with self._lock:
            self._idle.append(connection)

    def _open(self) -> Connection:
        return connect(
            self.endpoint.host,
            self.endpoint.port,
            timeout_s=self.timeout_s,
            connect_timeout_s=self.connect_timeout_s,
        )

    def _take(self) -> tuple[Connection, bool]:
        """An idle connection that is still open (and True), else a new one (and False)."""
        while True:
            with self._lock:
                connection = self._idle.pop() if self._idle else None
            if connection is None:
                return self._open(), False
            if connection.is_open():
                return connection, True
            connection.close()
