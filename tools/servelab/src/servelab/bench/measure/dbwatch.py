"""The most database connections a cell's stack held at once, sampled while k6 runs.

The write-up's MySQL answered "Too many connections" once its threads wanted more than
max_connections (151). For each database the stack has on the machine's MariaDB, this
counts the server's connections to it (information_schema.PROCESSLIST, idle ones
included: a connection kept for CONN_MAX_AGE still takes a slot) twice a second.
"""

from __future__ import annotations

import re
import subprocess

from servelab.bench.measure.peak import PeakWatch
from servelab.stack import Stack
from servelab.stack.attached import Address, run_sql
from servelab.stack.compose import ComposeError

_INTERVAL_S = 0.5
_NAME = re.compile(r"[A-Za-z0-9_$]+")


class ConnectionWatch(PeakWatch[int]):
    """`with ConnectionWatch(stack) as watch: ...`, then `watch.peak` (None: nothing to watch
    or nothing could be read)."""

    def __init__(self, stack: Stack, interval_s: float = _INTERVAL_S) -> None:
        targets = [(stack.attached[service], name) for service, name in stack.databases.items()]

        def read() -> int | None:
            counts = [connections(where, name) for where, name in targets]
            return None if None in counts else sum(c for c in counts if c is not None)

        super().__init__("db-connections", interval_s, read, at_exit=False, active=bool(targets))


def connections(where: Address, database: str) -> int | None:
    """Connections the server at `where` has open to `database`; None if it cannot say."""
    if not _NAME.fullmatch(database):
        return None
    # The name is checked above: letters, digits, _ and $ only.
    statement = f"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = '{database}'"  # noqa: S608
    try:
        return int(run_sql(where, statement).strip())
    except (ComposeError, OSError, ValueError, subprocess.TimeoutExpired):
        return None
