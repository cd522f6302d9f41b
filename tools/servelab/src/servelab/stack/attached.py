"""A database or cache server used in place of a compose image.

A service whose `x-local.server` names "host:port" (the default address of the machine's
MariaDB or Redis) runs no container in a local run: the runner uses the server there, the
one the user names instead (servelab.stack.servers.settings) or a private one it starts
(servelab.stack.servers), waits until it accepts connections, then does what the image's
entrypoint does on a first start that the app relies on. For mariadb and mysql images
that is creating the database named by MARIADB_DATABASE / MYSQL_DATABASE, so each stack
can use a database of its own on a shared server (and, on one that outlives the stack,
keep it between runs: a loaded corpus stays loaded), and the credentials the recipe gives
its app: MariaDB's MARIADB_USER with the password of MARIADB_PASSWORD (or the file
MARIADB_PASSWORD_FILE names) and every right on that database alone, Redis's users from the
file `--aclfile` names (its `default` user aside: the server is not the recipe's to lock).
A file a recipe names inside a container is read from the stack's directory of the volume
mounted there. The runner's own connections use the server's administrator (MariaDB's root
with the image's MARIADB_ROOT_PASSWORD, or none; Redis's default user): the machine's and
the private servers are the runner's, not a recipe's.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import redis as redis_client

from servelab.stack.compose import ComposeError, Service

# Images the runner knows how to stand in for, and the server each is.
_KINDS: dict[str, Literal["mariadb", "redis"]] = {
    "mariadb": "mariadb",
    "mysql": "mariadb",
    "redis": "redis",
}
# The server binaries an image's command may start with, before its options.
_BINARIES = ("mariadbd", "mysqld", "redis-server")
# Options that set a server's credentials: a stack sets its own users when it attaches,
# on a server other stacks may share.
_CREDENTIAL_OPTIONS = ("--aclfile", "--requirepass")
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
    """The service's command-line options for its server: the command less the binary and
    the credential options (attach() sets the users on the server instead)."""
    command = list(service.command)
    if command and command[0] in _BINARIES:
        command = command[1:]
    kept: list[str] = []
    skip = False
    for part in command:
        if skip:
            skip = False
        elif part in _CREDENTIAL_OPTIONS:
            skip = True
        elif not part.startswith(tuple(f"{option}=" for option in _CREDENTIAL_OPTIONS)):
            kept.append(part)
    return kept


def _option(command: tuple[str, ...], name: str) -> str | None:
    """The value of the option `name` (`--name VALUE` or `--name=VALUE`) in a command."""
    for index, part in enumerate(command):
        if part == name and index + 1 < len(command):
            return command[index + 1]
        if part.startswith(f"{name}="):
            return part.split("=", 1)[1]
    return None


def _first(env: Mapping[str, str], *names: str) -> str:
    return next((env[name] for name in names if env.get(name)), "")


def _sql_client() -> str:
    found = shutil.which("mariadb") or shutil.which("mysql")
    if found is None:
        raise ComposeError("no mariadb or mysql client: install the Debian package mariadb-client")
    return found


def run_sql(where: Address, statement: str, password: str = "") -> str:
    """Run statements as root with the mariadb (mysql) client, given on its standard input
    (never on a command line another user's `ps` shows); the output, tab-separated."""
    argv = [_sql_client(), "-h", where.host, "-P", str(where.port), "-u", "root", "-N"]
    result = subprocess.run(
        argv,
        input=statement,
        env={**os.environ, "MYSQL_PWD": password},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if result.returncode != 0:
        # The first line only: a later one may set a password.
        raise ComposeError(f"{where}: {statement.splitlines()[0]}: {result.stderr.strip()}")
    return result.stdout


def sql_string(text: str) -> str:
    """`text` as a single-quoted SQL string."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def database(service: Service) -> str | None:
    """The database a mariadb or mysql image creates on first start (MARIADB_DATABASE or
    MYSQL_DATABASE), if it names one."""
    if service.infrastructure not in ("mariadb", "mysql"):
        return None
    return _first(service.environment, "MARIADB_DATABASE", "MYSQL_DATABASE") or None


def attach(
    service: Service,
    where: Address,
    what: str,
    deadline_s: float,
    local_file: Callable[[str], Path] = Path,
) -> None:
    """Make the server at `where` (`what` says whose) ready for the stack, as the image would
    be: once it accepts TCP connections, CREATE DATABASE IF NOT EXISTS for the image's
    MARIADB_DATABASE (MYSQL_DATABASE) and its MARIADB_USER, as root with the image's root
    password; on Redis the users of its ACL file. `local_file` gives the local path of a
    file the recipe names inside the container."""
    deadline = time.monotonic() + deadline_s
    while not accepts_connections(where):
        if time.monotonic() > deadline:
            raise ComposeError(
                f"{service.name}: nothing accepts connections at {where} ({what}: is it running?)"
            )
        time.sleep(_POLL)
    if kind(service) == "redis":
        _add_redis_users(service, where, local_file)
        return
    name = database(service)
    if not name:
        return
    if "`" in name:
        raise ComposeError(f"{service.name}: bad database name {name!r}")
    password = _first(service.environment, "MARIADB_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD")
    statements = [f"CREATE DATABASE IF NOT EXISTS `{name}` CHARACTER SET utf8mb4;"]
    user = _first(service.environment, "MARIADB_USER", "MYSQL_USER")
    if user:
        account = f"{sql_string(user)}@'%'"
        secret = sql_string(_user_password(service, local_file))
        statements += [
            f"CREATE USER IF NOT EXISTS {account} IDENTIFIED BY {secret};",
            f"ALTER USER {account} IDENTIFIED BY {secret};",
            f"GRANT ALL PRIVILEGES ON `{name}`.* TO {account};",
        ]
    try:
        run_sql(where, "\n".join(statements), password)
    except ComposeError as error:
        raise ComposeError(f"{service.name}: cannot create database {name}: {error}") from None


def _user_password(service: Service, local_file: Callable[[str], Path]) -> str:
    """MARIADB_PASSWORD (MYSQL_PASSWORD), or the content of the file *_FILE names."""
    env = service.environment
    value = _first(env, "MARIADB_PASSWORD", "MYSQL_PASSWORD")
    path = _first(env, "MARIADB_PASSWORD_FILE", "MYSQL_PASSWORD_FILE")
    if path:
        try:
            value = local_file(path).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ComposeError(f"{service.name}: {path}: {error.strerror}") from None
    if not value:
        raise ComposeError(f"{service.name}: MARIADB_USER needs a password (MARIADB_PASSWORD_FILE)")
    return value


def _add_redis_users(service: Service, where: Address, local_file: Callable[[str], Path]) -> None:
    """Each user of the file the command's --aclfile names, `default` aside, set afresh (a
    new stack's password replaces the last one's) on the server at `where`."""
    path = _option(service.command, "--aclfile")
    if path is None:
        return
    try:
        lines = local_file(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ComposeError(f"{service.name}: {path}: {error.strerror}") from None
    client = redis_client.Redis(host=where.host, port=where.port, socket_timeout=5)
    try:
        for line in lines:
            words = line.split()
            if len(words) >= 2 and words[0] == "user" and words[1] != "default":
                client.execute_command("ACL", "SETUSER", words[1], "reset", *words[2:])  # type: ignore[no-untyped-call]
    except redis_client.RedisError as error:
        raise ComposeError(f"{service.name}: cannot add the users of {path}: {error}") from None
    finally:
        client.close()
