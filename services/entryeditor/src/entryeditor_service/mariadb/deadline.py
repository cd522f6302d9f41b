"""MariaDB connections that give up on a silent server after a deadline in fractions of a
second.

MariaDB's client counts its connect and read timeouts in whole seconds, so 1 s is the least
a request can wait on a server that stopped answering. Here a query is sent, its socket
polled for DEADLINE seconds, and the answer read only once it has started to arrive; a
connection is made in a helper thread the request waits on for DEADLINE seconds. A wait past
the deadline closes the connection (a late one when it arrives) and raises `Silent`, the
client's "lost connection" error, which opens the database breaker like the client's own
timeouts do, the ORM's queries included (they close the failed query's cursor first). The
whole-second timeouts stay as the bound on everything else (a row stream that stalls
half-way, a send into a full buffer).
"""

from __future__ import annotations

import os
import select
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as WaitedOut
from typing import Any

import MySQLdb
from MySQLdb.connections import Connection as ClientConnection

# The client's "Lost connection to server during query".
LOST = 2013
# Connections being made at once per process; more wait their turn within their deadline.
CONNECTING = 4


def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=CONNECTING, thread_name_prefix="mariadb-connect")


_connecting = _executor()


def _after_fork() -> None:
    # A child forked after a connection was made (a preloaded app) inherits an executor whose
    # threads it does not have: it makes its own.
    global _connecting
    _connecting = _executor()


os.register_at_fork(after_in_child=_after_fork)


class Silent(MySQLdb.OperationalError):
    """The server did not answer within the deadline."""


def _answered(fd: int, deadline_s: float) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(deadline_s * 1000))


class Connection(ClientConnection):
    """A client connection whose queries, and pings, wait at most `deadline_s`."""

    deadline_s: float

    def query(self, query: bytes | bytearray) -> None:
        # The client releases the GIL while it sends: it needs an immutable buffer.
        sql = bytes(query)
        self.send_query(sql)
        if not _answered(self.fileno(), self.deadline_s):
            self.close()
            raise Silent(LOST, f"Lost connection to server: no answer in {self.deadline_s} s")
        self.read_query_result()

    def ping(self, *args: Any) -> None:
        self.query(b"DO 1")

    def close(self) -> None:
        # A connection the deadline closed is closed again by Django's cleanup.
        if self.open:
            super().close()

    def next_result(self) -> int:
        # A connection the deadline closed has no results left: the cursor of the query that
        # failed is closed before Django raises its error (the ORM does so), and the client
        # would raise its own "server has gone away", which Django does not wrap (a 500).
        if not self.open:
            return -1
        return int(super().next_result())


def _close_late(made: Future[Connection]) -> None:
    if made.exception() is None:
        made.result().close()


def connect(params: dict[str, Any], deadline_s: float) -> Connection:
    """A new connection with `params` (MySQLdb.connect's), or `Silent` after `deadline_s`."""
    made = _connecting.submit(Connection, **params)
    try:
        connection = made.result(timeout=deadline_s)
    except WaitedOut:
        if not made.cancel():
            made.add_done_callback(_close_late)
        raise Silent(LOST, f"Lost connection to server: no handshake in {deadline_s} s") from None
    connection.deadline_s = deadline_s
    return connection
