"""The machine a benchmark ran on, as a report names it."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    cpu_model: str
    cpus: int
    memory_gib: float
    os: str
    kernel: str
    python: str
    k6: str

    def describe(self) -> str:
        return (
            f"{self.cpu_model}, {self.cpus} CPUs, {self.memory_gib:.1f} GiB memory, "
            f"{self.os} (Linux {self.kernel}), Python {self.python}, {self.k6}"
        )


def _field(path: Path, key: str, separator: str) -> str | None:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, found, value = line.partition(separator)
        if found and name.strip() == key:
            return value.strip().strip('"')
    return None


def this_machine(k6: str) -> Machine:
    memory_kib = _field(Path("/proc/meminfo"), "MemTotal", ":")
    return Machine(
        cpu_model=_field(Path("/proc/cpuinfo"), "model name", ":")
        or platform.processor()
        or "unknown",
        cpus=len(os.sched_getaffinity(0)),
        memory_gib=int(memory_kib.split()[0]) / 1024**2 if memory_kib else 0.0,
        os=_field(Path("/etc/os-release"), "PRETTY_NAME", "=") or platform.system(),
        kernel=platform.release(),
        python=platform.python_version(),
        k6=k6,
    )
