"""The CPU time a set of process groups spends between two moments, read from /proc.

`snapshot(pgids)` reads every process (zombies included) whose process group or session
is one of `pgids` (the stack starts each service as a session leader, so a process that
moves to a process group of its own stays counted): the CPU time of each of its threads
to the nanosecond (/proc/<pid>/task/<tid>/schedstat, the scheduler's own count), and the
time of the children it has reaped (cutime and cstime of /proc/<pid>/stat, in clock
ticks). `spent(before, after)` is the CPU seconds the groups used in between:

- a thread that exists at both moments counts what it used in between, a thread that
  appears counts all it used (a new worker, a process-pool child: their times start at
  zero);
- a process that exits and is reaped in between by a parent that is still in the groups
  moves its whole time into that parent's cutime/cstime, so its time before the window is
  taken off again and what it used in the window stays counted (to a couple of clock
  ticks: the parent's cutime and cstime are whole ticks);
- lost, so missing from the figure, is the window's part of the time of: a thread that
  exits in between (its time moves to its process's own total, which /proc gives only in
  clock ticks); a process that exits in between and is reaped by a parent outside the
  groups (the group leader itself, reaped by the runner; a process re-parented to init),
  or by a parent that ignores SIGCHLD (the kernel then drops its times); a process that
  both starts and exits within the window without a parent in the groups to reap it. A
  server's workers and threads live across a measured run and are reaped by its master,
  which is in the group, so this only undercounts a server that crashes, or whose master
  dies or whose pool retires a thread, during the window.

Per-thread nanoseconds, not the process's utime + stime: those are whole clock ticks
(10 ms at USER_HZ 100), each truncated, so the difference of two readings is off by up to
two ticks a process, a fifth of the 0.1 s that a cell of 300 cheap requests uses. Where
the kernel gives no schedstat, a process counts its utime + stime as one thread.

Processes are told apart by pid and start time, so a pid reused within the window is a new
process; a thread whose count went down between the readings is a new thread with a
reused id.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_NS_PER_TICK = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
# Fields of /proc/<pid>/stat after the command name "(comm)", counted from 0 = state
# (proc(5) numbers them from 1 = pid, so field n there is n - 3 here).
_PPID, _PGRP, _SESSION, _UTIME, _CUTIME, _STARTTIME = 1, 2, 3, 11, 13, 19
# The id a process's utime + stime go under where it has no per-thread schedstat.
WHOLE_PROCESS = -1

# (pid, start time in clock ticks since boot): one process, even if its pid is reused.
ProcessId = tuple[int, int]


@dataclass(frozen=True)
class Times:
    """One process at one moment: its parent, each live thread's CPU nanoseconds by thread
    id, and its reaped children's CPU nanoseconds (to a clock tick)."""

    ppid: int
    threads: Mapping[int, int]
    children_ns: int = 0

    @property
    def total_ns(self) -> int:
        return sum(self.threads.values()) + self.children_ns


@dataclass(frozen=True)
class Snapshot:
    processes: Mapping[ProcessId, Times]


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None


def _stat(pid_dir: Path) -> list[str] | None:
    text = _read(pid_dir / "stat")
    # comm may hold spaces and parentheses: the fields start after the last ")".
    return text.rsplit(")", 1)[1].split() if text is not None else None


def _threads(pid_dir: Path, fields: list[str]) -> dict[int, int]:
    """Each live thread's CPU nanoseconds (schedstat's first field); the process's own
    utime + stime as one thread where schedstat is missing."""
    threads = {}
    try:
        tasks = list((pid_dir / "task").iterdir())
    except (FileNotFoundError, ProcessLookupError, PermissionError, NotADirectoryError):
        tasks = []
    for task in tasks:
        text = _read(task / "schedstat")
        if text is not None and task.name.isdigit():
            threads[int(task.name)] = int(text.split()[0])
    if not threads:
        utime, stime = (int(value) for value in fields[_UTIME : _UTIME + 2])
        threads[WHOLE_PROCESS] = (utime + stime) * _NS_PER_TICK
    return threads


def snapshot(pgids: Iterable[int], proc: Path = Path("/proc")) -> Snapshot:
    """Every process, zombies included, whose process group or session is one of `pgids`."""
    wanted = set(pgids)
    processes = {}
    for pid_dir in proc.glob("[0-9]*"):
        fields = _stat(pid_dir)
        if fields is None or wanted.isdisjoint((int(fields[_PGRP]), int(fields[_SESSION]))):
            continue
        cutime, cstime = (int(value) for value in fields[_CUTIME : _CUTIME + 2])
        key = (int(pid_dir.name), int(fields[_STARTTIME]))
        processes[key] = Times(
            ppid=int(fields[_PPID]),
            threads=_threads(pid_dir, fields),
            children_ns=(cutime + cstime) * _NS_PER_TICK,
        )
    return Snapshot(processes)


def spent(before: Snapshot, after: Snapshot) -> float:
    """CPU seconds the groups used between the two snapshots (see the module's rules)."""
    ns = 0
    alive_after = {pid for pid, _ in after.processes}
    for key, times in after.processes.items():
        previous = before.processes.get(key)
        ns += times.children_ns - (previous.children_ns if previous else 0)
        for tid, used in times.threads.items():
            was = previous.threads.get(tid, 0) if previous else 0
            ns += used - was if used >= was else used
    for key, times in before.processes.items():
        if key not in after.processes and times.ppid in alive_after:
            # Reaped by a group member: its whole time is now in the parent's cutime.
            ns -= times.total_ns
    return max(ns, 0) / 1e9


def per_request_us(cpu_s: float | None, requests: int | None) -> float | None:
    """CPU microseconds per request; None where either is unknown or nothing was answered."""
    if cpu_s is None or not requests:
        return None
    return cpu_s * 1e6 / requests


def seen(before: Snapshot, after: Snapshot) -> int:
    """How many processes either snapshot found in the groups."""
    return len(set(before.processes) | set(after.processes))
