"""CPU steal while a cell ran: the share of the CPUs' time the hypervisor gave elsewhere.

On a virtual machine (the development VM included) another guest's work can take the
CPUs for a while. The server's CPU time per request then rises (its caches go cold, and a
request waits while its process is not running), and two runs of one command differ. Each
cell records the share of all CPUs' time stolen during its measured run, from the `steal`
column of /proc/stat's first line, so a reader can tell a noisy cell from a slow server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

_STAT = Path("/proc/stat")
# /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal (guest time is
# counted in user and nice already).
_STEAL = 7
_COLUMNS = 8


@dataclass(frozen=True)
class CpuTimes:
    steal: int
    total: int


def read(stat: Path = _STAT) -> CpuTimes | None:
    """All CPUs' times so far, in ticks; None where the file does not give them."""
    try:
        first = stat.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    if first[:1] != ["cpu"] or len(first) < 1 + _COLUMNS:
        return None
    ticks = [int(value) for value in first[1 : 1 + _COLUMNS]]
    return CpuTimes(steal=ticks[_STEAL], total=sum(ticks))


def percent(before: CpuTimes | None, after: CpuTimes | None) -> float | None:
    """The share of the CPUs' time stolen between two readings, in percent."""
    if before is None or after is None or after.total <= before.total:
        return None
    return round(100 * (after.steal - before.steal) / (after.total - before.total), 1)
