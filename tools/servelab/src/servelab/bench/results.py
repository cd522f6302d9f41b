"""The raw results of a benchmark run, saved as JSON so a report can be rendered again."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from servelab.bench.machine import Machine
from servelab.bench.matrix import Load
from servelab.bench.summary import Measurement


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
    error: str | None = None

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

    def rates(self) -> dict[tuple[str, int, str], float]:
        """Successful requests/s of every cell that ran, keyed for ratios."""
        return {
            (cell.variant, cell.workers, cell.endpoint): cell.measurement.ok_rps
            for cell in self.cells
            if cell.measurement is not None
        }

    def cell(self, variant: str, workers: int, endpoint: str) -> CellResult | None:
        for cell in self.cells:
            if (cell.variant, cell.workers, cell.endpoint) == (variant, workers, endpoint):
                return cell
        return None

    @property
    def k6_cpu_s(self) -> float:
        return sum(cell.k6_cpu_s for cell in self.cells)


def _cell(raw: Mapping[str, Any]) -> CellResult:
    measured = raw.get("measurement")
    return CellResult(
        **{**raw, "measurement": Measurement(**measured) if measured is not None else None}
    )


def run_from_json(raw: Mapping[str, Any]) -> BenchRun:
    return BenchRun(
        **{
            **raw,
            "machine": Machine(**raw["machine"]),
            "load": Load(**raw["load"]),
            "cells": tuple(_cell(cell) for cell in raw["cells"]),
        }
    )


def save_run(run: BenchRun, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(run), indent=1, ensure_ascii=False) + "\n")
    return path


def load_run(path: Path) -> BenchRun:
    return run_from_json(json.loads(path.read_text()))
