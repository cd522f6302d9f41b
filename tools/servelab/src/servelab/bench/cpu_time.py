"""The CPU time a set of process groups spends between two moments, read from /proc.

`snapshot(pgids)` reads, for every process (zombies included) whose process group or
session is one of `pgids` (the stack starts each service as a session leader, so a
process that moves to a process group of its own stays counted), its user + system time
plus that of the children it has reaped (utime, stime, cutime and cstime of
/proc/<pid>/stat); `spent(before, after)` is the CPU seconds the groups used in between:

- a process that exists at both moments counts what it used in between;
- a process that appears in between (a new worker, a process-pool child) counts all it
  used, as its times start at zero when it is forked;
- a process that exits and is reaped in between by a parent that is still in the groups
  moves its whole time into that parent's cutime/cstime, so its time before the window is
  taken off again and what it used in the window stays counted;
- a process that exits in between and is reaped by a parent outside the groups (the
  group leader itself, reaped by the runner; a process re-parented to init), or by a
  parent that ignores SIGCHLD (the kernel then drops its times), is lost: the window's
  part of its time is missing from the figure. So is a process that both starts and exits
  within the window without a parent in the groups to reap it. A server's workers are
  reaped by its master, which is in the group, so this only undercounts a server that
  crashes or whose master dies during the window.

Processes are told apart by pid and start time, so a pid reused within the window is a
new process.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")
# Fields of /proc/<pid>/stat after the command name "(comm)", counted from 0 = state
# (proc(5) numbers them from 1 = pid, so field n there is n - 3 here).
_PPID, _PGRP, _SESSION, _UTIME, _STARTTIME = 1, 2, 3, 11, 19

# (pid, start time in clock ticks since boot): one process, even if its pid is reused.
ProcessId = tuple[int, int]


@dataclass(frozen=True)
class Times:
    """One process at one moment: its parent and its CPU ticks, own and reaped children's."""

    ppid: int
    ticks: int


@dataclass(frozen=True)
class Snapshot:
    processes: Mapping[ProcessId, Times]


def _stat(pid_dir: Path) -> list[str] | None:
    try:
        text = (pid_dir / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # comm may hold spaces and parentheses: the fields start after the last ")".
    return text.rsplit(")", 1)[1].split()


def snapshot(pgids: Iterable[int], proc: Path = Path("/proc")) -> Snapshot:
    """Every process, zombies included, whose process group or session is one of `pgids`."""
    wanted = set(pgids)
    processes = {}
    for pid_dir in proc.glob("[0-9]*"):
        fields = _stat(pid_dir)
        if fields is None or wanted.isdisjoint((int(fields[_PGRP]), int(fields[_SESSION]))):
            continue
        utime, stime, cutime, cstime = (int(value) for value in fields[_UTIME : _UTIME + 4])
        key = (int(pid_dir.name), int(fields[_STARTTIME]))
        processes[key] = Times(ppid=int(fields[_PPID]), ticks=utime + stime + cutime + cstime)
    return Snapshot(processes)


def spent(before: Snapshot, after: Snapshot) -> float:
    """CPU seconds the groups used between the two snapshots (see the module's rules)."""
    ticks = 0
    alive_after = {pid for pid, _ in after.processes}
    for key, times in after.processes.items():
        previous = before.processes.get(key)
        ticks += times.ticks - (previous.ticks if previous else 0)
    for key, times in before.processes.items():
        if key not in after.processes and times.ppid in alive_after:
            # Reaped by a group member: its whole time is now in the parent's cutime.
            ticks -= times.ticks
    return max(ticks, 0) / _TICKS


def per_request_us(cpu_s: float | None, requests: int | None) -> float | None:
    """CPU microseconds per request; None where either is unknown or nothing was answered."""
    if cpu_s is None or not requests:
        return None
    return cpu_s * 1e6 / requests


def seen(before: Snapshot, after: Snapshot) -> int:
    """How many processes either snapshot found in the groups."""
    return len(set(before.processes) | set(after.processes))
