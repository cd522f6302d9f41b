"""The device matrix for one form (servelab.spec.device): variants x workers, each stack
measured under every load as the runner measures a cell, and the accuracy evaluations."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from servelab.bench.load.shape import Load, parse_load
from servelab.bench.plan.matrix import Cell
from servelab.spec import matrix
from servelab.spec.device import Device, Variant, read_device

# The longest a counted load may run before k6 stops it.
MAX_DURATION_S = 300.0
# Every answer checked: the health-code usage's screenshots, sent as JSON.
ENDPOINT_ENV = {"USAGE": "health-code", "BODY": "json"}
# Access logs off: a line per request costs CPU of its own.
SETTINGS = {"ACCESS_LOG": "0"}


def _ab(clients: int, requests: int) -> Load:
    table = {"vus": clients, "iterations": requests, "max_duration_s": MAX_DURATION_S}
    return parse_load(table, "device load", "ab")


@dataclass(frozen=True)
class Stack:
    """One stack to start: a variant at a worker count, measured under every load."""

    name: str
    variant: Variant
    workers: int

    @property
    def label(self) -> str:
        return f"{self.name} w{self.workers}"

    def cell(self, load_name: str, load: Load) -> Cell:
        """The stack under one load, as a bench cell (loadtests/health-code.js)."""
        variant = matrix.Variant(
            name=self.name,
            profile=self.variant.profile,
            service=self.variant.service,
            endpoints={},
            workers={},
            own_workers=True,
            env=self.variant.env,
            pin=False,
        )
        endpoint = matrix.Endpoint(key=load_name, script="health-code.js", env=ENDPOINT_ENV)
        return Cell(variant, self.workers, endpoint, load, SETTINGS)

    @property
    def env(self) -> dict[str, str]:
        """What compose interpolates for this stack (its cells' server_env): the settings,
        the variant's own and the number of workers."""
        return {**SETTINGS, **self.variant.env, matrix.WORKERS_ENV: str(self.workers)}


@dataclass(frozen=True)
class Plan:
    spec: Device
    form: str

    @property
    def loads(self) -> dict[str, Load]:
        return {
            name: _ab(load.clients, load.requests.of(self.form))
            for name, load in self.spec.loads.items()
        }

    @property
    def warmup(self) -> Load:
        requests = self.spec.warmup.of(self.form)
        clients = max(load.clients for load in self.spec.loads.values())
        return _ab(min(clients, requests), requests)

    def stacks(self, cpus: int | None = None) -> list[Stack]:
        """Every stack in the file's order, worker counts above `cpus` left out."""
        return [
            Stack(name, variant, workers)
            for name, variant in self.spec.variants.items()
            for workers in variant.workers.of(self.form)
            if cpus is None or workers <= cpus
        ]


def load_plan(project_dir: Path, form: str) -> Plan:
    """The matrix of the family's spec, sized for `form` (one of spec.device.FORMS)."""
    return Plan(read_device(project_dir), form)
