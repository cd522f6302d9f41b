"""What a soak samples every few seconds: the servers' memory (RSS summed over their
process groups), open file descriptors (sockets apart: their number follows the clients'
connections; a leaked one is left in CLOSE_WAIT, its client gone), the entry editor's
database connections and the temporary files in the stack's tmp and data directories."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.measure.dbwatch import connections
from servelab.reliability.soak.targets import SoakError
from servelab.stack import Stack
from servelab.stack.databases import mariadb
from servelab.stack.groups import members

PAGE_KIB = 4
_CLOSE_WAIT = "08"  # the state's code in /proc/net/tcp
_SOCKET = "socket:["


@dataclass(frozen=True)
class Sample:
    at_s: float
    rss_mib: float
    fds: int  # every descriptor but sockets
    sockets: int
    close_wait: int  # sockets whose peer has closed and the server has not
    db_connections: int
    temp_files: int


def pids(stack: Stack, services: Sequence[str]) -> list[int]:
    """Every process of the services' process groups."""
    return [pid for service in services for pid in members(stack.running[service].pgid)]


def rss_mib(pids: Sequence[int]) -> float:
    total_kib = 0
    for pid in pids:
        try:
            total_kib += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KIB
        except (OSError, IndexError, ValueError):
            continue
    return total_kib / 1024


def descriptors(pids: Sequence[int]) -> list[str]:
    """What each open descriptor of the processes points at (readlink of /proc/PID/fd/N)."""
    targets = []
    for pid in pids:
        try:
            entries = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for entry in entries:
            try:
                targets.append(str(entry.readlink()))
            except OSError:
                continue
    return targets


def close_wait_inodes() -> set[str]:
    """The inodes of every TCP socket of the machine in CLOSE_WAIT."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == _CLOSE_WAIT:
                inodes.add(fields[9])
    return inodes


def db_connections(database: str | None) -> int:
    """Connections to `database` on the MariaDB the stacks use, counted as the benchmark counts
    them (bench.measure.dbwatch)."""
    if not database:
        return 0
    count = connections(mariadb(), database)
    if count is None:
        raise SoakError(f"cannot count the connections to database {database!r}")
    return count


def temp_files(dirs: Sequence[Path]) -> int:
    return sum(1 for root in dirs if root.is_dir() for path in root.rglob("*") if path.is_file())


def sample(
    stack: Stack,
    services: Sequence[str],
    database: str | None,
    dirs: Sequence[Path],
    started: float,
) -> Sample:
    group = pids(stack, services)
    targets = descriptors(group)
    sockets = [t[len(_SOCKET) : -1] for t in targets if t.startswith(_SOCKET)]
    waiting = close_wait_inodes()
    return Sample(
        at_s=round(time.monotonic() - started, 1),
        rss_mib=round(rss_mib(group), 1),
        fds=len(targets) - len(sockets),
        sockets=len(sockets),
        close_wait=sum(inode in waiting for inode in sockets),
        db_connections=db_connections(database),
        temp_files=temp_files(dirs),
    )
