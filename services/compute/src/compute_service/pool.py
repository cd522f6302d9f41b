"""A bounded pool of pymysql connections that never leaks one.

At most `size` connections exist at once. `with pool.connection() as conn:` lends one and
always takes it back: after an error in the block the connection is closed and dropped
(its state is unknown), so the slot is freed and the next borrower opens a fresh one; an
idle connection the server dropped is reopened when lent. A
borrower waits at most `wait_s` for a slot, then gets PoolTimeout instead of opening more.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import pymysql
from pymysql.connections import Connection


class PoolTimeout(RuntimeError):
    """No connection became free within the wait limit."""


@dataclass(frozen=True)
class MySQLAddress:
    host: str
    port: int
    user: str
    password: str
    database: str

    @classmethod
    def parse(cls, url: str) -> MySQLAddress:
        """mysql://user[:password]@host[:port]/database"""
        parts = urlsplit(url)
        if parts.scheme not in {"mysql", "mariadb"} or not parts.path.strip("/"):
            raise ValueError(f"not a mysql://user@host:port/database URL: {url!r}")
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 3306,
            user=unquote(parts.username or "root"),
            password=unquote(parts.password or ""),
            database=parts.path.strip("/"),
        )


class ConnectionPool:
    def __init__(
        self, address: MySQLAddress, size: int, *, wait_s: float = 2.0, timeout_s: float = 5.0
    ) -> None:
        self.address = address
        self.size = size
        self.wait_s = wait_s
        self.timeout_s = timeout_s
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[Connection[Any]] = []
        self._lock = threading.Lock()

    @contextmanager
    def connection(self) -> Iterator[Connection[Any]]:
        if not self._slots.acquire(timeout=self.wait_s):
            raise PoolTimeout(f"no database connection free within {self.wait_s:g} s")
        conn: Connection[Any] | None = None
        try:
            conn = self._take_alive() or self._connect()
            yield conn
        except BaseException:
            if conn is not None:
                _close_quietly(conn)
                conn = None
            raise
        finally:
            if conn is not None:
                with self._lock:
                    self._idle.append(conn)
            self._slots.release()

    def close_idle(self) -> None:
        """Close every connection not lent out (before a fork, and on shutdown)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            _close_quietly(conn)

    @property
    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def _take_alive(self) -> Connection[Any] | None:
        """An idle connection after one round trip: one the server dropped while idle
        (restart, wait_timeout, KILL) is closed here instead of failing the request."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            return None
        try:
            conn.ping(reconnect=False)
        except (pymysql.Error, OSError):
            _close_quietly(conn)
            return None
        return conn

    def _connect(self) -> Connection[Any]:
        a = self.address
        return pymysql.connect(
            host=a.host,
            port=a.port,
            user=a.user,
            password=a.password,
            database=a.database,
            charset="utf8mb4",
            autocommit=True,
            connect_timeout=self.timeout_s,
            read_timeout=self.timeout_s,
            write_timeout=self.timeout_s,
        )


def _close_quietly(conn: Connection[Any]) -> None:
    with suppress(pymysql.Error, OSError):
        conn.close()
