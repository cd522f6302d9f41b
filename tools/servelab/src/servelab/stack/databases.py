"""The database and cache servers outside a stack, and scratch databases on the former: what
the reliability suite and the tests create for a stack and drop afterwards.

The default addresses are compose.yaml's `x-local.server`s: the machine's MariaDB (root, no
password) and Redis. Where SERVELAB_MARIADB or SERVELAB_REDIS names another, or nothing
answers at the default, these are the same servers the stacks of this process use
(servelab.stack.servers).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import redis as redis_client

from servelab.stack.attached import Address, run_sql
from servelab.stack.servers import servers

MARIADB_DEFAULT = Address("127.0.0.1", 3306)
REDIS_DEFAULT = Address("127.0.0.1", 6379)


def mariadb() -> Address:
    """The MariaDB this process uses (root, no password)."""
    return servers().address("mariadb", MARIADB_DEFAULT)


def redis() -> Address:
    """The Redis this process uses."""
    return servers().address("redis", REDIS_DEFAULT)


def mariadb_url(database: str, server: Address | None = None) -> str:
    """The DATABASE_URL of `database` on `server` (default: mariadb()), as root."""
    return f"mysql://root@{server or mariadb()}/{database}"


def redis_url(db: int, server: Address | None = None) -> str:
    """The REDIS_URL of database `db` on `server` (default: redis())."""
    return f"redis://{server or redis()}/{db}"


@contextmanager
def scratch_database(prefix: str) -> Iterator[str]:
    """A new database name `<prefix><random>` for a stack to create on mariadb() (its
    MARIADB_DATABASE); the database is dropped afterwards, with the users of that name a
    stack created for it on mariadb() and redis() (the entry editor names its MariaDB and
    Redis users after its database)."""
    server = mariadb()
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    try:
        yield name
    finally:
        run_sql(server, f"DROP DATABASE IF EXISTS `{name}`; DROP USER IF EXISTS '{name}'@'%'")
        cache = redis()
        client = redis_client.Redis(host=cache.host, port=cache.port)
        try:
            client.acl_deluser(name)
        finally:
            client.close()


def clear_redis_keys(prefix: str, db: int) -> None:
    """Delete every key `<prefix>:*` in database `db` of redis(): what a stack's cache left."""
    server = redis()
    client = redis_client.Redis(host=server.host, port=server.port, db=db)
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)
