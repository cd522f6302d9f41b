"""The raw results of a benchmark run, saved as JSON so a report can be rendered again."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from servelab.bench.load.shape import Load
from servelab.bench.load.tools import ToolResult
from servelab.bench.measure.cpu_time import per_request_us
from servelab.bench.measure.machine import Machine
from servelab.bench.measure.summary import CPU_US, MEMORY_MIB, Measurement
from servelab.spec.matrix import WORKERS_ENV, Key


@dataclass(frozen=True)
class CellResult:
    variant: str
    workers: int
    endpoint: str
    script: str
    env: Mapping[str, str]
    pinning: str
    commands: Mapping[str, Sequence[str]]
    k6_cpu_s: float
    k6_wall_s: float
    k6_cpus: int
    wall_s: float
    measurement: Measurement | None
    # The cell's load shape, and the settings its server started with (compose's
    # interpolation variables: the number of workers and the variant's own).
    load: Load
    settings: Mapping[str, str]
    error: str | None = None
    # The most connections the stack held to its databases on the machine's MariaDB while
    # k6 ran (bench.measure.dbwatch); None where it has none, or for results saved before.
    db_connections: int | None = None
    # CPU seconds (user + system, children reaped included) of every process of the service
    # under test during the measured k6 run (bench.measure.cpu_time), and how many processes its
    # groups held; None where not measured (a --target run, or results saved before).
    server_cpu_s: float | None = None
    server_processes: int | None = None
    # The write-ups' own tools run on the same cell right after k6 (bench.load.tools).
    tools: tuple[ToolResult, ...] = ()
    # The base URL of a stack that was already up (--target); None for a local stack.
    target: str | None = None
    # The peak summed PSS of every process the stack started (the server under test and
    # what it needs, such as nginx in front) while k6 ran (bench.measure.memory); None where not
    # measured (a --target run, or results saved before).
    server_memory_mib: float | None = None
    # A matrix with rounds (bench.load.rounds): each round's server CPU per request and
    # requests/s, in round order; this cell's figures are those of the median round.
    rounds_cpu_us: tuple[float | None, ...] = ()
    rounds_rps: tuple[float | None, ...] = ()
    # Each round's peak server memory (MiB); empty in results saved before it was kept.
    rounds_memory_mib: tuple[float | None, ...] = ()
    # The share of all CPUs' time the hypervisor took elsewhere during the measured run
    # (bench.measure.steal), in percent; None where not read.
    steal_pct: float | None = None

    @property
    def cpu_us_per_request(self) -> float | None:
        """Server CPU microseconds per completed request of the measured run."""
        requests = self.measurement.requests if self.measurement is not None else None
        return per_request_us(self.server_cpu_s, requests)

    @property
    def key(self) -> Key:
        return (self.variant, self.workers, self.endpoint)

    @property
    def k6_load(self) -> float:
        """k6's CPU time over what its CPUs could give it: near 1.0, k6 set the pace."""
        capacity = self.k6_wall_s * self.k6_cpus
        return self.k6_cpu_s / capacity if capacity else 0.0


@dataclass(frozen=True)
class BenchRun:
    family: str
    form: str
    started: str
    wall_s: float
    load_average: float
    machine: Machine
    load: Load
    payload_size: int
    k6_command: str
    cells: tuple[CellResult, ...]
    # The command line's choices: "target", "workers", "cpus" as given, and "cpus_server",
    # "cpus_k6" as used.
    options: Mapping[str, str] = field(default_factory=dict)
    # Rounds over the whole matrix (bench.load.rounds); each cell keeps its median round.
    rounds: int = 1

    def values(self, metric: str = "ok_rps") -> dict[Key, float]:
        """One metric (successful requests/s by default; CPU_US: the server's CPU
        microseconds per request) of every cell that ran, keyed for ratios."""
        return {
            cell.key: value
            for cell in self.cells
            if cell.measurement is not None and (value := _metric(cell, metric)) is not None
        }

    def round_values(self, metric: str) -> list[dict[Key, float]]:
        """Each round's values of `metric`, keyed for ratios, where the cells recorded it
        round by round (the server's CPU per request, CPU_US, its peak memory, MEMORY_MIB,
        and successful requests/s: each round's requests/s times the median round's success
        share); empty otherwise.
        A cell of a shape with one round has its value in the first round only."""
        if metric not in ROUND_METRICS or self.rounds < 2:
            return []
        per_cell = {
            cell.key: _rounds(cell, metric) for cell in self.cells if cell.measurement is not None
        }
        return [
            {
                key: value
                for key, rounds in per_cell.items()
                if len(rounds) > round_ and (value := rounds[round_])
            }
            for round_ in range(self.rounds)
        ]

    def settings(self) -> dict[Key, Mapping[str, str]]:
        return {cell.key: cell.settings for cell in self.cells}

    def loads(self) -> list[Load]:
        """Every load shape the cells ran, in order of first use."""
        return list(dict.fromkeys(cell.load for cell in self.cells))

    def cell(self, variant: str, workers: int, endpoint: str) -> CellResult | None:
        for cell in self.cells:
            if (cell.variant, cell.workers, cell.endpoint) == (variant, workers, endpoint):
                return cell
        return None

    @property
    def k6_cpu_s(self) -> float:
        return sum(cell.k6_cpu_s for cell in self.cells)


# The metrics a cell records round by round.
ROUND_METRICS = frozenset({CPU_US, "ok_rps", MEMORY_MIB})


def _rounds(cell: CellResult, metric: str) -> tuple[float | None, ...]:
    """The cell's values of `metric` (one of ROUND_METRICS) round by round; its one value
    where it ran a single round."""
    if metric == CPU_US:
        return cell.rounds_cpu_us or (cell.cpu_us_per_request,)
    if metric == MEMORY_MIB:
        return cell.rounds_memory_mib or (cell.server_memory_mib,)
    assert cell.measurement is not None
    share = 1.0 - cell.measurement.failed_rate
    if not cell.rounds_rps:
        return (cell.measurement.ok_rps,)
    return tuple(None if rps is None else rps * share for rps in cell.rounds_rps)


def _metric(cell: CellResult, metric: str) -> float | None:
    if metric == CPU_US:
        return cell.cpu_us_per_request
    if metric == MEMORY_MIB:
        return cell.server_memory_mib
    return cell.measurement.metric(metric) if cell.measurement is not None else None


def _cell(raw: Mapping[str, Any], load: Load) -> CellResult:
    """A saved cell; one saved before cells had loads and settings of their own ran the
    run's load with only the number of workers set."""
    measured = raw.get("measurement")
    return CellResult(
        **{
            **raw,
            "measurement": Measurement(**measured) if measured is not None else None,
            "load": Load(**raw["load"]) if raw.get("load") else load,
            "settings": raw.get("settings") or {WORKERS_ENV: str(raw["workers"])},
            "tools": tuple(
                ToolResult(**{**tool, "argv": list(tool["argv"])}) for tool in raw.get("tools", ())
            ),
            "rounds_cpu_us": tuple(raw.get("rounds_cpu_us", ())),
            "rounds_rps": tuple(raw.get("rounds_rps", ())),
            "rounds_memory_mib": tuple(raw.get("rounds_memory_mib", ())),
        }
    )


def run_from_json(raw: Mapping[str, Any]) -> BenchRun:
    load = Load(**raw["load"])
    return BenchRun(
        **{
            **raw,
            "machine": Machine(**raw["machine"]),
            "load": load,
            "cells": tuple(_cell(cell, load) for cell in raw["cells"]),
        }
    )


def save_run(run: BenchRun, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(run), indent=1, ensure_ascii=False) + "\n")
    return path


def load_run(path: Path) -> BenchRun:
    return run_from_json(json.loads(path.read_text()))
