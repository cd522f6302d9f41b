"""Fixtures: a MariaDB database holding the first sentences of the corpus, models built
from it, and the real compute server (`compute-server`) on a loopback port."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pymysql
import pytest

from compute_contract import Connection, connect
from compute_contract.computeidl import Compute
from compute_service.healthcheck import check
from servelab.stack import groups
from servelab.stack.ports import free_port
from servelab.testing import mariadb, mariadb_url

# Sentences loaded into each test database: enough for a vocabulary, fast to train.
SENTENCES = 2000
BIN = Path(sys.executable).parent


def connect_args() -> dict[str, str | int]:
    """The machine's MariaDB, or the private one the tests start where it has none: asked
    for when a test first needs it, so collecting these tests starts no server."""
    server = mariadb()
    return {"host": server.host, "port": server.port, "user": "root", "charset": "utf8mb4"}


def admin() -> pymysql.connections.Connection:
    return pymysql.connect(**connect_args(), autocommit=True)


@dataclass(frozen=True)
class Database:
    name: str

    @property
    def url(self) -> str:
        return mariadb_url(self.name)

    def connections(self) -> int:
        """Connections the server has open to this database right now."""
        with admin() as conn, conn.cursor() as cursor:
            cursor.execute(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = %s", [self.name]
            )
            (count,) = cursor.fetchone()
        return int(count)

    def query(self, sql: str, args: list[object] | None = None) -> list[tuple[object, ...]]:
        connection = pymysql.connect(**connect_args(), database=self.name, autocommit=True)
        with connection as conn, conn.cursor() as cursor:
            cursor.execute(sql, args)
            return list(cursor.fetchall())


def load_corpus(name: str, limit: int) -> None:
    """A new database `name` holding the corpus's first `limit` sentences, made the way the
    entry editor makes its own: `entryeditor-manage migrate` and `load_corpus --limit`."""
    with admin() as conn, conn.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    env = {
        "PATH": os.environ["PATH"],
        "DATABASE_URL": mariadb_url(name),
        "SECRET_KEY": "compute-tests",
        "LOG_LEVEL": "WARNING",
    }
    for command in (["migrate", "-v0"], ["load_corpus", "--limit", str(limit)]):
        subprocess.run(
            [str(BIN / "entryeditor-manage"), *command],
            env=env,
            capture_output=True,
            timeout=120,
            check=True,
        )


def drop_database(name: str) -> None:
    with admin() as conn, conn.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")


@contextmanager
def new_database(limit: int = SENTENCES) -> Iterator[Database]:
    name = f"compute_test_{uuid.uuid4().hex[:10]}"
    try:
        load_corpus(name, limit)
        yield Database(name)
    finally:
        drop_database(name)


@pytest.fixture
def database() -> Callable[..., AbstractContextManager[Database]]:
    """database(limit): a new database holding the corpus's first `limit` sentences."""
    return new_database


@pytest.fixture
def empty_database() -> Iterator[Database]:
    """A new database with no tables: for what needs a database server, not the corpus."""
    name = f"compute_test_{uuid.uuid4().hex[:10]}"
    with admin() as conn, conn.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    try:
        yield Database(name)
    finally:
        drop_database(name)


@pytest.fixture(scope="session")
def corpus() -> Iterator[Database]:
    """A database with the corpus's first SENTENCES sentences, shared by the session."""
    with new_database() as database:
        yield database


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


def compute_env(database: Database, model_dir: Path, **settings: str) -> dict[str, str]:
    env = {key: os.environ[key] for key in ("HOME", "LANG", "PATH") if key in os.environ}
    env.update(
        DATABASE_URL=database.url,
        COMPUTE_MODEL_DIR=str(model_dir),
        PYTHONUNBUFFERED="1",
        **{f"COMPUTE_{key.upper()}": value for key, value in settings.items()},
    )
    return env


@dataclass
class ComputeServer:
    port: int
    process: subprocess.Popen[bytes]


Connect = Callable[..., Compute.Client]


@pytest.fixture
def connect_to() -> Iterator[Connect]:
    """connect_to(port): a Thrift client of the compute server, closed after the test."""
    connections: list[Connection] = []

    def open_client(port: int) -> Compute.Client:
        connection = connect("127.0.0.1", port, timeout_s=5.0)
        connections.append(connection)
        return connection.client

    yield open_client
    for connection in connections:
        connection.close()


@pytest.fixture
def client(server: ComputeServer, connect_to: Connect) -> Compute.Client:
    return connect_to(server.port)


@contextmanager
def run_compute(
    database: Database, model_dir: Path, start_s: float = 60.0, **settings: str
) -> Iterator[ComputeServer]:
    """`compute-server` with COMPUTE_<KEY>=value settings; stopped with SIGTERM alone."""
    port = free_port()
    env = compute_env(database, model_dir, port=str(port), **settings)
    process = groups.spawn(
        [str(BIN / "compute-server")],
        env=env,
        cwd=Path.cwd(),
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + start_s
        while not check(port):
            assert process.poll() is None, f"compute-server exited with {process.returncode}"
            assert time.monotonic() < deadline, "compute-server did not answer ping"
            time.sleep(0.1)
        yield ComputeServer(port, process)
    finally:
        groups.stop_group(process.pid, 10.0, process)
        process.wait()
    assert groups.members(process.pid) == []


ServeCompute = Callable[..., AbstractContextManager[ComputeServer]]


@pytest.fixture
def serve_compute(starts_servers: None) -> ServeCompute:
    return run_compute


@pytest.fixture(scope="module")
def server(corpus: Database, model_dir: Path, starts_servers: None) -> Iterator[ComputeServer]:
    """One server (the default kind) on the session corpus, shared by a module's tests (and stopped
    after them, so that the next module counts only its own database connections)."""
    with run_compute(corpus, model_dir) as running:
        yield running
