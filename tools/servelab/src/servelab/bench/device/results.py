"""What a device run records: one JSON, written again after every stack so that a run cut
short still leaves what it measured."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

RESULTS_NAME = "health-code.gpu"
KIND = "servelab device run"


@dataclass(frozen=True)
class LoadResult:
    name: str
    clients: int
    requests: int
    answered: int
    failed: int
    wrong_answers: int
    rps: float
    avg_ms: float
    p50_ms: float
    p99_ms: float
    elapsed_s: float
    k6_cpu_s: float
    # The failed requests by kind (timeout, connect, non_2xx, wrong_answer) and by status.
    failures: dict[str, int] = field(default_factory=dict)
    # What the load kept busy: the servers' CPU seconds over it (every process and thread
    # of the stack), and the GPU's mean utilisation in percent (None without a GPU).
    server_cpu_s: float | None = None
    gpu_busy_pct: float | None = None

    @property
    def server_cpus(self) -> float | None:
        """How many CPUs the servers kept busy on average."""
        if self.server_cpu_s is None or self.elapsed_s <= 0:
            return None
        return self.server_cpu_s / self.elapsed_s


@dataclass(frozen=True)
class StackResult:
    variant: str
    workers: int
    service: str
    gpu: bool
    env: dict[str, str]
    # Why it did not run (no GPU here, the time budget spent), or how it failed.
    skipped: str = ""
    error: str = ""
    command: list[str] = field(default_factory=list)
    start_s: float = 0.0
    wall_s: float = 0.0
    loads: list[LoadResult] = field(default_factory=list)
    gpu_peak_total_mib: int | None = None
    gpu_peak_process_mib: int | None = None
    # The most the stack's processes held in the machine's memory at once (summed PSS), for
    # the recipes' memory limits.
    server_memory_mib: float | None = None
    # Lines of the servers' logs that speak of running out of (GPU) memory.
    out_of_memory: int = 0

    @property
    def ran(self) -> bool:
        return not self.skipped and not self.error


@dataclass(frozen=True)
class ModuleResult:
    """A command of the service's the run started after the stacks (`args`, on the GPU or
    not): why it did not run or how it failed, and how long it took."""

    name: str
    args: list[str]
    gpu: bool
    skipped: str = ""
    error: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class EvalResult(ModuleResult):
    scores: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ProfileResult(ModuleResult):
    """A stage profile (`health-code-profile --out`): its rows, each stage's CPU and wall
    milliseconds (median, min, max), as the command wrote them."""

    stages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class DeviceRun:
    title: str
    form: str
    started: str
    budget_s: float
    commit: str
    machine: dict[str, Any]
    gpus: list[dict[str, Any]]
    no_gpu: str
    k6: str
    wall_s: float = 0.0
    stacks: list[StackResult] = field(default_factory=list)
    evals: list[EvalResult] = field(default_factory=list)
    profiles: list[ProfileResult] = field(default_factory=list)
    kind: str = KIND

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".json.part")
        partial.write_text(json.dumps(asdict(self), indent=1, ensure_ascii=False) + "\n")
        partial.replace(path)
        return path


def is_device_run(path: Path) -> bool:
    try:
        return bool(json.loads(path.read_text()).get("kind") == KIND)
    except (OSError, ValueError, AttributeError):
        return False


def load_device_run(path: Path) -> DeviceRun:
    raw = json.loads(path.read_text())
    if raw.get("kind") != KIND:
        raise ValueError(f"{path} is not the results of a device run")
    return TypeAdapter(DeviceRun).validate_python(raw)
