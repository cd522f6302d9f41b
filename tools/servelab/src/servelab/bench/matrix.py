"""A benchmark matrix (loadtests/matrix/<family>.toml): variants x workers x endpoints."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servelab.bench.errors import BenchError
from servelab.bench.ratios import GoalSpec, RatioSpec, Side

FORMS = ("quick", "full")


class MatrixError(BenchError):
    """The matrix file is missing something or names something that does not exist."""


@dataclass(frozen=True)
class Endpoint:
    key: str
    script: str
    env: Mapping[str, str]


@dataclass(frozen=True)
class Variant:
    name: str
    profile: str
    service: str
    write_up: str | None
    endpoints: Mapping[str, tuple[Endpoint, ...]]
    workers: Mapping[str, tuple[int, ...]]

    def endpoints_for(self, form: str) -> tuple[Endpoint, ...]:
        return self.endpoints.get(form, ())


@dataclass(frozen=True)
class Load:
    vus: int
    duration_s: float
    warmup_s: float

    @property
    def seconds(self) -> float:
        return self.warmup_s + self.duration_s


@dataclass(frozen=True)
class Payload:
    size: int
    volume: str
    name: str


@dataclass(frozen=True)
class Cell:
    variant: Variant
    workers: int
    endpoint: Endpoint

    @property
    def label(self) -> str:
        return f"{self.variant.name} w{self.workers} {self.endpoint.key}"


@dataclass(frozen=True)
class Matrix:
    family: str
    title: str
    write_up: str
    payload: Payload
    loads: Mapping[str, Load]
    variants: tuple[Variant, ...]
    ratios: tuple[RatioSpec, ...]
    goals: tuple[GoalSpec, ...]

    def load(self, form: str) -> Load:
        if form not in self.loads:
            raise MatrixError(f"{self.family}: no [load.{form}]")
        return self.loads[form]

    def cells(self, form: str) -> list[Cell]:
        """Every cell of `form`, fewer workers first. Variants take turns endpoint by
        endpoint, so that a drift in the machine's state during the run touches every
        variant alike instead of the ones that happen to run last."""
        keys = dict.fromkeys(
            e.key for variant in self.variants for e in variant.endpoints_for(form)
        )
        workers = sorted({w for variant in self.variants for w in variant.workers.get(form, ())})
        return [
            Cell(variant, count, endpoint)
            for count in workers
            for key in keys
            for variant in self.variants
            if count in variant.workers.get(form, ())
            for endpoint in variant.endpoints_for(form)
            if endpoint.key == key
        ]


def _require(table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise MatrixError(f"{where}: missing `{key}`")
    return table[key]


def _endpoints(raw: Mapping[str, Any]) -> dict[str, tuple[Endpoint, ...]]:
    sets = {}
    for name, items in raw.items():
        sets[name] = tuple(
            Endpoint(
                key=_require(item, "key", f"endpoints.{name}"),
                script=_require(item, "script", f"endpoints.{name}"),
                env={str(k): str(v) for k, v in item.get("env", {}).items()},
            )
            for item in items
        )
    return sets


def _variant(
    name: str, raw: Mapping[str, Any], sets: Mapping[str, tuple[Endpoint, ...]]
) -> Variant:
    where = f"variants.{name}"
    workers = _require(raw, "workers", where)
    unknown = set(workers) - set(FORMS)
    if unknown:
        raise MatrixError(f"{where}: workers for unknown form(s) {sorted(unknown)}")
    return Variant(
        name=name,
        profile=_require(raw, "profile", where),
        service=_require(raw, "service", where),
        write_up=raw.get("write_up"),
        endpoints=_variant_endpoints(_require(raw, "endpoints", where), sets, where),
        workers={form: tuple(int(w) for w in values) for form, values in workers.items()},
    )


def _variant_endpoints(
    raw: str | Sequence[str] | Mapping[str, str | Sequence[str]],
    sets: Mapping[str, tuple[Endpoint, ...]],
    where: str,
) -> dict[str, tuple[Endpoint, ...]]:
    """`endpoints`: a set name, a list of set names, or a table of those per form."""
    per_form = raw if isinstance(raw, Mapping) else dict.fromkeys(FORMS, raw)
    unknown = set(per_form) - set(FORMS)
    if unknown:
        raise MatrixError(f"{where}: endpoints for unknown form(s) {sorted(unknown)}")
    chosen = {}
    for form, names in per_form.items():
        listed = [names] if isinstance(names, str) else list(names)
        missing = [name for name in listed if name not in sets]
        if missing:
            raise MatrixError(f"{where}: no endpoint set {missing[0]!r}")
        chosen[form] = tuple(endpoint for name in listed for endpoint in sets[name])
    return chosen


def _side(raw: Mapping[str, Any]) -> Side:
    variants = raw.get("variants")
    return Side(variants=tuple(variants) if variants else None, endpoint=raw.get("endpoint"))


def _check_names(
    ratios: Sequence[RatioSpec], goals: Sequence[GoalSpec], variants: set[str]
) -> None:
    names = {ratio.name for ratio in ratios}
    for goal in goals:
        if goal.ratio not in names:
            raise MatrixError(f"goal {goal.goal!r} names no ratio {goal.ratio!r}")
    for ratio in ratios:
        for side in (ratio.numerator, ratio.denominator):
            unknown = set(side.variants or ()) - variants
            if unknown:
                raise MatrixError(f"ratio {ratio.name!r} names unknown variants {sorted(unknown)}")


def parse_matrix(raw: Mapping[str, Any]) -> Matrix:
    family = _require(raw, "family", "matrix")
    sets = _endpoints(_require(raw, "endpoints", family))
    variants = tuple(
        _variant(name, table, sets) for name, table in _require(raw, "variants", family).items()
    )
    payload = _require(raw, "payload", family)
    ratios = tuple(
        RatioSpec(
            name=_require(item, "name", "ratios"),
            about=item.get("about", ""),
            numerator=_side(_require(item, "numerator", "ratios")),
            denominator=_side(_require(item, "denominator", "ratios")),
        )
        for item in raw.get("ratios", [])
    )
    goals = tuple(
        GoalSpec(
            goal=_require(item, "goal", "goals"),
            ratio=_require(item, "ratio", "goals"),
            minimum=float(_require(item, "min", "goals")),
        )
        for item in raw.get("goals", [])
    )
    _check_names(ratios, goals, {variant.name for variant in variants})
    return Matrix(
        family=family,
        title=raw.get("title", family),
        write_up=_require(raw, "write_up", family),
        payload=Payload(
            size=int(_require(payload, "size", "payload")),
            volume=_require(payload, "volume", "payload"),
            name=_require(payload, "name", "payload"),
        ),
        loads={
            form: Load(
                vus=int(_require(table, "vus", f"load.{form}")),
                duration_s=float(_require(table, "duration_s", f"load.{form}")),
                warmup_s=float(table.get("warmup_s", 0)),
            )
            for form, table in _require(raw, "load", family).items()
        },
        variants=variants,
        ratios=ratios,
        goals=goals,
    )


def matrix_path(project_dir: Path, family: str) -> Path:
    return project_dir / "loadtests" / "matrix" / f"{family}.toml"


def load_matrix(project_dir: Path, family: str) -> Matrix:
    path = matrix_path(project_dir, family)
    if not path.is_file():
        known = sorted(p.stem for p in path.parent.glob("*.toml"))
        raise MatrixError(f"no benchmark family {family!r} (known: {', '.join(known) or 'none'})")
    with path.open("rb") as file:
        return parse_matrix(tomllib.load(file))
