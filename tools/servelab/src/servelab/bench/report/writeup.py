"""A write-up's published figures (loadtests/reference/<family>.toml).

Each figure holds what the write-up's tool printed for one endpoint of one run. A
figure's fields are those our measurements have (requests, rps, latencies in ms,
elapsed_s, errors by kind), each left out where the tool did not print it; every other
number printed (a histogram, transfer rates, per-request times) stays in `printed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from servelab.bench.errors import BenchError
from servelab.bench.report.ratios import Key
from servelab.tables import read, require


@dataclass(frozen=True)
class Figure:
    server: str
    workers: int
    endpoint: str
    requests: int | None = None
    rps: float | None = None
    avg_ms: float | None = None
    p50_ms: float | None = None
    p75_ms: float | None = None
    p90_ms: float | None = None
    p99_ms: float | None = None
    max_ms: float | None = None
    min_ms: float | None = None
    elapsed_s: float | None = None
    errors: Mapping[str, int] | None = None
    # vegeta's and boom's: the P95, and the share of requests that succeeded.
    p95_ms: float | None = None
    success_ratio: float | None = None
    # ab's percentile table: the rest of 50 66 75 80 90 95 98 99 100.
    p66_ms: float | None = None
    p80_ms: float | None = None
    p98_ms: float | None = None
    printed: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok_rps(self) -> float | None:
        return self.rps

    @property
    def error_count(self) -> int | None:
        return None if self.errors is None else sum(self.errors.values())

    def metric(self, name: str) -> float | None:
        value: float | None = getattr(self, name, None)
        return value


_FIELDS = {f.name for f in fields(Figure)} - {"server", "workers", "printed"}


@dataclass(frozen=True)
class Run:
    server: str
    workers: int
    command: str


# A write-up that prints no date.
NO_DATE = "n.d."


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
    settings: Mapping[str, str] = field(default_factory=dict)
    # The year it was written (NO_DATE where it does not say), its title as printed where
    # ours is a translation, and the language it is written in.
    year: str = NO_DATE
    original_title: str | None = None
    language: str | None = None

    @property
    def citation(self) -> str:
        """How a report names it: "*Title* (Year)", never by its file's name."""
        original = f", {self.original_title}" if self.original_title else ""
        language = f", in {self.language}" if self.language else ""
        return f"*{self.title}* ({self.year}{language}{original})"

    def figure(self, server: str, workers: int, endpoint: str) -> Figure | None:
        for figure in self.figures:
            if (figure.server, figure.workers, figure.endpoint) == (server, workers, endpoint):
                return figure
        return None

    def workers(self, server: str) -> list[int]:
        return sorted({run.workers for run in self.runs if run.server == server})

    def values(self, variants: Mapping[str, str], metric: str = "ok_rps") -> dict[Key, float]:
        """One metric keyed like a run's, for each of our variants mapped to a server here."""
        values = {}
        for variant, server in variants.items():
            for figure in self.figures:
                value = figure.metric(metric)
                if figure.server == server and value is not None:
                    values[variant, figure.workers, figure.endpoint] = value
        return values

    def cell_settings(self, keys: Mapping[Key, float]) -> dict[Key, Mapping[str, str]]:
        """The write-up's settings (the same for every run) for each of these cells."""
        return dict.fromkeys(keys, self.settings)


def _figure(server: str, workers: int, raw: Mapping[str, Any]) -> Figure:
    known = {key: value for key, value in raw.items() if key in _FIELDS}
    printed = {key: value for key, value in raw.items() if key not in _FIELDS}
    return Figure(server=server, workers=workers, printed=printed, **known)


class WriteUpError(BenchError):
    """The write-up's figures file lacks something the report needs."""


def _require(table: Mapping[str, Any], key: str, where: str) -> Any:
    return require(table, key, where, WriteUpError)


def parse_write_up(raw: Mapping[str, Any]) -> WriteUp:
    source = _require(raw, "source", "write-up")
    raw_runs = _require(raw, "runs", "write-up")
    runs = tuple(
        Run(
            _require(run, "server", "runs"),
            int(_require(run, "workers", "runs")),
            _require(run, "command", "runs"),
        )
        for run in raw_runs
    )
    figures = tuple(
        _figure(run["server"], int(run["workers"]), figure)
        for run in raw_runs
        for figure in _require(run, "figures", f"runs.{run['server']}")
    )
    return WriteUp(
        seed=_require(source, "seed", "source"),
        title=_require(source, "title", "source"),
        tool=_require(source, "tool", "source"),
        payload=_require(source, "payload", "source"),
        machine=_require(source, "machine", "source"),
        endpoints=raw.get("endpoints", {}),
        runs=runs,
        figures=figures,
        settings={str(k): str(v) for k, v in source.get("settings", {}).items()},
        year=str(source.get("year", NO_DATE)),
        original_title=source.get("original_title"),
        language=source.get("language"),
    )


def load_write_up(path: Path) -> WriteUp:
    return parse_write_up(read(path))
