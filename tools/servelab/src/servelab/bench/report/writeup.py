"""A write-up's published figures (loadtests/reference/<family>.toml).

Each figure holds what the write-up's tool printed for one endpoint of one run. A
figure's fields are those our measurements have (requests, rps, latencies in ms,
elapsed_s, errors by kind), each left out where the tool did not print it; every other
number printed (a histogram, transfer rates, per-request times) stays in `printed`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from servelab.bench.errors import BenchError
from servelab.spec.family import Spec, SpecError, validate
from servelab.spec.matrix import Key, Text


class Figure(BaseModel):
    """One endpoint's figures in one run; what else the tool printed is in `printed`."""

    model_config = ConfigDict(extra="allow", frozen=True)

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
    errors: dict[str, int] | None = None
    # vegeta's and boom's: the P95, and the share of requests that succeeded.
    p95_ms: float | None = None
    success_ratio: float | None = None
    # ab's percentile table: the rest of 50 66 75 80 90 95 98 99 100.
    p66_ms: float | None = None
    p80_ms: float | None = None
    p98_ms: float | None = None

    @property
    def printed(self) -> dict[str, Any]:
        return self.model_extra or {}

    @property
    def ok_rps(self) -> float | None:
        return self.rps

    @property
    def error_count(self) -> int | None:
        return None if self.errors is None else sum(self.errors.values())

    def metric(self, name: str) -> float | None:
        value: float | None = None if name in self.printed else getattr(self, name, None)
        return value


class Run(Spec):
    server: str
    workers: int
    command: str
    figures: tuple[Figure, ...]

    @model_validator(mode="before")
    @classmethod
    def _own_figures(cls, raw: Any) -> Any:
        """Each figure is of this run's server and workers."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("figures"), list):
            return raw
        run = {"server": raw.get("server"), "workers": raw.get("workers")}
        return {**raw, "figures": [{**figure, **run} for figure in raw["figures"]]}


# A write-up that prints no date.
NO_DATE = "n.d."


class WriteUp(Spec):
    """[source] (its keys are the write-up's own), the write-up's table of its endpoints,
    and its runs."""

    seed: str
    title: str
    tool: str
    payload: str
    machine: dict[str, Any]
    settings: Mapping[str, Text] = {}
    # The year it was written (NO_DATE where it does not say), its title as printed where
    # ours is a translation, and the language it is written in.
    year: Text = NO_DATE
    original_title: str | None = None
    language: str | None = None
    endpoints: Mapping[str, Mapping[str, Any]] = {}
    runs: tuple[Run, ...]

    @model_validator(mode="before")
    @classmethod
    def _source(cls, raw: Any) -> Any:
        if not isinstance(raw, Mapping):
            return raw
        return {**raw.get("source", {}), **{k: v for k, v in raw.items() if k != "source"}}

    @property
    def figures(self) -> tuple[Figure, ...]:
        return tuple(figure for run in self.runs for figure in run.figures)

    @property
    def citation(self) -> str:
        """How a report names it: "*Title* (Year)", never by its file's name."""
        original = f", {self.original_title}" if self.original_title else ""
        language = f", in {self.language}" if self.language else ""
        return f"*{self.title}* ({self.year}{language}{original})"

    def figure(self, server: str, workers: int, endpoint: str) -> Figure | None:
        wanted = (server, workers, endpoint)
        return next((f for f in self.figures if (f.server, f.workers, f.endpoint) == wanted), None)

    def workers(self, server: str) -> list[int]:
        return sorted({run.workers for run in self.runs if run.server == server})

    def values(self, variants: Mapping[str, str], metric: str = "ok_rps") -> dict[Key, float]:
        """One metric keyed like a run's, for each of our variants mapped to a server here."""
        return {
            (variant, figure.workers, figure.endpoint): value
            for variant, server in variants.items()
            for figure in self.figures
            if figure.server == server and (value := figure.metric(metric)) is not None
        }


class WriteUpError(BenchError):
    """The write-up's figures file lacks something the report needs."""


def load_write_up(path: Path) -> WriteUp:
    try:
        with path.open("rb") as file:
            return validate(WriteUp, tomllib.load(file), str(path))
    except (OSError, tomllib.TOMLDecodeError, SpecError) as error:
        raise WriteUpError(str(error)) from error
