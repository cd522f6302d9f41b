"""Private MariaDB and Redis servers: started on a free loopback port, initialised, shared
while something holds them, stopped by their process group with their data removed."""

from __future__ import annotations

import io
from pathlib import Path

import pymysql
import pytest
import redis

from servelab.stack.attached import Address
from servelab.stack.groups import members
from servelab.stack.servers import Servers
from servelab.stack.servers.process import ServerError
from servelab.stack.servers.settings import ServerSettings, Setting

# They start real servers.
pytestmark = pytest.mark.stack

PRIVATE = ServerSettings(mariadb=Setting(private=True), redis=Setting(private=True))
# Defaults the private servers must not touch.
MARIADB = Address("127.0.0.1", 3306)
REDIS = Address("127.0.0.1", 6379)


def gone(pgid: int, directory: Path) -> bool:
    return members(pgid) == [] and not directory.exists()


def test_a_private_mariadb_takes_root_without_a_password_over_loopback() -> None:
    log = io.StringIO()
    servers = Servers(PRIVATE, log=log)
    lease = servers.acquire("mariadb", MARIADB, ["--max-connections=20"])
    assert lease.private
    assert lease.address.host == "127.0.0.1"
    assert lease.address != MARIADB
    (pgid,) = servers.process_groups().values()
    directory = Path(f"/proc/{pgid}/cwd").resolve()
    try:
        connection = pymysql.connect(host="127.0.0.1", port=lease.address.port, user="root")
        with connection, connection.cursor() as cursor:
            cursor.execute("SELECT @@max_connections, @@character_set_server, @@skip_name_resolve")
            assert cursor.fetchone() == (20, "utf8mb4", 1)
            cursor.execute("CREATE DATABASE scratch")
    finally:
        servers.release(lease)
    assert gone(pgid, directory)
    assert "starting a private mariadbd" in log.getvalue()
    assert f"private mariadbd ready at {lease.address}" in log.getvalue()


def test_a_private_redis_is_shared_until_its_last_holder_lets_go() -> None:
    servers = Servers(PRIVATE, log=io.StringIO())
    first = servers.acquire("redis", REDIS)
    second = servers.acquire("redis", REDIS)
    assert first == second
    (pgid,) = servers.process_groups().values()
    directory = Path(f"/proc/{pgid}/cwd").resolve()
    client = redis.Redis(host="127.0.0.1", port=first.address.port)
    assert client.set("key", "value")
    assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "allkeys-lru"}
    servers.release(first)
    assert client.get("key") == b"value"
    servers.release(second)
    client.close()
    assert gone(pgid, directory)


def test_keeping_holds_a_private_server_between_users_and_stops_it_after() -> None:
    servers = Servers(PRIVATE, log=io.StringIO())
    with servers.keeping():
        address = servers.address("redis", REDIS)
        (pgid,) = servers.process_groups().values()
        directory = Path(f"/proc/{pgid}/cwd").resolve()
        for _ in range(2):
            lease = servers.acquire("redis", REDIS)
            assert lease.address == address
            servers.release(lease)
            assert servers.process_groups() == {"redis-server": pgid}
    assert servers.process_groups() == {}
    assert gone(pgid, directory)


def test_a_server_the_user_names_is_used_and_never_stopped() -> None:
    settings = ServerSettings(redis=Setting(address=Address("127.0.0.1", 1)))
    servers = Servers(settings, log=io.StringIO())
    lease = servers.acquire("redis", REDIS)
    assert (lease.address, lease.private, lease.configured) == (
        Address("127.0.0.1", 1),
        False,
        True,
    )
    servers.release(lease)
    assert servers.process_groups() == {}


def test_a_missing_binary_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("servelab.stack.servers.process._SBIN", ())
    servers = Servers(PRIVATE, log=io.StringIO())
    with pytest.raises(ServerError, match=r"redis-server not found: run `make bootstrap`"):
        servers.acquire("redis", REDIS)
    assert servers.process_groups() == {}
