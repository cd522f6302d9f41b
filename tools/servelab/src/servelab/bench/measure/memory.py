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

from collections.abc import Iterable
from pathlib import Path

from servelab.bench.measure.peak import PeakWatch
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


class MemoryWatch(PeakWatch[float]):
    """`with MemoryWatch(pgids) as watch: ...`, then `watch.peak` in MiB (None: nothing could
    be read)."""

    def __init__(self, pgids: Iterable[int], interval_s: float = _INTERVAL_S) -> None:
        pgids = tuple(pgids)
        super().__init__("server-memory", interval_s, lambda: groups_mib(pgids), at_exit=True)
