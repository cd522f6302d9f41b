"""A private server process: started in a process group of its own, its output in a log file
beside its data, ready once it accepts connections, stopped by its group; and where the
Debian packages' server binaries are.

A watchdog process stops the group if the process that started it dies without stopping it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.stack.attached import Address, accepts_connections
from servelab.stack.groups import stop_group
from servelab.stack.ports import LOOPBACK
from servelab.stack.watchdog import Watchdog

_POLL_S = 0.05
_TAIL = 20
# MariaDB's own shutdown flushes its buffer pool: well within this for a private one.
GRACE_S = 30.0
# Where server binaries are when a user's PATH lacks the sbin directories.
_SBIN = ("/usr/sbin", "/usr/local/sbin", "/usr/bin")


class ServerError(RuntimeError):
    """A private server could not be set up, started or stopped."""


def find(name: str, package: str) -> str:
    """The binary `name` of the Debian package `package`."""
    found = shutil.which(name) or next(
        (str(Path(d, name)) for d in _SBIN if Path(d, name).is_file()), None
    )
    if found is None:
        raise ServerError(f"{name} not found: run `make bootstrap` (Debian package {package})")
    return found


@dataclass
class PrivateServer:
    address: Address
    directory: Path
    process: subprocess.Popen[bytes]
    watchdog: Watchdog

    @property
    def pgid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        """SIGTERM its group, SIGKILL what is left after the grace period; then remove its
        directory, data included."""
        stop_group(self.pgid, GRACE_S, self.process)
        self.process.wait()
        self.watchdog.release()
        shutil.rmtree(self.directory, ignore_errors=True)


def start(
    name: str, argv: Sequence[str], directory: Path, port: int, deadline_s: float
) -> PrivateServer:
    """Run `argv` and wait until 127.0.0.1:`port` accepts connections."""
    address = Address(LOOPBACK, port)
    with (directory / "server.log").open("wb") as log:
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=directory,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            raise ServerError(f"cannot start {name}: {error}") from error
    watchdog = Watchdog()
    watchdog.watch(process.pid, GRACE_S)
    server = PrivateServer(address, directory, process, watchdog)
    deadline = time.monotonic() + deadline_s
    while not accepts_connections(address, timeout=0.5):
        code = process.poll()
        if code is not None or time.monotonic() > deadline:
            logs = sorted(directory.glob("*.log"))
            lines = [line for log in logs for line in log.read_text(errors="replace").splitlines()]
            server.stop()
            why = f"exited with status {code}" if code is not None else "did not start in time"
            tail = "\n".join(lines[-_TAIL:])
            raise ServerError(f"{name} {why} (command: {' '.join(argv)})\n{tail}")
        time.sleep(_POLL_S)
    return server
