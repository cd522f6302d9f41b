"""A write-up's published figures (loadtests/reference/<family>.toml)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Figure:
    server: str
    workers: int
    endpoint: str
    requests: int
    rps: float
    avg_ms: float
    p50_ms: float
    p75_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float


@dataclass(frozen=True)
class Run:
    server: str
    workers: int
    command: str


@dataclass(frozen=True)
class WriteUp:
    seed: str
    title: str
    tool: str
    payload: str
    machine: Mapping[str, Any]
    endpoints: Mapping[str, Mapping[str, Any]]
    runs: tuple[Run, ...]
    figures: tuple[Figure, ...]

    def figure(self, server: str, workers: int, endpoint: str) -> Figure | None:
        for figure in self.figures:
            if (figure.server, figure.workers, figure.endpoint) == (server, workers, endpoint):
                return figure
        return None

    def workers(self, server: str) -> list[int]:
        return sorted({run.workers for run in self.runs if run.server == server})

    def rates(self, variants: Mapping[str, str]) -> dict[tuple[str, int, str], float]:
        """Requests/s keyed like a run's, for each of our variants mapped to a server here."""
        return {
            (variant, figure.workers, figure.endpoint): figure.rps
            for variant, server in variants.items()
            for figure in self.figures
            if figure.server == server
        }


def parse_write_up(raw: Mapping[str, Any]) -> WriteUp:
    source = raw["source"]
    runs = tuple(Run(run["server"], int(run["workers"]), run["command"]) for run in raw["runs"])
    figures = tuple(
        Figure(server=run["server"], workers=int(run["workers"]), **figure)
        for run in raw["runs"]
        for figure in run["figures"]
    )
    return WriteUp(
        seed=source["seed"],
        title=source["title"],
        tool=source["tool"],
        payload=source["payload"],
        machine=source["machine"],
        endpoints=raw.get("endpoints", {}),
        runs=runs,
        figures=figures,
    )


def load_write_up(path: Path) -> WriteUp:
    with path.open("rb") as file:
        return parse_write_up(tomllib.load(file))
