"""The private servers of this process, shared by everything in it that needs one.

`servers().acquire("mariadb", default)` gives the address to use (choice) and starts a
private server where there is none to use; `release` stops it once nothing holds it any
more. So a stack started alone starts its private servers and stops them with itself, and
a scratch database made around a stack keeps the same server for both. Within
`servers().keeping()` (a command of the CLI, a test session) a private server stays up once
started, for every stack that comes after, and stops when the block ends; so does one whose
address `address()` handed out. Should this process die first, each private server's
watchdog stops it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from servelab.project import Settings
from servelab.stack.attached import Address
from servelab.stack.logs import Sink
from servelab.stack.ports import free_port
from servelab.stack.servers import mariadb, process, redis
from servelab.stack.servers.process import PrivateServer
from servelab.stack.servers.settings import VARIABLES, Kind, ServerSettings, choose

_NAMES: Mapping[Kind, str] = {"mariadb": "MariaDB", "redis": "Redis"}
_BINARIES: Mapping[Kind, str] = {"mariadb": "mariadbd", "redis": "redis-server"}
_START_S = 60.0


@dataclass(frozen=True)
class Lease:
    """The server at `address`: a private one this process started, or one it found (the
    user's, `configured`, or the machine's at the default address)."""

    kind: Kind
    address: Address
    private: bool = False
    configured: bool = False

    def describe(self) -> str:
        if self.private:
            return f"a private {_BINARIES[self.kind]} at {self.address}"
        if self.configured:
            return f"the server {VARIABLES[self.kind]} names, at {self.address}"
        return f"this machine's server at {self.address}"


class Servers:
    def __init__(self, settings: ServerSettings | None = None, log: Sink | None = None) -> None:
        self._settings = settings
        self._log = log
        self._lock = threading.RLock()
        self._running: dict[Kind, PrivateServer] = {}
        self._holders: Counter[Kind] = Counter()
        self._keeping = 0
        self._kept: dict[Kind, Lease] = {}

    def acquire(
        self,
        kind: Kind,
        default: Address,
        options: Sequence[str] = (),
        chosen: Settings | None = None,
    ) -> Lease:
        """The server to use for `kind`; `options`: the compose service's command-line
        options, for a private server this call starts. Unless this pool was given its own,
        the settings are `chosen` (a stack's project's), else the environment's now."""
        chosen = chosen or Settings()
        settings = self._settings or ServerSettings.read(chosen)
        choice = choose(settings.of(kind), default)
        if choice.address is not None:
            return Lease(kind, choice.address, configured=choice.configured)
        with self._lock:
            if kind not in self._running:
                why = (
                    f"{VARIABLES[kind]}=private"
                    if settings.of(kind).private
                    else f"nothing answers at {default} and {VARIABLES[kind]} is unset"
                )
                self._running[kind] = self._start(kind, why, options, chosen)
            self._holders[kind] += 1
            return Lease(kind, self._running[kind].address, private=True)

    def address(self, kind: Kind, default: Address) -> Address:
        """The server to use for `kind` from now until the `keeping()` block ends (or this
        process does): for callers that hold no stack, a test's client, a probe's proxy."""
        with self._lock:
            if kind not in self._kept:
                self._kept[kind] = self.acquire(kind, default)
            return self._kept[kind].address

    def release(self, lease: Lease) -> None:
        if not lease.private:
            return
        with self._lock:
            self._holders[lease.kind] -= 1
            if self._holders[lease.kind] <= 0 and not self._keeping:
                self._stop(lease.kind)

    @contextmanager
    def keeping(self) -> Iterator[Servers]:
        """Private servers started inside the block stay up until it ends."""
        with self._lock:
            self._keeping += 1
        try:
            yield self
        finally:
            with self._lock:
                self._keeping -= 1
                if not self._keeping:
                    for lease in self._kept.values():
                        if lease.private:
                            self._holders[lease.kind] -= 1
                    self._kept.clear()
                    for kind in [k for k in self._running if self._holders[k] <= 0]:
                        self._stop(kind)

    def process_groups(self) -> dict[str, int]:
        """The process group of every private server running, by binary name."""
        with self._lock:
            return {_BINARIES[kind]: server.pgid for kind, server in self._running.items()}

    def _start(
        self, kind: Kind, why: str, options: Sequence[str], settings: Settings
    ) -> PrivateServer:
        self._say(f"{_NAMES[kind]}: {why}: starting a private {_BINARIES[kind]}")
        began = time.monotonic()
        directory = Path(tempfile.mkdtemp(prefix=f"servelab-{kind}-"))
        port = free_port(settings=settings)
        try:
            if kind == "mariadb":
                mariadb.initialise(directory)
                argv = mariadb.command(directory, port, options)
            else:
                argv = redis.command(directory, port, options)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        server = process.start(_BINARIES[kind], argv, directory, port, _START_S)
        self._say(
            f"private {_BINARIES[kind]} ready at {server.address} in "
            f"{time.monotonic() - began:.1f} s (data in {directory})"
        )
        return server

    def _stop(self, kind: Kind) -> None:
        server = self._running.pop(kind, None)
        self._holders.pop(kind, None)
        if server is not None:
            server.stop()

    def _say(self, text: str) -> None:
        sink = self._log or sys.stderr
        sink.write(f"servelab: {text}\n")
        sink.flush()


_SHARED = Servers()


def servers() -> Servers:
    """This process's private servers."""
    return _SHARED
