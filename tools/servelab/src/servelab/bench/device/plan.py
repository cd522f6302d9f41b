"""The device matrix (loadtests/device/health-code.toml): variants x workers, each stack
measured under every load, and the accuracy evaluations, for one form."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servelab.bench.load.shape import Load, parse_load
from servelab.project import LOADTESTS

PLAN_FILE = LOADTESTS / "device" / "health-code.toml"
FORMS = ("device", "smoke")
# The longest a counted load may run before k6 stops it.
MAX_DURATION_S = 300.0


class PlanError(ValueError):
    """The plan file is missing something or holds something it cannot."""


@dataclass(frozen=True)
class Variant:
    name: str
    service: str
    profile: str
    env: Mapping[str, str]
    gpu: bool
    workers: tuple[int, ...]


@dataclass(frozen=True)
class Measured:
    """A named load: `clients` on new connections sharing the form's requests (ab's shape)."""

    name: str
    load: Load


@dataclass(frozen=True)
class Eval:
    name: str
    args: tuple[str, ...]
    gpu: bool


@dataclass(frozen=True)
class Stack:
    """One stack to start: a variant at a worker count, measured under every load."""

    variant: Variant
    workers: int

    @property
    def label(self) -> str:
        return f"{self.variant.name} w{self.workers}"

    @property
    def env(self) -> dict[str, str]:
        """What compose interpolates for this stack: access logs off (a line per request
        costs CPU of its own), the variant's settings and the number of workers."""
        return {"ACCESS_LOG": "0", **self.variant.env, "WEB_CONCURRENCY": str(self.workers)}


@dataclass(frozen=True)
class Plan:
    title: str
    form: str
    warmup: Load
    loads: tuple[Measured, ...]
    variants: tuple[Variant, ...]
    evals: tuple[Eval, ...]

    def stacks(self, cpus: int | None = None) -> list[Stack]:
        """Every stack in the file's order, worker counts above `cpus` left out."""
        return [
            Stack(variant, workers)
            for variant in self.variants
            for workers in variant.workers
            if cpus is None or workers <= cpus
        ]


def _ab(clients: int, requests: int) -> Load:
    table = {"vus": clients, "iterations": requests, "max_duration_s": MAX_DURATION_S}
    return parse_load(table, "device load", "ab")


def _per_form(value: Any, form: str, where: str) -> Any:
    if not isinstance(value, Mapping):
        return value
    if form not in value:
        raise PlanError(f"{where}: nothing for form {form!r}")
    return value[form]


def _variant(name: str, raw: Mapping[str, Any], form: str) -> Variant:
    where = f"variants.{name}"
    try:
        workers = _per_form(raw["workers"], form, f"{where}.workers")
        return Variant(
            name=name,
            service=str(raw["service"]),
            profile=str(raw["profile"]),
            env={str(key): str(value) for key, value in raw.get("env", {}).items()},
            gpu=bool(raw.get("gpu", False)),
            workers=tuple(int(count) for count in workers),
        )
    except KeyError as missing:
        raise PlanError(f"{where}: missing {missing}") from None


def parse_plan(raw: Mapping[str, Any], form: str) -> Plan:
    if form not in FORMS:
        raise PlanError(f"form {form!r} is none of {', '.join(FORMS)}")
    try:
        loads = tuple(
            Measured(
                name, _ab(int(table["clients"]), int(_per_form(table["requests"], form, name)))
            )
            for name, table in raw["loads"].items()
        )
        warmup = int(_per_form(raw["warmup"], form, "warmup"))
        evals = tuple(
            Eval(str(item["name"]), tuple(str(arg) for arg in item["args"]), bool(item.get("gpu")))
            for item in raw.get("eval", [])
        )
    except KeyError as missing:
        raise PlanError(f"plan: missing {missing}") from None
    variants = tuple(_variant(name, table, form) for name, table in raw["variants"].items())
    clients = max(measured.load.vus for measured in loads)
    return Plan(
        title=str(raw.get("title", "health-code on a GPU")),
        form=form,
        warmup=_ab(min(clients, warmup), warmup),
        loads=loads,
        variants=variants,
        evals=evals,
    )


def load_plan(project_dir: Path, form: str, path: Path | None = None) -> Plan:
    file = path or project_dir / PLAN_FILE
    with file.open("rb") as handle:
        return parse_plan(tomllib.load(handle), form)
