"""A database or cache server used in place of a compose image.

A service whose `x-local.server` names "host:port" (the default address of the machine's
MariaDB or Redis) runs no container in a local run: the runner uses the server there, the
one the user names instead (servelab.stack.servers.settings) or a private one it starts
(servelab.stack.servers), waits until it accepts connections, then does what the image's
entrypoint does on a first start that the app relies on. For mariadb and mysql images
that is creating the database named by MARIADB_DATABASE / MYSQL_DATABASE, so each stack
can use a database of its own on a shared server (and, on one that outlives the stack,
keep it between runs: a loaded corpus stays loaded).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from servelab.stack.compose import ComposeError, Service

# Images the runner knows how to stand in for, and the server each is.
_KINDS: dict[str, Literal["mariadb", "redis"]] = {
    "mariadb": "mariadb",
    "mysql": "mariadb",
    "redis": "redis",
}
# The server binaries an image's command may start with, before its options.
_BINARIES = ("mariadbd", "mysqld", "redis-server")
_POLL = 0.2


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def address(service: Service) -> Address:
    """The `x-local.server` of a service as host and port."""
    text = service.local.server or ""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ComposeError(f"{service.name}: x-local.server must be host:port, not {text!r}")
    return Address(host, int(port))


def accepts_connections(where: Address, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((where.host, where.port), timeout=timeout):
            return True
    except OSError:
        return False


def kind(service: Service) -> Literal["mariadb", "redis"]:
    """The server that stands in for the service's image."""
    found = _KINDS.get(service.infrastructure or "")
    if found is None:
        raise ComposeError(
            f"{service.name}: x-local.server is for the images {', '.join(_KINDS)}, "
            f"not {service.image!r}"
        )
    return found


def options(service: Service) -> list[str]:
    """The service's command-line options for its server (the command less the binary)."""
    command = list(service.command)
    if command and command[0] in _BINARIES:
        command = command[1:]
    return command


def _first(env: Mapping[str, str], *names: str) -> str:
    return next((env[name] for name in names if env.get(name)), "")


def _sql_client() -> str:
    found = shutil.which("mariadb") or shutil.which("mysql")
    if found is None:
        raise ComposeError("no mariadb or mysql client: install the Debian package mariadb-client")
    return found


def run_sql(where: Address, statement: str, password: str = "") -> str:
    """Run one statement as root with the mariadb (mysql) client; its output, tab-separated."""
    argv = [_sql_client(), "-h", where.host, "-P", str(where.port), "-u", "root", "-N"]
    result = subprocess.run(
        [*argv, "-e", statement],
        env={**os.environ, "MYSQL_PWD": password},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if result.returncode != 0:
        raise ComposeError(f"{where}: {statement}: {result.stderr.strip()}")
    return result.stdout


def database(service: Service) -> str | None:
    """The database a mariadb or mysql image creates on first start (MARIADB_DATABASE or
    MYSQL_DATABASE), if it names one."""
    if service.infrastructure not in ("mariadb", "mysql"):
        return None
    return _first(service.environment, "MARIADB_DATABASE", "MYSQL_DATABASE") or None


def attach(service: Service, where: Address, what: str, deadline_s: float) -> None:
    """Make the server at `where` (`what` says whose) ready for the stack, as the image would
    be: once it accepts TCP connections, CREATE DATABASE IF NOT EXISTS for the image's
    MARIADB_DATABASE (MYSQL_DATABASE), as root with the image's root password."""
    deadline = time.monotonic() + deadline_s
    while not accepts_connections(where):
        if time.monotonic() > deadline:
            raise ComposeError(
                f"{service.name}: nothing accepts connections at {where} ({what}: is it running?)"
            )
        time.sleep(_POLL)
    name = database(service)
    if kind(service) != "mariadb" or not name:
        return
    if "`" in name:
        raise ComposeError(f"{service.name}: bad database name {name!r}")
    password = _first(service.environment, "MARIADB_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD")
    try:
        run_sql(where, f"CREATE DATABASE IF NOT EXISTS `{name}` CHARACTER SET utf8mb4", password)
    except ComposeError as error:
        raise ComposeError(f"{service.name}: cannot create database {name}: {error}") from None
