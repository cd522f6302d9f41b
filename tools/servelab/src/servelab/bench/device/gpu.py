"""What the GPU is, how much of its memory a stack's processes held and how busy it was,
read from nvidia-smi (the driver's own tool: no CUDA library is loaded here)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Collection
from typing import Any

from servelab.bench.measure.peak import Sampler
from servelab.stack.groups import members

_TIMEOUT_S = 10.0
# How often the memory and the utilisation are read while a stack runs.
_EVERY_S = 0.25


def _smi(*args: str) -> list[list[str]] | None:
    """nvidia-smi's CSV rows (no header, no units), or None where it fails."""
    argv = ["nvidia-smi", *args, "--format=csv,noheader,nounits"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [[part.strip() for part in line.split(",")] for line in done.stdout.splitlines() if line]


def gpus() -> tuple[list[dict[str, Any]], str]:
    """The GPUs nvidia-smi lists (name, driver, memory_mib), or why there is none to use."""
    if shutil.which("nvidia-smi") is None:
        return [], "no NVIDIA GPU on this machine (nvidia-smi not found)"
    rows = _smi("--query-gpu=name,driver_version,memory.total")
    if rows is None:
        return [], "nvidia-smi failed: no usable NVIDIA driver"
    found = [{"name": n, "driver": d, "memory_mib": int(float(mib))} for n, d, mib in rows]
    return found, "" if found else "nvidia-smi lists no GPU"


def _reading(text: str) -> float | None:
    """A figure nvidia-smi printed; None where the driver cannot say ("[N/A]")."""
    try:
        return float(text)
    except ValueError:
        return None


class GpuMemoryWatch(Sampler):
    """Samples the GPU's memory while a stack runs: the most its processes (those in
    `pgids`) held at once, and the most any one of them held."""

    def __init__(self, pgids: Collection[int]) -> None:
        super().__init__("gpu-memory", _EVERY_S, at_exit=True)
        self.pgids = pgids
        self.peak_total_mib = 0
        self.peak_process_mib = 0
        self.samples = 0

    def sample(self) -> None:
        rows = _smi("--query-compute-apps=pid,used_memory")
        if rows is None:
            return
        pids = {str(pid) for pgid in self.pgids for pid in members(pgid)} if rows else set()
        ours = [int(_reading(r[1]) or 0) for r in rows if len(r) == 2 and r[0] in pids]
        self.samples += 1
        self.peak_total_mib = max(self.peak_total_mib, sum(ours))
        self.peak_process_mib = max(self.peak_process_mib, max(ours, default=0))


class BusyWatch(Sampler):
    """The GPU's utilisation while a load runs: nvidia-smi's utilization.gpu, the share of
    the last sample period in which a kernel ran, of the busiest GPU at each reading."""

    def __init__(self) -> None:
        super().__init__("gpu-busy", _EVERY_S, at_exit=False)
        self.readings: list[float] = []

    def sample(self) -> None:
        read = [_reading(row[0]) for row in _smi("--query-gpu=utilization.gpu") or [] if row]
        if busy := [value for value in read if value is not None]:
            self.readings.append(max(busy))

    @property
    def mean_pct(self) -> float | None:
        return sum(self.readings) / len(self.readings) if self.readings else None
