"""A private MariaDB: a data directory made by mariadb-install-db, and mariadbd's command.

Root has no password and is reached over loopback TCP only (skip-name-resolve: a client is
its address); the unix socket and the pid file live in the server's own directory, so
nothing meets the machine's MariaDB. No option file is read (--no-defaults). Buffers are
smaller than the defaults, so it starts and stops in well under a second: a 64 MiB buffer
pool holds the entry editor's whole corpus.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from servelab.stack.servers.process import ServerError, find

PACKAGE = "mariadb-server-core"
# The compose service's own options come after these, and so win where they repeat one.
OPTIONS = (
    "--innodb-buffer-pool-size=64M",
    "--innodb-log-file-size=16M",
    "--max-connections=151",
    "--character-set-server=utf8mb4",
)
_INSTALL_TIMEOUT_S = 120


def _user() -> list[str]:
    """mariadbd refuses to run as root unless told to."""
    return ["--user=root"] if os.geteuid() == 0 else []


def initialise(directory: Path) -> None:
    """The system tables in `directory`/data, root without a password."""
    data = directory / "data"
    log = directory / "install.log"
    argv = [
        find("mariadb-install-db", PACKAGE), "--no-defaults", f"--datadir={data}",
        "--auth-root-authentication-method=normal", "--skip-test-db", *_user(), *OPTIONS[:2],
    ]  # fmt: skip
    with log.open("wb") as out:
        result = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=_INSTALL_TIMEOUT_S,
            check=False,
        )
    if result.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise ServerError(f"mariadb-install-db failed (status {result.returncode}):\n{tail}")


def command(directory: Path, port: int, options: Sequence[str] = ()) -> list[str]:
    """mariadbd on 127.0.0.1:`port` over `directory`/data."""
    return [
        find("mariadbd", PACKAGE), "--no-defaults", *OPTIONS, *options,
        f"--datadir={directory / 'data'}", f"--port={port}", "--bind-address=127.0.0.1",
        f"--socket={directory / 'mariadbd.sock'}", f"--pid-file={directory / 'mariadbd.pid'}",
        "--skip-name-resolve", *_user(),
    ]  # fmt: skip
