"""The memory a cell's server holds while k6 runs: the summed PSS of every process the
stack started, sampled once a second, its peak kept.

PSS (proportional set size, /proc/<pid>/smaps_rollup) counts a page that k processes share
as 1/k of a page in each, so the sum over the processes is what they take together.
Summed RSS would count a shared page once per process: gunicorn's forked workers share the
pages their master loaded before forking, and N single-process replicas share only the
libraries' file pages, so RSS would overstate the workers' cost against the replicas'.
Where smaps_rollup cannot be read (a kernel before 4.14) a process counts its VmRSS.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from servelab.stack.groups import members

_INTERVAL_S = 1.0
_PROC = Path("/proc")


def _field_kib(path: Path, name: str) -> int | None:
    """The value of a `Name:   123 kB` line of a /proc file, in KiB."""
    for line in path.read_text().splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return int(value.split()[0])
    return None


def process_kib(pid: int, proc: Path = _PROC) -> int | None:
    """The process's PSS (else its RSS) in KiB; None once it has gone."""
    try:
        return _field_kib(proc / str(pid) / "smaps_rollup", "Pss")
    except FileNotFoundError:
        if not (proc / str(pid)).exists():
            return None
    except (PermissionError, ProcessLookupError):
        pass
    try:
        return _field_kib(proc / str(pid) / "status", "VmRSS")
    except (FileNotFoundError, PermissionError, ProcessLookupError):
        return None


def groups_mib(pgids: Iterable[int]) -> float | None:
    """The summed PSS of every live process of the process groups, in MiB; None if none
    could be read."""
    sizes = [process_kib(pid) for pgid in pgids for pid in members(pgid)]
    known = [size for size in sizes if size is not None]
    return sum(known) / 1024 if known else None


class MemoryWatch:
    """`with MemoryWatch(pgids) as watch: ...`, then `watch.peak_mib` (None: nothing could
    be read)."""

    def __init__(self, pgids: Iterable[int], interval_s: float = _INTERVAL_S) -> None:
        self._pgids = tuple(pgids)
        self._interval = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="server-memory", daemon=True)
        self.peak_mib: float | None = None

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.sample()

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(self._interval):
                return

    def sample(self) -> None:
        size = groups_mib(self._pgids)
        if size is not None:
            self.peak_mib = size if self.peak_mib is None else max(self.peak_mib, size)
