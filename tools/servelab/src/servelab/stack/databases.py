"""The machine's MariaDB, as compose.yaml's x-local.server names it, and scratch databases
on it: what the reliability suite and the tests create for a stack and drop afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from servelab.stack.attached import Address, run_sql

# The machine's MariaDB (root, no password).
MARIADB = Address("127.0.0.1", 3306)


def mariadb_url(database: str, server: Address = MARIADB) -> str:
    """The DATABASE_URL of `database` on the machine's MariaDB (root, no password)."""
    return f"mysql://root@{server}/{database}"


@contextmanager
def scratch_database(prefix: str, server: Address = MARIADB) -> Iterator[str]:
    """A new database name `<prefix><random>` for a stack to create on the machine's
    MariaDB (its MARIADB_DATABASE); the database is dropped afterwards."""
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    try:
        yield name
    finally:
        run_sql(server, f"DROP DATABASE IF EXISTS `{name}`")
