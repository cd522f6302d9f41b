# ruff: noqa: S608  (the statements name databases the test itself made)
"""The credentials the recipe gives the entry editor reach its own data and nothing else, as
the database and cache servers themselves answer: the local runner creates the recipe's
users (MARIADB_USER, the ACL file's) on the server it uses, the machine's or a private one,
with the passwords entryeditor-secrets generated for the stack."""

from __future__ import annotations

from collections.abc import Iterator

import MySQLdb
import pytest
import redis

from servelab.stack import Stack
from servelab.stack.attached import run_sql
from servelab.testing import scratch_database

pytestmark = pytest.mark.stack

DENIED = {1044, 1142, 1227}  # access to a database, a table command, a privilege denied


@pytest.fixture
def stack() -> Iterator[Stack]:
    with scratch_database("ee_grants_") as name:
        env = {"EE_DATABASE": name, "EE_REDIS_DB": "3"}
        with Stack(
            "gunicorn", only=["entryeditor-mariadb", "entryeditor-redis"], env=env, log=None
        ) as running:
            yield running


@pytest.fixture
def other_database(stack: Stack) -> Iterator[str]:
    """Another application's database on the same server, with a row in it."""
    with scratch_database("ee_other_") as other:
        table = f"`{other}`.t"
        run_sql(
            stack.attached["entryeditor-mariadb"],
            f"CREATE DATABASE `{other}`; CREATE TABLE {table} (v INT);"
            f" INSERT INTO {table} VALUES (1);",
        )
        yield other


def secret(stack: Stack, name: str) -> str:
    return (stack.volume("entryeditor-secrets") / name).read_text().strip()


def denied(cursor: MySQLdb.cursors.Cursor, statement: str) -> int:
    """The error number MariaDB answers `statement` with."""
    with pytest.raises(MySQLdb.MySQLError) as raised:
        cursor.execute(statement)
    return int(raised.value.args[0])


def test_the_apps_database_user_reaches_its_database_alone(
    stack: Stack, other_database: str
) -> None:
    server = stack.attached["entryeditor-mariadb"]
    name = stack.env["EE_DATABASE"]
    with pytest.raises(MySQLdb.OperationalError) as refused:
        MySQLdb.connect(host=server.host, port=server.port, user=name, password="", database=name)
    assert refused.value.args[0] == 1045  # access denied: a password is required
    connection = MySQLdb.connect(
        host=server.host,
        port=server.port,
        user=name,
        password=secret(stack, "database-password"),
        database=name,
    )
    try:
        cursor = connection.cursor()
        # Its own database: everything migrate needs.
        cursor.execute("CREATE TABLE mine (v INT)")
        cursor.execute("INSERT INTO mine VALUES (1)")
        cursor.execute("ALTER TABLE mine ADD COLUMN w INT")
        cursor.execute("SELECT COUNT(*) FROM mine")
        assert cursor.fetchone() == (1,)
        cursor.execute("DROP TABLE mine")
        # Nothing else: another database, the server's own tables, new databases, users.
        cursor.execute("SHOW DATABASES")
        assert {row[0] for row in cursor.fetchall()} == {name, "information_schema"}
        table = f"`{other_database}`.t"
        assert denied(cursor, f"SELECT * FROM {table}") in DENIED
        assert denied(cursor, f"INSERT INTO {table} VALUES (2)") in DENIED
        assert denied(cursor, f"DROP TABLE {table}") in DENIED
        assert denied(cursor, f"CREATE TABLE `{other_database}`.mine (v INT)") in DENIED
        assert denied(cursor, "SELECT * FROM mysql.user") in DENIED
        assert denied(cursor, "CREATE DATABASE ee_grants_not_mine") in DENIED
        assert denied(cursor, "CREATE USER intruder IDENTIFIED BY 'x'") in DENIED
        assert denied(cursor, "SELECT * FROM mysql.user INTO OUTFILE '/tmp/users'") in DENIED
        cursor.execute("SHOW GRANTS")
        grants = [row[0] for row in cursor.fetchall()]
        assert len(grants) == 2, grants
        assert grants[0].startswith(f"GRANT USAGE ON *.* TO `{name}`@`%`"), grants
        assert grants[1] == f"GRANT ALL PRIVILEGES ON `{name}`.* TO `{name}`@`%`", grants
    finally:
        connection.close()
    assert run_sql(server, f"SELECT v FROM {table}").split() == ["1"]


def test_the_apps_cache_user_reaches_its_keys_alone(stack: Stack) -> None:
    server = stack.attached["entryeditor-redis"]
    name = stack.env["EE_DATABASE"]
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(host=server.host, port=server.port, username=name, password="x").ping()  # noqa: S106
    cache = redis.Redis(
        host=server.host,
        port=server.port,
        db=3,
        username=name,
        password=secret(stack, "redis-password"),
    )
    try:
        assert cache.set(f"{name}:1:entry", b"v", px=10_000)
        assert cache.get(f"{name}:1:entry") == b"v"
        assert cache.delete(f"{name}:1:entry") == 1
        for command in (
            lambda: cache.get("someone-else:1:entry"),
            lambda: cache.set("someone-else:1:entry", b"v"),
            lambda: cache.keys("*"),
            lambda: cache.flushall(),
            lambda: cache.flushdb(),
            lambda: cache.config_get("*"),
        ):
            with pytest.raises(redis.exceptions.NoPermissionError):
                command()
    finally:
        cache.close()
